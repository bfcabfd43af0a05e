"""A league's configuration: ``league.toml`` in the league folder, every key declared once.

Each key is a field of a frozen dataclass (one per ``[section]``), declared with :func:`setting`:
its default, its range or choices, and its help, in one place. Everything else is derived from
those declarations (:data:`SCHEMA`): the checks and their error messages (:meth:`Key.check`),
the commented file ``arena league init`` writes (:func:`config_text`), and the table of keys in
README.md (:func:`markdown_table`; ``python -m arena.league.config --readme README.md`` rewrites
it, and a test checks that it is current).

Every key is optional. Unknown keys are errors (a typo must not silently fall back to a
default), and so is a section that is not a table.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import inspect
import math
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar

from arena.games import GAMES, JSON, GameError, get_game
from arena.runtime.limits import Budget, TimeLimits

if TYPE_CHECKING:  # both imported where used: reading a config needs neither
    import trueskill

    from arena.runtime.botproc import RunLimits

CONFIG_FILE = "league.toml"
DEFAULT_SEATS = 4
MAX_SEED = 2**63 - 1
"""Seeds and counts are SQLite integers: 64 bits, signed."""
MAX_WORKERS = 1024
"""More worker processes than this is a typo, not a plan."""
MAX_SECONDS = 86400.0
"""The longest time limit accepted (a day): longer ones overflow the waits they feed."""
MAX_MATCHES = 2**53
"""Counts of matches stay exact in a float (JSON readers, progress bars)."""


class ConfigError(ValueError):
    """The league configuration is not valid; the message names the key, its value and what
    is allowed."""


# -- the schema: one Key per league.toml key -----------------------------------------------

Scalar = bool | int | float | str
"""What a key's value is (a ``str`` enum counts as ``str``)."""
S = TypeVar("S", bound=Scalar)
KEY = "arena.key"
"""Where :func:`setting` keeps a field's :class:`Key` (in the dataclass field's metadata)."""


@dataclass(frozen=True)
class Key:
    """One ``league.toml`` key, declared once: what it accepts, its default and what it does.

    Its type is its default's: ``bool``, ``int`` (whole numbers), ``float`` (any finite number;
    a whole number is read as one), ``str``, or an :class:`enum.Enum` of strings (its values are
    the choices, and a value is read as the member)."""

    default: object
    help: str
    """What the key does, for ``league init``'s comments and the README (plain text)."""
    low: float | None = None
    high: float | None = None
    above: bool = False
    """``low`` itself is not allowed (e.g. ``rating.sigma`` must be positive)."""
    below: bool = False
    """``high`` itself is not allowed (e.g. ``rating.draw_probability`` is less than 1)."""
    choices: tuple[str, ...] = ()
    pattern: re.Pattern[str] | None = None
    """A text key's values match this in full."""
    form: str = ""
    """What the key accepts in words, where the type and range do not say it (a pattern)."""
    section: str = ""
    """The table it sits in (``""``: the top of the file); set by :func:`keys_of`."""
    name: str = ""
    """Set by :func:`keys_of` from the field's name."""

    @property
    def path(self) -> str:
        """``section.name``, as error messages and the README name the key."""
        return f"{self.section}.{self.name}" if self.section else self.name

    @property
    def kind(self) -> type:
        """The key's type: its default's (``bool``, ``int``, ``float``, ``str`` or a str enum)."""
        return type(self.default)

    def options(self) -> tuple[str, ...]:
        """The values a text key may take (empty: any, or as :attr:`pattern` says)."""
        if isinstance(self.default, enum.Enum):
            return tuple(str(member.value) for member in type(self.default))
        return self.choices

    def allowed(self) -> str:
        """What the key accepts, in words: one text for errors, comments and the README."""
        if self.form:
            return self.form
        if self.options():
            return either([toml_value(choice) for choice in self.options()])
        if self.kind is bool:
            return "true or false"
        if self.kind is int:
            return f"a whole number {self._range()}".rstrip()
        if self.kind is float:
            return f"a number {self._range()}".rstrip()
        return "text"

    def _range(self) -> str:
        low = None if self.low is None else number_text(self.low)
        high = None if self.high is None else number_text(self.high)
        if low is not None and high is not None and not self.above and not self.below:
            return f"from {low} to {high}"
        parts = []
        if low is not None:
            parts.append(("above " if self.above else "of at least ") + low)
        if high is not None:
            parts.append(("below " if self.below else "at most ") + high)
        return " and ".join(parts).replace("and of ", "and ", 1)

    def _within(self, value: float) -> bool:
        if self.low is not None and (value <= self.low if self.above else value < self.low):
            return False
        return self.high is None or (value < self.high if self.below else value <= self.high)

    def check(self, value: object) -> Any:
        """``value`` as the key holds it (a float for a whole number given to a float key, the
        enum member for its value); raises :class:`ConfigError` when the key does not accept it."""
        kind = self.kind
        if isinstance(self.default, enum.Enum):
            if isinstance(value, str) and value in self.options():
                return kind(value)
        elif kind is bool:
            if isinstance(value, bool):
                return value
        elif kind is int:
            if _whole(value) and self._within(value):
                return value
        elif kind is float:
            if _number(value) and self._within(value):
                return float(value)
        elif kind is str:
            if (
                isinstance(value, str)
                and (not self.choices or value in self.choices)
                and (self.pattern is None or self.pattern.fullmatch(value))
            ):
                return value
        else:
            raise TypeError(f"{self.path} is checked where it is read, not by its Key")
        raise self.error(value)

    def error(self, value: object) -> ConfigError:
        """The error for a value this key does not accept: the key, the value, what is allowed."""
        return ConfigError(f"{self.path}: {shown(value)} is not {self.allowed()}")


def setting(
    default: S,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    above: bool = False,
    below: bool = False,
    choices: tuple[str, ...] = (),
    pattern: str | None = None,
    form: str = "",
) -> S:
    """A dataclass field that is a ``league.toml`` key (see :class:`Key` for the arguments)."""
    key = Key(
        default,
        help,
        low,
        high,
        above,
        below,
        choices,
        None if pattern is None else re.compile(pattern),
        form,
    )
    # A Field object, typed as its default's type (as dataclasses.field is) so that
    # ``chunk: int = setting(4, ...)`` reads, and type-checks, like ``chunk: int = 4``.
    return field(default=default, metadata={KEY: key})


def keys_of(section: str, cls: type) -> tuple[Key, ...]:
    """The keys a section's dataclass declares, in order, named and placed."""
    return tuple(
        dataclasses.replace(f.metadata[KEY], section=section, name=f.name)
        for f in dataclasses.fields(cls)
        if KEY in f.metadata
    )


# -- the sections --------------------------------------------------------------------------


@dataclass(frozen=True)
class GameConfig:
    """One game of the league: its table sizes and options."""

    name: str
    seats: tuple[int, ...]
    options: Mapping[str, JSON] = field(default_factory=dict)
    higher_is_better: bool = setting(
        True,
        "For one-seat tables (solo), which way the score table sorts: true if a higher score is"
        " better (written only for games with one-seat tables).",
    )


@dataclass(frozen=True)
class Schedule:
    """Which matches are played, in batches, and when the league stops."""

    duplicate: bool = setting(
        True,
        "Duplicate sets: each deal is played once per rotation of the seats, and the rotations"
        " are rated together as one result, which takes most of the luck out.",
    )
    fresh_processes: bool = setting(
        False,
        "Fresh bot processes for every match, so that no bot can remember a deal from one"
        " rotation to the next (costs a process start per seat per match).",
    )
    rounds_per_batch: int = setting(
        1,
        "A batch holds this many rounds per game and table size; a round seats every entrant"
        " once. Batch k is planned from the results of batches up to k - 2.",
        low=1,
        high=10_000,
    )
    min_batch_matches: int = setting(
        32,
        "More rounds are added to a batch until it holds at least this many matches (so that"
        " workers stay busy; it does not depend on the number of workers, so results do not"
        " either).",
        low=0,
        high=1_000_000,
    )
    warmup_batches: int = setting(
        2,
        "Batches seated uniformly before adaptive batches start.",
        low=0,
        high=1_000_000,
    )
    adaptive: bool = setting(
        False,
        "Adaptive batches (after the warm-up) seat together the entrants most likely to be in"
        " the wrong order. Off: in our simulations it did not settle the ranking sooner than"
        " duplicate sets seated uniformly (benchmarks/bench_adaptive.py).",
    )
    max_matches: int = setting(
        2000,
        "The match budget: no batch is planned once this many matches are planned.",
        low=0,
        high=MAX_MATCHES,
    )
    stop_sigma: float = setting(
        0.0,
        "Stop once every active entrant's sigma is below this in every game (0: off).",
        low=0,
    )
    stop_separated: int = setting(
        0,
        "Stop once the top N places of every game are separated (0: off).",
        low=0,
        high=1_000_000,
    )
    chunk: int = setting(
        16,
        "Matches sent to a worker at once, at most (fewer when fewer are waiting, so that every"
        " worker gets some).",
        low=1,
        high=100_000,
    )
    group_size: int = setting(
        0,
        "Seat each batch in groups of at most this many entrants, reshuffled every batch, and"
        " play a group's matches together, so a worker keeps the group's bots alive (set it"
        " with executor.live_bots in a league of many entrants; 0: everyone together).",
        low=0,
        high=1_000_000,
    )


class Resubmit(enum.StrEnum):
    """Where a new version of a bot starts its rating (``entrants.resubmit``)."""

    NEW = "new"
    """From the default rating, like any new entrant."""
    CARRY = "carry"
    """From its previous version's rating, the first time it is rated in a game."""


@dataclass(frozen=True)
class Entrants:
    """The bots: new versions, and suspending a bot that faults."""

    resubmit: Resubmit = setting(
        Resubmit.NEW,
        'A resubmitted bot (new content) starts a "new" rating or "carry"-es the old one over.',
    )
    suspend_min_matches: int = setting(
        10,
        "Matches a bot plays before it can be suspended for faults.",
        low=0,
        high=MAX_MATCHES,
    )
    suspend_fault_rate: float = setting(
        0.5,
        "Suspend a bot once this share of its matches had a fault of its own (1.0 or more: never).",
        low=0,
    )


@dataclass(frozen=True)
class Rating:
    """The TrueSkill environment (one per game)."""

    mu: float = setting(25.0, "The rating a new entrant starts from.", low=0)
    sigma: float = setting(
        25.0 / 3, "The uncertainty of a new entrant's rating.", low=0, above=True
    )
    beta: float = setting(
        25.0 / 6,
        "The spread of one match's performance: a skill gap of beta wins about 76% of the time.",
        low=0,
        above=True,
    )
    tau: float = setting(
        25.0 / 300,
        "Added to every sigma before each match, so that ratings keep moving (dynamics).",
        low=0,
    )
    draw_probability: float = setting(
        0.10, "The chance of a draw between equal players.", low=0, high=1, below=True
    )

    def environment(self) -> trueskill.TrueSkill:
        import trueskill

        return trueskill.TrueSkill(
            mu=self.mu,
            sigma=self.sigma,
            beta=self.beta,
            tau=self.tau,
            draw_probability=self.draw_probability,
        )


class ExecutorKind(enum.StrEnum):
    """Where a league's matches run."""

    LOCAL = "local"
    """Worker processes on this machine (:mod:`arena.run.local`)."""
    DASK = "dask"
    """The workers of a Dask cluster (:mod:`arena.run.cluster`)."""


@dataclass(frozen=True)
class Limits:
    """A bot's time, in seconds, and caps on all of its processes and threads together (a bot
    past a cap is killed and gets a `resources` fault).

    Read into :class:`~arena.runtime.limits.TimeLimits` and :class:`~arena.runtime.usage.Budget`
    (``LeagueConfig.limits`` and ``LeagueConfig.budget``)."""

    decision: float = setting(1.0, "Free time for each decision.", low=0.001, high=MAX_SECONDS)
    bank: float = setting(
        10.0,
        "A time bank per match: a decision longer than `decision` draws the rest from it.",
        low=0,
        high=MAX_SECONDS,
    )
    startup: float = setting(
        10.0,
        "From starting a bot to its answer to `hello`.",
        low=0.001,
        high=MAX_SECONDS,
    )
    cpu_seconds_per_match: float = setting(
        0.0, "CPU seconds of a bot in one match (0: no cap).", low=0
    )
    memory_mb_per_bot: float = setting(
        0.0,
        "Resident memory of a bot in MiB at any moment, sampled every 50 ms (0: no cap).",
        low=0,
    )

    @classmethod
    def of(cls, time: TimeLimits, budget: Budget) -> Limits:
        return cls(
            time.decision,
            time.bank,
            time.startup,
            budget.cpu_seconds_per_match,
            budget.memory_mb_per_bot,
        )

    def time(self) -> TimeLimits:
        return TimeLimits(decision=self.decision, bank=self.bank, startup=self.startup)

    def budget(self) -> Budget:
        return Budget(self.cpu_seconds_per_match, self.memory_mb_per_bot)


@dataclass(frozen=True)
class Executor:
    """Where the matches run (`arena league run --executor` overrides kind)."""

    kind: ExecutorKind = setting(
        ExecutorKind.LOCAL,
        '"local": worker processes on this machine; "dask": the workers of a Dask cluster'
        " (pip install 'arena[dask]'; arena league run L --executor dask --scheduler ADDR).",
    )
    scheduler: str = setting(
        "",
        'The Dask scheduler, e.g. "tcp://host:8786" ("": a local Dask cluster of `workers`).',
        pattern=r"(([a-z]+://)?[^\s/]+:\d{1,5})?",
        form='"" or an address such as "tcp://host:8786"',
    )
    bots: str = setting(
        "upload",
        '"upload": bots travel to the Dask workers by content hash and are cached there;'
        ' "shared": the workers read them from shared_folder.',
        choices=("upload", "shared"),
    )
    shared_folder: str = setting(
        "",
        'This league folder as the Dask workers see it, for bots = "shared" ("": this path).',
    )
    chunk: int = setting(0, "Matches per Dask task (0: schedule.chunk).", low=0, high=100_000)
    live_bots: int = setting(
        0,
        "Bot processes each worker keeps alive at most (0: no cap); past it, the least recently"
        " used is told bye and started again when next seated. Bounds memory in big leagues.",
        low=0,
        high=100_000,
    )


@dataclass(frozen=True)
class LeagueConfig:
    """An arena league. Every key is optional: a missing key takes the default shown here."""

    seed: int = setting(
        1,
        "The league seed: with the same seed, config and deterministic bots the league plays"
        " the same matches with the same results, whatever the number of workers.",
        low=0,
        high=MAX_SEED,
    )
    workers: int = setting(
        2,
        "Worker processes playing matches at once (each keeps its own bot processes alive).",
        low=1,
        high=MAX_WORKERS,
    )
    games: tuple[GameConfig, ...] = ()
    schedule: Schedule = field(default_factory=Schedule)
    entrants: Entrants = field(default_factory=Entrants)
    rating: Rating = field(default_factory=Rating)
    limits: TimeLimits = field(default_factory=lambda: Limits().time())
    executor: Executor = field(default_factory=Executor)
    budget: Budget = field(default_factory=lambda: Limits().budget())
    """Caps on all of a bot's processes together (``[limits]`` cpu_seconds_per_match and
    memory_mb_per_bot; 0: no cap)."""

    def run_limits(self) -> RunLimits:
        from arena.runtime.botproc import RunLimits

        return RunLimits(time=self.limits, budget=self.budget, live_bots=self.executor.live_bots)

    def game(self, name: str) -> GameConfig:
        for game in self.games:
            if game.name == name:
                return game
        raise ConfigError(f"the league does not play {name!r}")

    def sections(self) -> dict[str, object]:
        """Each ``[section]``'s object (``""``: the top level), as :data:`SECTIONS` reads it."""
        return {
            "": self,
            "schedule": self.schedule,
            "entrants": self.entrants,
            "rating": self.rating,
            "limits": Limits.of(self.limits, self.budget),
            "executor": self.executor,
        }


SECTIONS: dict[str, type] = {
    "": LeagueConfig,
    "schedule": Schedule,
    "entrants": Entrants,
    "rating": Rating,
    "limits": Limits,
    "executor": Executor,
}
"""The dataclass of each ``[section]`` (``""``: the top level), in the file's order."""
GAMES_SECTION = "games"
GAMES_HELP = (
    "The games, a table [games.NAME] each (see `arena games`; no [games]: every game at 4"
    " seats). One-seat tables (solo) give a score table instead of ratings."
)
GAME_KEYS: tuple[Key, ...] = (
    Key(
        [DEFAULT_SEATS],
        "The table sizes played, e.g. [4] or [3, 5] (the default: 4, or the nearest size the"
        " game allows).",
        form="a list of table sizes the game allows (or one size)",
        section="games.NAME",
        name="seats",
    ),
    Key(
        {},
        "The game's options (see `arena games`); a missing option takes the game's default.",
        form="a table of the game's options",
        section="games.NAME",
        name="options",
    ),
    *keys_of("games.NAME", GameConfig),
)
"""The keys of each ``[games.NAME]`` table (seats and options are checked by the game)."""
SCHEMA: tuple[Key, ...] = (
    *keys_of("", LeagueConfig),
    *GAME_KEYS,
    *(key for name, cls in SECTIONS.items() if name for key in keys_of(name, cls)),
)
"""Every key of ``league.toml``, in the order of the file ``league init`` writes."""


def default_games() -> tuple[GameConfig, ...]:
    """Every game of the registry at four seats (or the nearest count it allows)."""
    return tuple(
        GameConfig(
            spec.name,
            (min(max(DEFAULT_SEATS, spec.min_seats), spec.max_seats),),
            spec.validate_options(),
        )
        for spec in GAMES.values()
    )


def default_config(seed: int = 1, workers: int = 2) -> LeagueConfig:
    return LeagueConfig(seed=seed, workers=workers, games=default_games())


# -- reading -------------------------------------------------------------------------------


def _whole(value: object) -> TypeGuard[int]:
    """An int that is not a bool (``true`` is not a number in league.toml)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: object) -> TypeGuard[int | float]:
    """A finite int or float (TOML's nan and inf are not numbers of anything here)."""
    if _whole(value):
        return abs(value) <= MAX_SEED
    return isinstance(value, float) and math.isfinite(value)


def _table(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    """``data[key]`` if it is a TOML table (or missing: an empty one)."""
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where}: {shown(value)} is not a table ([{where}] with key = value lines)"
        )
    return value


def _no_unknown(data: Mapping[str, Any], known: Iterable[str], where: str) -> None:
    known = list(known)
    unknown = sorted(set(data) - set(known))
    if unknown:
        keys = ", ".join(known)
        place = f"{where}: " if where else ""
        raise ConfigError(f"{place}unknown key(s) {', '.join(unknown)} (keys: {keys})")


def _section(data: Mapping[str, Any], name: str) -> Any:
    """The dataclass of section ``name`` from its table, every key checked."""
    keys = {key.name: key for key in keys_of(name, SECTIONS[name])}
    _no_unknown(data, keys, name)
    return SECTIONS[name](**{k: keys[k].check(v) for k, v in data.items()})


def _game(name: str, table: Mapping[str, Any]) -> GameConfig:
    """``[games.NAME]``: its table sizes and options checked by the game itself."""
    try:
        spec = get_game(name)
    except GameError as exc:
        raise ConfigError(f"games.{name}: {exc}") from None
    keys = {key.name: dataclasses.replace(key, section=f"games.{name}") for key in GAME_KEYS}
    _no_unknown(table, keys, f"games.{name}")
    seats = table.get("seats", [min(max(DEFAULT_SEATS, spec.min_seats), spec.max_seats)])
    if _whole(seats):
        seats = [seats]
    if not isinstance(seats, list) or not seats or not all(_whole(n) for n in seats):
        raise keys["seats"].error(seats)
    for count in seats:
        try:
            spec.check_seats(count)
        except GameError as exc:
            raise ConfigError(f"games.{name}.seats: {exc}") from None
    options = table.get("options", {})
    if not isinstance(options, dict):
        raise keys["options"].error(options)
    try:
        checked = spec.validate_options(options)
    except GameError as exc:
        raise ConfigError(f"games.{name}.options: {exc}") from None
    higher = keys["higher_is_better"]
    higher_is_better = higher.check(table.get(higher.name, higher.default))
    return GameConfig(name, tuple(dict.fromkeys(seats)), checked, higher_is_better)


def _games(data: Mapping[str, Any]) -> tuple[GameConfig, ...]:
    if GAMES_SECTION not in data:
        return default_games()
    games = data[GAMES_SECTION]
    if not isinstance(games, dict) or not games:
        raise ConfigError(
            f"games: {shown(games)} is not a table of one or more games,"
            " e.g. [games.take5] with seats = [4]"
        )
    return tuple(_game(name, _table(games, name, f"games.{name}")) for name in games)


def parse_config(data: Mapping[str, Any]) -> LeagueConfig:
    """A checked configuration from parsed TOML."""
    top = {key.name: key for key in keys_of("", LeagueConfig)}
    _no_unknown(data, sorted([*top, GAMES_SECTION, *(name for name in SECTIONS if name)]), "")
    seed = top["seed"].check(data.get("seed", top["seed"].default))
    workers = top["workers"].check(data.get("workers", top["workers"].default))
    games = _games(data)
    sections = {name: _section(_table(data, name, name), name) for name in SECTIONS if name}
    limits: Limits = sections["limits"]
    return LeagueConfig(
        seed=seed,
        workers=workers,
        games=games,
        schedule=sections["schedule"],
        entrants=sections["entrants"],
        rating=sections["rating"],
        limits=limits.time(),
        executor=sections["executor"],
        budget=limits.budget(),
    )


def load_config(folder: Path) -> LeagueConfig:
    path = folder / CONFIG_FILE
    if not path.is_file():
        raise ConfigError(
            f"{folder} is not a league: no {CONFIG_FILE} (arena league init {folder})"
        )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}):"
            " save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    try:
        return parse_config(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


# -- writing: league init's file and the README's table ------------------------------------


def toml_value(value: object) -> str:
    """``value`` as TOML (an enum as its value)."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        pairs = ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items() if v is not None)
        return f"{{ {pairs} }}" if pairs else "{}"
    return repr(value)


def shown(value: object) -> str:
    """A value as an error message shows it: as TOML where it is TOML's, else its repr."""
    if isinstance(value, bool | int | float | str | list):
        return toml_value(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return repr(value)


def number_text(value: float) -> str:
    """A bound as people write it: 86400, not 86400.0."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return str(value)


def either(items: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def plain(text: str) -> str:
    """A docstring as user-facing text: one paragraph's words, single backticks."""
    return " ".join(text.split("\n\n")[0].split()).replace("``", "`")


def _comment(text: str) -> list[str]:
    import textwrap

    return textwrap.wrap(text, 96, initial_indent="# ", subsequent_indent="# ")


def _key_lines(key: Key, value: object) -> list[str]:
    """A key's help as a comment, then ``name = value``, with what it accepts if that says
    more than the value."""
    line = f"{key.name} = {toml_value(value)}"
    if key.kind is not bool and (key.kind is not str or key.options() or key.form):
        line += f"  # {key.allowed()}"
    return [*_comment(key.help), line]


def section_help(name: str) -> str:
    return GAMES_HELP if name == GAMES_SECTION else plain(inspect.getdoc(SECTIONS[name]) or "")


def config_text(config: LeagueConfig) -> str:
    """``league.toml`` for ``config``: every key with its help as a comment."""
    objects = config.sections()
    lines = [*_comment(section_help("")), ""]
    for key in keys_of("", LeagueConfig):
        lines += _key_lines(key, getattr(config, key.name))
    lines += ["", *_comment(section_help(GAMES_SECTION))]
    for key in GAME_KEYS:
        lines += _comment(f"{key.name}: {key.help[0].lower()}{key.help[1:]}")
    for game in config.games:
        lines.append(f"[games.{game.name}]")
        lines.append(f"seats = {toml_value(list(game.seats))}")
        if min(game.seats) == 1:
            lines.append(f"higher_is_better = {toml_value(game.higher_is_better)}")
        lines.append(f"options = {toml_value(game.options)}")
    for name, cls in SECTIONS.items():
        if name:
            lines += ["", f"[{name}]", *_comment(section_help(name))]
            for key in keys_of(name, cls):
                lines += _key_lines(key, getattr(objects[name], key.name))
    return "\n".join(lines) + "\n"


def markdown_table() -> str:
    """The README's table of ``league.toml`` keys, from :data:`SCHEMA`."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    rows = ["| key | default | accepts | what it does |", "| --- | --- | --- | --- |"]
    section = None
    for key in SCHEMA:
        if key.section != section and key.section:
            section = key.section
            top = section.split(".")[0]
            rows.append(f"| **`[{section}]`** | | | {cell(section_help(top))} |")
        rows.append(
            f"| `{key.path}` | `{toml_value(key.default)}` | {cell(key.allowed())}"
            f" | {cell(key.help)} |"
        )
    return "\n".join(rows) + "\n"


README_BEGIN = "<!-- league.toml keys: python -m arena.league.config --readme README.md -->\n"
README_END = "<!-- end of the league.toml keys -->\n"


def readme_with_table(readme: str) -> str:
    """``readme`` with the table between its markers replaced by :func:`markdown_table`."""
    start = readme.index(README_BEGIN) + len(README_BEGIN)
    end = readme.index(README_END, start)
    return readme[:start] + markdown_table() + readme[end:]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m arena.league.config``: the table of keys, or the league.toml init writes."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m arena.league.config", description=main.__doc__)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--markdown", action="store_true", help="print the README's table")
    what.add_argument("--readme", type=Path, help="rewrite the table in this README")
    what.add_argument("--toml", action="store_true", help="print the default league.toml")
    args = parser.parse_args(argv)
    if args.readme is not None:
        text = args.readme.read_text(encoding="utf-8")
        args.readme.write_text(readme_with_table(text), encoding="utf-8")
    else:
        sys.stdout.write(markdown_table() if args.markdown else config_text(default_config()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
