"""``league run`` says why it stops, ``--more N`` extends a spent league, and a table with
fewer bots than seats is announced."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.league.core import League


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def league(tmp_path: Path, budget: int) -> Path:
    folder = tmp_path / "lg"
    code, out = run("league", "init", str(folder), "--workers", "1")
    assert code == 0, out
    text = (
        (folder / "league.toml")
        .read_text()
        .replace("max_matches = 2000", f"max_matches = {budget}")
    )
    (folder / "league.toml").write_text(text)
    for bot in ("builtin:first", "builtin:random"):
        code, out = run("submit", bot, "--league", str(folder))
        assert code == 0, out
    return folder


def test_a_spent_league_says_so_and_more_plays_on(tmp_path: Path) -> None:
    folder = league(tmp_path, budget=6)
    code, out = run("league", "run", str(folder), "--quiet")
    assert code == 0, out
    assert "finished: the budget of 6 matches is" in out and "--more N" in out
    with League.open(folder, read_only=True) as lg:
        first = lg.store.played_count()
    code, out = run("league", "run", str(folder), "--quiet")
    assert code == 0 and "played 0 matches" in out and "budget of 6 matches" in out, out
    code, out = run("league", "run", str(folder), "--quiet", "--more", "8")
    assert code == 0, out
    assert f"the league now plans up to {max(6, first) + 8} matches" in out
    assert f"budget of {max(6, first) + 8} matches is" in out
    with League.open(folder, read_only=True) as lg:
        assert first < lg.store.played_count() <= lg.budget == max(6, first) + 8


def test_more_must_be_positive(tmp_path: Path) -> None:
    folder = league(tmp_path, budget=2)
    code, out = run("league", "run", str(folder), "--more", "0")
    assert code == 2 and "--more" in out


def test_a_table_larger_than_its_bots_is_announced(tmp_path: Path) -> None:
    folder = league(tmp_path, budget=2)  # the default games seat up to 4 or more; 2 bots here
    code, out = run("league", "run", str(folder), "--quiet")
    assert code == 0, out
    assert "note: take5 is played at" in out and "only 2 active bot(s) play it" in out
    with League.open(folder, read_only=True) as lg:
        crowded = lg.crowded_tables()
    assert crowded and all(seats > bots == 2 for _, seats, bots in crowded)
