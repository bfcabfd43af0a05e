"""A league: a folder with ``league.toml``, the submitted bots and ``league.db``.

:class:`League` ties the pieces together: submissions (checked, copied under a content hash),
withdrawals, the planning step that rates each completed batch and plans the next ones (one
transaction, so a killed arena never leaves them half done), and the standings.
"""

from __future__ import annotations

import errno
import functools
import io
import itertools
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from arena.errors import ArenaSetupError
from arena.games import JSON
from arena.league.config import (
    CONFIG_FILE,
    ConfigError,
    LeagueConfig,
    Resubmit,
    config_text,
    load_config,
)
from arena.league.rating import (
    LeagueRatings,
    SoloScore,
    Standing,
    interval,
    overall,
    rate_by_batches,
    solo_scores,
    standings_of,
    tiers,
)
from arena.league.store import NO_FAULTS, Entrant, EntrantStatus, Planned, Store, StoreError
from arena.resources import BUNDLED_PREFIX
from arena.terminal import printable_name, shown

if TYPE_CHECKING:
    import trueskill

    from arena.match import SeatFault
    from arena.runtime.botproc import Fault
    from arena.runtime.manifest import BotSpec

# arena.runtime.manifest (bots: their manifests, the built-ins) is imported where a bot is loaded
# or entered: reading a league (league status) needs none of it.

DB_FILE = "league.db"
BOTS_DIR = "bots"
IGNORED = {"__pycache__", ".git", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
MAX_BOT_BYTES = 64 * 1024 * 1024
"""The largest bot a league copies in (all files together)."""
HELPER = "arenabot.py"
"""The single-file Python bot helper; sample bots import it from their parent folder."""
LAG = 2
"""Batch k is planned from the results of batches up to k - LAG."""


class LeagueError(Exception):
    """Something the user asked for cannot be done; the message says why."""


@dataclass(frozen=True)
class BotFile:
    """One file a submission copies into the league, as it was read."""

    data: bytes
    mode: int
    """Its permission bits (the executable bits are kept in the copy)."""


_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def read_regular(dir_fd: int, name: str, where: Path, limit: int) -> BotFile:
    """The regular file ``name`` of the open folder ``dir_fd``, read through no link.

    Every file a submission copies comes through here, wherever it lives: a link could lead
    anywhere (``/etc/shadow``), and copying it would publish that file in the league. Fifos
    and devices are refused too (reading one could hang or never end), and so is a file larger
    than ``limit`` bytes.
    """
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LeagueError(
                f"{where} is a symbolic link; a bot may hold only files (copy the file in)"
            ) from None
        raise LeagueError(f"cannot read {where}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LeagueError(f"{where} is not a regular file; a bot may hold only files")
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise LeagueError(f"{where}: the bot's files come to more than {MAX_BOT_BYTES >> 20} MiB")
    return BotFile(data, stat.S_IMODE(info.st_mode))


def bot_files(folder: Path, limit: int | None = None) -> dict[str, BotFile]:
    """The files of a bot folder by relative path, sorted, caches and VCS folders left out.

    Symbolic links are refused (one could point anywhere, and copying it would bring a file from
    outside the bot into the league, where the bot could read it), and so is anything but files
    and folders. The walk goes by folder descriptors, so a folder swapped for a link while it
    is read is refused as well.
    """
    limit = MAX_BOT_BYTES if limit is None else limit
    out: dict[str, BotFile] = {}
    total = 0
    try:
        top = os.open(folder, _DIR_FLAGS & ~os.O_NOFOLLOW)
    except OSError as exc:
        raise LeagueError(f"cannot read {folder}: {exc.strerror}") from None
    stack: list[tuple[int, str]] = [(top, "")]
    try:
        while stack:
            fd, rel = stack.pop()
            try:
                with os.scandir(fd) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
                for entry in entries:
                    name = f"{rel}{entry.name}"
                    where = folder / name
                    if not printable_name(name):
                        raise LeagueError(
                            f"{shown(ascii(name))} in {folder}: a file name that is not plain"
                            " UTF-8 text (rename it)"
                        )
                    if entry.name in IGNORED or entry.name.endswith(".pyc"):
                        continue
                    if entry.is_symlink():
                        raise LeagueError(
                            f"{where} is a symbolic link; a bot folder may hold only files"
                        )
                    if entry.is_dir(follow_symlinks=False):
                        try:
                            below = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)
                        except OSError as exc:
                            raise LeagueError(f"cannot read {where}: {exc.strerror}") from None
                        stack.append((below, f"{name}/"))
                        continue
                    found = read_regular(fd, entry.name, where, limit - total)
                    total += len(found.data)
                    out[name] = found
            finally:
                os.close(fd)
    finally:
        for fd, _ in stack:
            os.close(fd)
    return dict(sorted(out.items()))


def uses_parent_helper(files: Mapping[str, BotFile]) -> bool:
    """Whether a bot (its files as read) imports the helper without holding a copy."""
    if HELPER in files:
        return False
    return any(b"arenabot" in f.data for rel, f in files.items() if rel.endswith(".py"))


def read_beside(path: Path, limit: int) -> BotFile | None:
    """The regular file at ``path``, read through no link; None if there is none."""
    try:
        parent = os.open(path.parent, _DIR_FLAGS & ~os.O_NOFOLLOW)
    except OSError as exc:
        raise LeagueError(f"cannot read {path.parent}: {exc.strerror}") from None
    try:
        os.stat(path.name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        os.close(parent)
        return None
    except OSError as exc:
        os.close(parent)
        raise LeagueError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return read_regular(parent, path.name, path, limit)
    finally:
        os.close(parent)


def content_hash(files: Mapping[str, bytes]) -> str:
    """A hash of every file's path and bytes: any change makes a new version."""
    import hashlib  # only to enter a bot (its import costs every command's start-up 2 ms)

    digest = hashlib.sha256()
    for rel in sorted(files):
        data = files[rel]
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def validate_name(name: str) -> str:
    """A bot name: 1-64 letters, digits, ``_ . + -``, starting alphanumeric (no paths, no markup)."""
    from arena.runtime.manifest import valid_name

    if not valid_name(name):
        raise LeagueError(
            f"bad bot name {name!r}: 1-64 letters, digits, _ . + - (starting with a letter or digit)"
        )
    return name


@dataclass(frozen=True)
class Candidate:
    """A bot being submitted, before it is copied in and registered."""

    name: str
    version: str
    """The content hash of its files ("builtin" for a builtin bot)."""
    author: str
    label: str
    """The version its manifest states."""
    source: str
    """Where it is loaded from: ``builtin:NAME``, or "" until its files are copied in."""
    files: Mapping[str, BotFile]
    """The files to copy into the league, by relative path (none for a builtin bot)."""


@dataclass(frozen=True)
class Submitted:
    entrant: Entrant
    replaced: Entrant | None
    checked: tuple[str, ...]
    """The games the conformance check played."""


@dataclass(frozen=True)
class GameStandings:
    game: str
    rated: list[Standing]
    solo: list[SoloScore]


class League:
    """An open league folder. Use as a context manager, or call :meth:`close`."""

    def __init__(self, folder: Path, read_only: bool = False) -> None:
        self.folder = folder
        self.config = load_config(folder)
        self.store = Store.open(folder / DB_FILE, read_only=read_only)

    @functools.cached_property
    def env(self) -> trueskill.TrueSkill:
        """The league's TrueSkill environment, made when first rated with (reading the
        standings needs none, and ``trueskill`` costs a command's start-up a few ms)."""
        return self.config.rating.environment()

    # -- creating and opening -------------------------------------------------------------

    @staticmethod
    def init(folder: Path, config: LeagueConfig) -> Path:
        """Create a league folder with a commented ``league.toml``; returns the config path."""
        path = folder / CONFIG_FILE
        if path.exists():
            raise LeagueError(f"{folder} already has a {CONFIG_FILE}")
        from arena.runtime.sandbox import protect  # the sandbox's rule, loaded when needed

        folder.mkdir(parents=True, exist_ok=True)
        protect(folder)  # league data: never readable by a bot's uid (see arena.runtime.sandbox)
        (folder / BOTS_DIR).mkdir(exist_ok=True)
        path.write_text(config_text(config), encoding="utf-8")
        Store.open(folder / DB_FILE).close()
        return path

    @classmethod
    def open(cls, folder: Path, read_only: bool = False) -> League:
        """Open a league folder; ``read_only`` never writes (for status, export, audit)."""
        try:
            return cls(folder, read_only)
        except (ConfigError, StoreError) as exc:
            raise LeagueError(str(exc)) from None

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> League:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- entrants -------------------------------------------------------------------------

    def entrants(self) -> list[Entrant]:
        return self.store.entrants()

    def bot_spec(self, entrant: Entrant) -> BotSpec:
        """The entrant's bot; its ``source`` (in records, and the pool's key) is relative to the
        league folder, so records do not depend on where the league lives.

        A submitted bot that cannot be loaded any more (its copy in the league removed or
        damaged) is the arena's trouble, not the bot's: :class:`ArenaSetupError`.
        """
        from arena.runtime.manifest import BotError, load_bot

        try:
            if entrant.source.startswith("builtin:"):
                return load_bot(entrant.source)
            return load_bot(entrant.source, base=self.folder.resolve())
        except BotError as exc:
            raise ArenaSetupError(f"entrant {entrant.name} cannot be loaded: {exc}") from None

    def submit(
        self,
        text: str,
        name: str | None = None,
        author: str | None = None,
        check: bool = True,
    ) -> Submitted:
        """Check a bot, copy it into the league under its content hash, and register it."""
        spec, text = self._load_submission(text)
        games = self._games_for(spec, text)
        bot = self._candidate(spec, text, name, author)
        previous = self._previous(bot)
        source = self._copy_in(bot, text) if bot.files else bot.source
        try:
            spec = self._load_source(source)
            checked = tuple(self.conformance(spec, games)) if check else ()
        except BaseException:  # a failed check, or the arena's own failure (ArenaSetupError)
            if bot.files:
                from arena.runtime.scratch import remove_tree

                remove_tree(self._bot_folder(bot))
            raise
        if previous is not None and previous.status is EntrantStatus.WITHDRAWN:
            previous = None  # a withdrawn version is not replaced: the new one starts afresh
        bot_id = self.store.add_entrant(
            bot.name,
            bot.version,
            bot.author,
            bot.label,
            source,
            games,
            previous.id if previous is not None else None,
        )
        entrant = next(e for e in self.entrants() if e.id == bot_id)
        return Submitted(entrant, previous, checked)

    @staticmethod
    def _load_submission(text: str) -> tuple[BotSpec, str]:
        """The submitted bot, and where to copy it from (``bundled:NAME`` is copied from its
        installed folder)."""
        from arena.runtime.manifest import BotError, BotKind, load_bot

        try:
            spec = load_bot(text)
        except BotError as exc:
            raise LeagueError(str(exc)) from None
        if spec.kind is BotKind.HUMAN:
            raise LeagueError("a human cannot enter a league")
        if text.startswith(BUNDLED_PREFIX) and spec.directory is not None:
            text = str(spec.directory)
        return spec, text

    def _games_for(self, spec: BotSpec, text: str) -> list[str]:
        """The league's games the bot plays; at least one, or the submission is refused."""
        league_games = [g.name for g in self.config.games]
        games = [g for g in league_games if spec.plays(g)]
        if not games:
            raise LeagueError(
                f"{text} plays {', '.join(spec.games or ())}, none of the league's games"
                f" ({', '.join(league_games)})"
            )
        return games

    def _candidate(
        self, spec: BotSpec, text: str, name: str | None, author: str | None
    ) -> Candidate:
        """What the submission would register: its name, version (content hash), author and
        label, and the files to copy in (none for a builtin bot)."""
        from arena.runtime.manifest import BotKind

        if spec.kind is BotKind.BUILTIN:
            name = validate_name(f"builtin-{spec.name}" if name is None else name)
            return Candidate(name, "builtin", author or "arena", "builtin", text, {})
        name = validate_name(spec.name if name is None else name)
        assert spec.directory is not None
        files = self._bot_files(Path(text), spec)
        version = content_hash({rel: f.data for rel, f in files.items()})
        author = author if author is not None else spec.author
        return Candidate(name, version, author, spec.version, "", files)

    def _previous(self, bot: Candidate) -> Entrant | None:
        """The version the submission follows (the latest live one, else the latest), after
        refusing a name of another author's and a version already submitted."""
        existing = [e for e in self.entrants() if e.name == bot.name]
        for e in existing:
            if e.author != bot.author:
                raise LeagueError(
                    f"the name {bot.name!r} is taken by another author ({e.author!r})"
                )
            if e.version == bot.version:
                state = "" if e.status is EntrantStatus.REPLACED else f", {e.status}"
                raise LeagueError(
                    f"{bot.name} version {bot.version[:12]} is already submitted"
                    f" (entrant {e.id}{state})"
                )
        live = [e for e in existing if e.status.live]
        return live[-1] if live else (existing[-1] if existing else None)

    def _bot_folder(self, bot: Candidate) -> Path:
        """Where a submitted bot's files are copied: under its name and content hash."""
        return self.folder / BOTS_DIR / f"{bot.name}-{bot.version[:12]}"

    def _copy_in(self, bot: Candidate, text: str) -> str:
        """Copy the bot's files into the league (executable bits kept); returns its source,
        relative to the league folder."""
        from arena.runtime.manifest import MANIFEST

        target = self._bot_folder(bot)
        if target.exists():
            from arena.runtime.scratch import remove_tree  # (reading a league needs none of it)

            remove_tree(target)
        for rel, found in bot.files.items():
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(found.data)
        entry = Path(text)
        if entry.name != MANIFEST and not entry.is_dir():
            source = str((target / entry.name).relative_to(self.folder))
        else:
            source = str(target.relative_to(self.folder))
        for rel, found in bot.files.items():
            if found.mode & 0o111:
                (target / rel).chmod(found.mode & 0o755)
        return source

    def _bot_files(self, path: Path, spec: BotSpec) -> dict[str, BotFile]:
        """Every file the submission copies, each read by :func:`read_regular`'s rules."""
        from arena.runtime.manifest import MANIFEST

        if path.name != MANIFEST and not path.is_dir():
            found = read_beside(Path(os.path.abspath(path)), MAX_BOT_BYTES)
            if found is None:
                raise LeagueError(f"{path} does not exist")
            return {path.name: found}
        folder = path if path.is_dir() else path.parent
        files = bot_files(folder)
        if uses_parent_helper(files):
            total = sum(len(f.data) for f in files.values())
            helper = read_beside(
                Path(os.path.abspath(folder)).parent / HELPER, MAX_BOT_BYTES - total
            )
            if helper is not None:
                files[HELPER] = helper
        if not files:
            raise LeagueError(f"{path} holds no files")
        return files

    def _load_source(self, source: str) -> BotSpec:
        from arena.runtime.manifest import BotError, load_bot

        try:
            if source.startswith("builtin:"):
                return load_bot(source)
            return load_bot(source, base=self.folder.resolve())
        except BotError as exc:
            raise LeagueError(str(exc)) from None

    def conformance(self, spec: BotSpec, games: Sequence[str]) -> Iterator[str]:
        """``arena check``'s test (:func:`arena.league.conformance.check_bot`): a handshake, then one
        match per table size of each of ``games`` (league games the bot claims) against random
        players, with the league's options and limits.

        Yields the games checked; raises :class:`LeagueError` naming the first fault (with the
        table size and options it happened at), a hint, and the end of the bot's stderr.
        """
        # The match machinery, imported when a bot is checked (reading a league needs none of it).
        from arena.league.conformance import HINTS, changed_options, check_bot
        from arena.runtime.botproc import Fault

        tables = [self.config.game(g) for g in games]
        report = check_bot(spec, 1, self.config.run_limits(), tables)
        problem: Fault | SeatFault | None = None
        where = "at start-up"
        if isinstance(report.hello, Fault):
            problem = report.hello
        else:
            for checked in report.games:
                own = checked.own()
                if own:
                    record, problem = own[0]
                    options = changed_options(checked.game, checked.options)
                    where = f"in {checked.game} at {len(record.seats)} seats" + (
                        f" ({options})" if options else ""
                    )
                    break
        if problem is not None:
            tail = problem.stderr_tail.strip()
            raise LeagueError(
                f"{spec.name} failed the check {where}: {problem.kind.value}: {problem.message}"
                f"\nhint: {HINTS[problem.kind]}"
                + (f"\n--- end of its stderr ---\n{tail}" if tail else "")
            )
        if not report.games:
            raise LeagueError(f"{spec.name} claims none of the league's games")
        yield from (c.game for c in report.games)

    def withdraw(self, name: str) -> tuple[list[Entrant], int]:
        """Withdraw every live version of ``name``: no new matches; results are kept."""
        live = [e for e in self.entrants() if e.name == name and e.status.live]
        if not live:
            raise LeagueError(f"no active entrant called {name!r}")
        cancelled = 0
        with self.store.transaction():
            for e in live:
                self.store.set_status(e.id, EntrantStatus.WITHDRAWN, "withdrawn by request")
                cancelled += self.store.cancel_unplayed(e.id)
        return live, cancelled

    # -- planning -------------------------------------------------------------------------

    def rated_batches(self) -> int:
        return int(self.store.get_meta("rated_batches", "0") or 0)

    def load_ratings(self) -> LeagueRatings:
        ratings = LeagueRatings(
            self.env,
            {e.id: e.previous for e in self.entrants()},
            self.config.entrants.resubmit == Resubmit.CARRY,
        )
        ratings.load(self.store.load_ratings())
        return ratings

    def rate_from_scratch(self) -> LeagueRatings:
        """The ratings recomputed from the stored results alone (for checks)."""
        rated = self.rated_batches()
        return rate_by_batches(
            self.env,
            [o for o in self.store.outcomes() if o.batch < rated],
            {e.id: e.previous for e in self.entrants()},
            self.config.entrants.resubmit == Resubmit.CARRY,
        )

    def advance(self, ratings: LeagueRatings) -> list[int]:
        """Rate every completed batch in order and plan the batches that may now be planned.

        Each rated batch is one transaction: the ratings after it, suspensions, and the batches
        planned from it. Returns the numbers of the batches planned.
        """
        planned: list[int] = []
        if self.store.batch_count() == 0:
            with self.store.transaction():
                planned += self._plan(ratings, -1)
        while True:
            rated = self.rated_batches()
            if not self.store.batch_complete(rated):
                break
            ratings.rate_batch(self.store.outcomes(rated))
            with self.store.transaction():
                self.store.save_ratings(ratings.rows())
                self.store.set_meta("rated_batches", str(rated + 1))
                self._suspend(rated)
                planned += self._plan(ratings, rated)
        rated = self.rated_batches()
        if rated and rated == self.store.batch_count():
            # Everything planned is played: plan again from the last rating, exactly as the
            # step after that rating did (so this changes nothing unless the config did, e.g.
            # a larger budget, or new entrants arrived).
            with self.store.transaction():
                planned += self._plan(ratings, rated - 1)
        return planned

    def _suspend(self, through: int) -> None:
        rule = self.config.entrants
        if rule.suspend_fault_rate >= 1.0:
            return
        # Only a bot that faulted in this batch can have crossed the line.
        if not self.store.faulted_in(through):
            return
        counts = self.store.fault_counts(through)
        for e in self.entrants():
            if not e.active or e.id not in counts:
                continue
            count = counts[e.id]
            if (
                count.played >= rule.suspend_min_matches
                and count.faulted >= rule.suspend_fault_rate * count.played
            ):
                self.store.set_status(
                    e.id,
                    EntrantStatus.SUSPENDED,
                    f"faulted in {count.faulted} of {count.played} matches (e.g. {count.example})",
                )

    def _plan(self, ratings: LeagueRatings, basis: int) -> list[int]:
        """Plan batches up to ``basis + LAG`` from the ratings after batch ``basis``."""
        from arena.league.schedule import plan_batch, trim_to_budget  # hashlib: not at start-up

        out = []
        while self.store.batch_count() <= basis + LAG:
            batch = self.store.batch_count()
            if self.should_stop(ratings, basis):
                break
            per_game: dict[str, list[int]] = {}
            for e in self.entrants():
                if e.active:
                    for game in e.games:
                        per_game.setdefault(game, []).append(e.id)
            view = {g: dict(r) for g, r in ratings.ratings.items()} if basis >= 0 else None
            mode, matches = plan_batch(self.config, batch, per_game, view, self.env)
            room = self.budget - self.store.planned_matches()
            matches = trim_to_budget(matches, room)
            if not matches:
                break
            self.store.add_batch(batch, mode, basis + 1, matches)
            out.append(batch)
        return out

    def crowded_tables(self) -> list[tuple[str, int, int]]:
        """(game, seats, active bots) for each table size larger than the number of active
        entrants of its game: a bot then fills several seats of one table."""
        out = []
        for game in self.config.games:
            bots = sum(1 for e in self.entrants() if e.active and game.name in e.games)
            out += [(game.name, n, bots) for n in game.seats if n > bots > 0]
        return out

    EXTEND_KEY = "extended_to"

    def extended_to(self) -> int:
        """The planned matches the operator asked for with ``league run --more`` (0: none)."""
        return int(self.store.get_meta(self.EXTEND_KEY) or 0)

    @property
    def budget(self) -> int:
        """The matches the league plans in all: ``schedule.max_matches``, or more if the
        operator extended it."""
        return max(self.config.schedule.max_matches, self.extended_to())

    def extend(self, more: int) -> int:
        """Let the league play ``more`` matches beyond what is planned or budgeted now, past
        the stopping rules too; returns the new budget."""
        if more < 1:
            raise LeagueError(f"--more takes a positive number of matches, not {more}")
        target = max(self.budget, self.store.planned_matches()) + more
        with self.store.transaction():
            self.store.set_meta(self.EXTEND_KEY, str(target))
        return target

    def should_stop(self, ratings: LeagueRatings, basis: int) -> bool:
        """The stopping rules (the budget is applied when planning)."""
        s = self.config.schedule
        planned = self.store.planned_matches()
        if planned >= self.budget:
            return True
        if planned < self.extended_to():
            return False  # the operator asked for more (league run --more N): no early stop
        if basis + 1 < max(1, s.warmup_batches):
            return False
        active = {e.id: e for e in self.entrants() if e.active}
        if s.stop_sigma > 0:
            sigmas = [
                ratings.rating(g, b).sigma
                for b, e in active.items()
                for g in e.games
                if max(self.config.game(g).seats) > 1
            ]
            if sigmas and max(sigmas) < s.stop_sigma:
                return True
        if s.stop_separated > 0:
            separated = True
            for game in self.config.games:
                if max(game.seats) == 1:
                    continue
                top = [x for x in ratings.standings(game.name) if x.bot in active]
                top = top[: s.stop_separated + 1]
                for a, b in itertools.pairwise(top):
                    if a.mu - b.mu <= 2 * (a.sigma**2 + b.sigma**2) ** 0.5:
                        separated = False
            if separated:
                return True
        return False

    def unplayed(self) -> list[Planned]:
        return self.store.unplayed()

    def finished(self) -> bool:
        return not self.store.any_unplayed()

    def stop_reason(self) -> str:
        """Why no match is left to play ("" while some are): the budget, the stopping rule, or
        too few active entrants to seat a table (naming who is suspended or withdrawn)."""
        if self.store.any_unplayed():
            return ""
        budget = self.budget
        more = "; `arena league run L --more N` plays N more"
        if self.store.planned_matches() >= budget:
            return f"finished: the budget of {budget} matches is played{more}"
        active = [e for e in self.entrants() if e.active]
        seatable = any(
            (1 if min(game.seats) == 1 else 2) <= sum(1 for e in active if game.name in e.games)
            for game in self.config.games
        )
        if not seatable:
            held = [e for e in self.entrants() if e.status.held]
            why = "; ".join(f"{e.name} {e.status}: {e.reason}" for e in held)
            return f"stopped: too few active entrants to seat a table ({len(active)} active)" + (
                f"; {why}" if why else ""
            )
        if not self.should_stop(self.load_ratings(), self.rated_batches() - 1):
            planned = self.store.planned_matches()
            return (
                f"finished: the budget of {budget} matches is spent ({planned} planned: the "
                f"next batch of whole duplicate sets does not fit){more}"
            )
        return f"finished: the stopping rule is met (the ratings are settled){more}"

    # -- standings and export -------------------------------------------------------------

    def standings(self) -> list[GameStandings]:
        rows = self.store.load_ratings()  # as stored: reading them needs no TrueSkill
        rated = self.rated_batches()
        outcomes = [o for o in self.store.outcomes() if o.batch < rated]
        out = []
        for game in self.config.games:
            solo = solo_scores((o for o in outcomes if o.game == game.name), game.higher_is_better)
            out.append(GameStandings(game.name, standings_of(rows, game.name), solo))
        return out

    def newcomer(self) -> float:
        """A new entrant's conservative rating: the floor of the overall ranking."""
        return self.config.rating.mu - 3 * self.config.rating.sigma

    def summary(self) -> dict[str, JSON]:
        """Standings per game and overall, the entrants, and progress, as JSON."""
        entrants = {e.id: e for e in self.entrants()}
        counts = self.store.fault_counts(1 << 62)
        by_game = self.store.faults_by_game()
        per_game = self.standings()

        def who(bot: int, game: str | None = None) -> dict[str, JSON]:
            """The bot; its faulted matches in ``game`` (None: in every game)."""
            e = entrants[bot]
            faulted = (
                counts.get(bot, NO_FAULTS).faulted if game is None else by_game.get((game, bot), 0)
            )
            return {
                "id": bot,
                "name": e.name,
                "version": e.version[:12],
                "label": e.label,
                "status": e.status,
                "faulted_matches": faulted,
            }

        games = {}
        for g in per_game:
            games[g.game] = {
                "ratings": [
                    {
                        **who(s.bot, g.game),
                        "conservative": round(s.conservative, 3),
                        "mu": round(s.mu, 3),
                        "sigma": round(s.sigma, 3),
                        "interval": [round(x, 3) for x in interval(s)],
                        "tier": tier,
                        "tables": s.sets,
                        "matches": s.matches,
                    }
                    for s, tier in zip(g.rated, tiers(g.rated), strict=True)
                ],
                "solo": [
                    {
                        **who(s.bot, g.game),
                        "matches": s.matches,
                        "mean_score": round(s.mean, 3),
                        "stderr": round(s.stderr, 3),
                    }
                    for s in g.solo
                ],
            }
        return {
            "league": str(self.folder),
            "matches_played": self.store.played_count(),
            "matches_planned": self.store.planned_matches(),
            "batches_rated": self.rated_batches(),
            "finished": self.finished(),
            "stopped": self.stop_reason(),
            "games": games,
            "overall": [
                {**who(o.bot), "score": round(o.score, 3), "games": o.games, "of": o.of}
                for o in overall({g.game: g.rated for g in per_game}, self.newcomer())
            ],
            "entrants": [
                {
                    "id": e.id,
                    "name": e.name,
                    "version": e.version[:12],
                    "label": e.label,
                    "author": e.author,
                    "games": list(e.games),
                    "status": e.status,
                    "reason": e.reason,
                    "submitted_at": e.submitted_at,
                    "matches": counts.get(e.id, NO_FAULTS).played,
                    "faulted_matches": counts.get(e.id, NO_FAULTS).faulted,
                }
                for e in entrants.values()
            ],
        }

    def export_jsonl(self, out: io.TextIOBase | Any) -> int:
        n = 0
        for record in self.store.records():
            out.write(orjson.dumps(record, option=orjson.OPT_SORT_KEYS).decode() + "\n")
            n += 1
        return n

    def export_csv(self, out: io.TextIOBase | Any) -> int:
        """One row per seat per match."""
        import csv

        names = {e.id: e for e in self.entrants()}
        writer = csv.writer(out)
        writer.writerow(
            [
                "match_id",
                "batch",
                "ordinal",
                "table",
                "rotation",
                "game",
                "seed",
                "seat",
                "bot",
                "version",
                "rank",
                "score",
                "fault",
                "seconds",
            ]
        )
        n = 0
        for record in self.store.records():
            where = record["schedule"]
            faults = {f["seat"]: f["status"] for f in record["faults"]}
            for seat, bot in enumerate(where["bots"]):
                writer.writerow(
                    [
                        record["match_id"],
                        where["batch"],
                        where["ordinal"],
                        where["table"],
                        where["rotation"],
                        record["game"],
                        record["seed"],
                        seat,
                        names[bot].name,
                        names[bot].version[:12],
                        record["ranks"][seat],
                        record["result"]["scores"][seat],
                        faults.get(seat, ""),
                        record["seconds"],
                    ]
                )
            n += 1
        return n
