"""The site's own memory, a SQLite file in the output folder (never in the league's store).

It remembers which match pages exist (with the row each one came from, so only results stored
after the watermark are rendered), the per-bot tallies the summary pages show (updated from the
new results only), and the rating after every rated batch (so the history behind the charts is
derived once and then extended batch by batch).
"""

from __future__ import annotations

import enum
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from arena.league.store import transaction
from arena.runtime.usage import UsageSummary

CACHE_FILE = ".arena-site.sqlite"
VERSION = "4"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    seq INTEGER PRIMARY KEY,          -- the order the site took them in (store row order)
    match_id TEXT NOT NULL UNIQUE,
    row INTEGER NOT NULL,
    batch INTEGER NOT NULL,
    game TEXT NOT NULL,
    bots TEXT NOT NULL,               -- JSON, by seat
    ranks TEXT NOT NULL,              -- JSON, by seat
    scores TEXT NOT NULL,             -- JSON, by seat
    faulted TEXT NOT NULL,            -- JSON list of faulted seats
    finished_at TEXT NOT NULL,
    kinds TEXT NOT NULL DEFAULT '[]', -- JSON list of the faults' statuses (crash, timeout...)
    phases TEXT NOT NULL DEFAULT '[]' -- JSON, by seat: Phase 10's phases completed (else [])
);
CREATE INDEX IF NOT EXISTS matches_by_game ON matches(game, seq);
CREATE TABLE IF NOT EXISTS match_bots (
    bot INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (bot, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS faulted_matches (seq INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS perf (
    game TEXT NOT NULL, bot INTEGER NOT NULL,
    matches INTEGER NOT NULL, wins INTEGER NOT NULL, place_sum REAL NOT NULL,
    faulted INTEGER NOT NULL,
    PRIMARY KEY (game, bot)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pairs (
    game TEXT NOT NULL, bot INTEGER NOT NULL, opp INTEGER NOT NULL,
    ahead INTEGER NOT NULL, behind INTEGER NOT NULL, tied INTEGER NOT NULL,
    PRIMARY KEY (game, bot, opp)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS solo (
    game TEXT NOT NULL, bot INTEGER NOT NULL, batch INTEGER NOT NULL,
    n INTEGER NOT NULL, total REAL NOT NULL, squares REAL NOT NULL,
    PRIMARY KEY (game, bot, batch)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS usage (   -- per (game, bot): seat-matches with usage measured
    game TEXT NOT NULL, bot INTEGER NOT NULL,
    n INTEGER NOT NULL, cpu_sum REAL NOT NULL, cpu_max REAL NOT NULL,
    memory_sum REAL NOT NULL, memory_max REAL NOT NULL,
    PRIMARY KEY (game, bot)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS history (
    game TEXT NOT NULL, bot INTEGER NOT NULL, batch INTEGER NOT NULL,
    mu REAL NOT NULL, sigma REAL NOT NULL,
    PRIMARY KEY (game, bot, batch)
) WITHOUT ROWID;
"""


class MatchList(enum.StrEnum):
    """The kinds of match list the site shows (the value is also the list's folder name, or
    its start)."""

    ALL = "all"
    """Every match."""
    FAULTS = "faults"
    """The matches with a fault."""
    GAME = "game"
    """The matches of one game (its key)."""
    BOT = "bot"
    """The matches of one bot (its id as key)."""


@dataclass(frozen=True)
class MatchRow:
    """One match as the lists show it."""

    seq: int
    match_id: str
    batch: int
    game: str
    bots: tuple[int, ...]
    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    faulted: tuple[int, ...]
    finished_at: str
    kinds: tuple[str, ...] = ()
    """The statuses of the match's faults (``crash``, ``timeout``...), as searched for."""
    phases: tuple[int, ...] = ()
    """Phase 10: the phases each seat completed (the result's ``details.phases``); else empty."""


@dataclass(frozen=True)
class Perf:
    """One bot's tallies in one game: matches (a bot seated twice counts once), wins, the sum
    of its places (its mean place where seated twice) and matches with a fault of its own."""

    matches: int
    wins: int
    place_sum: float
    faulted: int

    @property
    def mean_place(self) -> float:
        return self.place_sum / self.matches if self.matches else 0.0

    @property
    def fault_rate(self) -> float:
        return self.faulted / self.matches if self.matches else 0.0


@dataclass
class Tally:
    """Tallies from a chunk of new results, added to the cache in one go."""

    perf: dict[tuple[str, int], list[float]]
    pairs: dict[tuple[str, int, int], list[int]]
    solo: dict[tuple[str, int, int], list[float]]
    usage: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    """(game, bot) -> [n, cpu sum, cpu max, memory sum, memory max] over measured seats."""

    @classmethod
    def empty(cls) -> Tally:
        return cls({}, {}, {})

    def add_usage(self, game: str, bots: Sequence[int], usage: Sequence[Any] | None) -> None:
        """Add a record's per-seat ``usage`` (absent in older records, null for in-process
        agents and bots that did not start)."""
        for bot, used in zip(bots, usage or (), strict=False):
            if not isinstance(used, dict):
                continue
            cpu, memory = float(used["cpu_seconds"]), float(used["peak_memory_mb"])
            u = self.usage.setdefault((game, bot), [0, 0.0, 0.0, 0.0, 0.0])
            u[0] += 1
            u[1] += cpu
            u[2] = max(u[2], cpu)
            u[3] += memory
            u[4] = max(u[4], memory)

    def add(
        self,
        game: str,
        batch: int,
        bots: Sequence[int],
        ranks: Sequence[int],
        scores: Sequence[float],
        faulted: Iterable[int],
    ) -> None:
        bad = set(faulted)
        seats: dict[int, list[int]] = {}
        for seat, bot in enumerate(bots):
            seats.setdefault(bot, []).append(seat)
        for bot, mine in seats.items():
            # A bot seated twice counts once, with its best place for a win and its mean place.
            p = self.perf.setdefault((game, bot), [0, 0, 0.0, 0])
            p[0] += 1
            p[1] += min(ranks[s] for s in mine) == 1
            p[2] += sum(ranks[s] for s in mine) / len(mine)
            p[3] += any(s in bad for s in mine)
        # Head to head, once per match and pair of bots: a bot seated twice is compared by its
        # mean place, so "matches together" never exceeds the matches played.
        place = {bot: sum(ranks[s] for s in mine) / len(mine) for bot, mine in seats.items()}
        for a in place:
            for b in place:
                if a == b:
                    continue
                t = self.pairs.setdefault((game, a, b), [0, 0, 0])
                if place[a] < place[b]:
                    t[0] += 1
                elif place[a] > place[b]:
                    t[1] += 1
                else:
                    t[2] += 1
        if len(bots) == 1:
            s = self.solo.setdefault((game, bots[0], batch), [0, 0.0, 0.0])
            s[0] += 1
            s[1] += float(scores[0])
            s[2] += float(scores[0]) ** 2


def match_row(r: Sequence[Any]) -> MatchRow:
    """A :class:`MatchRow` from the columns of ``SiteCache._COLUMNS``."""
    return MatchRow(
        r[0],
        r[1],
        r[2],
        r[3],
        tuple(orjson.loads(r[4])),
        tuple(orjson.loads(r[5])),
        tuple(orjson.loads(r[6])),
        tuple(orjson.loads(r[7])),
        r[8],
        tuple(orjson.loads(r[9])),
        tuple(orjson.loads(r[10])),
    )


class SiteCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.executescript(SCHEMA)

    @classmethod
    def open(cls, folder: Path) -> SiteCache:
        folder.mkdir(parents=True, exist_ok=True)
        return cls(folder / CACHE_FILE)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> SiteCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self.db)

    def reset(self) -> None:
        """Forget everything (a different league, or a cache from another site version):
        the tables are dropped and made again, so a new schema takes effect too."""
        tables = [
            r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        with self.transaction() as db:
            for table in tables:
                db.execute(f'DROP TABLE IF EXISTS "{table}"')
        self.db.executescript(SCHEMA)

    # -- meta -----------------------------------------------------------------------------

    def get(self, key: str, default: str = "") -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def put(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- matches --------------------------------------------------------------------------

    def add_match(
        self,
        match_id: str,
        row: int,
        batch: int,
        game: str,
        bots: Sequence[int],
        ranks: Sequence[int],
        scores: Sequence[float],
        faulted: Sequence[int],
        finished_at: str,
        kinds: Sequence[str] = (),
        phases: Sequence[int] = (),
    ) -> int:
        """Remember one rendered match (inside :meth:`transaction`); returns its list position."""
        cursor = self.db.execute(
            "INSERT INTO matches(match_id, row, batch, game, bots, ranks, scores, faulted,"
            " finished_at, kinds, phases) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                match_id,
                row,
                batch,
                game,
                orjson.dumps(list(bots)).decode(),
                orjson.dumps(list(ranks)).decode(),
                orjson.dumps(list(scores)).decode(),
                orjson.dumps(sorted(faulted)).decode(),
                finished_at,
                orjson.dumps(list(kinds)).decode(),
                orjson.dumps(list(phases)).decode(),
            ),
        )
        seq = cursor.lastrowid
        assert seq is not None
        self.db.executemany(
            "INSERT OR IGNORE INTO match_bots(bot, seq) VALUES (?, ?)",
            [(bot, seq) for bot in set(bots)],
        )
        if faulted:
            self.db.execute("INSERT INTO faulted_matches(seq) VALUES (?)", (seq,))
        return seq

    def add_tally(self, tally: Tally) -> None:
        """Add a chunk's tallies (inside :meth:`transaction`)."""
        self.db.executemany(
            "INSERT INTO perf(game, bot, matches, wins, place_sum, faulted) VALUES (?,?,?,?,?,?)"
            " ON CONFLICT(game, bot) DO UPDATE SET matches = matches + excluded.matches,"
            " wins = wins + excluded.wins, place_sum = place_sum + excluded.place_sum,"
            " faulted = faulted + excluded.faulted",
            [(g, b, *v) for (g, b), v in tally.perf.items()],
        )
        self.db.executemany(
            "INSERT INTO pairs(game, bot, opp, ahead, behind, tied) VALUES (?,?,?,?,?,?)"
            " ON CONFLICT(game, bot, opp) DO UPDATE SET ahead = ahead + excluded.ahead,"
            " behind = behind + excluded.behind, tied = tied + excluded.tied",
            [(g, b, o, *v) for (g, b, o), v in tally.pairs.items()],
        )
        self.db.executemany(
            "INSERT INTO solo(game, bot, batch, n, total, squares) VALUES (?,?,?,?,?,?)"
            " ON CONFLICT(game, bot, batch) DO UPDATE SET n = n + excluded.n,"
            " total = total + excluded.total, squares = squares + excluded.squares",
            [(g, b, k, *v) for (g, b, k), v in tally.solo.items()],
        )
        self.db.executemany(
            "INSERT INTO usage(game, bot, n, cpu_sum, cpu_max, memory_sum, memory_max)"
            " VALUES (?,?,?,?,?,?,?) ON CONFLICT(game, bot) DO UPDATE SET n = n + excluded.n,"
            " cpu_sum = cpu_sum + excluded.cpu_sum, cpu_max = MAX(cpu_max, excluded.cpu_max),"
            " memory_sum = memory_sum + excluded.memory_sum,"
            " memory_max = MAX(memory_max, excluded.memory_max)",
            [(g, b, *v) for (g, b), v in tally.usage.items()],
        )

    def last_finished(self) -> str:
        """When the latest match the site has taken in finished ("" if none): kept as they
        are taken in (:meth:`saw_finished`), so a build reads no store table for it (the
        store's results are not indexed by time: a scan of every record)."""
        kept = self.get("last_finished")
        if kept or not self.match_count():
            return kept
        row = self.db.execute("SELECT MAX(finished_at) FROM matches").fetchone()
        return str(row[0])

    def saw_finished(self, finished: Iterable[str]) -> None:
        """Matches that finished at these times were taken in."""
        latest = max(finished, default="")
        if latest > self.last_finished():
            self.put("last_finished", latest)

    def games_of(self, ids: Sequence[str]) -> dict[str, str]:
        """The game of each of these matches the site has taken in."""
        out: dict[str, str] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            marks = ",".join("?" * len(part))
            sql = f"SELECT match_id, game FROM matches WHERE match_id IN ({marks})"
            out.update((str(m), str(g)) for m, g in self.db.execute(sql, part))
        return out

    def match_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    def has_match(self, match_id: str) -> bool:
        found = self.db.execute("SELECT 1 FROM matches WHERE match_id = ?", (match_id,))
        return found.fetchone() is not None

    def _rows(self, sql: str, args: Sequence[object]) -> list[MatchRow]:
        return [match_row(r) for r in self.db.execute(sql, args)]

    _COLUMNS = (
        "m.seq, m.match_id, m.batch, m.game, m.bots, m.ranks, m.scores, m.faulted, m.finished_at,"
        " m.kinds, m.phases"
    )

    def list_size(self, kind: MatchList, key: str | int | None) -> int:
        args: list[object]
        if kind == MatchList.BOT:  # counted on its own index, without the join
            sql, args = "SELECT COUNT(*) FROM match_bots WHERE bot = ?", [key]
        elif kind == MatchList.FAULTS:
            sql, args = "SELECT COUNT(*) FROM faulted_matches", []
        else:
            sql, args = self._list_query(kind, key, "COUNT(*)")
        return int(self.db.execute(sql, args).fetchone()[0])

    def list_page(
        self, kind: MatchList, key: str | int | None, offset: int, limit: int
    ) -> list[MatchRow]:
        """Members of a match list (``all``, ``game``, ``bot``, ``faults``), oldest first."""
        sql, args = self._list_query(kind, key, self._COLUMNS)
        return self._rows(sql + " ORDER BY m.seq LIMIT ? OFFSET ?", [*args, limit, offset])

    def list_rows(self, kind: MatchList, key: str | int | None, offset: int) -> Iterator[MatchRow]:
        """Members of a match list from position ``offset`` on, oldest first (streamed).

        SQLite walks the rows an ``OFFSET`` skips, so a list's last pages (what a build after
        new matches writes) are read newest first instead, as many as there are past
        ``offset``, and turned round (half a second on a 100,000-match league's lists)."""
        sql, args = self._list_query(kind, key, self._COLUMNS)
        if offset > 0:
            tail = self.list_size(kind, key) - offset
            if tail <= offset:
                rows = self._rows(sql + " ORDER BY m.seq DESC LIMIT ?", [*args, max(tail, 0)])
                yield from reversed(rows)
                return
        for r in self.db.execute(sql + " ORDER BY m.seq LIMIT -1 OFFSET ?", [*args, offset]):
            yield match_row(r)

    def _list_query(
        self, kind: MatchList, key: str | int | None, columns: str
    ) -> tuple[str, list[object]]:
        if kind == MatchList.ALL:
            return f"SELECT {columns} FROM matches m", []
        if kind == MatchList.GAME:
            return f"SELECT {columns} FROM matches m WHERE m.game = ?", [key]
        # A bot's matches and the faulted ones as a membership test, not a join: the rows
        # are then read in the order of ``matches`` itself, so newest first stops at the page
        # (a join sorted 50,000 rows to give the last 100).
        if kind == MatchList.BOT:
            where = "m.seq IN (SELECT seq FROM match_bots WHERE bot = ?)"
            return f"SELECT {columns} FROM matches m WHERE {where}", [key]
        if kind == MatchList.FAULTS:
            where = "m.seq IN (SELECT seq FROM faulted_matches)"
            return f"SELECT {columns} FROM matches m WHERE {where}", []
        raise ValueError(f"no match list {kind!r}")

    def recent(self, limit: int, bot: int | None = None) -> list[MatchRow]:
        if bot is None:
            return self._rows(
                f"SELECT {self._COLUMNS} FROM matches m ORDER BY m.seq DESC LIMIT ?", [limit]
            )
        return self._rows(
            f"SELECT {self._COLUMNS} FROM match_bots b JOIN matches m USING (seq)"
            " WHERE b.bot = ? ORDER BY b.seq DESC LIMIT ?",
            [bot, limit],
        )

    def games(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT game FROM perf ORDER BY game")]

    # -- tallies --------------------------------------------------------------------------

    def perf(self) -> dict[tuple[str, int], Perf]:
        return {
            (r[0], r[1]): Perf(r[2], r[3], r[4], r[5])
            for r in self.db.execute(
                "SELECT game, bot, matches, wins, place_sum, faulted FROM perf"
            )
        }

    def pairs(self, bot: int) -> list[tuple[str, int, int, int, int]]:
        """(game, opponent, ahead, behind, tied) for one bot."""
        return [
            (r[0], r[1], r[2], r[3], r[4])
            for r in self.db.execute(
                "SELECT game, opp, ahead, behind, tied FROM pairs WHERE bot = ?"
                " ORDER BY game, ahead + behind + tied DESC, opp",
                (bot,),
            )
        ]

    def game_pairs(self, game: str) -> dict[tuple[int, int], tuple[int, int, int]]:
        """(bot, opponent) -> (ahead, behind, tied) for every pair of bots met in ``game``."""
        return {
            (r[0], r[1]): (r[2], r[3], r[4])
            for r in self.db.execute(
                "SELECT bot, opp, ahead, behind, tied FROM pairs WHERE game = ?", (game,)
            )
        }

    def solo(self, below_batch: int) -> dict[tuple[str, int], tuple[int, float, float]]:
        """(game, bot) -> (n, total, sum of squares) over the batches below ``below_batch``."""
        return {
            (r[0], r[1]): (int(r[2]), float(r[3]), float(r[4]))
            for r in self.db.execute(
                "SELECT game, bot, SUM(n), SUM(total), SUM(squares) FROM solo"
                " WHERE batch < ? GROUP BY game, bot",
                (below_batch,),
            )
        }

    def usage(self, bot: int) -> list[tuple[str, UsageSummary]]:
        """Per game: the bot's CPU seconds and peak memory per match (mean and max)."""
        return [
            (r[0], UsageSummary(r[1], r[2] / r[1], r[3], r[4] / r[1], r[5]))
            for r in self.db.execute(
                "SELECT game, n, cpu_sum, cpu_max, memory_sum, memory_max FROM usage"
                " WHERE bot = ? AND n > 0 ORDER BY game",
                (bot,),
            )
        ]

    # -- rating history -------------------------------------------------------------------

    def add_history(self, rows: Iterable[tuple[str, int, int, float, float]]) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO history(game, bot, batch, mu, sigma) VALUES (?, ?, ?, ?, ?)",
            list(rows),
        )

    def history(self, bot: int) -> dict[str, list[tuple[int, float, float]]]:
        """Per game: (batch, mu, sigma) after each batch that changed the bot's rating."""
        out: dict[str, list[tuple[int, float, float]]] = {}
        for game, batch, mu, sigma in self.db.execute(
            "SELECT game, batch, mu, sigma FROM history WHERE bot = ? ORDER BY game, batch",
            (bot,),
        ):
            out.setdefault(game, []).append((batch, mu, sigma))
        return out

    def rating_before(self, game: str, bot: int, batch: int) -> tuple[float, float] | None:
        row = self.db.execute(
            "SELECT mu, sigma FROM history WHERE game = ? AND bot = ? AND batch <= ?"
            " ORDER BY batch DESC LIMIT 1",
            (game, bot, batch),
        ).fetchone()
        return None if row is None else (float(row[0]), float(row[1]))
