"""The match loop with in-process agents: records, fallbacks, ranks, and what bots may see."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from arena.match import MatchRecord, MatchSpec, demote_faulted, run_match
from arena.runtime.botproc import FaultKind, LocalConnection
from arena.runtime.manifest import BotKind, BotSpec, load_bot
from arena.runtime.pool import BotPool

SEED = 987_654_321


class Recorder:
    """Plays the first legal action and keeps every message; misbehaves where told."""

    version = "1"

    def __init__(self, name: str, bad_at: int | None = None) -> None:
        self.name = name
        self.messages: list[Mapping[str, Any]] = []
        self.bad_at = bad_at

    def receive(self, message: Mapping[str, Any]) -> None:
        self.messages.append(message)

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        self.messages.append(json.loads(json.dumps(message)))
        acts = sum(1 for m in self.messages if m["type"] == "act")
        if acts == self.bad_at:
            return {"id": message["id"], "index": 99}
        return {"id": message["id"], "index": 0}


def seat_agents(pool: BotPool, agents: list[Recorder]) -> tuple[BotSpec, ...]:
    bots = []
    for i, agent in enumerate(agents):
        bot = BotSpec(agent.name, BotKind.BUILTIN, f"test:{i}")
        pool.put(bot, 0, LocalConnection(agent, pool.limits))
        bots.append(bot)
    return tuple(bots)


def test_demote_faulted_puts_faulted_seats_last_sharing_places() -> None:
    assert demote_faulted((1, 2, 3, 4), set()) == (1, 2, 3, 4)
    assert demote_faulted((1, 2, 3, 4), {0}) == (4, 1, 2, 3)
    assert demote_faulted((1, 2, 2, 4), {0, 3}) == (3, 1, 1, 3)
    assert demote_faulted((1, 1, 3), {0, 1, 2}) == (1, 1, 1)


def test_a_match_record_is_plain_json_and_replays_to_the_same_result() -> None:
    with BotPool() as pool:
        bots = (load_bot("builtin:random"), load_bot("builtin:first"), load_bot("builtin:random"))
        record = run_match(MatchSpec("m-1", "take5", 5, bots), pool)
    data = json.loads(json.dumps(record.to_json()))
    assert MatchRecord.from_json(data).to_json() == data
    assert data["match_id"] == "m-1" and data["seed"] == 5 and data["faults"] == []
    assert [s["bot"] for s in data["seats"]] == [
        "builtin:random",
        "builtin:first",
        "builtin:random",
    ]
    state = record.replay().play()
    assert state.is_over() and state.result().to_json() == data["result"]
    assert data["ranks"] == data["result"]["ranks"]
    assert [d["count"] for d in data["decisions"]] == [
        sum(1 for s, _ in record.actions if s == seat) for seat in range(3)
    ]


def test_same_seed_same_bots_same_record() -> None:
    def play() -> tuple[object, object]:
        with BotPool() as pool:
            bots = tuple(load_bot(b) for b in ("builtin:random", "builtin:random", "builtin:first"))
            record = run_match(MatchSpec("same", "take5", 11, bots), pool)
        return record.actions, record.result

    assert play() == play()


def test_bots_never_see_the_seed_or_another_seats_hand() -> None:
    agents = [Recorder(f"r{i}") for i in range(4)]
    with BotPool() as pool:
        record = run_match(MatchSpec("leak", "take5", SEED, seat_agents(pool, agents)), pool)
    state = record.replay().new_state()
    for seat, agent in enumerate(agents):
        text = json.dumps(agent.messages)
        assert str(SEED) not in text
        kinds = [m["type"] for m in agent.messages]
        assert kinds[0] == "start" and kinds[-1] == "end" and "act" in kinds
        assert agent.messages[0]["seat"] == seat
        deals = [e for m in agent.messages for e in m.get("events", []) if e["type"] == "deal"]
        assert deals and deals[0]["hand"] == state.observation(seat)["hand"]
        assert len(deals) == record.result["details"]["rounds"]  # type: ignore[index]


def test_events_reach_each_seat_once_and_in_order() -> None:
    agents = [Recorder(f"r{i}") for i in range(3)]
    with BotPool() as pool:
        record = run_match(MatchSpec("ev", "take5", 3, seat_agents(pool, agents)), pool)
    final = record.replay().play()
    for seat, agent in enumerate(agents):
        seen = [e for m in agent.messages for e in m.get("events", [])]
        assert seen == final.events_for(seat)


def test_a_faulted_seat_is_played_by_the_fallback_and_ranked_last() -> None:
    agents = [Recorder("ok0"), Recorder("bad", bad_at=3), Recorder("ok2")]
    with BotPool() as pool:
        record = run_match(MatchSpec("f", "take5", 1, seat_agents(pool, agents)), pool)
        assert len(pool) == 2  # the faulted seat's connection was discarded
    (fault,) = record.faults
    assert MatchRecord.from_json(record.to_json()) == record
    assert fault.seat == 1 and fault.kind is FaultKind.ILLEGAL_ACTION
    assert "index 99" in fault.message
    assert record.ranks[1] == 3
    assert sorted(record.ranks[s] for s in (0, 2)) in ([1, 2], [1, 1])
    # every later decision of seat 1 was the first legal action, and is marked as a fallback
    later = [i for i, (s, _) in enumerate(record.actions) if s == 1 and i >= fault.step]
    assert later and set(later) <= set(record.fallback_steps)
    assert record.replay().play().result().to_json() == record.result
    assert agents[1].messages[-1]["type"] == "act"  # no end message after the fault


def test_a_bot_that_cannot_start_is_a_fault_and_the_match_still_finishes(tmp_path: Any) -> None:
    (tmp_path / "run").write_text("not a program\n")  # its own file, not executable
    bot = BotSpec("ghost", BotKind.PROCESS, "ghost", (str(tmp_path / "run"),), tmp_path)
    with BotPool() as pool:
        record = run_match(MatchSpec("g", "take5", 2, (bot, load_bot("builtin:first"))), pool)
    (fault,) = record.faults
    assert fault.kind is FaultKind.START_FAILED and fault.step == 0
    assert record.ranks == (2, 1)
    assert len(record.fallback_steps) == sum(1 for s, _ in record.actions if s == 0)


@pytest.mark.parametrize("seats", [2, 5, 10])
def test_every_seat_count_plays(seats: int) -> None:
    with BotPool() as pool:
        bots = (load_bot("builtin:random"),) * seats
        record = run_match(MatchSpec("n", "take5", seats, bots, {"max_rounds": 1}), pool)
        assert len(pool) == seats  # one agent per copy of the bot
    assert len(record.ranks) == seats and not record.faults
