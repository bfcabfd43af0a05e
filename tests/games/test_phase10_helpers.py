"""Building Phase 10 positions by hand for the rule tests."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

from arena.games import JSON
from arena.games.phase10 import SPEC, Phase10State, Step
from arena.games.phase10_groups import Group, Kind, full_deck, sort_cards

GroupSpec = tuple[int, str, int, Sequence[str]]
"""(owner, kind, key, cards) of a group on the table; a run's key is its lowest number."""


def build(
    seats: int = 2,
    hands: Mapping[int, Sequence[str]] | None = None,
    *,
    options: Mapping[str, JSON] | None = None,
    discard: Sequence[str] = ("B11",),
    table: Sequence[GroupSpec] = (),
    turn: int = 0,
    step: str = "play",
    laid: Mapping[int, int] | None = None,
    done: Mapping[int, Sequence[int]] | None = None,
    totals: Sequence[int] | None = None,
    seed: int = 0,
) -> Phase10State:
    """A state with the given hands, discard pile and table; the draw pile holds the rest, so
    all 108 cards are still accounted for. Seats without a given hand get five cards."""
    state = SPEC.new(seed, seats, options)
    assert isinstance(state, Phase10State)
    given = dict(hands or {})
    used = Counter(c for h in given.values() for c in h)
    used.update(discard)
    used.update(c for _, _, _, cards in table for c in cards)
    rest = Counter(full_deck())
    rest.subtract(used)
    assert all(v >= 0 for v in rest.values()), f"more cards than the deck holds: {used - rest}"
    pile = sorted(rest.elements())
    random.Random(seed).shuffle(pile)
    for seat in range(seats):
        if seat not in given:
            given[seat] = [pile.pop() for _ in range(5)]
    state.hands = [sort_cards(given[s]) for s in range(seats)]
    state.draw_pile = pile
    state.discard_pile = list(discard)
    state.table = [Group(o, Kind(k), key, list(cards)) for o, k, key, cards in table]
    state.turn = turn
    state.step = Step(step)
    state.laid = [None] * seats
    for seat, phase in (laid or {}).items():
        state.laid[seat] = phase
    for seat, phases in (done or {}).items():
        state.done[seat] = list(phases)
    if totals is not None:
        state.totals = list(totals)
    state.skip_waiting = [False] * seats
    state.laying = None
    state.turns = 1
    state._legal = None
    return state


def lay(
    state: Phase10State, seat: int, phase: int, groups: Sequence[tuple[JSON, Sequence[str]]]
) -> None:
    """Lay down ``phase`` step by step: each group is (opening action, cards in order)."""
    state.apply(seat, {"lay": phase})
    for opening, cards in groups:
        state.apply(seat, opening)
        for card in cards:
            state.apply(seat, {"add": card})
        state.apply(seat, "end")


def card_count(state: Phase10State) -> Counter[str]:
    """Every card the state holds: hands, piles, table and a lay-down in progress."""
    cards: Counter[str] = Counter()
    for hand in state.hands:
        cards.update(hand)
    cards.update(state.draw_pile)
    cards.update(state.discard_pile)
    for group in state.table:
        cards.update(group.cards)
    if state.laying is not None:
        cards.update(state.laying.cards())
    return cards
