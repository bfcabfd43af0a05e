"""Phase 10's cards, phases and groups, and the search that says whether a phase can be laid.

Pure functions only. Cards are short strings: ``"R7"`` (colour letter R/B/G/Y for red, blue,
green, yellow, then the number 1..12), ``"W"`` for a Wild and ``"S"`` for a Skip.

The feasibility search works on a *pool*: the hand projected onto what matters for the phase's
groups. For sets and runs a pool is ``(wilds, count of 1, ..., count of 12)``; for colour groups
it is ``(wilds, red, blue, green, yellow)``. No phase mixes colour groups with sets or runs, so
one projection always suffices (checked when the module loads).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from itertools import combinations
from typing import Final

COLOURS: Final = ("R", "B", "G", "Y")
COLOUR_NAMES: Final = {"R": "red", "B": "blue", "G": "green", "Y": "yellow"}
WILD: Final = "W"
SKIP: Final = "S"
TOP: Final = 12
"""The highest number; runs go 1..12 with no wrap."""
HAND_SIZE: Final = 10
DECK_SIZE: Final = 108


def full_deck() -> list[str]:
    """The 108 cards: two of each number in each colour, 8 Wilds, 4 Skips."""
    naturals = [f"{c}{n}" for c in COLOURS for n in range(1, TOP + 1) for _ in range(2)]
    return naturals + [WILD] * 8 + [SKIP] * 4


def _number(card: str) -> int:
    return int(card[1:]) if len(card) > 1 else 0


def _order(card: str) -> tuple[int, int]:
    if card == WILD:
        return (4, 0)
    if card == SKIP:
        return (5, 0)
    return (COLOURS.index(card[0]), _number(card))


NUMBERS: Final[dict[str, int]] = {card: _number(card) for card in full_deck()}
ORDER: Final[dict[str, tuple[int, int]]] = {card: _order(card) for card in full_deck()}


def number(card: str) -> int:
    """The number of a natural card (0 for a Wild or a Skip)."""
    return NUMBERS[card]


def colour(card: str) -> str:
    """The colour letter of a natural card ("" for a Wild or a Skip)."""
    return card[0] if len(card) > 1 else ""


def is_natural(card: str) -> bool:
    return len(card) > 1


def points(card: str) -> int:
    """Penalty points of a card left in hand: 1..9 → 5, 10..12 → 10, Skip → 15, Wild → 25."""
    if card == WILD:
        return 25
    if card == SKIP:
        return 15
    return 5 if number(card) <= 9 else 10


def card_order(card: str) -> tuple[int, int]:
    """A sort key: by colour, then number; Wilds, then Skips, last."""
    return ORDER[card]


def sort_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=card_order)


class Kind(StrEnum):
    SET = "set"
    RUN = "run"
    COLOUR = "colour"


@dataclass(frozen=True)
class Need:
    """One group a phase asks for: its kind and its least size."""

    kind: Kind
    size: int


PHASES: Final[dict[int, tuple[Need, ...]]] = {
    1: (Need(Kind.SET, 3), Need(Kind.SET, 3)),
    2: (Need(Kind.SET, 3), Need(Kind.RUN, 4)),
    3: (Need(Kind.SET, 4), Need(Kind.RUN, 4)),
    4: (Need(Kind.RUN, 7),),
    5: (Need(Kind.RUN, 8),),
    6: (Need(Kind.RUN, 9),),
    7: (Need(Kind.SET, 4), Need(Kind.SET, 4)),
    8: (Need(Kind.COLOUR, 7),),
    9: (Need(Kind.SET, 5), Need(Kind.SET, 2)),
    10: (Need(Kind.SET, 5), Need(Kind.SET, 3)),
}


def by_colour(phase: int) -> bool:
    """Whether the phase's groups are colour groups (so pools count colours, not numbers)."""
    return PHASES[phase][0].kind is Kind.COLOUR


for _phase, _needs in PHASES.items():  # one projection per phase, as the module doc says
    assert len({n.kind is Kind.COLOUR for n in _needs}) == 1, _phase


def describe_phase(phase: int) -> str:
    parts = []
    for need in PHASES[phase]:
        word = {Kind.SET: "set", Kind.RUN: "run", Kind.COLOUR: "cards of one colour"}[need.kind]
        parts.append(
            f"{word} of {need.size}" if need.kind is not Kind.COLOUR else f"{need.size} {word}"
        )
    return " + ".join(parts)


# -- groups on the table ------------------------------------------------------------------


@dataclass
class Group:
    """A group laid on the table (or being laid). ``key`` is the set's number, the run's lowest
    number or the colour group's colour index 1..4. A run's cards are in order, lowest first;
    each Wild stands for the value of its place (in a set, the set's number; in a colour group,
    the group's colour)."""

    owner: int
    kind: Kind
    key: int
    cards: list[str]

    @property
    def high(self) -> int:
        """A run's highest number (the next card up would be ``high + 1``)."""
        return self.key + len(self.cards) - 1

    def naturals(self) -> int:
        return sum(1 for c in self.cards if is_natural(c))

    def to_json(self, gid: int | None) -> dict[str, object]:
        """``gid`` is the group's index on the table (None while it is being laid)."""
        data: dict[str, object] = {"owner": self.owner, "kind": str(self.kind)}
        if gid is not None:
            data["id"] = gid
        if self.kind is Kind.SET:
            data["n"] = self.key
        elif self.kind is Kind.RUN:
            data["lo"] = self.key
            data["hi"] = self.high
        else:
            data["c"] = COLOURS[self.key - 1]
        data["cards"] = list(self.cards)
        return data


def fits_group(kind: Kind, key: int, card: str) -> bool:
    """Whether ``card`` may join a set of ``key``, a colour group of colour ``key`` or (for a run)
    be the run's value ``key``."""
    if card == SKIP:
        return False
    if card == WILD:
        return 1 <= key <= TOP if kind is Kind.RUN else True
    if kind is Kind.COLOUR:
        return colour(card) == COLOURS[key - 1]
    return number(card) == key


def hit_ends(group: Group, card: str) -> list[str | None]:
    """Where ``card`` may be added to ``group``: ``[None]`` for a set or colour group, the run
    ends (``"low"``, ``"high"``) it fits, or nothing."""
    if group.kind is not Kind.RUN:
        return [None] if fits_group(group.kind, group.key, card) else []
    ends: list[str | None] = []
    if fits_group(Kind.RUN, group.key - 1, card):
        ends.append("low")
    if fits_group(Kind.RUN, group.high + 1, card):
        ends.append("high")
    return ends


# -- feasibility ----------------------------------------------------------------------------

Pool = tuple[int, ...]


@dataclass(frozen=True)
class Req:
    """What one group still asks for: ``more`` cards (at least), from ``key`` (the set's number,
    the colour's index, or the run's next value; 0 = any), and whether one of the added cards
    must be natural."""

    kind: Kind
    key: int
    more: int
    natural: bool


def pool_of(cards: Iterable[str], colours: bool) -> Pool:
    counts = [0] * (len(COLOURS) + 1 if colours else TOP + 1)
    for card in cards:
        if card == WILD:
            counts[0] += 1
        elif card != SKIP:
            counts[COLOURS.index(colour(card)) + 1 if colours else number(card)] += 1
    return tuple(counts)


def _keys(req: Req, pool: Pool) -> Iterable[int]:
    return (req.key,) if req.key else range(1, len(pool))


def _taken(pool: Pool, wilds: int, used: Iterable[tuple[int, int]]) -> Pool:
    counts = list(pool)
    counts[0] -= wilds
    for index, count in used:
        counts[index] -= count
    return tuple(counts)


def last_fits(req: Req, pool: Pool, keep: int) -> bool:
    """Whether one last group can be completed from ``pool`` leaving ``keep`` cards."""
    total, wilds = sum(pool), pool[0]
    if req.more == 0 and not req.natural:
        return total >= keep
    if req.kind is not Kind.RUN:
        want = max(req.more, 1)
        return total - want >= keep and any(
            pool[k] + wilds >= want and (pool[k] >= 1 or not req.natural) for k in _keys(req, pool)
        )
    for start in _keys(req, pool):
        missing, natural = 0, False
        for value in range(start, TOP + 1):
            if pool[value]:
                natural = True
            else:
                missing += 1
            length = value - start + 1
            if missing > wilds or total - length < keep:
                break
            if length >= req.more and (natural or not req.natural):
                return True
    return False


def completions(req: Req, pool: Pool) -> Iterator[Pool]:
    """The pools left by each least way of completing one group (supersets never help)."""
    wilds = pool[0]
    if req.more == 0 and not req.natural:
        yield pool
        return
    if req.kind is not Kind.RUN:
        want = max(req.more, 1)
        for k in _keys(req, pool):
            for used in range(1 if req.natural else 0, min(want, pool[k]) + 1):
                if want - used <= wilds:
                    yield _taken(pool, want - used, [(k, used)])
        return
    for start in _keys(req, pool):
        for stop in range(start + max(req.more, 1) - 1, TOP + 1):
            places = range(start, stop + 1)
            have = [v for v in places if pool[v]]
            longer = stop > start + req.more - 1
            for size in range(len(have) + 1):
                for chosen in combinations(have, size):
                    if (req.natural and not chosen) or (longer and stop not in chosen):
                        continue  # not a least completion
                    if len(places) - size <= wilds:
                        yield _taken(pool, len(places) - size, [(v, 1) for v in chosen])


@lru_cache(maxsize=1 << 16)
def fits(reqs: tuple[Req, ...], pool: Pool, keep: int) -> bool:
    """Whether every group in ``reqs`` can be completed from ``pool``, leaving ``keep`` cards.

    Memoised: a pure function of hashable values.
    """
    if not reqs:
        return sum(pool) >= keep
    if len(reqs) == 1:
        return last_fits(reqs[0], pool, keep)
    return any(fits(reqs[1:], rest, keep) for rest in set(completions(reqs[0], pool)))


def fits_phase(reqs: tuple[Req, ...], pool: Pool, keep: int, natural_per_phase: bool) -> bool:
    """Like :func:`fits`; with ``natural_per_phase`` the ``natural`` flags of ``reqs`` mean
    "one natural is still needed somewhere", so any one group may carry it."""
    if not natural_per_phase or not any(r.natural for r in reqs):
        return fits(reqs, pool, keep)
    plain = [Req(r.kind, r.key, r.more, False) for r in reqs]
    return any(fits((*plain[:i], reqs[i], *plain[i + 1 :]), pool, keep) for i in range(len(reqs)))
