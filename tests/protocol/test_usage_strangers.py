"""A usage sample reads only the processes it has not already found to be no bot's, the end of a
match only the bot's known processes, and the sandbox's own processes once (issue 15): reading
every process of the machine twice a match was most of the arena's own CPU per game."""

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


def quieted(tracker: Tracker, sampler: Sampler) -> Tracker:
    """``tracker``, once the sampler's thread has taken its one sample (samples come by hand
    from then on)."""
    while sampler.samples < 1:
        time.sleep(0.01)
    return tracker


def found(tracker: Tracker, sampler: Sampler, processes: int) -> None:
    """Sample until ``tracker`` has ``processes`` processes (20 s at most)."""
    deadline = time.monotonic() + 20
    while len(tracker.pids) < processes:
        assert time.monotonic() < deadline, tracker.pids
        time.sleep(0.05)
        sampler.sample()


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
        found(tracker, sampler, 2)
    finally:
        os.killpg(bot.pid, 9)
        bot.wait()
        sampler.remove(tracker)


def test_the_end_of_a_match_reads_only_the_bots_known_processes(reads: list[str]) -> None:
    sampler = quiet_sampler()
    bot = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], process_group=0)
    try:
        tracker = quieted(Tracker(bot.pid, None, sampler), sampler)
        sampler.sample()
        usage.begin([tracker], usage.Budget())
        reads.clear()
        (used,) = usage.end([tracker])
        assert reads == [str(bot.pid)]  # no listing of /proc, no other process read
        assert used is not None and used.cpu_seconds < 0.5 and used.peak_memory_mb > 1
        bot.kill()
        bot.wait()
        sampler.refresh([tracker])
        assert tracker.pids == []  # gone: known from its stat file, which is gone
    finally:
        bot.kill()
        bot.wait()
        sampler.remove(tracker)


def test_a_pid_that_now_names_another_process_is_gone_for_a_light_sample(
    reads: list[str],
) -> None:
    sampler = quiet_sampler()
    bot = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], process_group=0)
    try:
        tracker = quieted(Tracker(bot.pid, None, sampler), sampler)
        sampler.sample()
        old = tracker._procs[bot.pid]
        tracker._procs[bot.pid] = old._replace(start=old.start - 1)  # an earlier process's pid
        sampler.refresh([tracker])
        assert tracker.pids == []
        sampler.sample()  # a full sample finds the process that has the pid now
        assert tracker.pids == [bot.pid]
    finally:
        bot.kill()
        bot.wait()
        sampler.remove(tracker)


SANDBOX_LIKE = (
    "import subprocess, sys; subprocess.run([sys.executable, '-c', "
    '\'import subprocess; subprocess.run(["sleep", "30"])\'])'
)
"""A leader whose child starts the real work, as bubblewrap's two processes start the bot."""


def test_the_sandboxs_own_processes_are_read_once_and_the_bots_every_time(
    reads: list[str],
) -> None:
    sampler = quiet_sampler()
    leader = subprocess.Popen([sys.executable, "-c", SANDBOX_LIKE], process_group=0)
    try:
        tracker = quieted(Tracker(leader.pid, None, sampler, wrapped=True), sampler)
        found(tracker, sampler, 3)
        inner = next(p for p, proc in tracker._procs.items() if proc.ppid == leader.pid)
        work = next(p for p in tracker.pids if p not in (leader.pid, inner))
        assert sorted(tracker.wrappers) == sorted([leader.pid, inner])
        for light in (False, True):
            reads.clear()
            sampler.refresh([tracker]) if light else sampler.sample()
            assert str(work) in reads
            assert str(leader.pid) not in reads and str(inner) not in reads
            assert tracker.pids == sorted([leader.pid, inner, work])
    finally:
        os.killpg(leader.pid, 9)
        leader.wait()
        sampler.remove(tracker)


def test_unwrapped_leaders_and_their_children_are_read_every_time(reads: list[str]) -> None:
    sampler = quiet_sampler()
    leader = subprocess.Popen([sys.executable, "-c", SANDBOX_LIKE], process_group=0)
    try:
        tracker = quieted(
            Tracker(leader.pid, None, sampler), sampler
        )  # no sandbox: the leader is the bot
        found(tracker, sampler, 3)
        reads.clear()
        sampler.sample()
        assert tracker.wrappers == {}
        assert {str(p) for p in tracker.pids} <= set(reads)
    finally:
        os.killpg(leader.pid, 9)
        leader.wait()
        sampler.remove(tracker)
