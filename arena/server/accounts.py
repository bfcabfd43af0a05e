"""The server's accounts: users, passwords, API tokens, sessions, bot ownership and webhooks.

Kept in the league folder's own SQLite file ``server.db`` (WAL, mode 0o600), apart from the
league's store: the league knows nothing of who may change a bot, and its audit never reads
this. Secrets are never stored: passwords as argon2id hashes (memory-hard, argon2-cffi's
RFC 9106 defaults), and sign-up tokens, API tokens and session ids as their SHA-256 (each is 32
random bytes, so a plain hash is enough: nothing to guess, and a copy of the file opens no door).

One :class:`Accounts` may be shared by the threads of a server: every call holds a lock.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from arena.terminal import unsafe

DB_NAME = "server.db"
"""The accounts' file in the league folder."""

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
"""A user name: what the interface allows (``[A-Za-z0-9_.-]{1,32}``), starting with a letter or
digit (so no ``.`` or ``..``, which would read as paths in the site's URLs)."""

MIN_PASSWORD = 8
MAX_PASSWORD = 1024
"""Password lengths, in characters (the upper bound keeps one sign-in from costing much)."""

SESSION_SECONDS = 14 * 24 * 3600
"""A browser session's life (from sign-in)."""

SIGNUP_SECONDS = 7 * 24 * 3600
"""A sign-up token's life: time enough to pass it on, not a door left open for ever."""

EVENTS = frozenset({"validation", "settled"})
"""What a webhook can be called for: a validation ended; a version's rating settled."""

MAX_WEBHOOKS = 10
"""Webhooks per user."""

MAX_URL = 2000
"""Characters in a webhook's URL."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    admin INTEGER NOT NULL,
    password TEXT,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS signups (
    hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
    hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS owners (
    name TEXT PRIMARY KEY,
    user_id INTEGER REFERENCES users(id) ON DELETE SET NULL
);
CREATE TABLE IF NOT EXISTS webhooks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    events TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tokens_user ON tokens(user_id);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions(user_id);
CREATE INDEX IF NOT EXISTS owners_user ON owners(user_id);
"""
"""``owners.user_id`` is NULL for a bot whose owner was removed: it stays known, so no one but an
admin can take it over."""


class AccountError(ValueError):
    """A request about accounts refused; the message is safe to show to the user."""


@dataclass(frozen=True)
class User:
    """A user of the server."""

    id: int
    name: str
    admin: bool


@dataclass(frozen=True)
class Webhook:
    """A URL called when one of ``events`` happens to one of its user's bots."""

    id: int
    url: str
    events: frozenset[str]


def digest(secret: str) -> str:
    """What is stored of a token or session id: its SHA-256, in hex."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def check_user_name(name: str) -> str:
    """``name`` if it is a valid user name, else :class:`AccountError`."""
    if not NAME.fullmatch(name):
        raise AccountError(
            "a user name is 1 to 32 letters, digits, '_', '.' or '-', starting with a letter "
            "or digit"
        )
    return name


def check_password_text(password: str) -> str:
    """``password`` if it is long enough (and not absurdly long)."""
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"a password has at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"a password has at most {MAX_PASSWORD} characters")
    return password


def check_webhook(url: str, events: frozenset[str]) -> tuple[str, frozenset[str]]:
    """A webhook's URL (http or https, with a host) and events (some of :data:`EVENTS`)."""
    if len(url) > MAX_URL:
        raise AccountError(f"a webhook URL has at most {MAX_URL} characters")
    if any(unsafe(c) or c.isspace() for c in url):
        raise AccountError("a webhook URL has no spaces or control characters")
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 (raises ValueError on a bad port)
    except ValueError:
        raise AccountError("not a valid URL") from None
    if parts.scheme not in ("http", "https") or not host:
        raise AccountError("a webhook URL starts with http:// or https:// and names a host")
    events = frozenset(events)
    if not events or not events <= EVENTS:
        raise AccountError(f"webhook events are some of: {', '.join(sorted(EVENTS))}")
    return url, events


class Accounts:
    """The accounts of one league's server (a handle on ``server.db``; a context manager)."""

    def __init__(self, db: sqlite3.Connection, hasher: PasswordHasher) -> None:
        self._db = db
        self._hasher = hasher
        self._lock = threading.Lock()
        self._dummy: str | None = None
        """Verified against when there is no hash to check, so an unknown user costs as
        much time as a wrong password (made when first needed: opening costs no hash)."""

    @classmethod
    def open(cls, league_folder: Path, hasher: PasswordHasher | None = None) -> Accounts:
        """The accounts in ``league_folder/server.db``, made (mode 0o600) if absent.

        ``hasher`` is for tests that want a cheap hash; the server keeps the default.
        """
        path = league_folder / DB_NAME
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
        db = sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(SCHEMA)
        except BaseException:
            db.close()
            raise
        return cls(db, hasher or PasswordHasher())

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (taken at once, so two processes never deadlock on upgrade)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _read(self, sql: str, *args: object) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._db.execute(sql, args))

    # -- users ---------------------------------------------------------------------------------

    def add_user(self, name: str, admin: bool = False, password: str | None = None) -> str:
        """Adds a user; returns a one-time sign-up token (the user sets a password with it in
        the browser), or ``""`` when ``password`` is given (nothing left to sign up for)."""
        check_user_name(name)
        hashed = None if password is None else self._hasher.hash(check_password_text(password))
        with self._write() as db:
            if db.execute("SELECT 1 FROM users WHERE name = ?", (name,)).fetchone():
                raise AccountError(f"there is a user {name} already")
            cursor = db.execute(
                "INSERT INTO users (name, admin, password, created) VALUES (?, ?, ?, ?)",
                (name, int(admin), hashed, time.time()),
            )
            user_id = cursor.lastrowid
            return "" if password is not None else self._signup(db, user_id)

    def new_signup(self, name: str) -> str:
        """A new one-time sign-up token for an existing user (a lost password, an expired
        token); their older sign-up tokens stop working, their password too once it is used."""
        with self._write() as db:
            row = db.execute("SELECT id FROM users WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise AccountError(f"no user {name}")
            return self._signup(db, row[0])

    def _signup(self, db: sqlite3.Connection, user_id: int | None) -> str:
        token = secrets.token_urlsafe(32)
        db.execute("DELETE FROM signups WHERE user_id = ?", (user_id,))
        db.execute(
            "INSERT INTO signups (hash, user_id, expires) VALUES (?, ?, ?)",
            (digest(token), user_id, time.time() + SIGNUP_SECONDS),
        )
        return token

    def remove_user(self, name: str) -> None:
        """Removes a user with their sign-up and API tokens, sessions and webhooks; their bots
        stay in the league, owned by no one (only an admin may change them)."""
        with self._write() as db:
            if db.execute("DELETE FROM users WHERE name = ?", (name,)).rowcount == 0:
                raise AccountError(f"no user {name}")

    def users(self) -> list[User]:
        rows = self._read("SELECT id, name, admin FROM users ORDER BY name")
        return [User(int(i), str(n), bool(a)) for i, n, a in rows]

    def user(self, name: str) -> User | None:
        """The user called ``name`` (case-insensitive), if any."""
        return self._user("SELECT id, name, admin FROM users WHERE name = ?", name)

    def _user(self, sql: str, *args: object) -> User | None:
        rows = self._read(sql, *args)
        if not rows:
            return None
        i, n, a = rows[0]
        return User(int(i), str(n), bool(a))

    # -- passwords -----------------------------------------------------------------------------

    def set_password(self, name: str, password: str) -> None:
        """Sets a user's password (argon2id; at least :data:`MIN_PASSWORD` characters)."""
        hashed = self._hasher.hash(check_password_text(password))
        with self._write() as db:
            done = db.execute("UPDATE users SET password = ? WHERE name = ?", (hashed, name))
            if done.rowcount == 0:
                raise AccountError(f"no user {name}")

    def redeem_signup(self, token: str, password: str) -> User:
        """Sets the password of the user a sign-up token was made for, and uses the token up
        (one time only: :class:`AccountError` if it is used, expired or unknown)."""
        hashed = self._hasher.hash(check_password_text(password))
        with self._write() as db:
            row = db.execute(
                "SELECT users.id, users.name, users.admin, signups.expires FROM signups "
                "JOIN users ON users.id = signups.user_id WHERE signups.hash = ?",
                (digest(token),),
            ).fetchone()
            db.execute("DELETE FROM signups WHERE hash = ?", (digest(token),))
            if row is None or row[3] < time.time():
                raise AccountError("this sign-up link is used, expired or unknown")
            db.execute("UPDATE users SET password = ? WHERE id = ?", (hashed, row[0]))
        return User(row[0], row[1], bool(row[2]))

    def check_password(self, name: str, password: str) -> User | None:
        """The user, if ``password`` is theirs; else None. An unknown user or one without a
        password costs the same hash, and an old hash is redone with today's parameters."""
        rows = self._read("SELECT id, name, admin, password FROM users WHERE name = ?", name)
        stored = str(rows[0][3]) if rows and rows[0][3] is not None else None
        if stored is None and self._dummy is None:
            self._dummy = self._hasher.hash(secrets.token_urlsafe(16))
        try:
            self._hasher.verify(stored or self._dummy or "", password[: MAX_PASSWORD + 1])
        except (VerificationError, InvalidHashError):
            return None
        if stored is None:
            return None
        i, n, a, _ = rows[0]
        if self._hasher.check_needs_rehash(stored):
            with self._write() as db:
                db.execute(
                    "UPDATE users SET password = ? WHERE id = ? AND password = ?",
                    (self._hasher.hash(password), i, stored),
                )
        return User(int(i), str(n), bool(a))

    # -- API tokens ----------------------------------------------------------------------------

    def new_token(self, user: User, label: str = "") -> str:
        """A new API token for ``user`` (shown once: only its hash is kept)."""
        token = secrets.token_urlsafe(32)
        with self._write() as db:
            self._exists(db, user)
            db.execute(
                "INSERT INTO tokens (hash, user_id, label, created) VALUES (?, ?, ?, ?)",
                (digest(token), user.id, label[:100], time.time()),
            )
        return token

    def user_for_token(self, token: str) -> User | None:
        return self._user(
            "SELECT users.id, users.name, users.admin FROM tokens "
            "JOIN users ON users.id = tokens.user_id WHERE tokens.hash = ?",
            digest(token),
        )

    def revoke_tokens(self, user: User) -> None:
        """Ends every API token of ``user``."""
        with self._write() as db:
            db.execute("DELETE FROM tokens WHERE user_id = ?", (user.id,))

    # -- browser sessions ----------------------------------------------------------------------

    def new_session(self, user: User) -> str:
        """A new session id (32 random bytes, URL-safe) for a signed-in user; it lasts
        :data:`SESSION_SECONDS`. Expired sessions are cleared here."""
        session = secrets.token_urlsafe(32)
        now = time.time()
        with self._write() as db:
            self._exists(db, user)
            db.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            db.execute(
                "INSERT INTO sessions (hash, user_id, expires) VALUES (?, ?, ?)",
                (digest(session), user.id, now + SESSION_SECONDS),
            )
        return session

    def user_for_session(self, session: str) -> User | None:
        return self._user(
            "SELECT users.id, users.name, users.admin FROM sessions "
            "JOIN users ON users.id = sessions.user_id "
            "WHERE sessions.hash = ? AND sessions.expires > ?",
            digest(session),
            time.time(),
        )

    def end_session(self, session: str) -> None:
        """Signs a session out (nothing happens for an unknown one)."""
        with self._write() as db:
            db.execute("DELETE FROM sessions WHERE hash = ?", (digest(session),))

    # -- bot ownership -------------------------------------------------------------------------

    def owner_of(self, bot: str) -> str | None:
        """The name of the user who owns ``bot``, or None (unclaimed, or its owner removed)."""
        rows = self._read(
            "SELECT users.name FROM owners JOIN users ON users.id = owners.user_id "
            "WHERE owners.name = ?",
            bot,
        )
        return str(rows[0][0]) if rows else None

    def claim(self, bot: str, user: User) -> None:
        """Makes ``user`` the owner of ``bot`` if no one is: :class:`AccountError` if another
        user owns it, or its owner was removed, unless ``user`` is an admin (an admin may change
        any bot; an owned bot keeps its owner, one whose owner was removed becomes the admin's).

        This knows only the bots claimed here: for a bot the league has but no one claimed
        (entered from the command line), the server asks :meth:`may_change` first.
        """
        with self._write() as db:
            self._exists(db, user)
            row = db.execute("SELECT user_id FROM owners WHERE name = ?", (bot,)).fetchone()
            if row is None:
                db.execute("INSERT INTO owners (name, user_id) VALUES (?, ?)", (bot, user.id))
            elif row[0] == user.id or (user.admin and row[0] is not None):
                return
            elif user.admin:
                db.execute("UPDATE owners SET user_id = ? WHERE name = ?", (user.id, bot))
            else:
                raise AccountError(f"the bot {bot} belongs to someone else")

    def may_change(self, bot: str, user: User) -> bool:
        """True if ``user`` may replace or withdraw ``bot``: its owner, or an admin (a bot with
        no owner: only an admin)."""
        if user.admin:
            return self.user(user.name) is not None
        rows = self._read("SELECT user_id FROM owners WHERE name = ?", bot)
        return bool(rows) and rows[0][0] == user.id

    def bots_of(self, user: User) -> list[str]:
        rows = self._read("SELECT name FROM owners WHERE user_id = ? ORDER BY name", user.id)
        return [str(r[0]) for r in rows]

    # -- webhooks ------------------------------------------------------------------------------

    def add_webhook(self, user: User, url: str, events: frozenset[str]) -> int:
        """Registers ``url`` (http or https) to be called on ``events`` (some of
        :data:`EVENTS`) of ``user``'s bots; returns its id."""
        url, events = check_webhook(url, events)
        with self._write() as db:
            self._exists(db, user)
            count = db.execute("SELECT count(*) FROM webhooks WHERE user_id = ?", (user.id,))
            if count.fetchone()[0] >= MAX_WEBHOOKS:
                raise AccountError(f"at most {MAX_WEBHOOKS} webhooks per user")
            cursor = db.execute(
                "INSERT INTO webhooks (user_id, url, events) VALUES (?, ?, ?)",
                (user.id, url, ",".join(sorted(events))),
            )
            assert cursor.lastrowid is not None
            return cursor.lastrowid

    def webhooks(self, user: User) -> list[Webhook]:
        rows = self._read(
            "SELECT id, url, events FROM webhooks WHERE user_id = ? ORDER BY id", user.id
        )
        return [Webhook(int(i), str(u), frozenset(str(e).split(","))) for i, u, e in rows]

    def remove_webhook(self, user: User, hook_id: int) -> None:
        """Removes one of ``user``'s webhooks (:class:`AccountError` if they have no such)."""
        with self._write() as db:
            done = db.execute(
                "DELETE FROM webhooks WHERE id = ? AND user_id = ?", (hook_id, user.id)
            )
            if done.rowcount == 0:
                raise AccountError(f"no webhook {hook_id}")

    @staticmethod
    def _exists(db: sqlite3.Connection, user: User) -> None:
        if db.execute("SELECT 1 FROM users WHERE id = ?", (user.id,)).fetchone() is None:
            raise AccountError(f"no user {user.name}")
