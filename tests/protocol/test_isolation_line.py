"""The arena says which isolation is in force where it matters: `arena play`, `arena check` and
`arena league run` print one line (the method, and what it does not cover when weaker than
bubblewrap), `arena play --json` records carry it, and league folders are private."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.runtime import sandbox

BOTS = Path(__file__).resolve().parent.parent / "bots"
GOOD = str(BOTS / "manifest_ok")


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_play_prints_the_sandbox_line_and_json_records_carry_it() -> None:
    code, out, err = invoke("play", "take5", GOOD, "builtin:random", "--games", "2", "--json")
    assert code == 0, err
    expected = sandbox.isolation_summary()
    assert sum(line.startswith("sandbox: ") for line in err.splitlines()) == 1
    assert f"sandbox: {expected['method']}" in err
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 2
    assert all(r["sandbox"] == expected for r in records)


def test_play_with_in_process_players_only_says_nothing_of_a_sandbox() -> None:
    code, out, err = invoke("play", "take5", "builtin:random", "builtin:first", "--json")
    assert code == 0, err
    assert "sandbox" not in err and "sandbox" not in json.loads(out)


def test_check_prints_the_sandbox_line() -> None:
    code, out, _ = invoke("check", GOOD, "--matches", "1")
    assert code == 0, out
    assert out.splitlines()[0].startswith(f"sandbox: {sandbox.isolation_summary()['method']}")


def test_league_run_prints_the_sandbox_line_and_the_league_is_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "lg"
    assert invoke("league", "init", str(folder))[0] == 0
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    folder.chmod(0o755)  # as a copied or older league might be
    (folder / "league.toml").write_text(
        (folder / "league.toml").read_text().replace("max_matches = ", "max_matches = 2 #"),
    )
    for name in ("one", "two"):
        code, out, err = invoke(
            "submit", GOOD, "--league", str(folder), "--name", name, "--no-check"
        )
        assert code == 0, out + err
    code, out, err = invoke("league", "run", str(folder), "--quiet")
    assert code == 0, out + err
    assert f"sandbox: {sandbox.isolation_summary()['method']}" in err
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0


@pytest.mark.parametrize("method", ["unshare", "rlimits", "none"])
def test_a_method_weaker_than_bubblewrap_says_what_it_does_not_cover(
    method: sandbox.Method, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_SANDBOX", method)
    summary = sandbox.isolation_summary()
    line = sandbox.isolation_line()
    if "error" in summary:
        assert "cannot run here" in line
        return
    assert line.startswith(f"sandbox: {method}")
    if method == "unshare":
        assert "bubblewrap unavailable" in line
    elif method == "rlimits" and os.geteuid() == 0:
        assert "NOT isolated" in line
    elif method == "rlimits":
        assert "NOTHING hidden" in line
    else:
        assert "unconfined" in line
