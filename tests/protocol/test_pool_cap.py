"""A cap on live bot processes: the least recently used idle bot is closed, never one seated in
the current match, and a closed bot is started again when next seated."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from arena.match import MatchSpec, run_match
from arena.runtime.botproc import RunLimits, TimeLimits
from arena.runtime.manifest import BotSpec, load_bot
from arena.runtime.pool import BotPool

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("process_bots")]

GOOD = Path(__file__).resolve().parents[1] / "bots"
LIMITS = RunLimits(time=TimeLimits(decision=1.0, bank=1.0, startup=5.0))


def bots(tmp_path: Path, n: int) -> list[BotSpec]:
    """``n`` distinct copies of the well-behaved test bot."""
    out = []
    for i in range(n):
        folder = tmp_path / f"b{i}"
        folder.mkdir()
        for name in ("good.py", "_serve.py"):
            shutil.copy(GOOD / name, folder / name)
        out.append(load_bot(str(folder / "good.py")))
    return out


def play(pool: BotPool, *seated: BotSpec, k: int = 0) -> None:
    record = run_match(MatchSpec(f"m{k}", "take5", k, seated, {"max_rounds": 1}), pool)
    assert not record.faults, record.faults


def test_the_least_recently_used_idle_bot_makes_room(tmp_path: Path) -> None:
    a, b, c = bots(tmp_path, 3)
    with BotPool(dataclasses.replace(LIMITS, live_bots=2)) as pool:
        play(pool, a, b, k=0)
        assert len(pool) == 2 and pool.started == 2
        play(pool, a, c, k=1)  # b is idle and least recently used: closed for c
        assert pool.peek(b) is None and pool.peek(a) is not None and pool.peek(c) is not None
        assert len(pool) == 2 and pool.evicted == 1 and pool.started == 3
        play(pool, a, b, k=2)  # b comes back; c (idle) goes, a (seated, reused) stays
        assert pool.peek(c) is None and len(pool) == 2
        assert pool.evicted == 2 and pool.started == 4


def test_a_match_that_needs_more_bots_than_the_cap_still_plays(tmp_path: Path) -> None:
    a, b, c = bots(tmp_path, 3)
    with BotPool(dataclasses.replace(LIMITS, live_bots=2)) as pool:
        play(pool, a, b, c, k=0)  # none of its own bots is closed for another
        assert len(pool) == 3 and pool.evicted == 0


def test_no_cap_keeps_every_bot(tmp_path: Path) -> None:
    a, b, c = bots(tmp_path, 3)
    with BotPool(LIMITS) as pool:
        play(pool, a, b, k=0)
        play(pool, a, c, k=1)
        assert len(pool) == 3 and pool.evicted == 0
