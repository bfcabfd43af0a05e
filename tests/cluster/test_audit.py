"""The audit: a clean league passes; any edit to a stored record is caught by its match id."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.games import get_game
from arena.league.audit import audit
from arena.league.core import League
from arena.league.store import unpack_record
from arena.run.local import run_league
from tests.league.helpers import ROOT, write_bot, write_config

GAMES = ("take5", "ten", "phase10")
CONFIG = """\
seed = 3
workers = 2
[games.take5]
seats = [3]
[games.ten]
seats = [1, 2]
[games.phase10]
seats = [2]
[schedule]
max_matches = 60
min_batch_matches = 16
[limits]
decision = 0.5
bank = 1.0
[entrants]
suspend_fault_rate = 1.0
"""
PLAYED = 59  # the budget of 60, less a duplicate set that would not fit


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, process_bots: None) -> Path:
    """A finished league of every game, with crashing and cheating bots (faults, fallbacks)."""
    tmp = tmp_path_factory.mktemp("audit")
    src = tmp / "src"
    bots = [
        str(ROOT / "bots" / "random"),
        "builtin:random",
        "builtin:first",
        str(write_bot(src, "crasher", "crash", games=GAMES)),
        str(write_bot(src, "cheat", "illegal", games=GAMES)),
    ]
    folder = tmp / "league"
    write_config(folder, CONFIG)
    with League.open(folder) as lg:
        for bot in bots:
            lg.submit(bot, check=False)
        assert run_league(lg, 2, progress=None).played == PLAYED
    return folder


@pytest.fixture
def league(played: Path, tmp_path: Path) -> Path:
    """A private copy of the played league, free to tamper with."""
    folder = tmp_path / "copy"
    shutil.copytree(played, folder)
    return folder


def records(folder: Path) -> list[tuple[str, dict[str, Any]]]:
    db = sqlite3.connect(folder / "league.db")
    try:
        return [
            (mid, unpack_record(rec))
            for mid, rec in db.execute("SELECT match_id, record FROM results ORDER BY match_id")
        ]
    finally:
        db.close()


def rewrite(folder: Path, mid: str, record: dict[str, Any], **columns: Any) -> None:
    db = sqlite3.connect(folder / "league.db")
    try:
        with db:
            db.execute(
                "UPDATE results SET record = ? WHERE match_id = ?", (orjson.dumps(record), mid)
            )
            for column, value in columns.items():
                db.execute(f"UPDATE results SET {column} = ? WHERE match_id = ?", (value, mid))
    finally:
        db.close()


def audited(folder: Path) -> list[str]:
    with League.open(folder) as lg:
        report = audit(lg)
    assert report.matches == PLAYED
    return report.bad_matches()


def cli(folder: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["audit", str(folder)])
    return result.exit_code, result.output


def test_a_played_league_passes_the_audit(played: Path) -> None:
    with League.open(played) as lg:
        report = audit(lg)
    assert report.ok, [str(p) for p in report.problems]
    assert report.matches == PLAYED and report.actions > 1000
    kinds = {rec["game"] for _, rec in records(played)}
    assert kinds == set(GAMES)
    # The league exercised what the audit checks: faults, fallbacks, solo and shared tables;
    # the faults are those its bots were written to commit (not a machine that runs no bot).
    faults = {
        (rec["seats"][f["seat"]]["name"], f["status"])
        for _, rec in records(played)
        for f in rec["faults"]
    }
    assert {("crasher", "crash"), ("cheat", "illegal_action")} <= faults, faults
    assert any(rec["fallback_steps"] for _, rec in records(played))
    code, out = cli(played)
    assert code == 0 and f"{PLAYED} matches" in out and "all agree" in out


def pick(folder: Path, test: Callable[[dict[str, Any]], bool]) -> tuple[str, dict[str, Any]]:
    return next((mid, rec) for mid, rec in records(folder) if test(rec))


def test_a_changed_final_rank_is_caught(league: Path) -> None:
    mid, rec = pick(league, lambda r: len(r["ranks"]) == 3 and len(set(r["ranks"])) > 1)
    rec["ranks"] = rec["ranks"][1:] + rec["ranks"][:1]
    rewrite(league, mid, rec, ranks=orjson.dumps(rec["ranks"]).decode())
    assert audited(league) == [mid]
    code, out = cli(league)
    assert code == 1 and mid in out and "final ranks" in out


def test_a_changed_rank_column_alone_is_caught(league: Path) -> None:
    mid, rec = pick(league, lambda r: len(r["ranks"]) == 2 and len(set(r["ranks"])) == 2)
    rewrite(league, mid, rec, ranks=orjson.dumps(rec["ranks"][::-1]).decode())
    with League.open(league) as lg:
        report = audit(lg)
    assert report.bad_matches() == [mid]
    # ... and the ratings no longer follow from the stored results.
    assert any(not p.match_id and "ratings" in p.message for p in report.problems)


def test_a_changed_action_is_caught(league: Path) -> None:
    mid, rec = pick(league, lambda r: r["game"] == "take5" and not r["faults"])
    state = get_game("take5").new(rec["seed"], len(rec["seats"]), rec["options"])
    seat, action = rec["actions"][0]
    other = next(a for a in state.legal(seat) if a != action)
    rec["actions"][0] = [seat, other]
    rewrite(league, mid, rec)
    assert audited(league) == [mid]


def test_a_changed_score_is_caught(league: Path) -> None:
    mid, rec = pick(league, lambda r: r["game"] == "ten")
    rec["result"]["scores"][0] += 1
    rewrite(league, mid, rec, scores=orjson.dumps(rec["result"]["scores"]).decode())
    assert audited(league) == [mid]


def test_a_hidden_fallback_is_caught(league: Path) -> None:
    mid, rec = pick(league, lambda r: bool(r["fallback_steps"]))
    rec["fallback_steps"] = rec["fallback_steps"][1:]
    rewrite(league, mid, rec)
    assert audited(league) == [mid]


def test_a_fallback_that_is_not_the_first_legal_action_is_caught(league: Path) -> None:
    def fallback_with_choice(rec: dict[str, Any]) -> bool:
        return rec["game"] == "take5" and bool(rec["fallback_steps"])

    mid, rec = pick(league, fallback_with_choice)
    step = rec["fallback_steps"][0]
    state = get_game("take5").new(rec["seed"], len(rec["seats"]), rec["options"])
    for seat, action in rec["actions"][:step]:
        state.apply(seat, action)
    seat = rec["actions"][step][0]
    legal = state.legal(seat)
    assert len(legal) > 1
    rec["actions"][step] = [seat, legal[-1]]
    rewrite(league, mid, rec)
    assert mid in audited(league)


def test_a_seat_played_by_another_bot_is_caught(league: Path) -> None:
    mid, rec = pick(league, lambda r: len(r["seats"]) >= 2 and r["seats"][0] != r["seats"][1])
    rec["seats"][0], rec["seats"][1] = rec["seats"][1], rec["seats"][0]
    rewrite(league, mid, rec)
    assert audited(league) == [mid]


def test_a_removed_fault_is_caught(league: Path) -> None:
    mid, rec = pick(league, lambda r: bool(r["faults"]))
    rec["faults"] = []
    rewrite(league, mid, rec)
    assert audited(league) == [mid]


def test_a_result_without_a_scheduled_match_is_named_by_its_id(league: Path) -> None:
    """A result whose match id is not in the schedule is reported under that id (it was
    reported for the league as a whole, as the schedule's missing id read as None)."""
    db = sqlite3.connect(league / "league.db")  # foreign keys off: the store would refuse it
    try:
        with db:
            db.execute(
                "INSERT INTO results(match_id, ranks, scores, faults, seconds, finished_at,"
                " record) SELECT 'stray', ranks, scores, faults, seconds, finished_at, record"
                " FROM results LIMIT 1"
            )
    finally:
        db.close()
    with League.open(league) as lg:
        report = audit(lg)
    assert [str(p) for p in report.problems] == ["stray: a result without a scheduled match"]
    assert report.bad_matches() == ["stray"]
