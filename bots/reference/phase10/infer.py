"""What the other seats' last turns tell of their hands, read by the heuristic's own rules.

The bundled heuristic plays by fixed rules (:mod:`.model` ports them): it lays its phase down as
soon as its hand can, takes the discard pile's top only when that brings its phase closer (a Wild
always), and discards the card whose loss costs its progress least, a Skip before anything. So a
seat that is not down, seen to decline a top, to take one, or to discard a card, showed something
of its hand: a dealt hand in which the same rules would have done otherwise is not the hand it
holds. The search deals the hidden cards of each world again and again until every other seat's
hand agrees with its last turn (up to ``TRIES`` deals a seat), so its worlds lean to the hands the
seats can hold. Measured against knowing the other hands outright (the upper bound of this,
benchmarks/experiments/phase10_oracle.py), see benchmarks/REPORT-reference-phase10.md.

Only a seat's last turn in the current hand is read, and only while it was not down (down, its
discard follows public cards): the hand it held then is the hand it holds now with its discard
back (and, before its draw, without the card it drew). A card drawn from the pile is not seen;
the check takes one of the hand's unseen cards, or the card discarded, as that card, at random.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .fast import can_lay
from .model import in_order, keep_value, raises_progress
from .rules.phase10_groups import SKIP, WILD

TRIES = 60
"""Deals of one seat's hidden cards tried before the last one is kept, consistent or not."""


@dataclass
class Turn:
    """A seat's last turn in this hand, as the others saw it."""

    offered: str | None = None
    """The discard pile's top when it drew (None: none it could take)."""
    took: str | None = None
    """The top it took, or None if it drew from the pile."""
    discarded: str | None = None
    """What it discarded (None: it went out without a discard, or has not discarded yet)."""
    down: bool = False
    """Whether it was down when it discarded (laid down before or in that turn)."""


def last_turns(events: Sequence[dict[str, Any]]) -> dict[int, Turn]:
    """Each seat's last complete turn of the current hand (from its last ``hand`` event on)."""
    start = max((i for i, e in enumerate(events) if e.get("type") == "hand"), default=None)
    if start is None:
        return {}
    pile: list[str] = [events[start]["upcard"]]
    down: set[int] = set()
    turns: dict[int, Turn] = {}
    current: dict[int, Turn] = {}
    for event in events[start + 1 :]:
        kind = event.get("type")
        seat = event.get("seat")
        if kind == "draw" or kind == "take":
            top = pile[-1] if pile else None
            offered = top if top is not None and top != SKIP else None
            current[seat] = Turn(offered=offered)
            if kind == "take":
                current[seat].took = pile.pop()
        elif kind == "lay":
            down.add(seat)
        elif kind == "discard":
            turn = current.pop(seat, Turn())
            turn.discarded = event["card"]
            turn.down = seat in down
            turns[seat] = turn
            pile.append(event["card"])
        elif kind == "reshuffle":
            pile = pile[-1:]
        elif kind == "out":
            current.pop(seat, None)
    return turns


def agrees(phase: int, hand: list[str], unseen: list[str], turn: Turn, rng: random.Random) -> bool:
    """Whether a seat playing the heuristic's rules for ``phase``, not down, holding ``hand`` now
    (``unseen``: its cards the searching seat has not seen), would have played ``turn``."""
    if turn.down or turn.discarded is None:
        return True
    discarded = turn.discarded
    before_discard = [*hand, discarded]
    held = in_order(before_discard)
    if discarded != SKIP and (SKIP in held or not kept_least(phase, held, discarded)):
        return False  # a Skip goes first; else the card it keeps least
    if not drew_as_shown(phase, before_discard, unseen, turn, rng):
        return False
    return not can_lay(phase, before_discard)  # it lays down as soon as it can


def kept_least(phase: int, held: tuple[str, ...], card: str) -> bool:
    """Whether ``card`` is the heuristic's discard from ``held`` (``model.least_kept``: the least
    value, the first in order on a tie), found without valuing every card when it is not."""
    least = keep_value(phase, held, card)
    before = True
    for other in dict.fromkeys(held):
        if other == card:
            before = False
            continue
        value = keep_value(phase, held, other)
        if value < least or (before and value == least):
            return False
    return True


def drew_as_shown(
    phase: int, before_discard: list[str], unseen: list[str], turn: Turn, rng: random.Random
) -> bool:
    """Whether the heuristic, holding ``before_discard`` once it had drawn, would have drawn as
    ``turn`` shows: taken the top it took, or declined the one it was offered."""
    offered = turn.offered
    if offered is None:
        return True
    if turn.took is not None:
        if turn.took == WILD or turn.took not in before_discard:
            return True
        before_draw = list(before_discard)
        before_draw.remove(turn.took)
        return raises_progress(phase, in_order(before_draw), turn.took)
    if offered == WILD:
        return False  # it takes a Wild whenever it can
    assert turn.discarded is not None
    drawn = rng.choice([*unseen, turn.discarded])  # not seen: a card it holds, or discarded
    before_draw = list(before_discard)
    before_draw.remove(drawn)
    return not raises_progress(phase, in_order(before_draw), offered)
