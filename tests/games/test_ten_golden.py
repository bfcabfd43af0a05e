"""Ten: the golden playthrough in ``seeds/ten-golden.json`` replays to the same game.

To write the file again after a deliberate rules change (and say why in the commit):
``python -m tests.games.test_ten_golden``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from arena.games import JSON, ten
from arena.games.ten import TenState
from tests.games.playouts import canonical, random_playout

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "seeds" / "ten-golden.json"
ACCOUNT = ROOT / "seeds" / "ten-golden.txt"
SEED, SEATS, CHOOSER = 2026, 3, 7


def digest(events: list[dict[str, JSON]]) -> str:
    return hashlib.sha256(canonical(events).encode()).hexdigest()


def record() -> tuple[dict[str, JSON], str]:
    """The golden record and its readable account, from a fresh random playout."""
    state, actions = random_playout(ten.SPEC, SEED, SEATS, chooser_seed=CHOOSER)
    events = state.public_events()
    data: dict[str, JSON] = {
        "game": "ten",
        "seats": SEATS,
        "seed": SEED,
        "options": dict(state.options),
        "actions": [[seat, action] for seat, action in actions],
        "result": state.result().to_json(),
        "event_count": len(events),
        "events_sha256": digest(events),
        "first_events": events[:40],
    }
    account = "\n".join(TenState.describe(e) for e in events) + "\n"
    return data, account


def test_golden_playthrough() -> None:
    assert GOLDEN.exists(), f"the golden record {GOLDEN} is missing"
    data = json.loads(GOLDEN.read_text())
    state = ten.SPEC.new(data["seed"], data["seats"], data["options"])
    for seat, action in data["actions"]:
        assert state.to_move() == [seat]
        state.apply(seat, action)
    assert state.is_over()
    assert state.result().to_json() == data["result"]
    events = state.public_events()
    assert events[: len(data["first_events"])] == data["first_events"]
    assert len(events) == data["event_count"]
    assert digest(events) == data["events_sha256"]


def test_golden_account_matches() -> None:
    assert ACCOUNT.exists(), f"the golden account {ACCOUNT} is missing"
    data = json.loads(GOLDEN.read_text())
    state = ten.SPEC.new(data["seed"], data["seats"], data["options"])
    for seat, action in data["actions"]:
        state.apply(seat, action)
    lines = [TenState.describe(e) for e in state.public_events()]
    assert ACCOUNT.read_text().splitlines() == lines


if __name__ == "__main__":  # pragma: no cover
    data, account = record()
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n")
    ACCOUNT.write_text(account)
    print(f"wrote {GOLDEN} and {ACCOUNT}")
