"""Take 5: properties of random legal playouts."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import get_game
from arena.games.take5 import HAND_SIZE, HEADS, ROWS, Take5State, cards_in_play
from arena.replay import Replay
from tests.games.playouts import canonical, check_interface_data, check_no_leak, random_playout

SPEC = get_game("take5")

options = st.fixed_dictionaries(
    {
        "end_score": st.integers(min_value=10, max_value=66),
        "tactics": st.booleans(),
        "professional": st.booleans(),
        "more_than": st.booleans(),
    }
)


def cards_held(state: Take5State) -> list[int]:
    """Every card of this round's deal, wherever it is now."""
    cards = [c for hand in state.hands for c in hand]
    cards += [c for row in state.rows for c in row]
    cards += [c for taken in state.taken for c in taken]
    cards += [c for c in state.chosen if c is not None]
    cards += state.queue
    return cards


def check_cards(state: Take5State) -> None:
    held = cards_held(state)
    assert len(held) == len(set(held)), "a card is in two places"
    assert len(held) == HAND_SIZE * state.seats + ROWS, "a card of the deal went missing"
    deck = cards_in_play(state.seats, state.tactics)
    assert set(held) <= set(deck)
    assert sorted(held + state.undealt()) == deck
    if not state.tactics:
        assert sum(HEADS[c] for c in held + state.undealt()) == 171
    assert sum(state.round_heads) == sum(HEADS[c] for t in state.taken for c in t)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32), seats=st.integers(2, 10), opts=options, chooser=st.integers(0, 1000)
)
def test_random_playouts_conserve_cards_and_end(
    seed: int, seats: int, opts: dict[str, object], chooser: int
) -> None:
    heads_per_round: list[int] = []

    def each_step(state: object) -> None:
        assert isinstance(state, Take5State)
        check_cards(state)

    state, _actions = random_playout(
        SPEC, seed, seats, opts, chooser_seed=chooser, each_step=each_step
    )
    assert isinstance(state, Take5State)
    result = state.result()
    assert len(result.ranks) == seats
    assert min(result.ranks) == 1
    limit = state.end_score
    assert any(t > limit if state.more_than else t >= limit for t in state.totals)
    # Every round's heads, taken plus left on the rows at its end, are all the deal's heads.
    for _aud, event in state.log:
        if event["type"] == "round_end":
            heads_per_round.append(sum(event["heads"]))
    assert len(heads_per_round) == state.round
    assert sum(heads_per_round) == sum(state.totals)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 10), opts=options)
def test_same_seed_and_actions_give_the_same_game(
    seed: int, seats: int, opts: dict[str, object]
) -> None:
    state, actions = random_playout(SPEC, seed, seats, opts, chooser_seed=seed)
    again = Replay("take5", seats, seed, state.options, tuple(actions)).play()
    assert canonical(again.snapshot()) == canonical(state.snapshot())
    assert canonical(again.log) == canonical(state.log)
    assert again.result() == state.result()
    # Round-tripping the replay through JSON changes nothing either.
    data = Replay("take5", seats, seed, state.options, tuple(actions)).to_json()
    assert Replay.from_json(canonical_load(data)).play().result() == state.result()


def canonical_load(data: dict[str, object]) -> dict[str, object]:
    import json

    loaded = json.loads(canonical(data))
    assert isinstance(loaded, dict)
    return loaded


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 10), opts=options)
def test_observations_leak_nothing_and_everything_is_json(
    seed: int, seats: int, opts: dict[str, object]
) -> None:
    rng = random.Random(seed)
    steps = [0]

    def each_step(state: object) -> None:
        assert isinstance(state, Take5State)
        steps[0] += 1
        if steps[0] % 17 == 1 or state.row_chooser is not None:
            check_interface_data(state)
            check_no_leak(state, rng)

    random_playout(
        SPEC, seed, seats, {**opts, "end_score": 15}, chooser_seed=seed + 1, each_step=each_step
    )


def test_a_resampled_state_is_a_legal_position_that_plays_on() -> None:
    state = SPEC.new(11, 5)
    assert isinstance(state, Take5State)
    state.apply(0, state.legal(0)[0])
    other = state.resample_hidden(1, random.Random(3))
    assert isinstance(other, Take5State)
    check_cards(other)
    assert other.hands[1] == state.hands[1]
    assert other.hands[2] != state.hands[2]  # re-dealt (a coincidence here is astronomically rare)
    while not other.is_over():
        for seat in other.to_move():
            other.apply(seat, other.legal(seat)[-1])
