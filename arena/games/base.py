"""The interface every game implements.

A game is a :class:`GameSpec` (metadata, options, a factory) and a :class:`State` subclass (one
position, mutated by :meth:`State.apply`). Everything that crosses the interface -- options,
observations, actions, events, results, snapshots -- is plain JSON data (dicts, lists, str, int,
float, bool, None), so the wire protocol, the league, the store and the replay viewer never need
to know which game they are handling.

Decisions may be simultaneous: :meth:`State.to_move` lists every seat that must decide now, and
each of them is asked independently. Applying one seat's choice reveals nothing to the others
(their observations do not change until the decision resolves).
"""

from __future__ import annotations

import copy
import math
import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from mypy_extensions import mypyc_attr

JSON = Any
"""A plain JSON value: dict, list, str, int, float, bool or None."""

Action = JSON
Event = dict[str, JSON]

PUBLIC: None = None
"""The audience of an event every seat sees."""


class GameError(Exception):
    """Base class of the errors the rules raise."""


class OptionError(GameError, ValueError):
    """An option is unknown or has a value the game does not accept."""


class SeatCountError(GameError, ValueError):
    """The game cannot be played with this number of seats."""


class IllegalActionError(GameError, ValueError):
    """An action is not in the seat's legal list right now.

    The message names the action, the seat and the position (the game's own short description).
    """

    def __init__(self, game: str, seat: object, action: JSON, position: str, reason: str) -> None:
        self.game = game
        self.seat = seat
        self.action = action
        self.position = position
        self.reason = reason
        super().__init__(
            f"illegal action {action!r} for seat {seat} in {game}: {reason} (position: {position})"
        )


class GameOverError(GameError):
    """The game is over (or not yet over, for :meth:`State.result`)."""


class SnapshotError(GameError, ValueError):
    """A snapshot the game cannot restore: not JSON of the right shape, a key missing or
    unknown, cards not conserved, or a position the rules can never be in."""


# -- reading snapshots ------------------------------------------------------------------------

COMMON_KEYS: tuple[str, ...] = ("seed", "seats", "options", "rng")
"""The keys every snapshot has (see :meth:`State.snapshot_head`); each game adds its own."""
RNG_WORDS = 625
"""The length of a Mersenne Twister state as ``random.Random.getstate`` gives it: 624 words and
the position in them."""


def shown(value: JSON) -> str:
    """A value for an error message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def snapshot_fields(game: str, data: JSON, keys: Sequence[str]) -> dict[str, JSON]:
    """``data`` checked to be an object with exactly ``keys`` (plus :data:`COMMON_KEYS`)."""
    if not isinstance(data, dict):
        raise SnapshotError(f"a {game} snapshot is a JSON object, not {type(data).__name__}")
    expected = [*COMMON_KEYS, *keys]
    missing = [k for k in expected if k not in data]
    unknown = sorted(shown(k) for k in data if k not in expected)
    if missing:
        raise SnapshotError(f"{game} snapshot: missing {', '.join(map(repr, missing))}")
    if unknown:
        raise SnapshotError(f"{game} snapshot: unknown key(s) {', '.join(unknown)}")
    return data


def snap_int(value: JSON, where: str, lo: int = 0, hi: int | None = None) -> int:
    """``value`` checked to be a whole number (not a bool) in ``lo..hi``."""
    if type(value) is not int or value < lo or (hi is not None and value > hi):
        bound = f"{lo}..{hi}" if hi is not None else f"at least {lo}"
        raise SnapshotError(f"snapshot: {where} must be a whole number {bound}, not {shown(value)}")
    return value


def snap_optional_int(value: JSON, where: str, lo: int = 0, hi: int | None = None) -> int | None:
    return None if value is None else snap_int(value, where, lo, hi)


def snap_bool(value: JSON, where: str) -> bool:
    if type(value) is not bool:
        raise SnapshotError(f"snapshot: {where} must be true or false, not {shown(value)}")
    return value


def snap_choice(value: JSON, where: str, choices: Collection[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise SnapshotError(
            f"snapshot: {where} must be one of {', '.join(sorted(choices))}; not {shown(value)}"
        )
    return value


def snap_list(value: JSON, where: str, length: int | None = None) -> list[JSON]:
    """``value`` checked to be a list (of ``length`` items, if given)."""
    if not isinstance(value, list):
        raise SnapshotError(f"snapshot: {where} must be a list, not {shown(value)}")
    if length is not None and len(value) != length:
        raise SnapshotError(f"snapshot: {where} must hold {length} items, not {len(value)}")
    return value


def snap_ints(
    value: JSON, where: str, lo: int = 0, hi: int | None = None, length: int | None = None
) -> list[int]:
    items = snap_list(value, where, length)
    return [snap_int(v, f"{where}[{i}]", lo, hi) for i, v in enumerate(items)]


def snap_cards(
    value: JSON, where: str, cards: Collection[str], length: int | None = None
) -> list[str]:
    """A list of card codes, each one of ``cards``."""
    items = snap_list(value, where, length)
    for i, card in enumerate(items):
        if not isinstance(card, str) or card not in cards:
            raise SnapshotError(f"snapshot: {where}[{i}] is no card of the game: {shown(card)}")
    return list(items)


def snap_rng(value: JSON) -> tuple[Any, ...]:
    """A ``random.Random`` state from its JSON form ``[version, [625 words], gauss]``."""
    where = "rng"
    items = snap_list(value, where, 3)
    version = snap_int(items[0], "rng[0] (the version)", 3, 3)
    words = snap_ints(items[1], "rng[1]", 0, 2**32 - 1, RNG_WORDS)
    snap_int(words[-1], "rng[1]'s last word (the position)", 0, RNG_WORDS - 1)
    gauss = items[2]
    if gauss is not None and type(gauss) is not float:
        raise SnapshotError(f"snapshot: rng[2] must be a number or null, not {shown(gauss)}")
    return (version, tuple(words), gauss)


def generator_state(rng: random.Random) -> list[JSON]:
    """``rng``'s state in JSON, as snapshots hold it: ``[version, [625 words], gauss]``."""
    version, words, gauss = rng.getstate()
    return [version, list(words), gauss]


def check_conserved(game: str, found: Sequence[Any], deck: Sequence[Any]) -> None:
    """Every card of ``deck`` is somewhere in ``found``, once (as often as the deck holds it)."""
    have, want = Counter(found), Counter(deck)
    if have == want:
        return
    extra = sorted(map(str, (have - want).elements()))
    lost = sorted(map(str, (want - have).elements()))
    parts = []
    if extra:
        parts.append(f"not in the deck or too often: {' '.join(extra[:10])}")
    if lost:
        parts.append(f"missing: {' '.join(lost[:10])}")
    raise SnapshotError(f"{game} snapshot: cards not conserved ({'; '.join(parts)})")


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game: its name, type, default and accepted values."""

    name: str
    kind: type  # bool, int or str
    default: JSON
    help: str
    choices: tuple[str, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False
    """Whether ``None`` (written ``none`` on the command line) is accepted, e.g. "no cap"."""

    def validate(self, value: object) -> JSON:
        """Return ``value`` checked (and converted from a command-line string where needed).

        ``value`` is outside input (a league file, the command line): any object is refused with
        an :class:`OptionError`, in the compiled build as in the pure one.
        """
        if isinstance(value, str) and self.kind is not str:
            value = self._parse(value)
        if value is None:
            if self.nullable:
                return None
            raise OptionError(f"option {self.name!r} may not be empty")
        if self.kind is bool:
            if not isinstance(value, bool):
                raise OptionError(f"option {self.name!r} must be true or false, not {value!r}")
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(f"option {self.name!r} must be a whole number, not {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise OptionError(
                    f"option {self.name!r} must be at least {self.minimum}, not {value}"
                )
            if self.maximum is not None and value > self.maximum:
                raise OptionError(
                    f"option {self.name!r} must be at most {self.maximum}, not {value}"
                )
            return value
        if not isinstance(value, str):
            raise OptionError(f"option {self.name!r} must be a string, not {value!r}")
        if self.choices is not None and value not in self.choices:
            raise OptionError(
                f"option {self.name!r} must be one of {', '.join(self.choices)}; not {value!r}"
            )
        return value

    def _parse(self, text: str) -> JSON:
        low = text.strip().lower()
        if self.nullable and low in ("none", "null", ""):
            return None
        if self.kind is bool:
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
            raise OptionError(f"option {self.name!r} must be true or false, not {text!r}")
        try:
            return int(low)
        except ValueError:
            raise OptionError(
                f"option {self.name!r} must be a whole number, not {text!r}"
            ) from None

    def describe(self) -> str:
        """A one-line summary for ``arena games``."""
        if self.choices:
            accepted = "|".join(self.choices)
        elif self.kind is bool:
            accepted = "true|false"
        elif self.kind is int:
            lo = "" if self.minimum is None else str(self.minimum)
            hi = "" if self.maximum is None else str(self.maximum)
            accepted = f"int {lo}..{hi}" if (lo or hi) else "int"
        else:
            accepted = "text"
        if self.nullable:
            accepted += "|none"
        default = "none" if self.default is None else str(self.default).lower()
        return f"{self.name} ({accepted}, default {default}): {self.help}"


@dataclass(frozen=True)
class Result:
    """How a finished game ended: a score per seat and a full ranking.

    ``ranks[s]`` is seat ``s``'s place, 1 being best; tied seats share a place and the next place
    is skipped ("1, 2, 2, 4"). ``details`` holds game-specific facts (rounds played, a cap that
    fired, tie-breaks used).
    """

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    details: Mapping[str, JSON] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return {
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "details": dict(self.details),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Result:
        return cls(tuple(data["scores"]), tuple(data["ranks"]), dict(data.get("details", {})))


def competition_ranks(keys: Sequence[Any]) -> tuple[int, ...]:
    """Places from sort keys where a smaller key is better; equal keys share a place."""
    return tuple(1 + sum(1 for other in keys if other < key) for key in keys)


def draw(rng: random.Random, deck: list[int], k: int) -> list[int]:
    """``k`` distinct cards of ``deck`` in the order drawn: the same list as ``rng.sample(deck, k)``.

    Written out (random.sample's pool method, fed by ``getrandbits`` like CPython's ``_randbelow``)
    so that compiled rules deal natively; tests/games/test_base.py checks it against
    ``rng.sample``. Where random.sample would switch to its set method, so does this.
    """
    n = len(deck)
    if not 0 <= k <= n:
        raise ValueError(f"cannot draw {k} cards from {n}")
    setsize = 21
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    if n > setsize:
        return rng.sample(deck, k)
    getrandbits = rng.getrandbits
    pool = list(deck)
    drawn: list[int] = []
    bits = n.bit_length()
    for i in range(k):
        left = n - i
        if left < 1 << (bits - 1):  # bits stays left.bit_length() as left counts down
            bits -= 1
        j: int = getrandbits(bits)
        while j >= left:
            j = getrandbits(bits)
        drawn.append(pool[j])
        pool[j] = pool[left - 1]
    return drawn


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled; a game may still be plain Python
class State(ABC):
    """One position of a game, owned and mutated by whoever drives the game.

    Subclasses hold all their randomness in ``self.rng`` (seeded from ``seed``), never a global.
    """

    game: ClassVar[str]
    """The registry name of the game (``take5``, ``ten``, ``phase10``)."""

    def __init__(self, seed: int, seats: int, options: Mapping[str, JSON]) -> None:
        self.seed = seed
        self.seats = seats
        self.options: dict[str, JSON] = dict(options)
        self.rng = random.Random(seed)
        self._events: list[tuple[int | None, Event]] = []
        self._records: list[tuple[Any, ...]] = []
        """Events logged by :meth:`record` and not yet turned into dicts (see :attr:`log`)."""

    # -- what the driver asks -------------------------------------------------------------

    @abstractmethod
    def to_move(self) -> list[int]:
        """The seats that must decide now (several for a simultaneous decision; none when over)."""

    @abstractmethod
    def legal(self, seat: int) -> list[Action]:
        """The complete, deduplicated list of ``seat``'s legal actions now (empty if not deciding)."""

    @abstractmethod
    def observation(self, seat: int) -> dict[str, JSON]:
        """What ``seat`` may know now, and nothing more."""

    @abstractmethod
    def apply(self, seat: object, action: Action) -> None:
        """Apply ``seat``'s action; raise :class:`IllegalActionError` if it is not legal.

        Both may come from outside (a replay, a bot), so both are checked, whatever their type:
        a seat that is no ``int`` is "no such seat" (``seat: object``, so that the compiled build
        refuses it with the same error as the pure one, not with a TypeError).
        """

    @abstractmethod
    def is_over(self) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def result(self) -> Result:
        """The result of a finished game; raises :class:`GameOverError` before the end."""

    @abstractmethod
    def snapshot(self) -> dict[str, JSON]:
        """The whole position, hidden parts included, as JSON (for viewers, debugging, and
        :meth:`GameSpec.from_snapshot`, which restores it): :meth:`snapshot_head` and the game's
        own fields."""

    def snapshot_head(self) -> dict[str, JSON]:
        """What every snapshot holds: seed, seats, options (all filled in) and the state of the
        random generator as ``[version, [625 words], gauss]``, so a restored position deals
        what this one would."""
        return {
            "seed": self.seed,
            "seats": self.seats,
            "options": dict(self.options),
            "rng": generator_state(self.rng),
        }

    def restore(self, snapshot: dict[str, JSON]) -> None:
        """Set this state's own fields from ``snapshot`` (a game's :meth:`snapshot`), each
        checked; raise :class:`SnapshotError` for anything the game cannot be in.

        Called by :meth:`GameSpec.from_snapshot` on a new state of the snapshot's seats and
        options, which then sets the generator; a game that cannot restore positions keeps this.
        """
        raise SnapshotError(f"{self.game} cannot restore positions from snapshots")

    @abstractmethod
    def resample_hidden(self, seat: int, rng: random.Random) -> State:
        """A copy in which everything ``seat`` cannot see is dealt again at random.

        ``seat``'s observation of the copy equals its observation of this state; the copy is a
        legal position of the game. Used by the leak tests and by bots that sample worlds.
        """

    @abstractmethod
    def position(self) -> str:
        """A short description of the position for error messages."""

    @staticmethod
    @abstractmethod
    def describe(event: Event) -> str:
        """One readable line for an event (used by the CLI account and the replay viewer)."""

    # -- events ---------------------------------------------------------------------------

    event_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """For :meth:`record`: each event type's fields after ``type``, in order."""

    @property
    def log(self) -> list[tuple[int | None, Event]]:
        """Every event in order, with its audience: ``None`` for all seats, or one seat."""
        if self._records:
            self._write_records()
        return self._events

    @log.setter
    def log(self, events: list[tuple[int | None, Event]]) -> None:
        self._records = []
        self._events = events

    def emit(self, event: Event, audience: int | None = PUBLIC) -> None:
        if self._records:
            self._write_records()
        self._events.append((audience, event))

    def record(self, *fields: Any) -> None:
        """Log an event compactly, as ``(audience, type, value, ...)`` with the values in the
        order of ``event_fields[type]``: the same event as :meth:`emit` of its dict, but the
        dict is built only when somebody reads :attr:`log` (a game's hot paths use this, so
        that games played without reading the log, such as simulations, build none)."""
        self._records.append(fields)

    def _write_records(self) -> None:
        fields = self.event_fields
        events = self._events
        for audience, kind, *values in self._records:
            event: Event = {"type": kind}
            for name, value in zip(fields[kind], values, strict=True):
                event[name] = value
            events.append((audience, event))
        self._records = []

    def events_for(self, seat: int | None, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events ``seat`` saw in ``log[start:stop]``; ``seat=None`` gives the public ones only."""
        return [e for (aud, e) in self.log[start:stop] if aud is None or aud == seat]

    def public_events(self, start: int = 0) -> list[Event]:
        return self.events_for(None, start)

    # -- helpers for subclasses -----------------------------------------------------------

    def illegal(self, seat: object, action: JSON, reason: str) -> IllegalActionError:
        return IllegalActionError(self.game, seat, action, self.position(), reason)

    def clone(self) -> Self:
        """A copy sharing nothing mutable with this state (the log's events are never mutated,
        so the copy's log is a new list of the same events).

        Made by the constructor, then given every field of this one: compiled classes list
        their fields in ``__mypyc_attrs__``, pure ones keep them in ``__dict__``.
        """
        other = type(self)(self.seed, self.seats, self.options)
        names = [n for n in getattr(type(self), "__mypyc_attrs__", ()) if n != "__dict__"]
        names += getattr(self, "__dict__", {})
        for name in names:
            if name in ("_events", "_records"):
                setattr(other, name, list(getattr(self, name)))
            elif name == "rng":
                other.rng.setstate(self.rng.getstate())
            elif hasattr(self, name):  # a compiled field may never have been set
                setattr(other, name, copy.deepcopy(getattr(self, name)))
        return other


@dataclass(frozen=True)
class GameSpec:
    """A game in the registry: its metadata, options and a factory for new states."""

    name: str
    title: str
    min_seats: int
    max_seats: int
    options: tuple[OptionSpec, ...]
    state_class: type[State]
    summary: str
    rules_file: str
    """The rules as implemented, relative to the repository's ``seeds/`` folder."""

    def option(self, name: object) -> OptionSpec:
        """The option called ``name``; raises :class:`OptionError` naming the known options."""
        for spec in self.options:
            if spec.name == name:
                return spec
        known = ", ".join(o.name for o in self.options) or "none"
        raise OptionError(f"{self.name} has no option {name!r} (options: {known})")

    def validate_options(self, options: object = None) -> dict[str, JSON]:
        """All options with defaults filled in, each checked; raises :class:`OptionError`.

        ``options`` is outside input: anything but a mapping (or None) is an :class:`OptionError`.
        """
        if options is not None and not isinstance(options, Mapping):
            raise OptionError(
                f"{self.name} options are a table of option names and values, not {options!r}"
            )
        given = dict(options or {})
        for name in given:
            self.option(name)
        return {
            o.name: o.validate(given[o.name]) if o.name in given else o.default
            for o in self.options
        }

    def check_seats(self, seats: object) -> int:
        """``seats`` if the game is played by that many; raises :class:`SeatCountError`."""
        if (
            isinstance(seats, bool)
            or not isinstance(seats, int)
            or not (self.min_seats <= seats <= self.max_seats)
        ):
            raise SeatCountError(
                f"{self.name} is played by {self.min_seats} to {self.max_seats} seats, not {seats!r}"
            )
        return seats

    def from_snapshot(self, snapshot: object) -> State:
        """The position ``snapshot`` (from :meth:`State.snapshot`) describes, ready to play on:
        its snapshot equals ``snapshot`` and it plays on as the original would, dealing the same
        cards (the generator is restored). Its log starts empty. Anything the game cannot be in
        raises :class:`SnapshotError` (or :class:`OptionError` for bad options)."""
        if not isinstance(snapshot, dict):
            raise SnapshotError(
                f"a {self.name} snapshot is a JSON object, not {type(snapshot).__name__}"
            )
        for key in COMMON_KEYS:
            if key not in snapshot:
                raise SnapshotError(f"{self.name} snapshot: missing {key!r}")
        seats = snap_int(snapshot["seats"], "seats", self.min_seats, self.max_seats)
        seed = snap_int(snapshot["seed"], "seed")
        options = snapshot["options"]
        if not isinstance(options, dict):
            raise SnapshotError(f"snapshot: options must be an object, not {shown(options)}")
        rng = snap_rng(snapshot["rng"])
        state = self.state_class(seed, seats, self.validate_options(options))
        state.restore(dict(snapshot))
        state.rng.setstate(rng)
        state.log = []
        movers = state.to_move()
        if not state.is_over() and not movers:
            raise SnapshotError(
                f"{self.name} snapshot: nobody is to move, yet the game is not over"
            )
        for seat in movers:
            if not state.legal(seat):
                raise SnapshotError(
                    f"{self.name} snapshot: seat {seat} is to move with no legal action"
                )
        return state

    def new(self, seed: object, seats: object, options: object = None) -> State:
        """A new game: seeded, with ``seats`` seats and the given options (defaults filled in).

        Each argument may be outside input (a replay, a league file), so each is checked here and
        refused with a :class:`GameError`, never a TypeError of the compiled build.
        """
        count = self.check_seats(seats)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise GameError(f"a seed is a non-negative whole number, not {seed!r}")
        return self.state_class(seed, count, self.validate_options(options))
