"""The wait for replies in C (``arena.runtime._gather``) and in Python record the same matches.

``collect`` waits in C when the module was built and every seat is a bot process, and in Python
otherwise (``ARENA_PURE_PYTHON=1``, no compiler, or a seat in process). Each misbehaving test bot
plays a round of Take 5 with three well-behaved ones, once on each path (and in C once more,
spinning before each sleep): the faults (seat, step, kind), the actions and the fallback steps
must be the same.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from arena.match import MatchRecord, MatchSpec, run_match
from arena.runtime import botproc
from arena.runtime.botproc import RunLimits, TimeLimits
from arena.runtime.manifest import load_bot
from arena.runtime.pool import BotPool

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("process_bots")]

TEST_BOTS = Path(__file__).resolve().parents[1] / "bots"
LIMITS = RunLimits(time=TimeLimits(decision=1.0, bank=1.0, startup=10.0, grace=0.2))
"""Loose enough that the well-behaved bots never run out of time on a loaded machine."""


def played(bot: str, seed: int) -> tuple[object, ...]:
    """What the record of ``bot`` against three good bots says, timings aside."""
    good = load_bot(str(TEST_BOTS / "good.py"))
    bots = (load_bot(str(TEST_BOTS / bot)), good, good, good)
    with BotPool(LIMITS) as pool:
        record: MatchRecord = run_match(
            MatchSpec(f"gather-{bot}", "take5", seed, bots, {"max_rounds": 1}), pool
        )
    return (
        [(f.seat, f.step, f.kind) for f in record.faults],
        record.actions,
        record.fallback_steps,
        record.ranks,
    )


@pytest.mark.parametrize(
    "bot",
    [
        "good.py",
        "crash.py",
        "hang.py",
        "garbage.py",
        "wrong_id.py",
        "illegal.py",
        "bad_reply.py",
        "oversize.py",
        "exits_early.py",
        "killed.py",
        "unsolicited.py",
        "stderr_flood.py",
    ],
)
def test_the_c_wait_and_the_python_wait_record_the_same_match(
    bot: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = botproc._gather
    if real is None:
        pytest.skip("the C wait is not built here (no compiler, or ARENA_PURE_PYTHON is set)")
    calls: list[float] = []

    def counted(*args: Any) -> Any:
        calls.append(args[3])  # the seconds it spins
        return real(*args)

    monkeypatch.setattr(botproc, "_gather", counted)
    monkeypatch.setattr(botproc, "_spin", 0.0)
    in_c = played(bot, seed=7)
    assert calls, "the match did not wait in C"
    assert set(calls) == {0.0}
    calls.clear()
    monkeypatch.setattr(botproc, "_spin", botproc.SPIN)  # looking before each sleep
    spun = played(bot, seed=7)
    assert set(calls) == {botproc.SPIN}
    monkeypatch.setattr(botproc, "_gather", None)
    in_python = played(bot, seed=7)
    assert in_c == in_python
    assert spun == in_python
    faulted = bot not in ("good.py", "unsolicited.py", "stderr_flood.py")  # chatter is dropped
    assert bool(in_c[0]) is faulted, in_c[0]


def test_spinning_is_on_only_with_a_core_to_spare(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(botproc, "_spin", 0.0)
    monkeypatch.setattr(botproc.os, "sched_getaffinity", lambda pid: {0, 1})
    assert botproc.spin_when_idle(1) == botproc.SPIN > 0
    assert botproc._spin == botproc.SPIN
    assert botproc.spin_when_idle(2) == 0.0
    assert botproc._spin == 0.0
    monkeypatch.setenv("ARENA_NO_SPIN", "1")
    assert botproc.spin_when_idle(1) == 0.0


def test_a_spin_longer_than_the_timeout_ends_at_the_timeout() -> None:
    """The spin is cut to the time left: a wait of 50 ms that may spin for 5 s returns at once
    with nothing read; a line written before the call is read within the spin."""
    if botproc._gather is None:
        pytest.skip("the C wait is not built here (no compiler, or ARENA_PURE_PYTHON is set)")
    read_end, write_end = os.pipe()
    try:
        os.set_blocking(read_end, False)
        began = time.monotonic()
        [(data, _, eof)] = botproc._gather([read_end], 0.05, 100, 5.0)
        assert (data, eof) == (b"", False)
        assert time.monotonic() - began < 2.0  # not the 5 s of the spin
        os.write(write_end, b"line\n")
        [(data, arrived, eof)] = botproc._gather([read_end], 1.0, 100, 0.01)
        assert (data, eof) == (b"line\n", False)
        assert arrived >= began
    finally:
        os.close(read_end)
        os.close(write_end)
