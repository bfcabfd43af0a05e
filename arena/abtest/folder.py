"""An A/B test kept in a league folder: its settings, its paired blocks, and the SPRT read back.

A test folder *is* a league folder (``league.toml`` with the one game and table size,
``league.db`` holding the entrants NEW, OLD and the opponents and every planned and played
match) plus ``abtest.json``, the test's own settings. The matches are ordinary planned matches
of the store, played by the league driver (:func:`arena.run.driver.drive`) with a
:class:`BlockPlanner` in place of the league's schedule, so a test resumes after ``kill -9``
exactly like a league: what was committed stays, nothing is played twice.

**Blocks.** Block ``b`` is one deal (seed: a keyed hash of the test seed and ``b``) played
twice, in the same batch at ordinals ``2i`` (NEW in the tested seat) and ``2i + 1`` (OLD in
it), the ``tab`` column holding ``b`` and ``rotation`` the tested seat ``b mod N``. The other
seats hold the opponents, rotated through their list from block to block, identical in both
matches. Batches of blocks are planned ahead of the test (enough to keep the workers busy), and
match ids are keyed hashes of the test seed, the block and the half (never of the batch, which
depends on how far ahead the run plans), so a match is the same whatever the number of workers;
the test reads finished blocks strictly in block order: a block counts once both its matches
are stored, and the first crossing of a bound ends the test, so the verdict depends neither on
the number of workers nor on interruptions. Blocks played past the verdict are ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.abtest.sprt import (
    Bounds,
    Estimate,
    Hypotheses,
    Scale,
    SequentialTest,
    Status,
    Verdict,
    seat_place,
)
from arena.games import JSON
from arena.league.config import GameConfig, LeagueConfig, Schedule
from arena.league.core import League, LeagueError
from arena.league.schedule import match_id
from arena.league.store import BatchMode, Planned, StoredResult
from arena.runtime.scratch import remove_tree

SETTINGS_FILE = "abtest.json"
"""The test's own settings, beside ``league.toml``."""

BUILTIN_PREFIXES = ("builtin:", "bundled:")


class AbTestError(Exception):
    """The test cannot be made or resumed as asked (the message says why)."""


def bot_key(text: str) -> str:
    """How a bot given on the command line is compared on resume: a path made absolute."""
    if text.startswith(BUILTIN_PREFIXES):
        return text
    return os.path.abspath(text)


@dataclass(frozen=True)
class Settings:
    """What defines a test; a rerun on the folder must ask for the same (``max_blocks`` aside)."""

    game: str
    seats: int
    new: str
    old: str
    opponents: tuple[str, ...] = ()
    """The bots of the other seats, rotated; empty: OLD in every other seat."""
    options: Mapping[str, JSON] = field(default_factory=dict)
    scale: str = Scale.NELO.value
    h0: float = 0.0
    h1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    max_blocks: int | None = None
    seed: int = 1

    def hypotheses(self) -> Hypotheses:
        return Hypotheses(Scale(self.scale), self.h0, self.h1)

    def bounds(self) -> Bounds:
        return Bounds(self.alpha, self.beta)

    def check(self) -> None:
        """Raise :class:`AbTestError` for hypotheses or error rates that cannot be tested."""
        try:
            self.hypotheses()
            self.bounds()
        except ValueError as exc:
            raise AbTestError(str(exc)) from None
        if self.seats < 2:
            raise AbTestError("an A/B test needs at least 2 seats")
        if self.max_blocks is not None and self.max_blocks < 1:
            raise AbTestError("max_blocks must be at least 1")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["opponents"] = list(self.opponents)
        data["options"] = dict(self.options)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Settings:
        return cls(**{**data, "opponents": tuple(data["opponents"])})

    def differences(self, other: Settings) -> list[str]:
        """The settings (``max_blocks`` aside) in which ``other`` asks for another test."""
        mine, theirs = self.to_json(), other.to_json()
        out = []
        for key in mine:
            if key == "max_blocks":
                continue
            a, b = mine[key], theirs[key]
            if key in ("new", "old"):
                a, b = bot_key(a), bot_key(b)
            elif key == "opponents":
                a, b = [bot_key(x) for x in a], [bot_key(x) for x in b]
            if a != b:
                out.append(f"{key}: the folder's {mine[key]!r}, asked {theirs[key]!r}")
        return out


@dataclass(frozen=True)
class Entrants:
    """The league entrant ids of the test's bots."""

    new: int
    old: int
    opponents: tuple[int, ...]
    """By rotation order (OLD's id alone when the opponents are OLD)."""


def block_seed(seed: int, block: int) -> int:
    """The deal of block ``block``: a keyed hash, so seeds reveal nothing of one another."""
    digest = hashlib.blake2b(
        f"{seed}/{block}".encode(), key=b"arena-abtest-seed", digest_size=8
    ).digest()
    return int.from_bytes(digest, "big") >> 1


def seating(block: int, seats: int, opponents: Sequence[int], player: int) -> tuple[int, ...]:
    """The bots by seat of block ``block``'s match with ``player`` in the tested seat
    (``block mod seats``); the other seats take the opponents in turn, starting at ``block``."""
    tested = block % seats
    out = []
    k = block
    for seat in range(seats):
        if seat == tested:
            out.append(player)
        else:
            out.append(opponents[k % len(opponents)])
            k += 1
    return tuple(out)


def block_matches(
    settings: Settings, entrants: Entrants, batch: int, first: int, blocks: int
) -> list[Planned]:
    """The planned matches of blocks ``first .. first + blocks - 1``, batch ``batch``."""
    out = []
    for i in range(blocks):
        block = first + i
        seed = block_seed(settings.seed, block)
        for half, player in enumerate((entrants.new, entrants.old)):
            ordinal = 2 * i + half
            out.append(
                Planned(
                    match_id=match_id(settings.seed, block, half),
                    batch=batch,
                    ordinal=ordinal,
                    game=settings.game,
                    tab=block,
                    rotation=block % settings.seats,
                    seed=seed,
                    options=dict(settings.options),
                    bots=seating(block, settings.seats, entrants.opponents, player),
                )
            )
    return out


def placement(settings: Settings, entrants: Entrants) -> Callable[[StoredResult], list[str]]:
    """The audit's check of a stored match's place in the test (see
    :func:`arena.league.audit.audit`): block ``tab``, half ``ordinal mod 2`` (NEW, then OLD),
    with that block's id, deal and seating. A block planned past the verdict is cancelled but
    may hold a result (its matches were already being played): that is not a problem."""

    def check(stored: StoredResult) -> list[str]:
        block, half = stored.tab, stored.ordinal % 2
        player = (entrants.new, entrants.old)[half]
        want = {
            "id": match_id(settings.seed, block, half),
            "seed": block_seed(settings.seed, block),
            "game": settings.game,
            "seats": seating(block, settings.seats, entrants.opponents, player),
        }
        got = {"id": stored.match_id, "seed": stored.seed, "game": stored.game}
        got["seats"] = stored.bots
        return [
            f"the {what} is not the test's {what} for block {block} ({'NEW' if half == 0 else 'OLD'})"
            for what in want
            if got[what] != want[what]
        ]

    return check


# -- the folder ---------------------------------------------------------------------------------


def league_config(settings: Settings, workers: int) -> LeagueConfig:
    """The league side of a test: its one game at its one table size; chunks of one block; a
    match budget of 0, so that the league's own schedule never plans a match into the test
    (``arena league run`` on a test folder plays only the test's planned blocks)."""
    return LeagueConfig(
        seed=settings.seed,
        workers=workers,
        games=(GameConfig(settings.game, (settings.seats,), dict(settings.options)),),
        schedule=Schedule(chunk=2, max_matches=0),
    )


def read_state(folder: Path) -> tuple[Settings, Entrants] | None:
    """The test kept in ``folder`` (None: no test there)."""
    path = folder / SETTINGS_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Settings.from_json(data["settings"]), Entrants(
            data["entrants"]["new"],
            data["entrants"]["old"],
            tuple(data["entrants"]["opponents"]),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise AbTestError(f"{path} is damaged ({exc})") from None


def create(folder: Path, settings: Settings, workers: int) -> Entrants:
    """Make the test folder: a league with the bots copied in, and the settings. Built beside
    the folder and renamed into place, so a killed creation leaves no half test behind."""
    settings.check()
    staging = folder.with_name(folder.name + ".creating")
    if staging.exists():
        remove_tree(staging)
    try:
        League.init(staging, league_config(settings, workers))
        with League.open(staging) as league:
            new = league.submit(settings.new, name="new", check=False).entrant.id
            old = league.submit(settings.old, name="old", check=False).entrant.id
            opponents = tuple(
                league.submit(text, name=f"opponent-{i + 1}", check=False).entrant.id
                for i, text in enumerate(settings.opponents)
            ) or (old,)
        entrants = Entrants(new, old, opponents)
        data = {"settings": settings.to_json(), "entrants": asdict(entrants)}
        (staging / SETTINGS_FILE).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging.rename(folder)
    except BaseException:
        remove_tree(staging)
        raise
    return entrants


def open_test(folder: Path, settings: Settings, workers: int) -> tuple[Settings, Entrants, bool]:
    """The test in ``folder``, made if new; (settings, entrants, resumed). A folder that holds
    another test, or a league that is not a test, is an :class:`AbTestError`."""
    settings.check()
    state = read_state(folder)
    if state is None:
        if folder.exists() and any(folder.iterdir()):
            raise AbTestError(f"{folder} exists and holds no A/B test: choose another --dir")
        if folder.exists():
            folder.rmdir()
        try:
            return settings, create(folder, settings, workers), False
        except LeagueError as exc:
            raise AbTestError(str(exc)) from None
    stored, entrants = state
    wrong = stored.differences(settings)
    if wrong:
        raise AbTestError(f"{folder} holds another test ({'; '.join(wrong)}): choose another --dir")
    if settings.max_blocks != stored.max_blocks:
        stored = Settings.from_json({**stored.to_json(), "max_blocks": settings.max_blocks})
        data = {"settings": stored.to_json(), "entrants": asdict(entrants)}
        (folder / SETTINGS_FILE).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return stored, entrants, True


# -- reading the blocks and planning more -------------------------------------------------------


@dataclass
class Progress:
    """The test as read so far."""

    status: Status
    estimate: Estimate | None
    history: list[float]
    """The LLR after each counted block."""
    counts: list[int]
    """Blocks per bin (bin ``k``: block score ``k / (2 (N - 1))``)."""
    new_faults: int
    """Counted matches in which NEW, in the tested seat, faulted."""
    old_faults: int


class BlockPlanner:
    """The driver's planner for a test (:class:`arena.run.driver.Planner`): plans batches of
    blocks ahead, feeds finished blocks to the SPRT in block order, stops at the verdict."""

    def __init__(
        self,
        league: League,
        settings: Settings,
        entrants: Entrants,
        ahead: int = 8,
        on_block: Callable[[BlockPlanner], None] | None = None,
    ) -> None:
        self.league = league
        self.settings = settings
        self.entrants = entrants
        self.ahead = max(1, ahead)
        """Blocks to keep planned beyond the next one the test waits for (one batch's worth)."""
        self.on_block = on_block
        self.batches_planned: list[int] = []
        self.test = SequentialTest(
            settings.seats, settings.hypotheses(), settings.bounds(), settings.max_blocks
        )
        self.history: list[float] = []
        self.new_faults = 0
        self.old_faults = 0
        self.halves: dict[int, dict[int, tuple[tuple[int, ...], set[int]]]] = {}
        """Stored matches of blocks not yet counted: block -> half -> (ranks, faulted seats)."""
        self.read_from = 0
        """Blocks below this are read (counted, or the test finished before them)."""
        self._planned: int | None = None

    # -- the planner protocol --

    def start(self) -> list[Planned]:
        self.read()
        if self.finished:
            self.cancel_rest()
            return []
        self.plan()
        return self.league.unplayed()

    def after(self) -> list[Planned] | None:
        if self.read():
            self.cancel_rest()
            return None
        first = self.league.store.batch_count()
        if not self.plan():
            return []
        return self.league.store.unplayed(first)

    def total(self) -> int:
        cap = self.settings.max_blocks
        return 2 * (cap if cap is not None else self.planned_blocks())

    def stop_reason(self) -> str:
        status = self.test.status
        if status.verdict is Verdict.H1:
            return f"finished: H1 accepted after {status.blocks} blocks"
        if status.verdict is Verdict.H0:
            return f"finished: H0 accepted after {status.blocks} blocks"
        if status.finished:
            return f"finished: undecided at the cap of {status.blocks} blocks"
        return ""

    # -- the test --

    @property
    def finished(self) -> bool:
        return self.test.finished

    def progress(self) -> Progress:
        return Progress(
            self.test.status,
            self.test.estimate(),
            list(self.history),
            list(self.test.counts),
            self.new_faults,
            self.old_faults,
        )

    def read(self) -> bool:
        """Feed every newly finished block, in block order, to the test; True once finished."""
        if self.finished:
            return True
        # Only the batches from the one holding the next block (found by its match id, the
        # primary key): a test of thousands of blocks reads each result about once.
        rows = self.league.store.table_results(
            self.read_from, match_id(self.settings.seed, self.read_from, 0)
        )
        for block, ordinal, ranks, faulted in rows:
            self.halves.setdefault(block, {})[ordinal % 2] = (ranks, faulted)
        fed = False
        while not self.finished and len(self.halves.get(self.read_from, {})) == 2:
            self.count(self.read_from, self.halves.pop(self.read_from))
            self.read_from += 1
            fed = True
        if fed and self.on_block is not None:
            self.on_block(self)
        return self.finished

    def count(self, block: int, halves: Mapping[int, tuple[tuple[int, ...], set[int]]]) -> None:
        seat = block % self.settings.seats
        (ranks_new, faulted_new), (ranks_old, faulted_old) = halves[0], halves[1]
        self.new_faults += seat in faulted_new
        self.old_faults += seat in faulted_old
        status = self.test.add(
            seat_place(ranks_new, faulted_new, seat), seat_place(ranks_old, faulted_old, seat)
        )
        self.history.append(status.llr)

    # -- planning --

    def planned_blocks(self) -> int:
        """How many blocks are planned (read from the store once, then counted here)."""
        if self._planned is None:
            self._planned = self.league.store.table_count()
        return self._planned

    def plan(self) -> bool:
        """Plan the next batch of blocks if fewer than ``ahead`` are planned past the test's
        next block (never past ``max_blocks``); True if a batch was planned."""
        planned = self.planned_blocks()
        cap = self.settings.max_blocks
        if planned - self.read_from >= self.ahead or (cap is not None and planned >= cap):
            return False
        count = self.ahead if cap is None else min(self.ahead, cap - planned)
        store = self.league.store
        with store.transaction():
            batch = store.batch_count()
            matches = block_matches(self.settings, self.entrants, batch, planned, count)
            store.add_batch(batch, BatchMode.UNIFORM, 0, matches)
        self._planned = planned + count
        self.batches_planned.append(batch)
        return True

    def cancel_rest(self) -> None:
        """The test is over: cancel the planned matches not played (a later run plays none)."""
        self.league.store.cancel_all_unplayed()

    def played(self) -> int:
        """Every match stored (blocks past the verdict included)."""
        return self.league.store.played_count()
