"""The league's SQLite store: entrants, the planned schedule, every match record, ratings.

One process writes (the league's parent); each finished match is committed on its own, keyed by
its match id, so a match is stored once whatever happens (``INSERT OR IGNORE``; a rerun skips the
ids already stored). WAL mode with ``synchronous=NORMAL`` survives a killed arena (a power cut
may lose the last commits, which the next run plays again).

The schema is versioned with ``PRAGMA user_version`` and a list of migration steps: step ``k``
takes a database from version ``k`` to ``k + 1``. A new database runs every step, so the steps
are tested by every new league; ``tests/test_store.py`` also builds a version-1 database and
migrates it.
"""

from __future__ import annotations

import enum
import sqlite3
import time
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Self

import orjson

from arena.games import JSON

MIGRATIONS: tuple[str, ...] = (
    # v0 -> v1: the core tables.
    """
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE bots (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        version TEXT NOT NULL,            -- content hash of the bot's files
        author TEXT NOT NULL,
        label TEXT NOT NULL,              -- the version its manifest states
        source TEXT NOT NULL,             -- folder inside the league, or builtin:NAME
        games TEXT NOT NULL,              -- JSON list of the games it plays
        submitted_at TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'active',   -- active | withdrawn | suspended | replaced
        reason TEXT NOT NULL DEFAULT '',
        previous INTEGER REFERENCES bots(id),    -- the version this one replaced
        UNIQUE (name, version)
    );
    CREATE TABLE batches (
        batch INTEGER PRIMARY KEY,
        mode TEXT NOT NULL,               -- uniform | adaptive
        basis INTEGER NOT NULL,           -- batches rated when it was planned
        matches INTEGER NOT NULL
    );
    CREATE TABLE schedule (
        match_id TEXT PRIMARY KEY,
        batch INTEGER NOT NULL REFERENCES batches(batch),
        ordinal INTEGER NOT NULL,         -- position in the schedule within the batch
        game TEXT NOT NULL,
        tab INTEGER NOT NULL,             -- the table (a duplicate set) within the batch
        rotation INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        options TEXT NOT NULL,            -- JSON
        bots TEXT NOT NULL,               -- JSON list of bot ids, by seat
        cancelled INTEGER NOT NULL DEFAULT 0,
        UNIQUE (batch, ordinal)
    );
    CREATE TABLE results (
        match_id TEXT PRIMARY KEY REFERENCES schedule(match_id),
        ranks TEXT NOT NULL,              -- JSON, after faulted seats are put last
        scores TEXT NOT NULL,             -- JSON, the game's own scores
        faults INTEGER NOT NULL,
        seconds REAL NOT NULL,
        finished_at TEXT NOT NULL,
        record TEXT NOT NULL              -- the whole match record, JSON (zlib BLOB since v2)
    );
    CREATE TABLE faults (
        match_id TEXT NOT NULL REFERENCES results(match_id),
        seat INTEGER NOT NULL,
        bot INTEGER NOT NULL REFERENCES bots(id),
        step INTEGER NOT NULL,
        status TEXT NOT NULL,
        message TEXT NOT NULL,
        stderr_tail TEXT NOT NULL
    );
    CREATE TABLE ratings (
        game TEXT NOT NULL,
        bot INTEGER NOT NULL REFERENCES bots(id),
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        sets INTEGER NOT NULL,
        PRIMARY KEY (game, bot)
    );
    """,
    # v1 -> v2: matches counted per rating; indexes for the status and fault queries.
    """
    ALTER TABLE ratings ADD COLUMN matches INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX faults_by_bot ON faults(bot);
    CREATE INDEX schedule_by_batch ON schedule(batch, cancelled);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One atomic write on a connection in autocommit mode (``isolation_level=None``)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


class StoreError(Exception):
    """The database is not one this arena can use (e.g. made by a newer version)."""


class EntrantStatus(enum.StrEnum):
    """Where an entrant stands (the ``bots.status`` column; its value is what is stored and
    shown)."""

    ACTIVE = "active"
    """Scheduled in new batches."""
    REPLACED = "replaced"
    """A newer version of the same bot was submitted."""
    WITHDRAWN = "withdrawn"
    """Taken out on request (``arena league withdraw``)."""
    SUSPENDED = "suspended"
    """Taken out for faulting too often (``entrants.suspend_fault_rate``)."""

    @property
    def live(self) -> bool:
        """Whether a resubmission replaces this version (active, or suspended for faults)."""
        return self in (EntrantStatus.ACTIVE, EntrantStatus.SUSPENDED)

    @property
    def held(self) -> bool:
        """Whether the entrant is out of new batches for a reason the league reports."""
        return self in (EntrantStatus.SUSPENDED, EntrantStatus.WITHDRAWN)


class BatchMode(enum.StrEnum):
    """How a batch was seated (the ``batches.mode`` column)."""

    UNIFORM = "uniform"
    ADAPTIVE = "adaptive"


def version_label(label: str, version: str) -> str:
    """How versions are told apart everywhere: ``v2 (3f9a1c0b)``, the label and the content
    hash's first 8 characters; the hash alone when the manifest states no label."""
    digest = version[:8]
    return f"{label} ({digest})" if label else digest


@dataclass(frozen=True)
class Entrant:
    """One submitted version of a bot."""

    id: int
    name: str
    version: str
    author: str
    label: str
    source: str
    games: tuple[str, ...]
    submitted_at: str
    status: EntrantStatus
    reason: str
    previous: int | None

    @property
    def active(self) -> bool:
        return self.status is EntrantStatus.ACTIVE


@dataclass(frozen=True)
class Planned:
    """One scheduled match."""

    match_id: str
    batch: int
    ordinal: int
    game: str
    tab: int
    rotation: int
    seed: int
    options: Mapping[str, JSON]
    bots: tuple[int, ...]


@dataclass(frozen=True)
class Outcome:
    """A stored result, as the rating reads it."""

    match_id: str
    batch: int
    ordinal: int
    game: str
    tab: int
    bots: tuple[int, ...]
    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    faults: int


@dataclass(frozen=True)
class StoredMatch:
    """One stored result: where it sits in the schedule, and its whole record (for the site)."""

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
    """One fault of one bot, with the end of its stderr (for the bot's page)."""

    match_id: str
    game: str
    seat: int
    step: int
    status: str
    message: str
    stderr_tail: str


class FaultRow(NamedTuple):
    """One row of the ``faults`` table, as the audit compares it with the record."""

    seat: int
    bot: int
    step: int
    status: str
    message: str


@dataclass(frozen=True)
class StoredResult:
    """One stored result as the audit reads it: its schedule row (absent when no match of
    that id is scheduled: then ``batch`` is -1), its result columns and its fault rows."""

    match_id: str
    batch: int
    ordinal: int
    game: str
    tab: int
    seed: int
    options: Mapping[str, JSON]
    bots: tuple[int, ...]
    cancelled: bool
    ranks: JSON
    scores: JSON
    faults: int
    record: JSON
    """The stored record; None if it is not JSON at all."""
    fault_rows: tuple[FaultRow, ...]


class FaultCount(NamedTuple):
    """How often one bot faulted: what suspension and the standings count."""

    played: int
    """Matches the bot played (a bot seated twice in one match counts it once)."""
    faulted: int
    """Of those, the matches with a fault of its own."""
    example: str
    """One of its faults as ``status: message`` ("" when it has none)."""


NO_FAULTS = FaultCount(0, 0, "")
"""The count of a bot that has played no match."""


class FaultLine(NamedTuple):
    """One fault in the list of the latest ones."""

    match_id: str
    bot: str
    """The bot's name."""
    step: int
    status: str
    message: str


class FaultTally(NamedTuple):
    """How many faults of one kind a bot has."""

    status: str
    faults: int


RECORD_LEVEL = 5
"""zlib level of stored records (benchmarks/bench_records.py, random players): level 1 made them
6.9x smaller than JSON, 6.2 KiB a match on average over the three games, mostly Phase 10's long
records (16.7 KiB); level 5 takes those to 10 KiB and the average under 4 KiB, for about 4 ms
a Phase 10 record (a random Phase 10 match takes 0.2-2 s), 0.05 ms a Take 5 one, in the worker.
Level 6 and up cost twice as much for 4% less. Any level reads back the same."""


class PackedRecord(NamedTuple):
    """A match record as a worker sends it: a small ``head`` (what the store indexes: id,
    places, scores, faults, time) that the parent decodes, and the whole record compressed,
    which the parent stores as it is, never decoding it."""

    head: bytes
    body: bytes


def pack_record(record: Mapping[str, Any]) -> PackedRecord:
    """``record`` (a match record as JSON data) for the trip to the store."""
    head = {
        "match_id": record["match_id"],
        "ranks": record["ranks"],
        "scores": record["result"]["scores"],
        "faults": record["faults"],
        "seconds": record["seconds"],
    }
    body = orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
    return PackedRecord(orjson.dumps(head), zlib.compress(body, RECORD_LEVEL))


def unpack_record(stored: bytes | str) -> Any:
    """A stored record as JSON data: compressed (what the store writes), or plain JSON text or
    bytes (leagues written before records were compressed). Raises ``orjson.JSONDecodeError``
    (a ``ValueError``) or ``zlib.error`` for damaged data."""
    if isinstance(stored, bytes) and stored[:1] not in (b"{", b"[", b" ", b"\n"):
        stored = zlib.decompress(stored)
    return orjson.loads(stored)


_AFTER_ACTIONS = b'],"debug":'


def unpack_head(stored: bytes | str) -> Any:
    """A stored record without its ``actions``, for a reader of everything else (a record's
    actions are nearly all of it: a long Phase 10 game has 10,000). Records written by
    :func:`pack_record` have their keys sorted, ``actions`` first, so the rest is parsed from
    where the actions end; any other record is decoded whole and its actions dropped."""
    if isinstance(stored, bytes) and stored[:1] not in (b"{", b"[", b" ", b"\n"):
        stored = zlib.decompress(stored)
    raw = stored.encode() if isinstance(stored, str) else stored
    end = raw.find(_AFTER_ACTIONS) if raw.startswith(b'{"actions":[') else -1
    if end > 0:
        try:
            head = orjson.loads(b"{" + raw[end + 2 :])
        except orjson.JSONDecodeError:
            head = None
        if isinstance(head, dict) and "result" in head:
            return head
    record = orjson.loads(raw)
    if isinstance(record, dict):
        record.pop("actions", None)
    return record


def dumps(value: JSON) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def migrate(db: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Run the missing migration steps up to ``target``; returns the version reached."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the database has schema version {version}; this arena knows up to {SCHEMA_VERSION}"
        )
    while version < target:
        try:
            db.executescript(
                f"BEGIN; {MIGRATIONS[version]}; PRAGMA user_version = {version + 1}; COMMIT;"
            )
        except sqlite3.Error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        version += 1
    return version


def explain(exc: BaseException) -> str:
    """What an SQLite error opening a league's database means, and what to do."""
    text = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in text:
        return "not an SQLite database (not a league.db of this arena): move it away"
    if "readonly" in text or "read-only" in text:
        return f"{text} (the league folder or its league.db cannot be written)"
    if "unable to open" in text:
        return f"{text} (is it a folder, or in a folder that cannot be read?)"
    if "disk is full" in text or "disk I/O" in text:
        return f"{text} (free some disk space and run it again)"
    return text


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that never writes: for commands that only read a league (status, export,
    audit, the site), so that they work on a league they cannot write.

    SQLite's ``mode=ro`` still needs the WAL's shared-memory file, which it cannot create in
    a read-only folder once the last writer has removed it; then no writer can be active, and
    the file is opened ``immutable``. A missing file reads as an empty league (nothing has
    been stored yet) without creating it. Raises :class:`StoreError` naming the file.
    """
    if not path.exists():
        db = sqlite3.connect(":memory:", isolation_level=None)
        migrate(db)
        return db
    uri = path.resolve().as_uri()
    problem: BaseException | None = None
    for query in ("?mode=ro", "?mode=ro&immutable=1"):
        try:
            # One thread uses a connection at a time; another may close it (the server closes
            # every thread's handles at shutdown), which the same-thread check would refuse.
            db = sqlite3.connect(
                uri + query, uri=True, isolation_level=None, timeout=30.0, check_same_thread=False
            )
        except sqlite3.Error as exc:
            problem = exc
            continue
        try:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            db.close()
            problem = exc
            if isinstance(exc, sqlite3.OperationalError):
                continue
            break
        if version != SCHEMA_VERSION:
            db.close()
            raise StoreError(
                f"{path}: schema version {version}, this arena reads {SCHEMA_VERSION}"
                + (
                    "; a command that writes (e.g. arena league run) upgrades it"
                    if 0 < version < SCHEMA_VERSION
                    else ": not a league.db of this arena"
                )
            )
        return db
    assert problem is not None
    raise StoreError(f"{path}: {explain(problem)}")


class StoreReader:
    """Everything that reads the league database: the league, its commands, the audit and the
    site read through these methods, so the schema lives in this module alone.

    :meth:`open` gives a reader on a connection that cannot write (see
    :func:`connect_read_only`); :class:`Store` adds the writes. Use as a context manager or
    call :meth:`close`.
    """

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db = db
        self.path = path

    @classmethod
    def open(cls, path: Path) -> StoreReader:
        """A reader of the store at ``path`` that never writes, even in a folder it could."""
        return cls(connect_read_only(path), path)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- meta -----------------------------------------------------------------------------

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else str(row[0])

    # -- entrants -------------------------------------------------------------------------

    def entrants(self) -> list[Entrant]:
        rows = self.db.execute(
            "SELECT id, name, version, author, label, source, games, submitted_at, status,"
            " reason, previous FROM bots ORDER BY id"
        ).fetchall()
        return [
            Entrant(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                tuple(orjson.loads(r[6])),
                r[7],
                EntrantStatus(r[8]),
                r[9],
                r[10],
            )
            for r in rows
        ]

    # -- the schedule ---------------------------------------------------------------------

    def batch_count(self) -> int:
        row = self.db.execute("SELECT COALESCE(MAX(batch) + 1, 0) FROM batches").fetchone()
        return int(row[0])

    def planned_matches(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM schedule").fetchone()[0])

    def unplayed(self, first_batch: int = 0) -> list[Planned]:
        """Planned, not cancelled, not yet stored matches (of batches from ``first_batch``), in
        schedule order."""
        rows = self.db.execute(
            "SELECT match_id, batch, ordinal, game, tab, rotation, seed, options, bots"
            " FROM schedule WHERE batch >= ? AND cancelled = 0"
            " AND match_id NOT IN (SELECT match_id FROM results) ORDER BY batch, ordinal",
            (first_batch,),
        ).fetchall()
        return [
            Planned(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                r[6],
                orjson.loads(r[7]),
                tuple(orjson.loads(r[8])),
            )
            for r in rows
        ]

    def any_unplayed(self) -> bool:
        """Whether :meth:`unplayed` lists any match, found without reading them (the status of
        a league asks it twice)."""
        row = self.db.execute(
            "SELECT 1 FROM schedule WHERE batch >= 0 AND cancelled = 0"
            " AND match_id NOT IN (SELECT match_id FROM results) LIMIT 1"
        ).fetchone()
        return row is not None

    def batch_complete(self, batch: int) -> bool:
        row = self.db.execute(
            "SELECT COUNT(*) FROM schedule WHERE batch = ? AND cancelled = 0"
            " AND match_id NOT IN (SELECT match_id FROM results)",
            (batch,),
        ).fetchone()
        return int(row[0]) == 0 and batch < self.batch_count()

    # -- results --------------------------------------------------------------------------

    def outcomes(self, batch: int | None = None) -> list[Outcome]:
        """Stored results in schedule order (of one batch, or all)."""
        where = "" if batch is None else "WHERE s.batch = ?"
        rows = self.db.execute(
            "SELECT s.match_id, s.batch, s.ordinal, s.game, s.tab, s.bots, r.ranks, r.scores,"
            f" r.faults FROM schedule s JOIN results r USING (match_id) {where}"
            " ORDER BY s.batch, s.ordinal",
            () if batch is None else (batch,),
        ).fetchall()
        return [
            Outcome(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                tuple(orjson.loads(r[5])),
                tuple(orjson.loads(r[6])),
                tuple(orjson.loads(r[7])),
                r[8],
            )
            for r in rows
        ]

    def records(self) -> Iterable[dict[str, Any]]:
        """Every stored match record with its place in the schedule, in schedule order."""
        for batch, ordinal, tab, rotation, bots, record in self.db.execute(
            "SELECT s.batch, s.ordinal, s.tab, s.rotation, s.bots, r.record"
            " FROM schedule s JOIN results r USING (match_id) ORDER BY s.batch, s.ordinal"
        ):
            data = unpack_record(record)
            data["schedule"] = {
                "batch": batch,
                "ordinal": ordinal,
                "table": tab,
                "rotation": rotation,
                "bots": orjson.loads(bots),
            }
            yield data

    def table_results(
        self, first_table: int, first_match: str
    ) -> list[tuple[int, int, tuple[int, ...], set[int]]]:
        """(table, ordinal, ranks, faulted seats) of the stored results of tables from
        ``first_table``, read from the batch holding ``first_match`` on (none if it is not
        planned): an A/B test's blocks (:mod:`arena.abtest.folder`), read without a scan of the
        whole schedule."""
        rows = self.db.execute(
            "SELECT s.tab, s.ordinal, r.ranks,"
            " (SELECT json_group_array(f.seat) FROM faults f WHERE f.match_id = s.match_id)"
            " FROM schedule s JOIN results r USING (match_id)"
            " WHERE s.batch >= (SELECT batch FROM schedule WHERE match_id = ?) AND s.tab >= ?"
            " ORDER BY s.batch, s.ordinal",
            (first_match, first_table),
        ).fetchall()
        return [
            (int(r[0]), int(r[1]), tuple(orjson.loads(r[2])), set(orjson.loads(r[3]))) for r in rows
        ]

    def table_count(self) -> int:
        """One more than the highest table number planned (0: nothing planned)."""
        row = self.db.execute("SELECT COALESCE(MAX(tab) + 1, 0) FROM schedule").fetchone()
        return int(row[0])

    def played_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def last_row(self) -> int:
        """The row number of the latest stored result (0: none); see :meth:`results_after`."""
        return int(self.db.execute("SELECT COALESCE(MAX(rowid), 0) FROM results").fetchone()[0])

    def results_after(self, row: int, actions: bool = True) -> Iterator[StoredMatch]:
        """Every result stored after row ``row``, oldest first (streamed): what a reader that
        remembers the last row it saw has not seen yet. Without ``actions``, each record
        lacks them (:func:`unpack_head`: a fraction of the time)."""
        unpack = unpack_record if actions else unpack_head
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
                unpack(record),
            )

    def result(self, match_id: str) -> StoredMatch | None:
        """The stored result of one match, by id (None if it has none): a page rendered on
        demand."""
        row = self.db.execute(
            "SELECT r.rowid, s.match_id, s.batch, s.ordinal, s.game, s.bots, r.finished_at,"
            " r.record FROM results r JOIN schedule s USING (match_id) WHERE r.match_id = ?",
            (match_id,),
        ).fetchone()
        if row is None:
            return None
        rowid, match_id, batch, ordinal, game, bots, finished_at, record = row
        return StoredMatch(
            rowid,
            match_id,
            batch,
            ordinal,
            game,
            tuple(orjson.loads(bots)),
            finished_at,
            unpack_record(record),
        )

    def first_result(self) -> tuple[str, str] | None:
        """The id and finish time of the first result stored (None before any): with the
        entrants, what tells one league from another wherever its folder is (the site's
        cache is kept for the same league copied or moved, not for another one)."""
        row = self.db.execute(
            "SELECT match_id, finished_at FROM results ORDER BY rowid LIMIT 1"
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def result_page(
        self, offset: int, limit: int, bot: int | None = None, game: str | None = None
    ) -> list[tuple[str, str, tuple[int, ...], tuple[int, ...], int, str]]:
        """A page of stored results, newest first, of one bot or game if given:
        (match_id, game, bots by seat, ranks, faults, finished_at) each (for the server's API)."""
        sql = (
            "SELECT s.match_id, s.game, s.bots, r.ranks, r.faults, r.finished_at"
            " FROM results r JOIN schedule s USING (match_id) WHERE 1"
        )
        args: list[object] = []
        if game is not None:
            sql += " AND s.game = ?"
            args.append(game)
        if bot is not None:
            sql += " AND EXISTS (SELECT 1 FROM json_each(s.bots) WHERE json_each.value = ?)"
            args.append(bot)
        rows = self.db.execute(
            sql + " ORDER BY r.rowid DESC LIMIT ? OFFSET ?", (*args, limit, offset)
        ).fetchall()
        return [
            (r[0], r[1], tuple(orjson.loads(r[2])), tuple(orjson.loads(r[3])), int(r[4]), r[5])
            for r in rows
        ]

    def record_of(self, match_id: str) -> dict[str, Any] | None:
        """One stored match record with its place in the schedule (None: not stored)."""
        row = self.db.execute(
            "SELECT s.batch, s.ordinal, s.tab, s.rotation, s.bots, r.record"
            " FROM schedule s JOIN results r USING (match_id) WHERE s.match_id = ?",
            (match_id,),
        ).fetchone()
        if row is None:
            return None
        data: dict[str, Any] = unpack_record(row[5])
        data["schedule"] = {
            "batch": row[0],
            "ordinal": row[1],
            "table": row[2],
            "rotation": row[3],
            "bots": orjson.loads(row[4]),
        }
        return data

    def stored_results(self) -> Iterator[StoredResult]:
        """Every stored result with its schedule row and fault rows, in schedule order (a
        result with no scheduled match first), for the audit: nothing is checked here, and a
        record that is not JSON reads as None."""
        rows: dict[str, list[FaultRow]] = {}
        for mid, *fault in self.db.execute(
            "SELECT match_id, seat, bot, step, status, message FROM faults ORDER BY match_id, seat"
        ):
            rows.setdefault(mid, []).append(FaultRow(*fault))
        for r in self.db.execute(
            "SELECT s.match_id, s.batch, s.ordinal, s.game, s.tab, s.seed, s.options, s.bots,"
            " s.cancelled, r.ranks, r.scores, r.faults, r.record, r.match_id"
            " FROM results r LEFT JOIN schedule s USING (match_id) ORDER BY s.batch, s.ordinal"
        ):
            if r[1] is None:
                yield StoredResult(
                    r[13], -1, -1, "", -1, -1, {}, (), False, None, None, 0, None, ()
                )
                continue
            try:
                record = unpack_record(r[12])
            except (orjson.JSONDecodeError, zlib.error):
                record = None
            yield StoredResult(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                orjson.loads(r[6]),
                tuple(orjson.loads(r[7])),
                bool(r[8]),
                orjson.loads(r[9]),
                orjson.loads(r[10]),
                r[11],
                record,
                tuple(rows.get(r[0], ())),
            )

    # -- faults ---------------------------------------------------------------------------

    def faulted_in(self, batch: int) -> set[int]:
        """The bots with a fault in ``batch``."""
        return {
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT f.bot FROM faults f JOIN schedule s USING (match_id)"
                " WHERE s.batch = ?",
                (batch,),
            )
        }

    def fault_counts(self, through_batch: int) -> dict[int, FaultCount]:
        """Per bot that played: its :class:`FaultCount` in batches ``<= through_batch``."""
        played: dict[int, int] = {}
        for (bots,) in self.db.execute(
            "SELECT s.bots FROM schedule s JOIN results r USING (match_id) WHERE s.batch <= ?",
            (through_batch,),
        ):
            for bot in set(orjson.loads(bots)):
                played[bot] = played.get(bot, 0) + 1
        faulted: dict[int, tuple[int, str]] = {}
        for bot, count, status, message in self.db.execute(
            "SELECT f.bot, COUNT(DISTINCT f.match_id), MAX(f.status), MAX(f.message)"
            " FROM faults f JOIN schedule s USING (match_id) WHERE s.batch <= ? GROUP BY f.bot",
            (through_batch,),
        ):
            faulted[bot] = (count, f"{status}: {message}")
        return {bot: FaultCount(n, *faulted.get(bot, (0, ""))) for bot, n in played.items()}

    def faults_by_game(self) -> dict[tuple[str, int], int]:
        """Per (game, bot): the matches of that game with a fault of the bot's own."""
        return {
            (game, bot): count
            for game, bot, count in self.db.execute(
                "SELECT s.game, f.bot, COUNT(DISTINCT f.match_id) FROM faults f"
                " JOIN schedule s USING (match_id) GROUP BY s.game, f.bot"
            )
        }

    def fault_list(self, limit: int = 20) -> list[FaultLine]:
        """The latest faults of every bot, newest first in schedule order."""
        return [
            FaultLine(*r)
            for r in self.db.execute(
                "SELECT f.match_id, b.name, f.step, f.status, f.message FROM faults f"
                " JOIN bots b ON b.id = f.bot JOIN schedule s USING (match_id)"
                " ORDER BY s.batch DESC, s.ordinal DESC LIMIT ?",
                (limit,),
            )
        ]

    def faults_of(self, bot: int, limit: int = 20) -> list[BotFault]:
        """The latest faults of one bot, newest stored first."""
        return [
            BotFault(*r)
            for r in self.db.execute(
                "SELECT f.match_id, s.game, f.seat, f.step, f.status, f.message, f.stderr_tail"
                " FROM faults f JOIN results r USING (match_id) JOIN schedule s USING (match_id)"
                " WHERE f.bot = ? ORDER BY r.rowid DESC, f.seat LIMIT ?",
                (bot, limit),
            )
        ]

    def fault_kinds(self, bot: int) -> list[FaultTally]:
        """One bot's faults counted by kind, the most frequent first."""
        return [
            FaultTally(str(r[0]), int(r[1]))
            for r in self.db.execute(
                "SELECT status, COUNT(*) FROM faults WHERE bot = ? GROUP BY status ORDER BY 2 DESC",
                (bot,),
            )
        ]

    # -- ratings --------------------------------------------------------------------------

    def load_ratings(self) -> list[tuple[str, int, float, float, int, int]]:
        return [
            (r[0], r[1], r[2], r[3], r[4], r[5])
            for r in self.db.execute(
                "SELECT game, bot, mu, sigma, sets, matches FROM ratings ORDER BY game, bot"
            )
        ]


class Store(StoreReader):
    """The league database, read and written. Open with :meth:`open`; use as a context manager
    or :meth:`close`."""

    @classmethod
    def open(cls, path: Path, target: int = SCHEMA_VERSION, read_only: bool = False) -> Store:
        """Open (creating or upgrading) the store at ``path``, or with ``read_only`` open it
        for reading only (see :func:`connect_read_only`). A file that is not a usable league
        database raises :class:`StoreError` naming it."""
        if read_only:
            return cls(connect_read_only(path), path)
        db: sqlite3.Connection | None = None
        try:
            db = sqlite3.connect(path, isolation_level=None, timeout=30.0)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA foreign_keys = ON")
            migrate(db, target)
        except (sqlite3.Error, StoreError) as exc:
            if db is not None:
                db.close()
            raise StoreError(f"{path}: {explain(exc)}") from None
        return cls(db, path)

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """One atomic write: everything inside commits together or not at all."""
        return transaction(self.db)

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- entrants -------------------------------------------------------------------------

    def add_entrant(
        self,
        name: str,
        version: str,
        author: str,
        label: str,
        source: str,
        games: Sequence[str],
        previous: int | None,
    ) -> int:
        with self.transaction() as db:
            if previous is not None:
                db.execute(
                    "UPDATE bots SET status = ?, reason = ? WHERE id = ?",
                    (EntrantStatus.REPLACED, f"replaced by version {version[:12]}", previous),
                )
            cursor = db.execute(
                "INSERT INTO bots(name, version, author, label, source, games, submitted_at,"
                " status, previous) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    version,
                    author,
                    label,
                    source,
                    dumps(list(games)),
                    now(),
                    EntrantStatus.ACTIVE,
                    previous,
                ),
            )
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def set_status(self, bot: int, status: EntrantStatus, reason: str) -> None:
        self.db.execute(
            "UPDATE bots SET status = ?, reason = ? WHERE id = ?",
            (EntrantStatus(status).value, reason, bot),
        )

    def cancel_all_unplayed(self) -> int:
        """Cancel every planned match not yet played (an A/B test that reached its verdict);
        returns how many."""
        with self.transaction() as db:
            cursor = db.execute(
                "UPDATE schedule SET cancelled = 1 WHERE cancelled = 0"
                " AND match_id NOT IN (SELECT match_id FROM results)"
            )
        return cursor.rowcount

    def cancel_unplayed(self, bot: int) -> int:
        """Cancel the planned matches of ``bot`` not yet played; returns how many."""
        cursor = self.db.execute(
            "UPDATE schedule SET cancelled = 1 WHERE cancelled = 0"
            " AND match_id NOT IN (SELECT match_id FROM results)"
            " AND EXISTS (SELECT 1 FROM json_each(schedule.bots) WHERE value = ?)",
            (bot,),
        )
        return cursor.rowcount

    # -- the schedule ---------------------------------------------------------------------

    def add_batch(
        self, batch: int, mode: BatchMode, basis: int, matches: Sequence[Planned]
    ) -> None:
        """Store a planned batch; call inside :meth:`transaction`."""
        self.db.execute(
            "INSERT INTO batches(batch, mode, basis, matches) VALUES (?, ?, ?, ?)",
            (batch, BatchMode(mode).value, basis, len(matches)),
        )
        self.db.executemany(
            "INSERT INTO schedule(match_id, batch, ordinal, game, tab, rotation, seed, options,"
            " bots) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    m.match_id,
                    m.batch,
                    m.ordinal,
                    m.game,
                    m.tab,
                    m.rotation,
                    m.seed,
                    dumps(dict(m.options)),
                    dumps(list(m.bots)),
                )
                for m in matches
            ],
        )

    # -- results --------------------------------------------------------------------------

    def record_match(self, record: Mapping[str, JSON], bots: Sequence[int]) -> bool:
        """Commit one match record (JSON data); False (and nothing written) if its id is
        already stored."""
        return self.record_packed(pack_record(record), bots)

    def record_packed(self, packed: PackedRecord, bots: Sequence[int]) -> bool:
        """Commit one match record as a worker packed it (the body is stored as it is); False
        (and nothing written) if its id is already stored."""
        return self.record_chunk([(packed, bots)])[0]

    def record_chunk(self, records: Sequence[tuple[PackedRecord, Sequence[int]]]) -> list[bool]:
        """Commit the records of one chunk (each with its bots by seat) in one transaction: all
        of them or none. Per record, False if its id was already stored (that one unwritten).

        One commit per chunk rather than per record: the commit is the larger part of what
        storing a record costs the parent, and a chunk's records arrive together anyway.
        """
        if not records:
            return []
        with self.transaction() as db:
            return [self._insert_packed(db, packed, bots) for packed, bots in records]

    def _insert_packed(
        self, db: sqlite3.Connection, packed: PackedRecord, bots: Sequence[int]
    ) -> bool:
        """Insert one record and its faults inside the caller's transaction; False if its id
        is already stored."""
        record = orjson.loads(packed.head)
        match_id = record["match_id"]
        faults = record["faults"]
        cursor = db.execute(
            "INSERT OR IGNORE INTO results(match_id, ranks, scores, faults, seconds,"
            " finished_at, record) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                match_id,
                dumps(record["ranks"]),
                dumps(record["scores"]),
                len({f["seat"] for f in faults}),
                float(record["seconds"]),
                now(),
                packed.body,
            ),
        )
        if cursor.rowcount == 0:
            return False
        db.executemany(
            "INSERT INTO faults(match_id, seat, bot, step, status, message, stderr_tail)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    match_id,
                    f["seat"],
                    bots[f["seat"]],
                    f["step"],
                    f["status"],
                    f["message"],
                    f["stderr_tail"],
                )
                for f in faults
            ],
        )
        return True

    # -- ratings --------------------------------------------------------------------------

    def save_ratings(self, rows: Iterable[tuple[str, int, float, float, int, int]]) -> None:
        """Replace the stored ratings; call inside :meth:`transaction`."""
        self.db.execute("DELETE FROM ratings")
        self.db.executemany(
            "INSERT INTO ratings(game, bot, mu, sigma, sets, matches) VALUES (?, ?, ?, ?, ?, ?)",
            list(rows),
        )
