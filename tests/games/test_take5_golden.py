"""Take 5: the golden playthrough in seeds/ replays to the same events and result.

Regenerate (only after a deliberate rules change, and review the diff):
    python -m tests.games.test_take5_golden
"""

from __future__ import annotations

import json
from pathlib import Path

from arena.games import get_game
from arena.players import RandomPlayer, play_local
from arena.replay import Replay

GOLDEN = Path(__file__).resolve().parents[2] / "seeds" / "take5-golden.json"
TEXT = GOLDEN.with_suffix(".txt")


def record() -> dict[str, object]:
    spec = get_game("take5")
    players = [RandomPlayer(f"golden:{s}") for s in range(4)]
    played = play_local(spec, 2026, players)
    state = played.state
    return {
        "replay": played.replay.to_json(),
        "result": state.result().to_json(),
        "public_events": state.public_events(),
        "seat0_events": state.events_for(0),
    }


def test_golden_playthrough_replays_exactly() -> None:
    golden = json.loads(GOLDEN.read_text())
    state = Replay.from_json(golden["replay"]).play()
    assert state.is_over()
    assert state.result().to_json() == golden["result"]
    assert state.public_events() == golden["public_events"]
    assert state.events_for(0) == golden["seat0_events"]


def test_golden_text_matches_the_record() -> None:
    golden = json.loads(GOLDEN.read_text())
    describe = get_game("take5").state_class.describe
    lines = [describe(e) for e in golden["public_events"]]
    assert TEXT.read_text().splitlines()[2:] == lines


if __name__ == "__main__":
    data = record()
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n")
    describe = get_game("take5").state_class.describe
    header = ["Take 5, 4 seats, seed 2026, default options, random players (seeds golden:0..3)", ""]
    TEXT.write_text("\n".join(header + [describe(e) for e in data["public_events"]]) + "\n")  # type: ignore[union-attr]
    print(f"wrote {GOLDEN} and {TEXT}")
