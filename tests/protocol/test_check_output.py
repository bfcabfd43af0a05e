"""``arena check`` tells a fault once per game, and a timeout says what time the bot had."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

pytestmark = pytest.mark.timeout(120)

BOTS = Path(__file__).resolve().parents[1] / "bots"


def test_a_slow_bot_is_told_once_per_game_with_its_time() -> None:
    # slow.py answers 0.15 s late every time: with no bank, its first act in each of the
    # three matches (one per seat) times out
    result = CliRunner().invoke(
        main,
        [
            "check",
            str(BOTS / "slow.py"),
            "--matches",
            "3",
            "--decision-time",
            "0.05",
            "--time-bank",
            "0",
        ],
    )
    out = result.output
    assert result.exit_code == 1, out
    take5 = out[out.index("FAIL take5") : out.index("FAIL ten")]
    assert take5.count("FAULT") == 1 and take5.count("hint:") == 1, take5
    assert (
        "timeout: no answer in 0.050 s (decision 50 ms + bank left 0 ms: the bank had run out)"
        in take5
    )
    assert "the same 2 more time(s): seat 1 step" in take5
