"""Helpers every game shares: dealing (draw) and copying a position (clone)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import GAMES, get_game
from arena.games.base import draw
from arena.players import RandomPlayer


@given(
    seed=st.integers(0, 2**64),
    n=st.integers(1, 130),
    data=st.data(),
)
@settings(max_examples=300, deadline=None)
def test_draw_deals_what_random_sample_deals(seed: int, n: int, data: st.DataObject) -> None:
    """Stored replays were dealt with rng.sample; draw must give the same cards, in order."""
    k = data.draw(st.integers(0, n))
    deck = list(range(1, n + 1))
    ours, theirs = random.Random(seed), random.Random(seed)
    assert draw(ours, deck, k) == theirs.sample(deck, k)
    assert ours.getstate() == theirs.getstate()  # and leaves the generator where sample does
    assert deck == list(range(1, n + 1))


def test_draw_refuses_more_cards_than_the_deck_holds() -> None:
    with pytest.raises(ValueError, match="cannot draw 5 cards from 4"):
        draw(random.Random(0), [1, 2, 3, 4], 5)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_clone_is_an_equal_and_independent_position(name: str) -> None:
    spec = get_game(name)
    seats = max(spec.min_seats, 3)
    state = spec.new(17, seats)
    player = RandomPlayer(4)
    for _ in range(60):  # into the game, past a few decisions
        seat = state.to_move()[0]
        state.apply(seat, player.choose(state, seat, state.legal(seat)))
    copy = state.clone()
    assert type(copy) is type(state)
    assert copy.snapshot() == state.snapshot()
    assert copy.log == state.log
    assert [copy.observation(s) for s in range(seats)] == [
        state.observation(s) for s in range(seats)
    ]
    before = state.snapshot()
    # play the copy on (with its own generator state) to the end: the original must not move
    other = RandomPlayer(9)
    while not copy.is_over():
        seat = copy.to_move()[0]
        copy.apply(seat, other.choose(copy, seat, copy.legal(seat)))
    assert state.snapshot() == before
    assert len(state.log) < len(copy.log)
    # and the same actions from the original and from a fresh copy lead to the same position
    twin = state.clone()
    for _ in range(20):
        if state.is_over():
            break
        seat = state.to_move()[0]
        action = state.legal(seat)[-1]
        state.apply(seat, action)
        twin.apply(seat, action)
    assert twin.snapshot() == state.snapshot()
    assert twin.rng.getstate() == state.rng.getstate()
