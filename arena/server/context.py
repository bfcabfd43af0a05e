"""What every request of the server shares: the league folder, per-thread handles on the
league (read only), the accounts and the job queue, the rate limits, the templates, and a cached
snapshot of the standings.

Starlette runs plain (non-async) endpoints on a pool of threads; SQLite connections belong to
the thread that opened them, so each thread opens its own handles once and keeps them.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import jinja2
from argon2 import PasswordHasher

from arena import resources
from arena.league.core import League
from arena.server.accounts import Accounts, User
from arena.server.archive import Limits
from arena.server.jobs import Jobs
from arena.server.security import RateLimiter

TEMPLATES = resources.templates() / "server"
SUMMARY_FILE = "server-summary.json"
"""The league's summary, written by the runner whenever a batch is rated or an entrant changes."""


def write_summary(league: League) -> None:
    """Write :data:`SUMMARY_FILE` (atomically: readers see the old one or the new one)."""
    data = league.summary()
    data.pop("league", None)  # a path on the server
    path = league.folder / SUMMARY_FILE
    partial = path.with_name(path.name + ".part")
    partial.write_text(json.dumps(data), encoding="utf-8")
    os.replace(partial, path)


@dataclass(frozen=True)
class Settings:
    """How one server runs (``arena server`` options)."""

    folder: Path
    """The league folder."""
    site: Path
    """The rendered site (the runner keeps it up to date)."""
    limits: Limits = field(default_factory=Limits)
    max_scrimmage_matches: int = 50
    signins_per_5min: int = 10
    uploads_per_hour: int = 20
    scrimmages_per_hour: int = 10
    settled_sigma: float = 2.0
    """A version's rating has settled (the webhook) once its sigma is under this."""


def environment() -> jinja2.Environment:
    """The author pages' templates: autoescaped everywhere, loud about anything undefined."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = lambda v, d=2: "–" if v is None else f"{v:.{d}f}"
    return env


H = TypeVar("H", League, Accounts, Jobs)


class Server:
    """The state of one server process."""

    def __init__(self, settings: Settings, hasher: PasswordHasher | None = None) -> None:
        self.settings = settings
        self.hasher = hasher
        self.folder = settings.folder
        self.local = threading.local()
        self.templates = environment()
        self.signin_by_address = RateLimiter(3 * settings.signins_per_5min, 300)
        self.signin_by_name = RateLimiter(settings.signins_per_5min, 300)
        self.upload_limit = RateLimiter(settings.uploads_per_hour, 3600)
        self.scrimmage_limit = RateLimiter(settings.scrimmages_per_hour, 3600)
        self.snapshot_lock = threading.Lock()
        self.snapshot_key: tuple[object, ...] | None = None
        self.snapshot_value: dict[str, Any] = {}
        self.handles: list[League | Accounts | Jobs] = []
        """Every handle a thread opened, closed by :meth:`close` (a handle left to the garbage
        collector when its thread ends would leave its SQLite connection unclosed)."""
        self.handles_lock = threading.Lock()

    # -- per-thread handles --

    def _kept(self, handle: H) -> H:
        with self.handles_lock:
            self.handles.append(handle)
        return handle

    def league(self) -> League:
        """This thread's read-only league (it sees every commit of the runner)."""
        league: League | None = getattr(self.local, "league", None)
        if league is None:
            league = self._kept(League.open(self.folder, read_only=True))
            self.local.league = league
        return league

    def accounts(self) -> Accounts:
        accounts: Accounts | None = getattr(self.local, "accounts", None)
        if accounts is None:
            accounts = self._kept(Accounts.open(self.folder, hasher=self.hasher))
            self.local.accounts = accounts
        return accounts

    def jobs(self) -> Jobs:
        jobs: Jobs | None = getattr(self.local, "jobs", None)
        if jobs is None:
            jobs = self._kept(Jobs(self.folder))
            self.local.jobs = jobs
        return jobs

    def close(self) -> None:
        """Close every handle the threads opened (when the application shuts down)."""
        with self.handles_lock:
            handles, self.handles = self.handles, []
        for handle in handles:
            handle.close()
        self.local = threading.local()

    # -- the standings --

    def summary(self) -> dict[str, Any]:
        """The league's summary (:meth:`League.summary`) as the runner last wrote it
        (:data:`SUMMARY_FILE`: computing it reads every result, which the web must not do per
        request), or computed here when there is none (no runner), again only when a batch was
        rated or an entrant changed. The match counts are always current."""
        league = self.league()
        path = self.folder / SUMMARY_FILE
        try:
            stamp: tuple[object, ...] = ("file", path.stat().st_mtime_ns)
        except FileNotFoundError:
            stamp = (league.rated_batches(), tuple((e.id, e.status) for e in league.entrants()))
        with self.snapshot_lock:
            if stamp != self.snapshot_key:
                if stamp[0] == "file":
                    data = json.loads(path.read_bytes())
                else:
                    data = league.summary()
                    data.pop("league", None)  # a path on the server
                self.snapshot_value = data
                self.snapshot_key = stamp
            value = dict(self.snapshot_value)
        # The counts are always current (one count each); a stale planned count beside a
        # current played one read as more played than planned.
        value["matches_played"] = league.store.played_count()
        value["matches_planned"] = league.store.planned_matches()
        return value

    # -- who may see and change what --

    def may_see_private(self, user: User | None, bot: str) -> bool:
        """Stderr tails and validations of ``bot``: its owner and admins only."""
        if user is None:
            return False
        return user.admin or self.accounts().owner_of(bot) == user.name
