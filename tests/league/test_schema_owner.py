"""The store owns ``league.db``: no module outside :mod:`arena.league.store` runs SQL on the
league's tables, so the schema lives in one place (the audit and the site read through the
store's methods)."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from arena.league.store import MIGRATIONS

ARENA = Path(__file__).resolve().parents[2] / "arena"
STORE = ARENA / "league" / "store.py"
OWN_TABLES = {ARENA / "site" / "cache.py": {"meta"}}
"""Modules with a database of their own, and its tables that share a name with a league's:
the site's cache (``.arena-site.sqlite`` in the site's folder) keeps its own ``meta``."""

LEAGUE_TABLES = frozenset(re.findall(r"CREATE TABLE (\w+)", "\n".join(MIGRATIONS)))
SQL_KEYWORD = r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE(?: IF (?:NOT )?EXISTS)?)\s+\"?"


def sql_mentions(text: str, tables: frozenset[str]) -> set[str]:
    """The ``tables`` that ``text`` names after an SQL keyword (FROM, JOIN, INTO, ...)."""
    pattern = re.compile(SQL_KEYWORD + r"(" + "|".join(sorted(tables)) + r")\b")
    return set(pattern.findall(text))


def string_literals(path: Path) -> list[tuple[int, str]]:
    """Every string literal in a module (f-strings included), with its line."""
    source = path.read_text(encoding="utf-8")
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [(t.start[0], t.string) for t in tokens if t.type == tokenize.STRING]


def test_the_league_tables_are_found() -> None:
    assert {"bots", "batches", "schedule", "results", "faults", "ratings", "meta"} <= (
        LEAGUE_TABLES
    )
    assert sql_mentions('"SELECT x FROM results r JOIN schedule s"', LEAGUE_TABLES) == {
        "results",
        "schedule",
    }
    assert sql_mentions('"INSERT INTO faults(match_id) VALUES (?)"', LEAGUE_TABLES) == {"faults"}
    assert sql_mentions('"""the results from a batch"""', LEAGUE_TABLES) == set()


def test_only_the_store_runs_sql_on_the_league_tables() -> None:
    found = []
    for path in sorted(ARENA.rglob("*.py")):
        if path == STORE:
            continue
        allowed = OWN_TABLES.get(path, set())
        for line, text in string_literals(path):
            named = sql_mentions(text, LEAGUE_TABLES) - allowed
            if named:
                where = path.relative_to(ARENA.parent)
                found.append(f"{where}:{line}: SQL on {', '.join(sorted(named))}")
    assert not found, (
        "only arena/league/store.py may run SQL on league.db's tables (the schema lives there);"
        " give the store a method (a read-only one on StoreReader if it only reads) and call"
        " that instead:\n" + "\n".join(found)
    )
