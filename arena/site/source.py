"""What the site reads from a league that the store's public methods do not offer in the shape a
site needs: results after a watermark (to render only new match pages), one bot's faults with
their stderr, and when the league last stored a result.

These are read-only queries on the store's documented tables (``schedule``, ``results``,
``faults``), through a connection of the site's own opened read-only, so the site can never write
to a league. Everything else comes from :class:`~arena.league.core.League` and
:class:`~arena.league.store.Store` methods.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from arena.league.store import connect_read_only


@dataclass(frozen=True)
class StoredMatch:
    """One stored result: where it sits in the schedule, and its whole record."""

    row: int
    """The result's row number in the store: results are only ever added, so it grows."""
    match_id: str
    batch: int
    ordinal: int
    game: str
    bots: tuple[int, ...]
    finished_at: str
    record: dict[str, Any]


@dataclass(frozen=True)
class BotFault:
    match_id: str
    game: str
    seat: int
    step: int
    status: str
    message: str
    stderr_tail: str


class LeagueReader:
    """A read-only connection to a league's store."""

    def __init__(self, db_path: Path) -> None:
        self.db = connect_read_only(db_path)  # works in a read-only league folder too

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> LeagueReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def last_row(self) -> int:
        return int(self.db.execute("SELECT COALESCE(MAX(rowid), 0) FROM results").fetchone()[0])

    def results_after(self, row: int) -> Iterator[StoredMatch]:
        """Every result stored after row ``row``, oldest first (streamed)."""
        cursor = self.db.execute(
            "SELECT r.rowid, s.match_id, s.batch, s.ordinal, s.game, s.bots, r.finished_at,"
            " r.record FROM results r JOIN schedule s USING (match_id)"
            " WHERE r.rowid > ? ORDER BY r.rowid",
            (row,),
        )
        for rowid, match_id, batch, ordinal, game, bots, finished_at, record in cursor:
            yield StoredMatch(
                rowid,
                match_id,
                batch,
                ordinal,
                game,
                tuple(orjson.loads(bots)),
                finished_at,
                orjson.loads(record),
            )

    def last_finished(self) -> str:
        row = self.db.execute("SELECT MAX(finished_at) FROM results").fetchone()
        return "" if row[0] is None else str(row[0])

    def faults_of(self, bot: int, limit: int = 20) -> list[BotFault]:
        """The latest faults of one bot."""
        return [
            BotFault(*r)
            for r in self.db.execute(
                "SELECT f.match_id, s.game, f.seat, f.step, f.status, f.message, f.stderr_tail"
                " FROM faults f JOIN results r USING (match_id) JOIN schedule s USING (match_id)"
                " WHERE f.bot = ? ORDER BY r.rowid DESC, f.seat LIMIT ?",
                (bot, limit),
            )
        ]

    def fault_kinds(self, bot: int) -> list[tuple[str, int]]:
        return [
            (str(r[0]), int(r[1]))
            for r in self.db.execute(
                "SELECT status, COUNT(*) FROM faults WHERE bot = ? GROUP BY status ORDER BY 2 DESC",
                (bot,),
            )
        ]
