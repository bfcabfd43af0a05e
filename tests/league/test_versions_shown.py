"""Versions are told apart everywhere as "label (hash)": status, bots, the site's links."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.league.core import League
from arena.site.pages import refs
from tests.league.helpers import write_bot


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_two_versions_of_one_bot_are_told_apart(tmp_path: Path) -> None:
    league = tmp_path / "lg"
    code, out = run("league", "init", str(league))
    assert code == 0, out
    bot = write_bot(tmp_path, "alpha")
    code, out = run("submit", str(bot), "--league", str(league), "--no-check")
    assert code == 0, out
    toml = bot / "bot.toml"
    toml.write_text(toml.read_text().replace('version = "1"', 'version = "2"'))
    (bot / "bot.py").write_text((bot / "bot.py").read_text() + "\n# changed\n")
    code, out = run("submit", str(bot), "--league", str(league), "--no-check")
    assert code == 0, out
    with League.open(league) as lg:
        first, second = sorted(lg.entrants(), key=lambda e: e.id)
    assert f"it replaces version 1 ({first.version[:8]})" in out
    code, out = run("bots", "--league", str(league), "--all")
    assert code == 0, out
    assert f"1 ({first.version[:8]})" in out and f"2 ({second.version[:8]})" in out
    shown = refs([first, second])
    assert shown[first.id].twin and shown[second.id].twin
    assert shown[second.id].shown_version == f"2 ({second.version[:8]})"
    assert not refs([first])[first.id].twin
