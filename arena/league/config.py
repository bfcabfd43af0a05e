"""A league's configuration: ``league.toml`` in the league folder, every key checked.

Every key is optional; the defaults are the embedded ones ``arena league init`` writes out with
a comment each. Unknown keys are errors (a typo must not silently fall back to a default).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import trueskill

from arena.games import GAMES, JSON, GameError, get_game
from arena.runtime.botproc import RunLimits, TimeLimits
from arena.runtime.usage import Budget

CONFIG_FILE = "league.toml"
DEFAULT_SEATS = 4


class ConfigError(ValueError):
    """The league configuration is not valid; the message names the key."""


@dataclass(frozen=True)
class GameConfig:
    """One game of the league: its table sizes and options."""

    name: str
    seats: tuple[int, ...]
    options: Mapping[str, JSON] = field(default_factory=dict)
    higher_is_better: bool = True
    """For one-seat tables (solo), which way the score table sorts."""


@dataclass(frozen=True)
class Schedule:
    duplicate: bool = True
    """Play each deal once per rotation of the seats and rate the rotations as one result."""
    fresh_processes: bool = False
    """Start fresh bot processes for every match (slower; a bot cannot remember a deal)."""
    rounds_per_batch: int = 1
    """Rounds per batch for each game and table size; a round seats every entrant once."""
    min_batch_matches: int = 32
    """More rounds are added to a batch until it holds at least this many matches (so that
    workers stay busy; independent of the number of workers, so results are too)."""
    warmup_batches: int = 2
    """Batches scheduled uniformly before adaptive scheduling starts."""
    adaptive: bool = False
    """After the warm-up, seat together the entrants most likely to be in the wrong order.
    Off by default: in ``benchmarks/bench_adaptive.py`` it did not settle rankings faster than
    duplicate sets with uniform seating (figures in the commit message that turned it off)."""
    max_matches: int = 2000
    """The match budget: no batch is planned once this many matches are planned."""
    stop_sigma: float = 0.0
    """Stop once every active entrant's sigma is below this in every game (0: off)."""
    stop_separated: int = 0
    """Stop once the top N places of every game are separated (0: off)."""
    chunk: int = 4
    """Matches sent to a worker at once."""


@dataclass(frozen=True)
class Entrants:
    resubmit: str = "new"
    """A new version of a bot starts a ``new`` rating, or ``carry``-es the old one over."""
    suspend_min_matches: int = 10
    """Matches a bot plays before it can be suspended for faults."""
    suspend_fault_rate: float = 0.5
    """Suspend a bot whose share of matches with a fault reaches this (1.0 and above: never)."""


@dataclass(frozen=True)
class Rating:
    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.10

    def environment(self) -> trueskill.TrueSkill:
        return trueskill.TrueSkill(
            mu=self.mu,
            sigma=self.sigma,
            beta=self.beta,
            tau=self.tau,
            draw_probability=self.draw_probability,
        )


class ExecutorKind(StrEnum):
    """Where a league's matches run."""

    LOCAL = "local"
    """Worker processes on this machine (:mod:`arena.run.local`)."""
    DASK = "dask"
    """The workers of a Dask cluster (:mod:`arena.run.cluster`)."""


@dataclass(frozen=True)
class Executor:
    """Where the matches run (``arena league run --executor`` overrides ``kind``)."""

    kind: ExecutorKind = ExecutorKind.LOCAL
    """local: worker processes on this machine; dask: the workers of a Dask cluster."""
    scheduler: str = ""
    """The Dask scheduler, e.g. tcp://host:8786 (empty: a local Dask cluster of ``workers``)."""
    bots: str = "upload"
    """upload: bots travel to the Dask workers by content hash; shared: from shared_folder."""
    shared_folder: str = ""
    """The league folder as the Dask workers see it (bots = "shared"; empty: this path)."""
    chunk: int = 0
    """Matches per Dask task (0: schedule.chunk)."""


@dataclass(frozen=True)
class LeagueConfig:
    seed: int = 1
    workers: int = 2
    games: tuple[GameConfig, ...] = ()
    schedule: Schedule = field(default_factory=Schedule)
    entrants: Entrants = field(default_factory=Entrants)
    rating: Rating = field(default_factory=Rating)
    limits: TimeLimits = field(default_factory=lambda: TimeLimits(decision=1.0, bank=10.0))
    executor: Executor = field(default_factory=Executor)
    budget: Budget = field(default_factory=Budget)
    """Caps on all of a bot's processes together (``[limits]`` cpu_seconds_per_match and
    memory_mb_per_bot; 0: no cap)."""

    def run_limits(self) -> RunLimits:
        return RunLimits(time=self.limits, budget=self.budget)

    def game(self, name: str) -> GameConfig:
        for game in self.games:
            if game.name == name:
                return game
        raise ConfigError(f"the league does not play {name!r}")


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


SCHEDULER = re.compile(r"([a-z]+://)?[^\s/]+:\d{1,5}")
"""A Dask scheduler's address: an optional protocol, a host and a port."""
MAX_SEED = 2**63 - 1
"""Seeds and counts are SQLite integers: 64 bits, signed."""
MAX_WORKERS = 1024
"""More worker processes than this is a typo, not a plan."""
MAX_SECONDS = 86400.0
"""The longest time limit accepted (a day): longer ones overflow the waits they feed."""
BOUNDS: dict[str, float] = {
    "rounds_per_batch": 10_000,
    "min_batch_matches": 1_000_000,
    "warmup_batches": 1_000_000,
    "chunk": 100_000,
    "max_matches": 2**53,
    "stop_separated": 1_000_000,
    "suspend_min_matches": 2**53,
}
"""Upper bounds of whole-number keys, so that a slip of the keyboard cannot plan forever."""


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: object) -> bool:
    """A finite int or float (TOML's nan and inf are not numbers of anything here)."""
    if _whole(value):
        return abs(value) <= MAX_SEED  # type: ignore[arg-type]
    return isinstance(value, float) and math.isfinite(value)


def _table(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """``data[key]`` if it is a TOML table (or missing: an empty one)."""
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{key}: a table ([{key}] with key = value lines), not {value!r}")
    return value


def _section(data: Mapping[str, Any], cls: Any, where: str) -> Any:
    fields = cls.__dataclass_fields__
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)} (keys: {', '.join(fields)})"
        )
    values: dict[str, Any] = {}
    defaults = cls()
    for key, value in data.items():
        default = getattr(defaults, key)
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, int):
            ok = _whole(value) and 0 <= value <= BOUNDS.get(key, MAX_SEED)
        elif isinstance(default, float):
            ok = _number(value) and value >= 0
            value = float(value) if ok else value
        else:
            ok = isinstance(value, type(default))
        if not ok:
            kind = {bool: "true or false", int: "whole number", float: "number", str: "string"}
            raise ConfigError(
                f"{where}.{key}: {value!r} is not a valid {kind.get(type(default), 'value')}"
                + (" (0 or more)" if type(default) in (int, float) else "")
                + (f" of at most {BOUNDS[key]:g}" if key in BOUNDS else "")
            )
        values[key] = value
    return cls(**values)


def parse_config(data: Mapping[str, Any]) -> LeagueConfig:
    """A checked configuration from parsed TOML."""
    known = {"seed", "workers", "games", "schedule", "entrants", "rating", "limits", "executor"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(unknown)} (keys: {', '.join(sorted(known))})")
    seed = data.get("seed", 1)
    if not _whole(seed) or not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed: a whole number from 0 to 2**63 - 1, not {seed!r}")
    workers = data.get("workers", 2)
    if not _whole(workers) or not 1 <= workers <= MAX_WORKERS:
        raise ConfigError(f"workers: a whole number from 1 to {MAX_WORKERS}, not {workers!r}")
    games_data = data.get("games")
    if games_data is None:
        games = default_games()
    else:
        if not isinstance(games_data, dict) or not games_data:
            raise ConfigError("games: a table of games, e.g. [games.take5] seats = [4]")
        parsed = []
        for name, table in games_data.items():
            try:
                spec = get_game(name)
            except GameError as exc:
                raise ConfigError(f"games.{name}: {exc}") from None
            if not isinstance(table, dict):
                raise ConfigError(f"games.{name}: a table with seats and options")
            extra = sorted(set(table) - {"seats", "options", "higher_is_better"})
            if extra:
                raise ConfigError(f"games.{name}: unknown key(s) {', '.join(extra)}")
            seats = table.get("seats", [min(max(DEFAULT_SEATS, spec.min_seats), spec.max_seats)])
            if isinstance(seats, int):
                seats = [seats]
            if not isinstance(seats, list) or not seats or not all(_whole(n) for n in seats):
                raise ConfigError(
                    f"games.{name}.seats: a list of table sizes, e.g. [4], not {seats!r}"
                )
            for count in seats:
                try:
                    spec.check_seats(count)
                except GameError as exc:
                    raise ConfigError(f"games.{name}.seats: {exc}") from None
            options = table.get("options", {})
            if not isinstance(options, dict):
                raise ConfigError(f"games.{name}.options: a table of option = value")
            try:
                checked = spec.validate_options(options)
            except GameError as exc:
                raise ConfigError(f"games.{name}.options: {exc}") from None
            higher = table.get("higher_is_better", True)
            if not isinstance(higher, bool):
                raise ConfigError(f"games.{name}.higher_is_better: true or false")
            parsed.append(GameConfig(name, tuple(dict.fromkeys(seats)), checked, higher))
        games = tuple(parsed)
    schedule = _section(_table(data, "schedule"), Schedule, "schedule")
    if schedule.rounds_per_batch < 1 or schedule.chunk < 1:
        raise ConfigError("schedule.rounds_per_batch and schedule.chunk must be at least 1")
    entrants = _section(_table(data, "entrants"), Entrants, "entrants")
    if entrants.resubmit not in ("new", "carry"):
        raise ConfigError(f"entrants.resubmit: new or carry, not {entrants.resubmit!r}")
    rating = _section(_table(data, "rating"), Rating, "rating")
    if rating.sigma <= 0 or rating.beta <= 0 or not 0 <= rating.draw_probability < 1:
        raise ConfigError("rating: sigma and beta must be positive, draw_probability in [0, 1)")
    limits = dict(_table(data, "limits"))
    budget = parse_budget({k: limits.pop(k) for k in BUDGET_KEYS if k in limits})
    time_limits = parse_limits(limits)
    executor_table = dict(_table(data, "executor"))
    kind = executor_table.pop("kind", ExecutorKind.LOCAL.value)
    executor = _section(executor_table, Executor, "executor")
    if not isinstance(kind, str):
        raise ConfigError(f"executor.kind: {kind!r} is not a valid string")
    if kind not in tuple(ExecutorKind) or executor.bots not in ("upload", "shared"):
        raise ConfigError("executor: kind is local or dask; bots is upload or shared")
    executor = replace(executor, kind=ExecutorKind(kind))
    if executor.scheduler and not SCHEDULER.fullmatch(executor.scheduler):
        raise ConfigError(
            f"executor.scheduler: an address such as tcp://host:8786, not {executor.scheduler!r}"
        )
    return LeagueConfig(
        seed, workers, games, schedule, entrants, rating, time_limits, executor, budget
    )


BUDGET_KEYS = ("cpu_seconds_per_match", "memory_mb_per_bot")
"""The ``[limits]`` keys that cap a bot's processes together (see :mod:`arena.runtime.usage`)."""


def parse_budget(limits: Mapping[str, Any]) -> Budget:
    """The budget caps among the ``[limits]`` keys: finite non-negative numbers, 0 for no cap."""
    for key, value in limits.items():
        if not _number(value) or value < 0:
            raise ConfigError(f"limits.{key}: a number of at least 0 (0: no cap), not {value!r}")
    return Budget(**{k: float(v) for k, v in limits.items()})


def parse_limits(limits: Mapping[str, Any]) -> TimeLimits:
    """``[limits]``: seconds, each finite, positive (the bank may be 0) and at most a day."""
    extra = sorted(set(limits) - {"decision", "bank", "startup"})
    if extra:
        raise ConfigError(
            f"limits: unknown key(s) {', '.join(extra)} "
            f"(decision, bank, startup, {', '.join(BUDGET_KEYS)})"
        )
    for key, value in limits.items():
        low = 0.0 if key == "bank" else 0.001
        if not _number(value) or not low <= value <= MAX_SECONDS:
            raise ConfigError(
                f"limits.{key}: a number of seconds from {low:g} to {MAX_SECONDS:g}, not {value!r}"
            )
    return TimeLimits(**{k: float(v) for k, v in limits.items()})


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


def _toml_value(value: JSON) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value)


def config_text(config: LeagueConfig) -> str:
    """``league.toml`` for ``config``, with a comment on every key."""
    s, e, r, t = config.schedule, config.entrants, config.rating, config.limits
    x = config.executor
    lines = [
        "# An arena league. Every key is optional: a missing key takes the default shown here.",
        "",
        "# The league seed: with the same seed, config and deterministic bots the league plays",
        "# the same matches with the same results, whatever the number of workers.",
        f"seed = {config.seed}",
        "# Worker processes playing matches at once (each keeps its own bot processes alive).",
        f"workers = {config.workers}",
        "",
        "# The games, their table sizes (several sizes allowed, e.g. [3, 5]) and options",
        "# (see `arena games`). One-seat tables give a score table instead of ratings;",
        "# higher_is_better says which way it sorts.",
    ]
    for game in config.games:
        lines.append(f"[games.{game.name}]")
        lines.append(f"seats = {_toml_value(list(game.seats))}")
        if min(game.seats) == 1:
            lines.append(f"higher_is_better = {_toml_value(game.higher_is_better)}")
        opts = ", ".join(
            f"{k} = {_toml_value(v)}" for k, v in game.options.items() if v is not None
        )
        lines.append(f"options = {{ {opts} }}" if opts else "options = {}")
    lines += [
        "",
        "[schedule]",
        "# Duplicate sets: each deal is played once per rotation of the seats, and the",
        "# rotations are rated together as one result, which takes most of the luck out.",
        f"duplicate = {_toml_value(s.duplicate)}",
        "# Fresh bot processes for every match, so that no bot can remember a deal from one",
        "# rotation to the next (costs a process start per seat per match).",
        f"fresh_processes = {_toml_value(s.fresh_processes)}",
        "# A batch holds this many rounds per game and table size; a round seats every",
        "# entrant once. Batch k is planned from the results of batches up to k - 2.",
        f"rounds_per_batch = {s.rounds_per_batch}",
        "# ... and more rounds until a batch holds at least this many matches.",
        f"min_batch_matches = {s.min_batch_matches}",
        "# Adaptive batches (after the warm-up) seat together the entrants most likely to be",
        "# in the wrong order. Off: in our simulations it did not settle the ranking sooner",
        "# than duplicate sets seated uniformly (benchmarks/bench_adaptive.py).",
        f"warmup_batches = {s.warmup_batches}",
        f"adaptive = {_toml_value(s.adaptive)}",
        "# Stopping rules: the match budget, and optionally every sigma below a bound",
        "# or the top N places of every game separated (0 turns a rule off).",
        f"max_matches = {s.max_matches}",
        f"stop_sigma = {s.stop_sigma}",
        f"stop_separated = {s.stop_separated}",
        "# Matches sent to a worker at once.",
        f"chunk = {s.chunk}",
        "",
        "[entrants]",
        '# A resubmitted bot (new content) starts a "new" rating or "carry"-es the old one.',
        f"resubmit = {_toml_value(e.resubmit)}",
        "# Suspend a bot once this share of its matches had a fault of its own, after it",
        "# has played at least suspend_min_matches (a rate of 1.0 or more never suspends).",
        f"suspend_min_matches = {e.suspend_min_matches}",
        f"suspend_fault_rate = {e.suspend_fault_rate}",
        "",
        "[rating]",
        "# The TrueSkill environment (one per game).",
        f"mu = {r.mu}",
        f"sigma = {r.sigma}",
        f"beta = {r.beta}",
        f"tau = {r.tau}",
        f"draw_probability = {r.draw_probability}",
        "",
        "[limits]",
        "# Seconds: free time per decision, a time bank per match, and start-up time.",
        f"decision = {t.decision}",
        f"bank = {t.bank}",
        f"startup = {t.startup}",
        "# Caps on all of a bot's processes and threads together (0: no cap): CPU seconds",
        "# in one match, and resident memory in MiB at any moment (sampled every 50 ms).",
        "# A bot past a cap is killed and gets a `resources` fault.",
        f"cpu_seconds_per_match = {config.budget.cpu_seconds_per_match}",
        f"memory_mb_per_bot = {config.budget.memory_mb_per_bot}",
        "",
        "[executor]",
        '# "local" (worker processes here) or "dask" (the workers of a Dask cluster:',
        "# pip install 'arena[dask]'; arena league run L --executor dask --scheduler ADDR).",
        f"kind = {_toml_value(x.kind)}",
        '# The Dask scheduler, e.g. "tcp://host:8786" ("": a local Dask cluster).',
        f"scheduler = {_toml_value(x.scheduler)}",
        '# "upload": bots travel to the workers by content hash and are cached there;',
        '# "shared": the workers read them from shared_folder (this league folder as they',
        '# see it; "": the same path as here).',
        f"bots = {_toml_value(x.bots)}",
        f"shared_folder = {_toml_value(x.shared_folder)}",
        "# Matches per Dask task (0: schedule.chunk).",
        f"chunk = {x.chunk}",
        "",
    ]
    return "\n".join(lines)
