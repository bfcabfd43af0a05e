"""A usage sample reads only the processes it has not already found to be no bot's (issue 15):
reading every process of the machine twice a match was most of the arena's own CPU per game."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from arena.runtime import usage
from arena.runtime.usage import Sampler, Tracker


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The pids whose stat file the samples read."""
    seen: list[str] = []
    real = usage._fields

    def counting(pid: str) -> list[bytes] | None:
        seen.append(pid)
        return real(pid)

    monkeypatch.setattr(usage, "_fields", counting)
    return seen


def quiet_sampler() -> Sampler:
    return Sampler(interval=3600)  # its thread samples once, then waits: samples come by hand


def test_processes_found_to_be_no_bots_are_not_read_again(reads: list[str]) -> None:
    sampler = quiet_sampler()
    bot = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], process_group=0)
    try:
        tracker = Tracker(bot.pid, None, sampler)
        sampler.sample()
        reads.clear()
        sampler.sample()
        assert str(bot.pid) in reads  # its own processes, every time
        assert str(os.getpid()) not in reads  # not a bot's: known from the sample before
        assert len(reads) < 10
        assert tracker.pids == [bot.pid]
    finally:
        bot.kill()
        bot.wait()
        sampler.remove(tracker)


def test_a_new_bot_and_time_make_it_read_everything_again(
    reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sampler = quiet_sampler()
    first = Tracker(10**9, None, sampler)
    sampler.sample()
    reads.clear()
    sampler.sample()
    assert str(os.getpid()) not in reads
    second = Tracker(10**9 + 1, None, sampler)  # a process that was nobody's may be its
    reads.clear()
    sampler.sample()
    assert str(os.getpid()) in reads
    monkeypatch.setattr(usage, "STRANGERS_KEPT", 0.0)  # the list is too old to trust
    time.sleep(0.01)
    reads.clear()
    sampler.sample()
    assert str(os.getpid()) in reads
    sampler.remove(first)
    sampler.remove(second)


def test_a_child_that_starts_later_is_found(reads: list[str]) -> None:
    sampler = quiet_sampler()
    script = "import subprocess, sys, time; time.sleep(0.3); subprocess.run(['sleep', '30'])"
    bot = subprocess.Popen([sys.executable, "-c", script], process_group=0)
    try:
        tracker = Tracker(bot.pid, None, sampler)
        sampler.sample()
        deadline = time.monotonic() + 20
        while len(tracker.pids) < 2:
            assert time.monotonic() < deadline, tracker.pids
            time.sleep(0.05)
            sampler.sample()
    finally:
        os.killpg(bot.pid, 9)
        bot.wait()
        sampler.remove(tracker)
