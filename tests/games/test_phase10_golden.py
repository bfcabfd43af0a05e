"""The golden Phase 10 playthrough: a fixed seed and actions, the expected result and events.

``seeds/phase10-golden.json`` was written once by running this file as a script (``python -m
tests.games.test_phase10_golden``: the heuristic bot against a seeded random player). The test
replays its actions and fails on any difference, or if the file is missing.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from types import ModuleType

from arena.games import JSON
from arena.games.phase10 import SPEC
from benchmarks.sources import load_source
from tests.games.playouts import canonical

GOLDEN = Path(__file__).resolve().parents[2] / "seeds" / "phase10-golden.json"
BOT = Path(__file__).resolve().parents[2] / "bots" / "heuristic" / "phase10.py"


def load_bot() -> ModuleType:
    return load_source(BOT, "phase10_heuristic")


def make_golden() -> dict[str, JSON]:
    seed, seats = 2026, 3
    options = SPEC.validate_options({"first_phases": 2})
    bot = load_bot()
    chooser = random.Random(seed)
    state = SPEC.new(seed, seats, options)
    actions = []
    while not state.is_over():
        seat = state.to_move()[0]
        legal = state.legal(seat)
        index = bot.choose(state.observation(seat), legal) if seat != 1 else None
        action = legal[chooser.randrange(len(legal)) if index is None else index]
        state.apply(seat, action)
        actions.append([seat, action])
    return {
        "game": "phase10",
        "seed": seed,
        "seats": seats,
        "options": options,
        "actions": actions,
        "result": state.result().to_json(),
        "public_events": state.public_events(),
    }


def test_golden_playthrough() -> None:
    assert GOLDEN.exists(), f"missing golden playthrough {GOLDEN}"
    golden = json.loads(GOLDEN.read_text())
    state = SPEC.new(golden["seed"], golden["seats"], golden["options"])
    for seat, action in golden["actions"]:
        assert state.to_move() == [seat]
        state.apply(seat, action)
    assert state.is_over()
    assert canonical(state.result().to_json()) == canonical(golden["result"])
    expected = golden["public_events"]
    got = state.public_events()
    for index, (a, b) in enumerate(zip(got, expected, strict=False)):
        assert canonical(a) == canonical(b), f"public event {index} differs: {a} != {b}"
    assert len(got) == len(expected)


def test_golden_playthrough_covers_the_game() -> None:
    golden = json.loads(GOLDEN.read_text())
    types = {e["type"] for e in golden["public_events"]}
    assert {"hand", "draw", "take", "lay", "hit", "discard", "hand_end", "game_end"} <= types
    assert golden["result"]["details"]["capped"] is None


if __name__ == "__main__":  # pragma: no cover - regenerates the golden file
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(make_golden(), indent=1) + "\n")
    sys.stdout.write(f"wrote {GOLDEN}\n")
