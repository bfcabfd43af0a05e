"""Budgets per bot: CPU seconds and peak memory of all of a bot's processes, recorded per seat
and capped by the league (a ``resources`` fault)."""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import time
import tomllib
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.league.config import ConfigError, GameConfig, config_text, default_config, parse_config
from arena.league.conformance import HINTS, check_bot
from arena.match import MatchRecord, MatchSpec, run_match
from arena.runtime.botproc import BotConnection, FaultKind, ProcessTransport, RunLimits, TimeLimits
from arena.runtime.manifest import BotKind, BotSpec, load_bot
from arena.runtime.pool import BotPool
from arena.runtime.sandbox import Limits
from arena.runtime.usage import _TICK, Budget, Sampler, Tracker, Usage, UsageSummary, _Proc

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
TEST_BOTS = ROOT / "tests" / "bots"
ONE_ROUND = {"max_rounds": 1}
PLAIN = Limits(method="none")
"""No sandbox: the tracking is by process group then (and the bots can use this venv's Python)."""


NO_CAPS = Budget()


def limits(budget: Budget = NO_CAPS, sandbox: Limits = PLAIN) -> RunLimits:
    time_limits = TimeLimits(decision=5.0, bank=5.0, startup=10.0, grace=0.2)
    return RunLimits(time=time_limits, sandbox=sandbox, budget=budget)


def bot_file(name: str, *args: str, python: str = sys.executable) -> BotSpec:
    command = (python, str(TEST_BOTS / f"{name}.py"), *args)
    return BotSpec(name, BotKind.PROCESS, f"{name} {' '.join(args)}", command, TEST_BOTS)


def play(pool: BotPool, *bots: BotSpec, match_id: str = "u") -> MatchRecord:
    return run_match(MatchSpec(match_id, "take5", 1, bots, ONE_ROUND), pool)


def processes_mentioning(marker: str) -> list[int]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


def processes_of_uid(uid: int) -> list[int]:
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if entry.stat().st_uid == uid:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def settled(check: Callable[[], bool], wait: float = 3.0) -> bool:
    """Whether ``check()`` turns true within ``wait`` seconds (killed processes take a moment)."""
    deadline = time.monotonic() + wait
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# -- the accounting, on samples made up -------------------------------------------------------


def proc(ppid: int, own: int, waited: int = 0, rss: int = 0, start: int = 1) -> _Proc:
    return _Proc(start=start, ppid=ppid, session=100, own=own, waited=waited, rss=rss)


def idle_tracker() -> Tracker:
    sampler = Sampler()
    tracker = Tracker(100, None, sampler)
    sampler.remove(tracker)  # fed by hand below
    return tracker


def test_a_child_waited_for_by_the_bot_is_counted_once() -> None:
    tracker = idle_tracker()
    tracker._update({100: proc(1, 10), 101: proc(100, 5)})
    # The child ended and the bot waited for it: its time is now in the bot's cutime.
    tracker._update({100: proc(1, 12, waited=7)})
    assert tracker._cpu == 12 + 7


def test_a_child_reaped_by_someone_else_keeps_what_it_used_when_last_seen() -> None:
    tracker = idle_tracker()
    tracker._update({100: proc(1, 10), 101: proc(100, 5), 102: proc(101, 3)})
    # 101 exited (reaped by the bot: counted in its cutime); 102 was orphaned and reaped by
    # init, which is not the bot: what it used when last seen stays counted.
    tracker._update({100: proc(1, 10, waited=5)})
    assert tracker._cpu == 10 + 5 + 3


def test_a_reparented_child_is_still_the_same_process() -> None:
    tracker = idle_tracker()
    tracker._update({100: proc(1, 10), 101: proc(100, 5), 102: proc(101, 3)})
    tracker._update({100: proc(1, 10, waited=5), 102: proc(1, 4)})
    assert tracker._cpu == 10 + 5 + 4


def test_a_reused_pid_is_another_process() -> None:
    tracker = idle_tracker()
    tracker._update({100: proc(1, 10), 101: proc(1, 5)})
    tracker._update({100: proc(1, 10), 101: proc(1, 1, start=2)})
    assert tracker._cpu == 10 + 5 + 1


def test_memory_and_cpu_over_a_match_and_the_caps() -> None:
    tracker = idle_tracker()
    tracker._update({100: proc(1, 100, rss=10 << 20)})
    tracker._begin(Budget(cpu_seconds_per_match=1.0, memory_mb_per_bot=50))
    tracker._update({100: proc(1, 100 + _TICK // 2, rss=40 << 20), 101: proc(100, 0)})
    assert tracker.breach is None
    tracker._update({100: proc(1, 100 + _TICK // 2, rss=30 << 20), 101: proc(100, 0)})
    used = tracker._end()
    assert used == Usage(0.5, 40.0)
    tracker._begin(Budget(memory_mb_per_bot=50))
    tracker._update({100: proc(1, 0, rss=30 << 20), 101: proc(100, 0, rss=30 << 20)})
    assert tracker.breach is not None and "60 MiB" in tracker.breach
    tracker._begin(Budget(cpu_seconds_per_match=1.0))
    tracker._update({100: proc(1, 3 * _TICK)})
    assert tracker.breach is not None and "CPU" in tracker.breach


def test_no_cap_between_matches() -> None:
    tracker = idle_tracker()
    tracker._update({100: proc(1, 0, rss=1 << 40)})
    assert tracker.breach is None


# -- records ----------------------------------------------------------------------------------


def test_in_process_agents_have_null_usage_and_records_round_trip() -> None:
    with BotPool(limits()) as pool:
        record = play(pool, load_bot("builtin:first"), load_bot("builtin:random"))
    assert record.usage == (None, None)
    data = record.to_json()
    assert data["usage"] == [None, None]
    assert MatchRecord.from_json(data) == record
    with_usage = {**data, "usage": [{"cpu_seconds": 0.25, "peak_memory_mb": 12.5}, None]}
    assert MatchRecord.from_json(with_usage).usage == (Usage(0.25, 12.5), None)
    older = {k: v for k, v in data.items() if k != "usage"}
    assert MatchRecord.from_json(older).usage == ()


def test_summary_of_matches() -> None:
    summary = UsageSummary.of([Usage(1.0, 10.0), None, Usage(3.0, 30.0)])
    assert summary == UsageSummary(2, 2.0, 3.0, 20.0, 30.0)
    assert "2.00 s mean, 3.00 s max" in summary.describe()
    assert UsageSummary.of([None]) is None


# -- real bots ----------------------------------------------------------------------------------


def test_a_quiet_bot_uses_next_to_nothing_and_a_burning_thread_is_seen() -> None:
    with BotPool(limits()) as pool:
        record = play(pool, bot_file("burner"), bot_file("good"))
    assert not record.faults
    burner, quiet = record.usage
    assert burner is not None and quiet is not None
    # The burning thread runs the whole match (one core at most: the GIL).
    assert burner.cpu_seconds <= record.seconds + 0.1
    assert burner.cpu_seconds > 5 * quiet.cpu_seconds
    assert burner.cpu_seconds > 0.1
    assert quiet.cpu_seconds < 0.2
    assert 1 < quiet.peak_memory_mb < 100


def test_cpu_is_counted_per_match_on_a_live_bot() -> None:
    with BotPool(limits()) as pool:
        first = play(pool, bot_file("good"), load_bot("builtin:first"), match_id="u1")
        time.sleep(0.1)
        second = play(pool, bot_file("good"), load_bot("builtin:first"), match_id="u2")
    # The same process played both; each match counts only its own time (start-up excluded).
    for record in (first, second):
        used = record.usage[0]
        assert used is not None and used.cpu_seconds < 0.2


def test_children_holding_memory_get_the_bot_a_resources_fault(process_bots: None) -> None:
    marker = f"hog-{uuid.uuid4()}"
    hog = bot_file("hog", "3", "100", marker)
    with BotPool(limits(Budget(memory_mb_per_bot=200))) as pool:
        record = play(pool, hog, load_bot("builtin:first"), match_id=marker)
        assert len(pool) == 1  # the hog was stopped
    (fault,) = record.faults
    assert fault.kind is FaultKind.RESOURCES, fault
    assert fault.seat == 0 and record.ranks == (2, 1)
    assert "over the cap of 200 MiB" in fault.message
    used = record.usage[0]
    assert used is not None and used.peak_memory_mb > 200
    assert record.replay().play().is_over()
    assert settled(lambda: not processes_mentioning(marker))


def test_without_a_cap_the_peak_of_all_processes_is_recorded() -> None:
    with BotPool(limits()) as pool:
        record = play(pool, bot_file("hog", "2", "40"), load_bot("builtin:first"))
    assert not record.faults
    used = record.usage[0]
    assert used is not None and used.peak_memory_mb > 80


def test_a_cpu_cap_per_match(process_bots: None) -> None:
    with BotPool(limits(Budget(cpu_seconds_per_match=0.1))) as pool:
        record = play(pool, bot_file("burner"), load_bot("builtin:first"))
    (fault,) = record.faults
    assert fault.kind is FaultKind.RESOURCES and "CPU" in fault.message
    used = record.usage[0]
    assert used is not None and used.cpu_seconds > 0.1


BWRAP = Limits(method="bubblewrap")
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


@needs_bwrap
def test_under_bubblewrap_the_bots_cpu_and_its_childrens_memory_are_counted(
    process_bots: None,
) -> None:
    # The sandbox's two processes of each bot are read once (issue 15); the bot's own are
    # read every sample: its burning thread's CPU, and the memory its children hold.
    marker = f"hog-{uuid.uuid4()}"
    python = "/usr/bin/python3"  # the system Python: this venv may be out of the sandbox's view
    hog = bot_file("hog", "3", "100", marker, python=python)
    budget = Budget(memory_mb_per_bot=200, cpu_seconds_per_match=5)
    with BotPool(limits(budget, sandbox=BWRAP)) as pool:
        burned = play(pool, bot_file("burner", python=python), load_bot("builtin:first"))
        held = play(pool, hog, load_bot("builtin:first"), match_id=marker)
    assert not burned.faults
    used = burned.usage[0]
    assert used is not None and 0.1 < used.cpu_seconds <= burned.seconds + 0.1
    (fault,) = held.faults
    assert fault.kind is FaultKind.RESOURCES and "over the cap of 200 MiB" in fault.message
    assert settled(lambda: not processes_mentioning(marker))


@pytest.mark.skipif(os.geteuid() != 0, reason="a uid of its own per bot needs root")
def test_with_a_uid_of_its_own_children_that_left_the_session_are_counted_and_killed() -> None:
    # The system Python, which any uid can run (this venv's lives in a private home).
    python = "/usr/bin/python3"
    if not os.access(python, os.X_OK):
        pytest.skip("no system python3")
    marker = f"setsid-hog-{uuid.uuid4()}"
    hog = bot_file("hog", "3", "100", "setsid", marker, python=python)
    sandbox = Limits(method="rlimits")
    with BotPool(limits(Budget(memory_mb_per_bot=200), sandbox)) as pool:
        connection = pool.get(hog)
        assert isinstance(connection, BotConnection), connection
        assert isinstance(connection.transport, ProcessTransport)
        uid = connection.transport.usage.uid
        assert uid is not None
        record = play(pool, hog, load_bot("builtin:first"), match_id=marker)
    (fault,) = record.faults
    assert fault.kind is FaultKind.RESOURCES, fault
    used = record.usage[0]
    assert used is not None and used.peak_memory_mb > 200
    assert settled(lambda: not processes_of_uid(uid))


@pytest.mark.skipif(os.geteuid() != 0, reason="a uid of its own per bot needs root")
def test_children_that_left_the_session_die_with_the_bot() -> None:
    python = "/usr/bin/python3"
    if not os.access(python, os.X_OK):
        pytest.skip("no system python3")
    marker = f"setsid-child-{uuid.uuid4()}"
    hog = bot_file("hog", "1", "1", "setsid", marker, python=python)
    with BotPool(limits(sandbox=Limits(method="rlimits"))) as pool:
        record = play(pool, hog, load_bot("builtin:first"), match_id=marker)
        assert not record.faults
        assert len(processes_mentioning(marker)) == 2  # the bot, and its child holds on
    assert settled(lambda: not processes_mentioning(marker))


# -- the league's caps, and arena check ----------------------------------------------------------


def test_league_caps_are_checked_and_written() -> None:
    config = parse_config({"limits": {"cpu_seconds_per_match": 5, "memory_mb_per_bot": 512}})
    assert config.run_limits().budget == Budget(5.0, 512.0)
    assert config.limits.decision == 1.0
    assert parse_config({}).run_limits().budget == Budget()
    for bad in (-1, "5", True):
        with pytest.raises(ConfigError, match=r"limits\.memory_mb_per_bot"):
            parse_config({"limits": {"memory_mb_per_bot": bad}})
    with pytest.raises(ConfigError, match="cpu_seconds_per_match"):
        parse_config({"limits": {"cpu_seconds": 5}})
    written = dataclasses.replace(default_config(), budget=Budget(2.5, 300.0))
    assert parse_config(tomllib.loads(config_text(written))).budget == Budget(2.5, 300.0)


def test_check_with_a_league_cap_fails_a_hog_with_a_hint_and_shows_usage(tmp_path: Path) -> None:
    (tmp_path / "league.toml").write_text(
        "[games.take5]\nseats = [2]\noptions = { max_rounds = 1 }\n"
        "[limits]\ndecision = 5\nmemory_mb_per_bot = 200\n"
    )
    hog = str(TEST_BOTS / "hog.py")
    result = CliRunner().invoke(main, ["check", hog, "--matches", "1", "--league", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "FAIL take5: 1 matches at 2 seats" in result.output
    assert "resources" in result.output and "over the cap of 200 MiB" in result.output
    assert HINTS[FaultKind.RESOURCES] in result.output.replace("\n    ", " ")
    assert "MiB max per match (all its processes)" in result.output


def test_check_reports_usage_and_a_resources_hint() -> None:
    table = GameConfig("take5", (2,), ONE_ROUND)
    report = check_bot(bot_file("good"), 2, limits(), [table])
    (game,) = report.games
    summary = game.usage()
    assert summary is not None and summary.matches == 2
    assert summary.max_cpu_seconds < 0.5
    assert FaultKind.RESOURCES in HINTS


def test_a_live_bot_near_its_lifetime_cpu_limit_is_replaced_before_a_match_not_killed_in_one(
    process_bots: None,
) -> None:
    # The burner burns a core from its first match on, up to a second of CPU a match (less on
    # a busy machine): with a lifetime limit of 3 s per process the kernel would kill a reused
    # process (SIGXCPU) once its matches add up to 3 s, a crash charged to the bot; past half
    # the limit it is replaced. Matches are played until the bot has burned more than one
    # process may (on 2 busy cores 6 matches once came to 2.5 s), 30 at most.
    # The system Python, which any uid can run (this venv's lives in a private home).
    sandbox = Limits(method="rlimits", cpu_seconds=3)
    burner = bot_file("burner", python="/usr/bin/python3")
    records: list[MatchRecord] = []
    burned = 0.0
    with BotPool(limits(sandbox=sandbox)) as pool:
        while burned <= 4 and len(records) < 30:
            record = play(pool, burner, load_bot("builtin:first"), match_id=f"cpu{len(records)}")
            records.append(record)
            burned += record.usage[0].cpu_seconds if record.usage[0] is not None else 0.0
        retired, started = pool.retired, pool.started
    assert [r.faults for r in records] == [()] * len(records)
    assert burned > 3, f"{len(records)} matches burned {burned:.2f} s, not past one process's 3 s"
    assert retired >= 1 and started == 1 + retired
