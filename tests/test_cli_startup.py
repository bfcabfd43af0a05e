"""The ``arena`` command imports a command's module only when that command runs."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from arena.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[1]


def loaded_after(*args: str) -> set[str]:
    code = (
        "import sys\nfrom arena.cli import main\n"
        f"try:\n    main({list(args)!r})\nexcept SystemExit:\n    pass\n"
        "print('\\n'.join(sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    return set(out.split())


def test_version_imports_no_command() -> None:
    loaded = loaded_after("--version")
    assert not {m for m in loaded if m.startswith(("arena.league", "arena.site", "arena.run"))}
    assert "jinja2" not in loaded and "trueskill" not in loaded
    unused = {"sqlite3", "orjson", "dataclasses"}  # the group tells their errors without them
    assert not unused & loaded, unused & loaded


def test_a_command_imports_its_own_module_only() -> None:
    loaded = loaded_after("games")
    assert "arena.cli.play" in loaded
    assert "arena.cli.site" not in loaded and "jinja2" not in loaded


def test_every_registered_command_resolves_and_has_help() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    for name in COMMANDS:
        assert f"  {name} " in result.output
        command = main.get_command(None, name)  # type: ignore[arg-type]
        assert command is not None and command.name == name


def test_league_status_reads_the_league_without_the_match_machinery(tmp_path: Path) -> None:
    """``league status`` opens the config and the store only: no bot processes, sandbox, match
    loop, runner or bot loading (issue 15: it starts in at most 100 ms); the stored ratings are
    read without trueskill."""
    from arena.league.config import default_config
    from arena.league.core import League

    League.init(tmp_path / "lg", default_config(seed=1))
    with League.open(tmp_path / "lg") as lg:
        lg.submit("builtin:random", name="a", check=False)
    loaded = loaded_after("league", "status", str(tmp_path / "lg"))
    assert "arena.league.core" in loaded  # the command did run
    heavy = {
        "arena.runtime.botproc",
        "arena.runtime.sandbox",
        "arena.match",
        "arena.league.conformance",
        "arena.run.local",
        "arena.run.driver",
        "multiprocessing",
        "jinja2",
        "trueskill",
        "arena.runtime.manifest",  # bots are loaded by the commands that enter or run them
        "signal",  # league run's SIGTERM handler
    }
    assert not heavy & loaded, heavy & loaded


def collector_after(call: str) -> tuple[int, bool]:
    """(objects the call added to the collector's permanent generation, whether the collector
    is on) after ``call`` runs ``arena games`` in a new process. The count is taken relative to
    the one before the import: Python 3.12.1 starts with objects already frozen (375 here)."""
    code = (
        "import gc, sys\nstart = gc.get_freeze_count()\nfrom arena.cli import main\n"
        "sys.argv = ['arena', 'games']\n"
        f"try:\n    {call}\nexcept SystemExit:\n    pass\n"
        "print(gc.get_freeze_count() - start, gc.isenabled())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout.split()
    return int(out[-2]), out[-1] == "True"


def test_the_program_keeps_its_start_from_the_cycle_collector() -> None:
    """Run as the program (``main()`` reads the command line, as the ``arena`` script calls it),
    what the start imported goes to the collector's permanent generation, and the collector is
    on for the command; called with arguments (tests, other code), ``main`` leaves the caller's
    collector as it was, in a new process and in this one."""
    frozen, enabled = collector_after("main()")
    assert frozen > 10_000 and enabled
    assert collector_after("main(['games'])") == (0, True)
    before = gc.get_freeze_count()
    assert CliRunner().invoke(main, ["games"]).exit_code == 0
    assert gc.get_freeze_count() == before and gc.isenabled()
