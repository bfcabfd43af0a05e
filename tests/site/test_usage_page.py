"""The bot's page shows its CPU seconds and peak memory per match (mean and max per game)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from arena.league.core import League
from arena.league.store import unpack_record
from arena.runtime.usage import UsageSummary
from arena.site import build_site
from arena.site.cache import SiteCache
from arena.site.pages import bot_path
from tests.site.leagues import make_league


def add_usage(folder: Path, bot: int) -> list[tuple[float, float]]:
    """Give ``bot``'s seats in every stored record a usage (others null, as in-process agents
    have); returns the usage given, in order."""
    given = []
    db = sqlite3.connect(folder / "league.db")
    try:
        rows = db.execute(
            "SELECT r.match_id, s.bots, r.record FROM results r JOIN schedule s USING (match_id)"
            " ORDER BY r.rowid"
        ).fetchall()
        for match_id, bots, raw in rows:
            record = unpack_record(raw)
            usage = []
            for seated in orjson.loads(bots):
                if seated == bot:
                    cpu, memory = 0.125 * (len(given) + 1), 10.0 * (len(given) % 3 + 1)
                    given.append((cpu, memory))
                    usage.append({"cpu_seconds": cpu, "peak_memory_mb": memory})
                else:
                    usage.append(None)
            record["usage"] = usage
            db.execute(
                "UPDATE results SET record = ? WHERE match_id = ?",
                (orjson.dumps(record).decode(), match_id),
            )
        db.commit()
    finally:
        db.close()
    return given


def test_the_bot_page_shows_usage_per_match(tmp_path: Path) -> None:
    folder = make_league(tmp_path / "league", ["take5"], batches=1, twice=False)
    with League.open(folder) as league:
        entrants = league.store.entrants()
        alpha = next(e.id for e in entrants if e.name == "alpha")
        other = next(e.id for e in entrants if e.name == "gamma")
        given = add_usage(folder, alpha)
        assert given
        build_site(league, tmp_path / "site")
    with SiteCache.open(tmp_path / "site") as cache:
        ((game, summary),) = cache.usage(alpha)
        assert cache.usage(other) == []
    cpu = [c for c, _ in given]
    memory = [m for _, m in given]
    assert game == "take5"
    assert summary.matches == len(given)
    assert summary.mean_cpu_seconds == pytest.approx(sum(cpu) / len(cpu))
    assert summary.max_cpu_seconds == max(cpu)
    assert summary.mean_peak_memory_mb == pytest.approx(sum(memory) / len(memory))
    assert summary.max_peak_memory_mb == max(memory)
    assert isinstance(summary, UsageSummary)
    page = (tmp_path / "site" / bot_path(alpha)).read_text()
    assert "Resources per match" in page
    assert f"{max(cpu):.3f}" in page and f"{max(memory):.1f}" in page
    assert "Not measured" in (tmp_path / "site" / bot_path(other)).read_text()
