"""Property tests over random legal Phase 10 playouts, 2-6 seats, under the options."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import JSON, State
from arena.games.phase10 import SPEC, Phase10State
from arena.games.phase10_groups import full_deck
from tests.games.playouts import canonical, check_interface_data, check_no_leak, random_playout
from tests.games.test_phase10_helpers import card_count

DECK = Counter(full_deck())

OPTION_SETS: list[dict[str, JSON]] = [
    {},
    {"final_discard": True},
    {"skip_next": True, "natural_per_phase": True},
    {"all_advance": True, "first_phases": 2},
    {"phases": "even"},
    {"phases": "odd", "pick_phase": True},
    {"hit_others_same_turn": False, "tiebreak": "lay"},
]

SHORT = {"max_hands": 2, "max_turns": 12}
"""Caps that keep a fully checked playout short."""


def accounted(state: State) -> None:
    assert isinstance(state, Phase10State)
    assert card_count(state) == DECK


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    seats=st.integers(2, 6),
    chooser=st.integers(0, 1000),
    which=st.integers(0, len(OPTION_SETS) - 1),
)
def test_checked_playouts(seed: int, seats: int, chooser: int, which: int) -> None:
    options = {**OPTION_SETS[which], **SHORT}
    leak_rng = random.Random(seed)
    steps = [0]

    def check(state: State) -> None:
        accounted(state)
        check_interface_data(state)
        if steps[0] % 10 == 0:
            check_no_leak(state, leak_rng)
        steps[0] += 1

    state, actions = random_playout(
        SPEC, seed, seats, options, chooser_seed=chooser, each_step=check
    )
    assert state.is_over()
    result = state.result()
    assert sorted(result.ranks)[0] == 1 and len(result.ranks) == seats
    again = SPEC.new(seed, seats, options)
    for seat, action in actions:
        again.apply(seat, action)
    assert canonical(again.snapshot()) == canonical(state.snapshot())
    assert canonical(again.log) == canonical(state.log)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), seats=st.integers(2, 6), which=st.integers(0, 6))
def test_whole_games_end_with_every_card_accounted(seed: int, seats: int, which: int) -> None:
    options = {**OPTION_SETS[which], "first_phases": 3}
    state, _ = random_playout(SPEC, seed, seats, options, each_step=accounted)
    assert isinstance(state, Phase10State)
    details = state.result().details
    assert details["capped"] == "hands" or max(details["phases"]) == len(state.sequence)
    assert all(0 <= p <= len(state.sequence) for p in details["phases"])
    types = {e["type"] for e in state.public_events()}
    assert {"hand", "draw", "discard", "hand_end", "game_end"} <= types


def test_the_same_seed_deals_the_same_game() -> None:
    a, actions_a = random_playout(SPEC, 42, 4, SHORT, chooser_seed=1)
    b, actions_b = random_playout(SPEC, 42, 4, SHORT, chooser_seed=1)
    assert actions_a == actions_b and canonical(a.log) == canonical(b.log)
    c, _ = random_playout(SPEC, 43, 4, SHORT, chooser_seed=1)
    assert canonical(c.log) != canonical(a.log)


def test_resample_keeps_sizes_and_changes_hidden_cards() -> None:
    state = SPEC.new(7, 4)
    assert isinstance(state, Phase10State)
    other = state.resample_hidden(0, random.Random(1))
    assert isinstance(other, Phase10State)
    assert other.hands[0] == state.hands[0]
    assert [len(h) for h in other.hands] == [len(h) for h in state.hands]
    assert other.hands[1:] != state.hands[1:]
    assert card_count(other) == DECK


def test_resample_keeps_cards_seen_taken_from_the_discard_pile() -> None:
    state = SPEC.new(11, 3)
    assert isinstance(state, Phase10State)
    while "take" not in state.legal(state.turn):
        seat = state.turn
        state.apply(seat, "draw")
        state.apply(seat, next(a for a in state.legal(seat) if "discard" in a))
    taker = state.turn
    card = state.discard_pile[-1]
    state.apply(taker, "take")
    assert state.observation((taker + 1) % 3)["known"][taker] == [card]
    for k in range(20):
        other = state.resample_hidden((taker + 1) % 3, random.Random(k))
        assert isinstance(other, Phase10State)
        assert card in other.hands[taker]
    state.apply(taker, {"discard": card})
    assert state.known[taker] == []


def test_tie_break_hands_in_random_play() -> None:
    # Everyone advances and there is one phase: equal totals are common, so tie-break hands
    # (only some seats dealt, the dealer possibly outside) are played out at random.
    options = {"all_advance": True, "first_phases": 1, "max_turns": 6}
    leak_rng = random.Random(5)
    tie_breaks = 0

    def check(state: State) -> None:
        accounted(state)
        check_interface_data(state)
        assert isinstance(state, Phase10State)
        if state.tiebreak is not None:
            check_no_leak(state, leak_rng)
            assert all(not state.hands[s] for s in range(3) if s not in state.tiebreak)

    for seed in range(40):
        state, _ = random_playout(SPEC, seed, 3, options, each_step=check)
        assert isinstance(state, Phase10State)
        if state.tiebreak is not None:
            tie_breaks += 1
            ranks = state.result().ranks
            winner = state.tiebreak_winner
            expected = [1 if winner in (None, s) else 2 for s in state.tiebreak]
            assert [ranks[s] for s in state.tiebreak] == expected
    assert tie_breaks >= 2
