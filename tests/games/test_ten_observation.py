"""Ten's observation keeps what it worked out between calls (issue 15); it must still say exactly
what it said when it worked everything out each time, whatever happened to the state between."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena import native
from arena.games import ten
from arena.games.ten import TenState

OBSERVATIONS = "c42a2f76865c16a0"
"""The digest of :func:`observation_digest`, taken on main before the caches."""


def worked_out(state: TenState) -> dict[str, Any]:
    """The parts of an observation the caches give, worked out from scratch (as before them)."""
    return {
        "unseen": list(dict(sorted(Counter(state.draw_pile).items())).items()),
        "market": sorted(state.market),
        "discard": sorted(state.discard),
        "collected": [sorted(cards) for cards in state.collected],
        "points": state.points(),
    }


def cached(observation: dict[str, Any]) -> dict[str, Any]:
    parts = {key: observation[key] for key in ("market", "discard", "collected", "points")}
    return {"unseen": list(observation["unseen"].items()), **parts}


def observation_digest() -> str:
    """Every seat's observation at every step of 60 random games of 1 to 5 seats, in JSON."""
    digest = hashlib.sha256()
    for seats in range(1, 6):
        for seed in range(12):
            state = ten.SPEC.new(seed, seats)
            rng = random.Random(seed * 7 + seats)
            while True:
                for seat in range(seats):
                    digest.update(json.dumps(state.observation(seat)).encode())
                if state.is_over():
                    break
                for seat in state.to_move():
                    legal = state.legal(seat)
                    state.apply(seat, legal[int(rng.random() * len(legal))])
    return digest.hexdigest()[:16]


def test_observations_are_byte_for_byte_as_before() -> None:
    assert observation_digest() == OBSERVATIONS


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_the_caches_follow_every_change_to_the_state(seed: int, seats: int, other: int) -> None:
    """Asked now and then (so several cards are drawn between two calls), on copies, on restored
    snapshots, and after the state is changed by hand: always what working it out says."""
    rng = random.Random(other)
    state = ten.SPEC.new(seed, seats)
    assert isinstance(state, TenState)
    while not state.is_over():
        seat = state.to_move()[0]
        if rng.random() < 0.4:
            assert cached(state.observation(seat)) == worked_out(state)
        if rng.random() < 0.05:  # a copy, re-dealt: its own caches
            assert isinstance(redealt := state.resample_hidden(seat, rng), TenState)
            assert cached(redealt.observation(seat)) == worked_out(redealt)
            assert redealt.observation(seat) == state.observation(seat)
        if rng.random() < 0.05:
            restored = ten.SPEC.from_snapshot(state.snapshot())
            assert isinstance(restored, TenState)
            assert restored.observation(seat) == state.observation(seat)
        legal = state.legal(seat)
        state.apply(seat, legal[int(rng.random() * len(legal))])
    assert cached(state.observation(0)) == worked_out(state)


def test_a_pile_changed_other_than_by_drawing_is_counted_again() -> None:
    state = ten.SPEC.new(3, 3)
    assert isinstance(state, TenState)
    state.observation(0)
    state.draw_pile.reverse()
    state.draw_pile[5] = "#"
    state.draw_pile.append("R1")
    state.collected[1].append("B7")
    state.market.append("G2")
    state.discard[:] = ["$1", "$5"]
    assert cached(state.observation(0)) == worked_out(state)
    state.draw_pile.pop(0)
    state.collected[1].remove("B7")
    assert cached(state.observation(2)) == worked_out(state)


def test_a_copy_starts_with_nothing_kept() -> None:
    state = ten.SPEC.new(9, 4)
    assert isinstance(state, TenState)
    state.observation(1)
    # deepcopy works on the pure build's states only (mypyc's compiled classes do not take the
    # copy protocol); clone() is the copy the rules offer in both.
    copies = [state.clone()] + ([] if native.native() else [copy.deepcopy(state)])
    for other in copies:
        assert isinstance(other, TenState)
        other.draw_pile.pop()  # the original's caches are not the copy's
        assert cached(other.observation(1)) == worked_out(other)
        assert cached(state.observation(1)) == worked_out(state)
