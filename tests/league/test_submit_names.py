"""A bot that names a game the arena does not know is refused at submission, with a guess."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.league.helpers import ROOT


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_submit_refuses_a_misnamed_game_and_enters_nothing(tmp_path: Path) -> None:
    league = tmp_path / "lg"
    code, out = run("league", "init", str(league))
    assert code == 0, out
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text((ROOT / "bots" / "random" / "bot.py").read_text())
    (bot / "bot.toml").write_text(
        'name = "friend"\ncommand = ["python3", "bot.py"]\ngames = ["take5", "6nimmt", "Phase10"]\n'
    )
    code, out = run("submit", str(bot), "--league", str(league))
    assert code == 1, out
    assert "unknown game '6nimmt' (did you mean 'take5'?" in out
    code, out = run("bots", "--league", str(league))
    assert code == 0 and "friend" not in out, out


def test_check_takes_a_league_by_its_bare_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = run("league", "init", "friends")
    assert code == 0 and (tmp_path / "results" / "friends" / "league.toml").exists(), out
    code, out = run("check", "builtin:random", "--matches", "1", "--league", "friends")
    assert code == 0 and out.rstrip().endswith("PASS"), out
    code, out = run("check", "builtin:random", "--league", "strangers")
    assert code == 1 and "strangers" in out, out
