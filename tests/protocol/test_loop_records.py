"""The match loop's shortcuts change no record and no message (issue 15).

In-process seats that read only ``legal`` (``builtin:random``, ``builtin:first``) are played
without building observations, events or messages for them, and Ten's observation keeps caches.
The digests below were taken on main before either change: every record (timings set aside) and
every message a seat that reads everything receives must stay byte for byte the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import pytest

from arena.match import MatchSpec, run_match
from arena.runtime.botproc import LocalConnection
from arena.runtime.manifest import BotKind, BotSpec, load_bot
from arena.runtime.pool import BotPool

TIMINGS = ("seconds",)
"""Record fields that are measurements, not outcomes (``decisions`` keeps its counts)."""


def outcome(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record without its timings: what must not change by a byte."""
    data = {k: v for k, v in record.items() if k not in TIMINGS}
    data["decisions"] = [{"count": d["count"]} for d in record["decisions"]]
    return data


def digest(items: list[Any]) -> str:
    text = "\n".join(json.dumps(item, sort_keys=True, separators=(",", ":")) for item in items)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Reader:
    """An in-process agent that reads every message (so it gets the whole act message), plays
    the first legal action, and keeps every message it was sent, as JSON text."""

    version = "1"

    def __init__(self, name: str) -> None:
        self.name = name
        self.messages: list[Any] = []

    def receive(self, message: Mapping[str, Any]) -> None:
        self.messages.append(json.loads(json.dumps(message)))

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        self.messages.append(json.loads(json.dumps(message)))
        legal = message["legal"]
        return {"id": message["id"], "index": (len(self.messages) * 7) % len(legal)}


SEATINGS: dict[str, tuple[str, ...]] = {
    "random4": ("builtin:random",) * 4,
    "first3": ("builtin:first",) * 3,
    "mixed5": (
        "builtin:random",
        "builtin:first",
        "builtin:random",
        "builtin:first",
        "builtin:random",
    ),
}

RECORDS = {
    ("take5", "random4"): "40b0ba0e508f3d1d",
    ("take5", "first3"): "e88b3e2ae59d6c81",
    ("take5", "mixed5"): "877814a2534296e9",
    ("ten", "random4"): "238ace1593963d79",
    ("ten", "first3"): "a41d7193977624b3",
    ("ten", "mixed5"): "713c66806ffb7356",
    ("phase10", "random4"): "c404748fddee1ced",
    ("phase10", "first3"): "96615b69a658cb5e",
    ("phase10", "mixed5"): "0f5957058daaf9f9",
}


@pytest.mark.parametrize(("game", "seating"), sorted(RECORDS))
def test_in_process_records_are_unchanged(game: str, seating: str) -> None:
    bots = tuple(load_bot(text) for text in SEATINGS[seating])
    matches = 2 if game == "phase10" else 6
    with BotPool() as pool:
        records = [
            outcome(run_match(MatchSpec(f"{game}-{k}", game, 100 + k, bots), pool).to_json())
            for k in range(matches)
        ]
    assert digest(records) == RECORDS[(game, seating)]


MESSAGES = {"phase10": "d59b57af2d7436b0", "take5": "c2f6b238ee6d34e2", "ten": "3c66800bac214388"}


@pytest.mark.parametrize("game", sorted(MESSAGES))
def test_a_seat_that_reads_everything_gets_the_same_messages(game: str) -> None:
    """Two reading seats among legal-only ones: their messages, and the records, as before."""
    readers = [Reader("reader-a"), Reader("reader-b")]
    matches = 1 if game == "phase10" else 3
    with BotPool() as pool:
        seats: list[BotSpec] = []
        for i, reader in enumerate(readers):
            bot = BotSpec(reader.name, BotKind.BUILTIN, f"test:{i}")
            pool.put(bot, 0, LocalConnection(reader, pool.limits))
            seats.append(bot)
        bots = (seats[0], load_bot("builtin:random"), seats[1], load_bot("builtin:first"))
        records = [
            outcome(run_match(MatchSpec(f"{game}-{k}", game, 7 + k, bots), pool).to_json())
            for k in range(matches)
        ]
    assert digest([*records, *readers[0].messages, *readers[1].messages]) == MESSAGES[game]


class Picker:
    """A LegalOnly agent: ``pick`` plays like ``act``; index ``bad`` of its picks is out of range."""

    version = "1"

    def __init__(self, name: str, bad: int | None = None) -> None:
        self.name = name
        self.bad = bad
        self.picks = 0
        self.received: list[Mapping[str, Any]] = []

    def receive(self, message: Mapping[str, Any]) -> None:
        self.received.append(message)

    def pick(self, legal: Any) -> int:
        self.picks += 1
        return len(legal) + 5 if self.picks == self.bad else (self.picks * 3) % len(legal)

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        return {"id": message["id"], "index": self.pick(message["legal"])}


class Acting:
    """The same agent seen through ``act`` alone (no ``pick``): the loop's general path."""

    def __init__(self, inner: Picker) -> None:
        self.inner = inner
        self.name, self.version = inner.name, inner.version

    def receive(self, message: Mapping[str, Any]) -> None:
        self.inner.receive(message)

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        return self.inner.act(message)


def play_with(game: str, agents: list[Any], reader: bool) -> list[dict[str, Any]]:
    with BotPool() as pool:
        bots = []
        for i, agent in enumerate(agents):
            bot = BotSpec(agent.name, BotKind.BUILTIN, f"test:{i}")
            pool.put(bot, 0, LocalConnection(agent, pool.limits))
            bots.append(bot)
        if reader:  # a seat that reads everything: the general loop, LegalOnly seats in it
            bot = BotSpec("reader", BotKind.BUILTIN, "test:reader")
            pool.put(bot, 0, LocalConnection(Reader("reader"), pool.limits))
            bots.append(bot)
        return [
            outcome(run_match(MatchSpec(f"m{k}", game, 40 + k, tuple(bots)), pool).to_json())
            for k in range(2)
        ]


@pytest.mark.parametrize("game", ["take5", "ten", "phase10"])
@pytest.mark.parametrize("reader", [False, True])
def test_a_picking_agent_plays_and_faults_as_through_act(game: str, reader: bool) -> None:
    """Picks, a pick out of range (an illegal_action fault, the fallback after it), times and
    ranks: the same record through ``pick`` as through ``act``."""
    picked = play_with(game, [Picker("a", bad=4), Picker("b"), Picker("c", bad=9)], reader)
    acted = play_with(
        game, [Acting(Picker("a", bad=4)), Acting(Picker("b")), Acting(Picker("c", bad=9))], reader
    )
    assert picked == acted
    faults = picked[0]["faults"]
    assert [(f["seat"], f["status"]) for f in faults] == [
        (0, "illegal_action"),
        (2, "illegal_action"),
    ]
    assert picked[0]["fallback_steps"]


def test_a_picking_agent_is_sent_no_act_and_no_events() -> None:
    agents = [Picker("a"), Picker("b"), Picker("c")]
    play_with("ten", list(agents), reader=True)
    for agent in agents:
        assert agent.picks > 0
        kinds = [m["type"] for m in agent.received]
        assert kinds == ["start", "end", "start", "end"]
        assert all(m["events"] == [] for m in agent.received if m["type"] == "end")


@pytest.mark.parametrize("game", ["take5", "ten", "phase10"])
def test_arena_play_tells_each_game_from_its_own_state_as_the_record_replays(game: str) -> None:
    """``arena play`` narrates each game from the match's final state (no second playthrough):
    the same lines as replaying the record gives, in one write per game."""
    import io

    from arena.cli.play import PlayRun, record_table
    from arena.games import get_game
    from arena.terminal import shown

    out = io.StringIO()
    bots = (load_bot("builtin:random"), load_bot("builtin:first"), load_bot("builtin:random"))
    with PlayRun(game, bots, seed=11, out=out) as run:
        records = [run.play(k) for k in range(2)]
    spec = get_game(game)
    expected = []
    for k, record in enumerate(records):
        expected.append(f"== {spec.title}, 3 seats, seed {11 + k}")
        events = record.replay().play().public_events()
        expected += ["  " + shown(spec.state_class.describe(e)) for e in events]
        expected += record_table(record).splitlines()
    assert out.getvalue().splitlines() == expected
