"""Scrimmages: unrated matches an author asks for, kept apart from the league's ratings.

Like an A/B test (:mod:`arena.abtest.folder`), a scrimmage is a league folder of its own,
``scrimmages/<id>/`` under the league folder: ``league.toml`` with the one game at the one table
size and a budget of 0 (its own schedule never plans a match), ``league.db`` holding the bots
(copied from the league's entrants, unchecked: the league checked them) and the planned and
played matches. The matches are played by the league driver with :class:`ScrimmagePlanner` in
place of a schedule, so a scrimmage resumes after ``kill -9`` like a league, and the league's
ratings never see a scrimmage. Its replays are its own rendered site, ``site/`` in its folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.league.config import GameConfig, Schedule
from arena.league.core import League
from arena.league.schedule import match_id
from arena.league.store import BatchMode, Entrant, Planned, StoredResult
from arena.runtime.scratch import remove_tree
from arena.server.jobs import SCRIMMAGES_DIR, Scrimmage

SITE_DIR = "site"
MAX_MATCHES = 50


def scrimmage_folder(league_folder: Path, sid: int) -> Path:
    return league_folder / SCRIMMAGES_DIR / str(sid)


def entrant_source(league: League, e: Entrant) -> str:
    """Where a scrimmage copies an entrant from: its folder in the league, or builtin:NAME."""
    return e.source if e.source.startswith("builtin:") else str(league.folder / e.source)


def live_entrant(league: League, name: str) -> Entrant | None:
    """The current live version of a bot (None: no live version)."""
    live = [e for e in league.entrants() if e.name == name and e.status.live]
    return live[-1] if live else None


def create(league: League, scrim: Scrimmage) -> Path:
    """Make the scrimmage's folder (beside it, then renamed into place: complete or absent)."""
    folder = scrimmage_folder(league.folder, scrim.id)
    if folder.exists():
        return folder
    staging = folder.with_name(f".creating-{scrim.id}")
    if staging.exists():
        remove_tree(staging)
    sources = []
    for name in scrim.bots:
        e = live_entrant(league, name)
        if e is None:
            raise ValueError(f"{name} has no live version in the league")
        sources.append(entrant_source(league, e))
    table = league.config.game(scrim.game)
    config = replace(
        league.config,
        games=(GameConfig(scrim.game, (len(scrim.bots),), dict(table.options)),),
        schedule=Schedule(chunk=1, max_matches=0),
    )
    try:
        League.init(staging, config)
        with League.open(staging) as inner:
            for seat, source in enumerate(sources):
                inner.submit(source, name=f"{seat}-{scrim.bots[seat]}"[:64], check=False)
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging.rename(folder)
    except BaseException:
        remove_tree(staging)
        raise
    return folder


def deal_seed(seed: int, k: int) -> int:
    """The deal of a scrimmage's match ``k``."""
    return seed * 1_000_003 + k


def placement(inner: League) -> Callable[[StoredResult], list[str]]:
    """The audit's check of a stored scrimmage match's place (see
    :func:`arena.league.audit.audit`): the id and the deal :func:`planned` gives its ordinal
    in this scrimmage (its folder is named by its id)."""
    sid, seed = int(inner.folder.name), inner.config.seed

    def check(stored: StoredResult) -> list[str]:
        out = []
        if stored.match_id != match_id(seed, sid, stored.ordinal):
            out.append(f"the id is not the scrimmage's id for match {stored.ordinal}")
        if stored.seed != deal_seed(seed, stored.ordinal):
            out.append(f"the seed is not the scrimmage's deal for match {stored.ordinal}")
        return out

    return check


def planned(scrim: Scrimmage, bots: Sequence[int], seed: int) -> list[Planned]:
    """The scrimmage's matches: seats rotated match by match, a fresh deal each."""
    n = len(bots)
    out = []
    for k in range(scrim.matches):
        out.append(
            Planned(
                match_id=match_id(seed, scrim.id, k),
                batch=0,
                ordinal=k,
                game=scrim.game,
                tab=k,
                rotation=k % n,
                seed=deal_seed(seed, k),
                options={},
                bots=tuple(bots[(s + k) % n] for s in range(n)),
            )
        )
    return out


class ScrimmagePlanner:
    """The driver's planner for a scrimmage (:class:`arena.run.driver.Planner`): one batch of
    all its matches, planned once."""

    def __init__(self, league: League, scrim: Scrimmage) -> None:
        self.league = league
        self.scrim = scrim
        self.batches_planned: list[int] = []

    def start(self) -> list[Planned]:
        store = self.league.store
        if store.batch_count() == 0:
            bots = [e.id for e in self.league.entrants()]
            options = dict(self.league.config.games[0].options)
            matches = [
                replace(p, options=options)
                for p in planned(self.scrim, bots, self.league.config.seed)
            ]
            with store.transaction():
                store.add_batch(0, BatchMode.UNIFORM, 0, matches)
            self.batches_planned.append(0)
        return self.league.unplayed()

    def after(self) -> list[Planned] | None:
        return []

    def total(self) -> int:
        return self.scrim.matches

    def stop_reason(self) -> str:
        return "" if self.league.unplayed() else "finished: every match of the scrimmage is played"


def results(folder: Path, names: Sequence[str]) -> list[dict[str, Any]]:
    """The scrimmage's played matches, in order: who sat where, ranks, scores, faults."""
    if not (folder / "league.db").exists():
        return []
    out = []
    with League.open(folder, read_only=True) as inner:
        ids = {e.id: names[i] if i < len(names) else e.name for i, e in enumerate(inner.entrants())}
        for record in inner.store.records():
            bots = record["schedule"]["bots"]
            out.append(
                {
                    "match_id": record["match_id"],
                    "bots": [ids.get(b, str(b)) for b in bots],
                    "ranks": record["ranks"],
                    "scores": record["result"]["scores"],
                    "faults": [
                        {"seat": f["seat"], "status": f["status"], "message": f["message"]}
                        for f in record["faults"]
                    ],
                }
            )
    return out


def summary(rows: Sequence[dict[str, Any]], names: Sequence[str]) -> list[dict[str, Any]]:
    """Per bot: matches, mean rank (1 = first), wins (rank 0), faults."""
    per: dict[str, dict[str, Any]] = {
        n: {"bot": n, "matches": 0, "rank_sum": 0, "wins": 0, "faults": 0} for n in names
    }
    for row in rows:
        faulted = {f["seat"] for f in row["faults"]}
        for seat, bot in enumerate(row["bots"]):
            entry = per.setdefault(
                bot, {"bot": bot, "matches": 0, "rank_sum": 0, "wins": 0, "faults": 0}
            )
            entry["matches"] += 1
            entry["rank_sum"] += row["ranks"][seat] + 1
            entry["wins"] += row["ranks"][seat] == 0
            entry["faults"] += seat in faulted
    return [
        {
            "bot": e["bot"],
            "matches": e["matches"],
            "mean_rank": round(e["rank_sum"] / e["matches"], 3) if e["matches"] else None,
            "wins": e["wins"],
            "faults": e["faults"],
        }
        for e in per.values()
    ]


def dump(data: Any) -> str:
    return json.dumps(data)
