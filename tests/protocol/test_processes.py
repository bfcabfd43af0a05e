"""Real bot processes: every kind of fault from a misbehaving test bot, and no process left."""

from __future__ import annotations

import os
import shutil
import time
import uuid
from pathlib import Path

import pytest

from arena.match import MatchRecord, MatchSpec, run_match
from arena.runtime.botproc import BotConnection, FaultKind, ProcessTransport, RunLimits, TimeLimits
from arena.runtime.manifest import BotSpec, load_bot
from arena.runtime.pool import BotPool

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("process_bots")]

ROOT = Path(__file__).resolve().parents[2]
TEST_BOTS = ROOT / "tests" / "bots"
FAST = RunLimits(time=TimeLimits(decision=0.25, bank=0.25, startup=5.0, grace=0.2))
ONE_ROUND = {"max_rounds": 1}


def misbehaving(name: str) -> BotSpec:
    return load_bot(str(TEST_BOTS / name))


def gone(pid: int, wait: float = 2.0) -> bool:
    """True once no such process is left (or only a zombie that is not ours to reap); a
    SIGKILLed process may take a moment to die."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z":
                return True
        except (OSError, IndexError):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)


def play(pool: BotPool, *bots: BotSpec, seed: int = 1, match_id: str = "t") -> MatchRecord:
    return run_match(MatchSpec(match_id, "take5", seed, bots, ONE_ROUND), pool)


def started_pid(pool: BotPool, bot: BotSpec, slot: int = 0) -> int:
    connection = pool.get(bot, slot)
    assert isinstance(connection, BotConnection), connection
    assert isinstance(connection.transport, ProcessTransport)
    return connection.transport.pid


@pytest.mark.parametrize(
    ("bot", "kind", "during_play"),
    [
        ("crash.py", FaultKind.CRASH, True),
        ("hang.py", FaultKind.TIMEOUT, True),
        ("garbage.py", FaultKind.INVALID_JSON, True),
        ("wrong_id.py", FaultKind.WRONG_ID, True),
        ("illegal.py", FaultKind.ILLEGAL_ACTION, True),
        ("bad_reply.py", FaultKind.BAD_REPLY, True),
        ("oversize.py", FaultKind.OVERSIZE, True),
        ("exits_early.py", FaultKind.CRASH, True),
        ("killed.py", FaultKind.CRASH, True),
        ("bad_hello.py", FaultKind.BAD_HELLO, False),
        ("no_start.py", FaultKind.START_FAILED, False),
    ],
)
def test_each_fault_is_recorded_and_the_match_goes_on(
    bot: str, kind: FaultKind, during_play: bool
) -> None:
    spec = misbehaving(bot)
    with BotPool(FAST) as pool:
        pid = started_pid(pool, spec) if during_play else None
        record = play(pool, spec, load_bot("builtin:first"))
        assert len(pool) == 1  # the faulted bot's process was stopped
    (fault,) = record.faults
    assert fault.kind is kind, fault
    assert fault.seat == 0 and record.ranks == (2, 1)
    assert (fault.step > 0) is during_play
    assert record.replay().play().is_over()
    if pid is not None:
        assert gone(pid)
    if bot == "crash.py":
        assert "boom: the test bot crashes here" in fault.stderr_tail
        assert "exited with status 1" in fault.message
    if bot == "killed.py":
        assert "killed by signal SIGKILL" in fault.message
    if bot == "no_start.py":
        assert "giving up at once" in fault.stderr_tail


def test_slow_start_times_out_at_the_start_up_limit() -> None:
    limits = RunLimits(time=TimeLimits(decision=0.25, bank=0.25, startup=0.5, grace=0.1))
    with BotPool(limits) as pool:
        record = play(pool, misbehaving("slow_start.py"), load_bot("builtin:first"))
        assert pool.start_seconds < 3
    (fault,) = record.faults
    assert fault.kind is FaultKind.STARTUP_TIMEOUT and fault.step == 0


def processes_mentioning(marker: str) -> list[int]:
    """Pids whose command line contains ``marker`` (zombies have none)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


def test_a_process_group_is_killed_children_included() -> None:
    marker = f"spawned-{uuid.uuid4()}"
    with BotPool(FAST) as pool:
        spawner = misbehaving("spawner.py")
        pid = started_pid(pool, spawner)
        record = run_match(
            MatchSpec(marker, "take5", 1, (spawner, load_bot("builtin:first")), ONE_ROUND), pool
        )
    (fault,) = record.faults
    assert fault.kind is FaultKind.TIMEOUT
    assert gone(pid)
    deadline = time.monotonic() + 2
    while processes_mentioning(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not processes_mentioning(marker)


def test_a_stderr_flood_neither_blocks_nor_grows_without_bound() -> None:
    limits = RunLimits(time=FAST.time, stderr_tail=4096)
    with BotPool(limits) as pool:
        record = play(pool, misbehaving("stderr_flood.py"), load_bot("builtin:first"))
        assert not record.faults
        connection = pool.get(misbehaving("stderr_flood.py"))
        assert isinstance(connection, BotConnection), connection  # the same process, kept
        tail = connection.stderr_tail()
        assert 0 < len(tail) <= 4096 and tail.rstrip().endswith("y")


def test_stale_and_unsolicited_lines_are_dropped_without_a_fault() -> None:
    with BotPool(FAST) as pool:
        late, chatty = misbehaving("late.py"), misbehaving("unsolicited.py")
        for k in range(2):
            record = play(pool, late, chatty, seed=k)
            assert not record.faults, record.faults
        assert pool.started == 2
        connection = pool.get(late)
        assert isinstance(connection, BotConnection) and connection.discarded >= 1


def test_simultaneous_answers_are_timed_each_on_its_own() -> None:
    """A slow seat neither delays the recorded time of a fast one nor eats its bank."""
    limits = RunLimits(time=TimeLimits(decision=0.1, bank=5.0, startup=5.0, grace=0.2))
    with BotPool(limits) as pool:
        slow, fast = misbehaving("slow.py"), misbehaving("good.py")
        record = run_match(MatchSpec("t", "take5", 1, (slow, fast), {"max_rounds": 1}), pool)
    assert not record.faults
    slow_stats, fast_stats = record.decisions
    assert float(slow_stats["max_s"]) >= 0.15
    assert float(fast_stats["max_s"]) < 0.1, fast_stats


def test_the_time_bank_pays_for_slow_decisions_until_it_runs_out() -> None:
    # 0.15 s a decision against 0.1 s free: each draws >= 0.05 s from a 0.24 s bank, so the
    # fifth decision always times out; the fourth passes unless each decision ran over its
    # 0.15 s by more than 10 ms (a loaded machine), hence 3 or 4.
    limits = RunLimits(time=TimeLimits(decision=0.1, bank=0.24, startup=5.0, grace=0.2))
    with BotPool(limits) as pool:
        record = play(pool, misbehaving("slow.py"), load_bot("builtin:first"))
    (fault,) = record.faults
    assert fault.kind is FaultKind.TIMEOUT
    assert record.decisions[0]["count"] in (3, 4)


def test_a_bot_that_died_between_matches_is_restarted_without_a_fault() -> None:
    bot = misbehaving("exits_after_end.py")
    with BotPool(FAST) as pool:
        for k in range(3):
            record = play(pool, bot, load_bot("builtin:first"), seed=k)
            assert not record.faults, record.faults
            kept = pool.peek(bot)
            deadline = time.monotonic() + 10
            while kept is not None and kept.alive() and time.monotonic() < deadline:
                time.sleep(0.01)  # it exits after the end message: wait until it has
            assert kept is not None and not kept.alive()
        assert pool.started == 3


def test_a_match_where_every_bot_misbehaves_still_finishes() -> None:
    bots = [
        misbehaving(b) for b in ("crash.py", "hang.py", "garbage.py", "oversize.py", "bad_hello.py")
    ]
    with BotPool(FAST) as pool:
        record = play(pool, *bots)
        assert len(pool) == 0
    assert sorted((f.seat, f.kind) for f in record.faults) == [
        (0, FaultKind.CRASH),
        (1, FaultKind.TIMEOUT),
        (2, FaultKind.INVALID_JSON),
        (3, FaultKind.OVERSIZE),
        (4, FaultKind.BAD_HELLO),
    ]
    assert record.ranks == (1, 1, 1, 1, 1)
    assert record.replay().play().is_over()


def test_processes_are_reused_across_matches_and_restarted_after_a_fault() -> None:
    good, crash = misbehaving("good.py"), misbehaving("crash.py")
    with BotPool(FAST) as pool:
        pids = [started_pid(pool, good)]
        counted = 0
        for k in range(3):
            record = play(pool, good, crash, seed=k)
            assert [f.kind for f in record.faults] == [FaultKind.CRASH]
            # one process counts its decisions on across matches
            assert record.debug and record.debug[0][2] == f"act {counted + 1}"
            counted += record.decisions[0]["count"]  # type: ignore[operator]
            pids.append(started_pid(pool, good))
        assert len(set(pids)) == 1
        assert pool.started == 1 + 3  # good once; crash once per match
        # two seats of one bot get two processes
        record = play(pool, good, good)
        assert not record.faults and pool.started == 5
        alive = [started_pid(pool, good, 0), started_pid(pool, good, 1)]
    assert all(gone(pid) for pid in alive + pids)


def test_sample_bots_play_each_other_deterministically() -> None:
    bots = [load_bot(str(ROOT / "bots" / b)) for b in ("random", "heuristic")]
    if shutil.which("node"):
        bots.append(load_bot(str(ROOT / "bots" / "js-random")))
    bots.append(load_bot("builtin:random"))
    records = []
    for _ in range(2):
        with BotPool(RunLimits(time=TimeLimits(startup=10))) as pool:
            records.append(run_match(MatchSpec("det", "take5", 42, tuple(bots)), pool))
    first, second = records
    assert not first.faults, first.faults
    assert first.actions == second.actions and first.result == second.result
    assert [s["said"] for s in first.to_json()["seats"]] == [b.name for b in bots]
