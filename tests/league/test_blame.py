"""The arena's own failures are never charged to a bot: a bot folder or interpreter gone, a
sandbox tool that will not run. The match is not recorded, a league run stops with one clear
error, and the commands print one line and exit 1. And a league that cannot go on says why."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ArenaSetupError
from arena.league.core import League
from arena.match import MatchSpec, run_match
from arena.run.local import run_league
from arena.runtime.botproc import FaultKind, RunLimits, TimeLimits
from arena.runtime.manifest import BotKind, BotSpec, load_bot
from arena.runtime.pool import BotPool
from arena.runtime.sandbox import Limits, SandboxUnavailable
from arena.runtime.sandbox import _works as works
from arena.runtime.scratch import remove_tree
from tests.league.helpers import small_league, write_bot

pytestmark = pytest.mark.timeout(180)

FAST = RunLimits(time=TimeLimits(decision=0.5, bank=0.5, startup=10.0, grace=0.2))
FIRST = load_bot("builtin:first")


@pytest.fixture
def here() -> Iterator[Path]:
    """A folder the bots' uids can reach (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-blame-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    remove_tree(folder)


def without_sandbox_line(output: str) -> str:
    """The output less the line that says which sandbox is in force (printed before any bot
    starts, so also when starting one then fails)."""
    return "".join(line for line in output.splitlines(True) if not line.startswith("sandbox: "))


def no_sandbox(*args: Any, **kwargs: Any) -> Any:
    raise SandboxUnavailable("bubblewrap does not work on this machine")


# -- the pool and the match -------------------------------------------------------------------


def test_a_bot_folder_gone_is_the_arenas_failure_and_the_match_is_not_recorded(
    here: Path,
) -> None:
    bot = load_bot(str(write_bot(here / "src", "vanishing")))
    remove_tree(here / "src" / "vanishing")
    with BotPool(FAST) as pool, pytest.raises(ArenaSetupError, match="vanishing"):
        run_match(MatchSpec("m", "take5", 1, (FIRST, bot)), pool)


def test_a_missing_interpreter_is_the_arenas_failure(here: Path) -> None:
    bot = BotSpec("ghost", BotKind.PROCESS, "ghost", ("/no/such/python", "bot.py"), here)
    with BotPool(FAST) as pool, pytest.raises(ArenaSetupError, match="/no/such/python"):
        pool.get(bot)


def test_a_sandbox_that_cannot_start_is_the_arenas_failure(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.runtime.pool.confine", no_sandbox)
    bot = load_bot(str(write_bot(here / "src", "fine")))
    with BotPool(FAST) as pool, pytest.raises(ArenaSetupError, match="bubblewrap"):
        pool.get(bot)
    assert list((pool.scratch_root).glob("*-fine-*")) == []  # its scratch went too


def test_a_vanished_sandbox_tool_is_the_arenas_failure(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.runtime import sandbox

    real = sandbox.confine

    def tool_gone(*args: Any, **kwargs: Any) -> sandbox.Confined:
        confined = real(*args, **kwargs)
        confined.release()
        return sandbox.Confined(
            ["/no/such/bwrap", *confined.argv], confined.cwd, confined.env, method="bubblewrap"
        )

    monkeypatch.setattr("arena.runtime.pool.confine", tool_gone)
    bot = load_bot(str(write_bot(here / "src", "fine")))
    with BotPool(FAST) as pool, pytest.raises(ArenaSetupError, match="sandbox"):
        pool.get(bot)


def test_a_bots_own_program_that_will_not_run_is_still_the_bots_fault(here: Path) -> None:
    folder = here / "src" / "noexec"
    folder.mkdir(parents=True)
    (folder / "run").write_text("not a program\n")  # no +x: the author's mistake
    bot = BotSpec("noexec", BotKind.PROCESS, "noexec", (str(folder / "run"),), folder)
    with BotPool(FAST) as pool:
        record = run_match(MatchSpec("m", "take5", 1, (bot, FIRST), {"max_rounds": 1}), pool)
    (fault,) = record.faults
    assert fault.kind is FaultKind.START_FAILED


# -- a league run -------------------------------------------------------------------------------


def broken_league(here: Path) -> Path:
    """A league of two bots, one of whose folders then disappears from the league."""
    league = small_league(
        here / "league",
        [
            str(write_bot(here / "src", "stays")),
            str(write_bot(here / "src", "goes")),
            "builtin:first",
        ],
        budget=12,
        batch=6,
        suspend_min=1,
        suspend_rate=0.01,
    )
    (gone,) = (league / "bots").glob("goes-*")
    remove_tree(gone)
    return league


def test_a_league_run_stops_on_the_arenas_failure_and_charges_no_bot(here: Path) -> None:
    league = broken_league(here)
    with League.open(league) as lg:
        with pytest.raises(ArenaSetupError, match="goes"):
            run_league(lg, workers=1, progress=None)
        assert all(e.status == "active" for e in lg.entrants())
        for record in lg.store.records():
            assert not record["faults"], record["faults"]


def test_the_league_run_command_prints_one_line_and_exits_1(here: Path) -> None:
    league = broken_league(here)
    result = CliRunner().invoke(main, ["league", "run", str(league), "--workers", "1", "--quiet"])
    assert result.exit_code == 1, result.output
    said = without_sandbox_line(result.output)
    assert said.count("\n") == 1, said
    assert "the arena cannot run bots here" in said and "goes" in said
    with League.open(league) as lg:
        assert all(e.status == "active" for e in lg.entrants())


def test_the_dask_executor_passes_the_arenas_failure_back(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    distributed = pytest.importorskip("distributed")
    from arena.run.cluster import run_league_dask

    league = small_league(
        here / "league", [str(write_bot(here / "src", "stays")), "builtin:first"], budget=6, batch=6
    )
    monkeypatch.setattr("arena.runtime.pool.confine", no_sandbox)  # the workers are threads here
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
        League.open(league) as lg,
    ):
        with pytest.raises(ArenaSetupError, match="bubblewrap"):
            run_league_dask(lg, client=client)
        assert lg.store.played_count() == 0
        assert all(e.status == "active" for e in lg.entrants())


# -- the commands -----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["play", "check", "submit"])
def test_the_commands_print_one_line_and_exit_1(
    command: str, here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.runtime.pool.confine", no_sandbox)
    bot = str(write_bot(here / "src", "fine"))
    if command == "play":
        args = ["play", "take5", bot, "builtin:first"]
    elif command == "check":
        args = ["check", bot]
    else:
        league = small_league(here / "league", [])
        args = ["submit", bot, "--league", str(league)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert without_sandbox_line(result.output) == (
        "Error: the arena cannot run bots here: cannot set up the sandbox for fine: "
        "bubblewrap does not work on this machine\n"
    )
    if command == "submit":
        with League.open(here / "league") as lg:
            assert lg.entrants() == []
        assert list((here / "league" / "bots").iterdir()) == []


# -- a league that cannot go on ---------------------------------------------------------------


def test_a_league_whose_entrants_are_all_suspended_says_so(here: Path, process_bots: None) -> None:
    league = small_league(
        here / "league",
        [
            str(write_bot(here / "src", "mute1", mode="bad_hello")),
            str(write_bot(here / "src", "mute2", mode="bad_hello")),
        ],
        budget=60,
        batch=6,
        suspend_min=3,
        suspend_rate=0.5,
    )
    result = CliRunner().invoke(main, ["league", "run", str(league), "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    last = result.output.splitlines()[-1]
    assert last.startswith("stopped: too few active entrants to seat a table (0 active)"), last
    assert "mute1 suspended: faulted in" in last and "mute2 suspended" in last
    assert last.count("(e.g. bad_hello: ") == 2, last  # their own fault, not the machine's
    status = CliRunner().invoke(main, ["league", "status", str(league)])
    assert "(finished)" not in status.output and "stopped: too few active" in status.output


def test_a_league_that_played_its_budget_says_finished(here: Path) -> None:
    league = small_league(here / "league", ["builtin:first", "builtin:random"], budget=6, batch=6)
    with League.open(league) as lg:
        report = run_league(lg, workers=1, progress=None)
    assert report.stopped.startswith("finished: the budget of 6 matches is played;")


# -- the jail's own report ---------------------------------------------------------------------

UNSHARE = RunLimits(
    time=FAST.time, sandbox=Limits(method="unshare", read_only=("/no/such/toolchain",))
)


@pytest.mark.skipif(not works("unshare"), reason="the unshare sandbox does not work here")
def test_a_jail_that_cannot_be_built_is_the_arenas_failure(here: Path) -> None:
    bot = load_bot(str(write_bot(here / "src", "jailed")))
    with BotPool(UNSHARE) as pool, pytest.raises(ArenaSetupError, match="sandbox"):
        run_match(MatchSpec("m", "take5", 1, (FIRST, bot)), pool)


@pytest.mark.skipif(not works("unshare"), reason="the unshare sandbox does not work here")
def test_a_bot_that_fakes_the_jails_message_is_its_own_start_failure(here: Path) -> None:
    folder = here / "faker"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "import sys\nprint('arena-jail: cannot mount /usr', file=sys.stderr)\nsys.exit(125)\n"
    )
    bot = BotSpec("faker", BotKind.PROCESS, "faker", (sys.executable, "bot.py"), folder)
    limits = RunLimits(time=FAST.time, sandbox=Limits(method="unshare"))
    with BotPool(limits) as pool:
        record = run_match(MatchSpec("m", "take5", 1, (FIRST, bot)), pool)
    assert [(f.seat, f.kind) for f in record.faults] == [(1, FaultKind.START_FAILED)]
