"""The sample bots: the heuristic beats random clearly; the helper and the dispatcher behave."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.games import get_game
from arena.match import MatchSpec, run_match
from arena.runtime.manifest import load_bot
from arena.runtime.pool import BotPool
from benchmarks.sources import load_source

ROOT = Path(__file__).resolve().parents[2]


def load_module(path: Path) -> ModuleType:
    return load_source(path, f"sample_{path.parent.name}_{path.stem}")


def test_take5_heuristic_beats_random_policies_by_a_clear_margin() -> None:
    policy = load_module(ROOT / "bots" / "heuristic" / "take5.py")
    game = get_game("take5")
    games, wins, rank_sum = 200, 0, 0
    for seed in range(games):
        seat = seed % 4
        state = game.new(seed, 4)
        rng = random.Random(seed)
        while not state.is_over():
            for mover in state.to_move():
                legal = state.legal(mover)
                if mover == seat:
                    action = legal[policy.choose(state.observation(mover), legal)]
                else:
                    action = legal[rng.randrange(len(legal))]
                state.apply(mover, action)
        rank = state.result().ranks[seat]
        wins += rank == 1
        rank_sum += rank
    # A random policy wins about 1 in 4 and places 2.5 on average.
    assert wins / games >= 0.6, wins
    assert rank_sum / games <= 1.6, rank_sum


@pytest.mark.timeout(120)
def test_the_heuristic_bot_process_beats_random_bots() -> None:
    heuristic = load_bot(str(ROOT / "bots" / "heuristic"))
    opponent = load_bot(str(ROOT / "bots" / "random"))
    wins = 0
    with BotPool() as pool:
        for k in range(24):
            seating = [opponent] * 3
            seating.insert(k % 4, heuristic)
            record = run_match(MatchSpec(f"h-{k}", "take5", k, tuple(seating)), pool)
            assert not record.faults, record.faults
            wins += record.ranks[k % 4] == 1
        assert pool.started == 4  # the heuristic once, random once per extra seat
    assert wins >= 12, wins


def test_the_heuristic_bot_plays_a_game_without_a_policy_module_at_random() -> None:
    lines = [
        {"type": "hello", "protocol": 1},
        {"type": "start", "match": "m", "game": "nosuchgame", "seat": 0, "seats": 2},
        {"type": "act", "id": 1, "observation": {}, "legal": ["a", "b", "c"], "events": []},
        {"type": "bye"},
    ]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bots" / "heuristic" / "bot.py")],
        input="".join(json.dumps(m) + "\n" for m in lines),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    hello, answer = (json.loads(line) for line in done.stdout.splitlines())
    assert hello["name"] == "heuristic"
    assert answer["id"] == 1 and answer["index"] in (0, 1, 2)
    assert "no policy module nosuchgame.py" in done.stderr


def serve(choose: Any, *messages: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    arenabot = load_module(ROOT / "bots" / "arenabot.py")
    out, err = io.StringIO(), io.StringIO()
    stdin = io.StringIO("".join(json.dumps(m) + "\n" for m in messages))
    real_err, sys.stderr = sys.stderr, err
    try:
        arenabot.run(choose, name="t", version="1", stdin=stdin, stdout=out)
    finally:
        sys.stderr = real_err
    return [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


ACT = {"type": "act", "id": 5, "observation": {"x": 1}, "legal": [{"a": 1}, {"a": 2}]}


def test_arenabot_answers_hello_and_acts_by_index_or_action() -> None:
    replies, _ = serve(
        lambda observation, legal: legal[1],
        {"type": "hello", "protocol": 1},
        ACT,
        {"type": "bye"},
        ACT,  # after bye: never read
    )
    assert replies == [
        {"name": "t", "version": "1", "protocol": 1},
        {"id": 5, "action": {"a": 2}},
    ]


def test_arenabot_keeps_the_match_and_its_events() -> None:
    seen: list[Any] = []

    def choose(observation: Any, legal: Any, match: Any) -> int:
        seen.append((match.game, match.seat, list(match.events)))
        return 1

    start = {"type": "start", "match": "m", "game": "take5", "seat": 2, "seats": 3}
    act = {**ACT, "events": [{"type": "round"}]}
    replies, _ = serve(choose, start, act, {**act, "id": 6})
    assert replies == [{"id": 5, "index": 1}, {"id": 6, "index": 1}]
    assert seen[-1] == ("take5", 2, [{"type": "round"}, {"type": "round"}])


def test_arenabot_survives_an_exception_in_choose() -> None:
    def choose(observation: Any, legal: Any) -> int:
        raise ValueError("my bug")

    replies, err = serve(choose, ACT)
    assert replies == [{"id": 5, "index": 0}]
    assert "ValueError: my bug" in err


def test_the_heuristic_bots_copy_of_arenabot_is_current() -> None:
    """A sandboxed bot sees only its own folder, so the heuristic bot carries its own copy."""
    original = (ROOT / "bots" / "arenabot.py").read_text()
    assert (ROOT / "bots" / "heuristic" / "arenabot.py").read_text() == original


def test_arenabot_tells_choose_the_time_this_decision_has() -> None:
    seen: list[dict[str, Any]] = []

    def choose(observation: Any, legal: Any, match: Any) -> int:
        seen.append(dict(match.time))
        return 0

    start = {
        "type": "start",
        "match": "m",
        "game": "take5",
        "seat": 0,
        "seats": 2,
        "players": ["a", "b"],
        "options": {},
        "time": {"decision_ms": 1000, "bank_ms": 10000, "startup_ms": 10000},
    }
    serve(
        choose,
        start,
        {**ACT, "time": {"decision_ms": 1000, "bank_ms": 7500}},
        {**ACT, "id": 6, "time": {"decision_ms": 1000, "bank_ms": 0}},
    )
    assert [t["bank_ms"] for t in seen] == [7500, 0]
    assert seen[0]["startup_ms"] == 10000
