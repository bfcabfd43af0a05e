"""The server's work queue: uploads under validation, withdrawals, scrimmages, webhook events.

Kept in the league folder's ``server-jobs.db`` (SQLite, WAL), apart from the league's store and
from the accounts: the web process writes requests here, the league runner
(:mod:`arena.server.runner`) takes them between batches and writes back their outcome, and the
web process delivers the webhook events the runner leaves in the outbox. Each side opens its own
connection per thread.

Uploads are folders under ``uploads/`` in the league folder: unpacked into a staging folder,
given a ``upload.json`` (who, which bot, when), then renamed into place (:func:`adopt` enters
one that a killed server renamed but had not yet recorded), so an upload is complete or absent.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from arena.runtime.scratch import remove_tree

JOBS_FILE = "server-jobs.db"
UPLOADS_DIR = "uploads"
SCRIMMAGES_DIR = "scrimmages"
UPLOAD_META = "upload.json"
STAGING_PREFIX = ".staging-"

SCHEMA = """
CREATE TABLE IF NOT EXISTS validations (
    id INTEGER PRIMARY KEY,
    upload TEXT NOT NULL UNIQUE,      -- the folder name under uploads/
    folder TEXT NOT NULL,             -- the bot folder, relative to the league folder
    user TEXT NOT NULL,
    bot TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',  -- pending | running | checked | passed | failed
    faults TEXT NOT NULL DEFAULT '[]',
    hints TEXT NOT NULL DEFAULT '[]',
    stderr_tail TEXT NOT NULL DEFAULT '',
    message TEXT NOT NULL DEFAULT '',
    entrant INTEGER,
    created REAL NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,               -- withdraw
    user TEXT NOT NULL,
    bot TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',  -- pending | done | failed
    message TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS scrimmages (
    id INTEGER PRIMARY KEY,
    user TEXT NOT NULL,
    game TEXT NOT NULL,
    bots TEXT NOT NULL,               -- JSON list of bot names by seat: the author's first
    matches INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',  -- pending | running | done | failed
    message TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY,
    event TEXT NOT NULL,              -- validation | settled
    user TEXT NOT NULL,               -- whose webhooks are called
    payload TEXT NOT NULL,
    created REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    done INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS settled (
    entrant INTEGER NOT NULL,
    game TEXT NOT NULL,
    PRIMARY KEY (entrant, game)
);
"""

PUBLIC_STATUS = {"checked": "running"}
"""How an internal status reads in the API: a checked bot waits for the runner to enter it."""


@dataclass(frozen=True)
class Validation:
    id: int
    upload: str
    folder: str
    user: str
    bot: str
    status: str
    faults: list[dict[str, Any]]
    hints: list[str]
    stderr_tail: str
    message: str
    entrant: int | None
    created: float
    finished: float | None

    def public(self, private: bool) -> dict[str, Any]:
        """The API's view; ``private`` (the owner, an admin) adds the stderr tail."""
        return {
            "id": self.id,
            "bot": self.bot,
            "user": self.user,
            "status": PUBLIC_STATUS.get(self.status, self.status),
            "faults": self.faults,
            "hints": self.hints,
            "stderr_tail": self.stderr_tail if private else "",
            "message": self.message,
            "entrant": self.entrant,
            "created": self.created,
            "finished": self.finished,
        }

    @property
    def ended(self) -> bool:
        return self.status in ("passed", "failed")


@dataclass(frozen=True)
class Scrimmage:
    id: int
    user: str
    game: str
    bots: tuple[str, ...]
    matches: int
    status: str
    message: str
    created: float
    finished: float | None

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "user": self.user,
            "game": self.game,
            "bots": list(self.bots),
            "matches": self.matches,
            "status": self.status,
            "message": self.message,
            "created": self.created,
            "finished": self.finished,
        }


@dataclass(frozen=True)
class Action:
    id: int
    kind: str
    user: str
    bot: str
    status: str
    message: str


@dataclass(frozen=True)
class Event:
    id: int
    event: str
    user: str
    payload: dict[str, Any]
    attempts: int


def _validation(row: Sequence[Any]) -> Validation:
    return Validation(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        json.loads(row[6]),
        json.loads(row[7]),
        row[8],
        row[9],
        row[10],
        row[11],
        row[12],
    )


def _scrimmage(row: Sequence[Any]) -> Scrimmage:
    return Scrimmage(row[0], row[1], row[2], tuple(json.loads(row[3])), *row[4:9])


VALIDATION_COLUMNS = (
    "id, upload, folder, user, bot, status, faults, hints, stderr_tail, message, entrant,"
    " created, finished"
)
SCRIMMAGE_COLUMNS = "id, user, game, bots, matches, status, message, created, finished"


class Jobs:
    """A connection to the league's ``server-jobs.db`` (one per thread)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.db = sqlite3.connect(
            folder / JOBS_FILE, isolation_level=None, timeout=30.0, check_same_thread=False
        )  # used by one thread at a time; the server closes its threads' handles at shutdown
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- validations ----------------------------------------------------------------------

    def add_validation(self, upload: str, folder: str, user: str, bot: str, created: float) -> int:
        """Record an upload (once: a second call for the same upload returns the first id)."""
        with self.transaction() as db:
            row = db.execute("SELECT id FROM validations WHERE upload = ?", (upload,)).fetchone()
            if row is not None:
                return int(row[0])
            cursor = db.execute(
                "INSERT INTO validations(upload, folder, user, bot, created) VALUES (?, ?, ?, ?, ?)",
                (upload, folder, user, bot, created),
            )
            return int(cursor.lastrowid or 0)

    def validation(self, vid: int) -> Validation | None:
        row = self.db.execute(
            f"SELECT {VALIDATION_COLUMNS} FROM validations WHERE id = ?", (vid,)
        ).fetchone()
        return None if row is None else _validation(row)

    def validations(self, user: str | None = None, status: str | None = None) -> list[Validation]:
        """Newest first; of one user, or with one status, if given."""
        rows = self._newest_first("validations", VALIDATION_COLUMNS, user, status)
        return [_validation(r) for r in rows]

    def _newest_first(
        self, table: str, columns: str, user: str | None, status: str | None
    ) -> sqlite3.Cursor:
        """The rows of ``table`` (validations or scrimmages), newest first, of one user or with
        one status if given."""
        sql = f"SELECT {columns} FROM {table} WHERE 1"
        args: list[Any] = []
        if user is not None:
            sql += " AND user = ?"
            args.append(user)
        if status is not None:
            sql += " AND status = ?"
            args.append(status)
        return self.db.execute(sql + " ORDER BY id DESC", args)

    def set_validation(self, vid: int, status: str, **fields: Any) -> None:
        """Set a validation's status and any of faults, hints, stderr_tail, message, entrant."""
        allowed = {"faults", "hints", "stderr_tail", "message", "entrant"}
        assert set(fields) <= allowed
        values = {k: json.dumps(v) if k in ("faults", "hints") else v for k, v in fields.items()}
        if status in ("passed", "failed"):
            values["finished"] = time.time()
        sets = ", ".join(["status = ?", *(f"{k} = ?" for k in values)])
        self.db.execute(
            f"UPDATE validations SET {sets} WHERE id = ?", (status, *values.values(), vid)
        )

    def uploads_of(self, user: str, since: float) -> int:
        row = self.db.execute(
            "SELECT COUNT(*) FROM validations WHERE user = ? AND created >= ?", (user, since)
        ).fetchone()
        return int(row[0])

    # -- actions --------------------------------------------------------------------------

    def add_action(self, kind: str, user: str, bot: str) -> int:
        cursor = self.db.execute(
            "INSERT INTO actions(kind, user, bot, created) VALUES (?, ?, ?, ?)",
            (kind, user, bot, time.time()),
        )
        return int(cursor.lastrowid or 0)

    def action(self, aid: int) -> Action | None:
        row = self.db.execute(
            "SELECT id, kind, user, bot, status, message FROM actions WHERE id = ?", (aid,)
        ).fetchone()
        return None if row is None else Action(*row)

    def pending_actions(self) -> list[Action]:
        return [
            Action(*r)
            for r in self.db.execute(
                "SELECT id, kind, user, bot, status, message FROM actions"
                " WHERE status = 'pending' ORDER BY id"
            )
        ]

    def finish_action(self, aid: int, ok: bool, message: str) -> None:
        self.db.execute(
            "UPDATE actions SET status = ?, message = ? WHERE id = ?",
            ("done" if ok else "failed", message, aid),
        )

    # -- scrimmages -----------------------------------------------------------------------

    def add_scrimmage(self, user: str, game: str, bots: Sequence[str], matches: int) -> int:
        cursor = self.db.execute(
            "INSERT INTO scrimmages(user, game, bots, matches, created) VALUES (?, ?, ?, ?, ?)",
            (user, game, json.dumps(list(bots)), matches, time.time()),
        )
        return int(cursor.lastrowid or 0)

    def scrimmage(self, sid: int) -> Scrimmage | None:
        row = self.db.execute(
            f"SELECT {SCRIMMAGE_COLUMNS} FROM scrimmages WHERE id = ?", (sid,)
        ).fetchone()
        return None if row is None else _scrimmage(row)

    def scrimmages(self, user: str | None = None, status: str | None = None) -> list[Scrimmage]:
        """Newest first; of one user, or with one status, if given."""
        rows = self._newest_first("scrimmages", SCRIMMAGE_COLUMNS, user, status)
        return [_scrimmage(r) for r in rows]

    def set_scrimmage(self, sid: int, status: str, message: str = "") -> None:
        finished = time.time() if status in ("done", "failed") else None
        self.db.execute(
            "UPDATE scrimmages SET status = ?, message = ?, finished = ? WHERE id = ?",
            (status, message, finished, sid),
        )

    def scrimmages_of(self, user: str, since: float) -> int:
        row = self.db.execute(
            "SELECT COUNT(*) FROM scrimmages WHERE user = ? AND created >= ?", (user, since)
        ).fetchone()
        return int(row[0])

    # -- what the runner looks at between chunks ------------------------------------------

    def waiting(self) -> bool:
        """Whether any request waits for the runner (it then ends the league's run early)."""
        row = self.db.execute(
            "SELECT EXISTS(SELECT 1 FROM validations WHERE status IN ('pending', 'checked'))"
            " OR EXISTS(SELECT 1 FROM actions WHERE status = 'pending')"
            " OR EXISTS(SELECT 1 FROM scrimmages WHERE status = 'pending')"
        ).fetchone()
        return bool(row[0])

    # -- webhook events -------------------------------------------------------------------

    def add_event(self, event: str, user: str, payload: Mapping[str, Any]) -> None:
        self.db.execute(
            "INSERT INTO outbox(event, user, payload, created) VALUES (?, ?, ?, ?)",
            (event, user, json.dumps(payload), time.time()),
        )

    def due_events(self, max_attempts: int, limit: int = 20) -> list[Event]:
        return [
            Event(r[0], r[1], r[2], json.loads(r[3]), r[4])
            for r in self.db.execute(
                "SELECT id, event, user, payload, attempts FROM outbox"
                " WHERE done = 0 AND attempts < ? ORDER BY id LIMIT ?",
                (max_attempts, limit),
            )
        ]

    def event_tried(self, eid: int, error: str) -> None:
        """One delivery attempt of an event: done when ``error`` is empty."""
        self.db.execute(
            "UPDATE outbox SET attempts = attempts + 1, done = ?, last_error = ? WHERE id = ?",
            (0 if error else 1, error[:500], eid),
        )

    def mark_settled(self, entrant: int, game: str) -> bool:
        """Remember that an entrant's rating settled in a game; False if it was known."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO settled(entrant, game) VALUES (?, ?)", (entrant, game)
        )
        return cursor.rowcount == 1


# -- upload folders -------------------------------------------------------------------------


def uploads_dir(folder: Path) -> Path:
    path = folder / UPLOADS_DIR
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def new_upload_name() -> str:
    return uuid.uuid4().hex


def staging_path(folder: Path, name: str) -> Path:
    return uploads_dir(folder) / f"{STAGING_PREFIX}{name}"


def write_meta(staging: Path, user: str, bot: str, bot_folder: Path) -> None:
    """The upload's own record, inside it, so a renamed upload can be adopted after a crash."""
    meta = {
        "user": user,
        "bot": bot,
        "folder": str(bot_folder.relative_to(staging)),
        "created": time.time(),
    }
    path = staging / UPLOAD_META
    path.write_text(json.dumps(meta), encoding="utf-8")
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def commit_upload(folder: Path, staging: Path, name: str) -> Path:
    """Rename a complete staging folder into place (atomic); returns its final path."""
    final = uploads_dir(folder) / name
    os.rename(staging, final)
    fd = os.open(uploads_dir(folder), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return final


def record_upload(jobs: Jobs, folder: Path, name: str) -> int:
    """Enter a renamed upload into the queue from its ``upload.json``; its validation id."""
    final = uploads_dir(folder) / name
    meta = json.loads((final / UPLOAD_META).read_text(encoding="utf-8"))
    bot_folder = final / meta["folder"]
    return jobs.add_validation(
        name, str(bot_folder.relative_to(folder)), meta["user"], meta["bot"], meta["created"]
    )


def adopt(folder: Path) -> tuple[int, int]:
    """At start-up: remove half-made uploads (staging folders: a kill mid-upload) and enter
    the complete ones that were never recorded (a kill between the rename and the record).
    Returns (removed, adopted)."""
    removed = adopted = 0
    root = uploads_dir(folder)
    with Jobs(folder) as jobs:
        known = {v.upload for v in jobs.validations()}
        for entry in sorted(root.iterdir()):
            if entry.name.startswith(STAGING_PREFIX):
                remove_tree(entry)
                removed += 1
            elif entry.name not in known and (entry / UPLOAD_META).is_file():
                try:
                    record_upload(jobs, folder, entry.name)
                    adopted += 1
                except (OSError, ValueError, KeyError):
                    remove_tree(entry)
                    removed += 1
    return removed, adopted
