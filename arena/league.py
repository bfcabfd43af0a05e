"""A league: a folder with ``league.toml``, the submitted bots and ``league.db``.

:class:`League` ties the pieces together: submissions (checked, copied under a content hash),
withdrawals, the planning step that rates each completed batch and plans the next ones (one
transaction, so a killed arena never leaves them half done), and the standings.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from arena.botproc import Fault
from arena.bots import BotError, BotKind, BotSpec, load_bot, valid_name
from arena.config import CONFIG_FILE, ConfigError, LeagueConfig, config_text, load_config
from arena.conformance import HINTS, changed_options, check_bot
from arena.games import JSON
from arena.match import SeatFault
from arena.rating import (
    LeagueRatings,
    SoloScore,
    Standing,
    overall,
    rate_by_batches,
    solo_scores,
)
from arena.schedule import plan_batch, trim_to_budget
from arena.store import Entrant, Planned, Store, StoreError
from arena.terminal import printable_name, shown

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


def bot_files(folder: Path) -> list[Path]:
    """The files of a bot folder, sorted, caches and VCS folders left out.

    Symbolic links are refused: one could point anywhere, and copying it would bring a file
    from outside the bot into the league, where the bot could read it.
    """
    out = []
    total = 0
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if any(part in IGNORED for part in rel.parts) or path.suffix == ".pyc":
            continue
        if path.is_symlink():
            raise LeagueError(f"{path} is a symbolic link; a bot folder may hold only files")
        if not printable_name(str(rel)):
            raise LeagueError(
                f"{shown(ascii(str(rel)))} in {folder}: a file name that is not plain UTF-8 text"
                " (rename it)"
            )
        if path.is_file():
            total += path.stat().st_size
            if total > MAX_BOT_BYTES:
                raise LeagueError(f"{folder} holds more than {MAX_BOT_BYTES >> 20} MiB")
            out.append(path)
    return out


def uses_parent_helper(folder: Path) -> bool:
    if (folder / HELPER).exists() or not (folder.parent / HELPER).is_file():
        return False
    return any("arenabot" in p.read_text("utf-8", "replace") for p in folder.glob("*.py"))


def content_hash(files: Mapping[str, bytes]) -> str:
    """A hash of every file's path and bytes: any change makes a new version."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        data = files[rel]
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def validate_name(name: str) -> str:
    """A bot name: 1-64 letters, digits, ``_ . + -``, starting alphanumeric (no paths, no markup)."""
    if not valid_name(name):
        raise LeagueError(
            f"bad bot name {name!r}: 1-64 letters, digits, _ . + - (starting with a letter or digit)"
        )
    return name


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
        self.env = self.config.rating.environment()

    # -- creating and opening -------------------------------------------------------------

    @staticmethod
    def init(folder: Path, config: LeagueConfig) -> Path:
        """Create a league folder with a commented ``league.toml``; returns the config path."""
        path = folder / CONFIG_FILE
        if path.exists():
            raise LeagueError(f"{folder} already has a {CONFIG_FILE}")
        folder.mkdir(parents=True, exist_ok=True)
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
        league folder, so records do not depend on where the league lives."""
        if entrant.source.startswith("builtin:"):
            return load_bot(entrant.source)
        return load_bot(entrant.source, base=self.folder.resolve())

    def submit(
        self,
        text: str,
        name: str | None = None,
        author: str | None = None,
        check: bool = True,
    ) -> Submitted:
        """Check a bot, copy it into the league under its content hash, and register it."""
        try:
            spec = load_bot(text)
        except BotError as exc:
            raise LeagueError(str(exc)) from None
        if spec.kind is BotKind.HUMAN:
            raise LeagueError("a human cannot enter a league")
        league_games = [g.name for g in self.config.games]
        games = [g for g in league_games if spec.plays(g)]
        if not games:
            raise LeagueError(
                f"{text} plays {', '.join(spec.games or ())}, none of the league's games"
                f" ({', '.join(league_games)})"
            )
        if spec.kind is BotKind.BUILTIN:
            name = validate_name(f"builtin-{spec.name}" if name is None else name)
            version, author, label, source = "builtin", author or "arena", "builtin", text
            copy_from: dict[str, bytes] = {}
        else:
            name = validate_name(spec.name if name is None else name)
            assert spec.directory is not None
            author = author if author is not None else spec.author
            label = spec.version
            copy_from = self._bot_files(Path(text), spec)
            version = content_hash(copy_from)
            source = ""
        existing = [e for e in self.entrants() if e.name == name]
        for e in existing:
            if e.author != author:
                raise LeagueError(f"the name {name!r} is taken by another author ({e.author!r})")
            if e.version == version:
                state = "" if e.status == "replaced" else f", {e.status}"
                raise LeagueError(
                    f"{name} version {version[:12]} is already submitted (entrant {e.id}{state})"
                )
        live = [e for e in existing if e.status in ("active", "suspended")]
        previous = live[-1] if live else (existing[-1] if existing else None)
        if copy_from:
            target = self.folder / BOTS_DIR / f"{name}-{version[:12]}"
            if target.exists():
                shutil.rmtree(target)
            for rel, data in copy_from.items():
                dest = target / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
            entry = Path(text)
            if entry.is_file() and entry.name != "bot.toml":
                (target / entry.name).chmod(entry.stat().st_mode & 0o777)
                source = str((target / entry.name).relative_to(self.folder))
            else:
                source = str(target.relative_to(self.folder))
            for rel in copy_from:
                original = (entry if entry.is_dir() else entry.parent) / rel
                if original.is_file() and original.stat().st_mode & 0o111:
                    (target / rel).chmod(original.stat().st_mode & 0o777)
        try:
            spec = self._load_source(source)
            checked = tuple(self.conformance(spec, games)) if check else ()
        except LeagueError:
            if copy_from:
                shutil.rmtree(self.folder / BOTS_DIR / f"{name}-{version[:12]}", ignore_errors=True)
            raise
        bot_id = self.store.add_entrant(
            name,
            version,
            author,
            label,
            source,
            games,
            previous.id if previous is not None and previous.status != "withdrawn" else None,
        )
        entrant = next(e for e in self.entrants() if e.id == bot_id)
        return Submitted(
            entrant, previous if previous and previous.status != "withdrawn" else None, checked
        )

    def _bot_files(self, path: Path, spec: BotSpec) -> dict[str, bytes]:
        if path.is_file() and path.name != "bot.toml":
            return {path.name: path.read_bytes()}
        folder = path if path.is_dir() else path.parent
        files = {str(p.relative_to(folder)): p.read_bytes() for p in bot_files(folder)}
        if uses_parent_helper(folder):
            files[HELPER] = (folder.parent / HELPER).read_bytes()
        if not files:
            raise LeagueError(f"{path} holds no files")
        return files

    def _load_source(self, source: str) -> BotSpec:
        try:
            if source.startswith("builtin:"):
                return load_bot(source)
            return load_bot(source, base=self.folder.resolve())
        except BotError as exc:
            raise LeagueError(str(exc)) from None

    def conformance(self, spec: BotSpec, games: Sequence[str]) -> Iterator[str]:
        """``arena check``'s test (:func:`arena.conformance.check_bot`): a handshake, then one
        match per table size of each of ``games`` (league games the bot claims) against random
        players, with the league's options and limits.

        Yields the games checked; raises :class:`LeagueError` naming the first fault (with the
        table size and options it happened at), a hint, and the end of the bot's stderr.
        """
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
        live = [
            e for e in self.entrants() if e.name == name and e.status in ("active", "suspended")
        ]
        if not live:
            raise LeagueError(f"no active entrant called {name!r}")
        cancelled = 0
        with self.store.transaction():
            for e in live:
                self.store.set_status(e.id, "withdrawn", "withdrawn by request")
                cancelled += self.store.cancel_unplayed(e.id)
        return live, cancelled

    # -- planning -------------------------------------------------------------------------

    def rated_batches(self) -> int:
        return int(self.store.get_meta("rated_batches", "0") or 0)

    def load_ratings(self) -> LeagueRatings:
        ratings = LeagueRatings(
            self.env,
            {e.id: e.previous for e in self.entrants()},
            self.config.entrants.resubmit == "carry",
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
            self.config.entrants.resubmit == "carry",
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
            if e.status != "active" or e.id not in counts:
                continue
            played, faulted, example = counts[e.id]
            if played >= rule.suspend_min_matches and faulted >= rule.suspend_fault_rate * played:
                self.store.set_status(
                    e.id,
                    "suspended",
                    f"faulted in {faulted} of {played} matches (e.g. {example})",
                )

    def _plan(self, ratings: LeagueRatings, basis: int) -> list[int]:
        """Plan batches up to ``basis + LAG`` from the ratings after batch ``basis``."""
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
            room = self.config.schedule.max_matches - self.store.planned_matches()
            matches = trim_to_budget(matches, room)
            if not matches:
                break
            self.store.add_batch(batch, mode, basis + 1, matches)
            out.append(batch)
        return out

    def should_stop(self, ratings: LeagueRatings, basis: int) -> bool:
        """The stopping rules (the budget is applied when planning)."""
        s = self.config.schedule
        if self.store.planned_matches() >= s.max_matches:
            return True
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
        return not self.store.unplayed()

    # -- standings and export -------------------------------------------------------------

    def standings(self) -> list[GameStandings]:
        ratings = self.load_ratings()
        rated = self.rated_batches()
        outcomes = [o for o in self.store.outcomes() if o.batch < rated]
        out = []
        for game in self.config.games:
            solo = solo_scores((o for o in outcomes if o.game == game.name), game.higher_is_better)
            out.append(GameStandings(game.name, ratings.standings(game.name), solo))
        return out

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
                counts.get(bot, (0, 0, ""))[1] if game is None else by_game.get((game, bot), 0)
            )
            return {
                "id": bot,
                "name": e.name,
                "version": e.version[:12],
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
                        "tables": s.sets,
                        "matches": s.matches,
                    }
                    for s in g.rated
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
            "games": games,
            "overall": [
                {**who(bot), "score": round(score, 3), "games": n}
                for bot, score, n in overall({g.game: g.rated for g in per_game})
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
                    "matches": counts.get(e.id, (0, 0, ""))[0],
                    "faulted_matches": counts.get(e.id, (0, 0, ""))[1],
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
