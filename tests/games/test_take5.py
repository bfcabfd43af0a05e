"""Take 5: each rule on a built position."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from arena.games import GameError, IllegalActionError, OptionError, SeatCountError, get_game
from arena.games.base import JSON
from arena.games.take5 import HEADS, Take5State, bull_heads, choose_row

SPEC = get_game("take5")


def position(
    rows: list[list[int]],
    hands: list[list[int]],
    *,
    totals: list[int] | None = None,
    trick: int = 1,
    options: Mapping[str, JSON] | None = None,
) -> Take5State:
    """A game whose current trick starts from exactly these rows and hands."""
    state = SPEC.new(1, len(hands), options)
    assert isinstance(state, Take5State)
    state.rows = [list(r) for r in rows]
    state.hands = [sorted(h) for h in hands]
    state.trick = trick
    if totals is not None:
        state.totals = list(totals)
    return state


def play_trick(state: Take5State, cards: list[int]) -> None:
    for seat, card in enumerate(cards):
        state.apply(seat, card)


# -- heads ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "heads"),
    [(55, 7), (11, 5), (22, 5), (99, 5), (10, 3), (100, 3), (5, 2), (85, 2), (1, 1), (104, 1)],
)
def test_bull_heads(card: int, heads: int) -> None:
    assert bull_heads(card) == heads == HEADS[card]


def test_the_deck_holds_171_heads() -> None:
    assert sum(bull_heads(c) for c in range(1, 105)) == 171


# -- placement -----------------------------------------------------------------------------


def test_rulebook_example_places_each_card_after_the_closest_lower_end() -> None:
    state = position([[12], [37], [43], [58]], [[14, 90], [15, 91], [44, 92], [61, 93]])
    play_trick(state, [14, 15, 44, 61])
    assert state.rows == [[12, 14, 15], [37], [43, 44], [58, 61]]
    assert state.totals == [0, 0, 0, 0]


def test_the_closest_row_wins_over_a_lower_one() -> None:
    assert choose_row([[12], [20], [50], [60]], 23, professional=False) == (1, "right")


def test_cards_are_placed_in_ascending_order_whatever_the_seat_order() -> None:
    state = position([[10], [30], [50], [70]], [[12, 1], [11, 2]])
    play_trick(state, [12, 11])
    assert state.rows[0] == [10, 11, 12]
    places = [e for _, e in state.log if e["type"] == "place"]
    assert [(e["seat"], e["card"]) for e in places] == [(1, 11), (0, 12)]


def test_the_sixth_card_takes_the_row_and_starts_it() -> None:
    row = [3, 5, 10, 11, 12]  # heads 1 + 2 + 3 + 5 + 1 = 12
    state = position([row, [40], [60], [80]], [[13, 99], [41, 98]])
    play_trick(state, [13, 41])
    assert state.rows == [[13], [40, 41], [60], [80]]
    assert state.totals == [12, 0]
    assert state.taken[0] == row
    take = next(e for _, e in state.log if e["type"] == "take")
    assert take == {
        "type": "take",
        "seat": 0,
        "card": 13,
        "row": 0,
        "cards": row,
        "heads": 12,
        "reason": "sixth",
    }


def test_a_five_card_row_does_not_take_a_card_that_goes_elsewhere() -> None:
    state = position([[3, 4, 5, 6, 7], [40], [60], [80]], [[45, 1], [2, 99]])
    state.apply(0, 45)
    state.apply(1, 99)
    assert state.rows == [[3, 4, 5, 6, 7], [40, 45], [60], [80, 99]]
    assert state.totals == [0, 0]


# -- the too-low card ----------------------------------------------------------------------


def test_a_too_low_card_lets_its_seat_choose_any_row_after_the_reveal() -> None:
    state = position([[20, 21], [30], [55, 56, 57], [70]], [[5, 90], [31, 91], [71, 92]])
    play_trick(state, [5, 31, 71])
    assert state.to_move() == [0]
    assert state.legal(0) == [0, 1, 2, 3]
    assert state.legal(1) == []
    obs = state.observation(0)
    assert obs["decision"] == "row"
    assert obs["revealed"] == [5, 31, 71]
    assert state.observation(1)["decision"] is None
    # Nothing is placed until the row is chosen.
    assert state.rows == [[20, 21], [30], [55, 56, 57], [70]]
    state.apply(0, 2)  # takes 55 (7) + 56 + 57 = 9 heads, the costliest row, by choice
    assert state.totals == [9, 0, 0]
    assert state.rows == [[20, 21], [30, 31], [5], [70, 71]]
    assert state.to_move() == [0, 1, 2]


def test_the_remaining_cards_may_land_on_the_row_a_too_low_card_started() -> None:
    state = position([[20], [30], [40], [50]], [[5, 90], [6, 91]])
    play_trick(state, [5, 6])
    assert state.to_move() == [0]  # only the lowest card can be too low
    state.apply(0, 3)
    assert state.rows == [[20], [30], [40], [5, 6]]
    assert state.totals == [bull_heads(50), 0]


def test_the_row_choice_must_be_an_index_by_the_choosing_seat() -> None:
    state = position([[20], [30], [40], [50]], [[5, 90], [60, 91]])
    play_trick(state, [5, 60])
    with pytest.raises(IllegalActionError, match="seat 0 is choosing a row"):
        state.apply(1, 0)
    for bad in (4, -1, "0", True, 1.0):
        with pytest.raises(IllegalActionError):
            state.apply(0, bad)


# -- simultaneous decisions ----------------------------------------------------------------


def test_every_seat_decides_at_once_and_a_choice_stays_hidden() -> None:
    state = position([[10], [30], [50], [70]], [[12, 1], [31, 2], [51, 3]])
    assert state.to_move() == [0, 1, 2]
    before = [state.observation(s) for s in (1, 2)]
    state.apply(0, 12)
    assert state.to_move() == [1, 2]
    assert state.legal(0) == []
    assert [state.observation(s) for s in (1, 2)] == before
    assert state.observation(0)["chosen"] == 12
    assert state.events_for(1) == state.events_for(1, 0)
    with pytest.raises(IllegalActionError, match="already chosen"):
        state.apply(0, 1)


def test_illegal_cards_name_the_action_and_the_position() -> None:
    state = position([[10], [30], [50], [70]], [[12, 1], [31, 2]])
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, 31)
    message = str(info.value)
    assert "31" in message and "seat 0" in message and "rows [10 | 30 | 50 | 70]" in message
    for bad in ("12", True, 12.0, None, [12]):
        with pytest.raises(IllegalActionError):
            state.apply(0, bad)
    with pytest.raises(IllegalActionError, match="no such seat"):
        state.apply(5, 12)


# -- rounds and the end --------------------------------------------------------------------


def finish_round(state: Take5State) -> None:
    """Play the rest of the round with each seat's lowest card and the first row."""
    start = state.round
    while state.round == start and not state.is_over():
        for seat in state.to_move():
            state.apply(seat, state.legal(seat)[0])


def test_a_round_is_ten_tricks_then_a_new_deal() -> None:
    state = SPEC.new(3, 4)
    assert isinstance(state, Take5State)
    assert [len(h) for h in state.hands] == [10, 10, 10, 10]
    for trick in range(1, 11):
        assert state.trick == trick
        for seat in state.to_move():
            state.apply(seat, state.legal(seat)[0])
        while state.row_chooser is not None:
            state.apply(state.row_chooser, 0)
    assert state.round == 2
    assert [len(h) for h in state.hands] == [10, 10, 10, 10]
    ends = [e for _, e in state.log if e["type"] == "round_end"]
    assert len(ends) == 1 and ends[0]["totals"] == state.totals


def test_the_game_ends_after_the_round_in_which_a_seat_reaches_the_end_score() -> None:
    state = position([[20], [30], [40], [50]], [[1], [2]], totals=[60, 0], trick=10)
    state.hands = [[5], [99]]
    play_trick(state, [5, 99])
    state.apply(0, 3)  # 50: 3 heads → 63: not yet
    assert not state.is_over() and state.round == 2
    state.hands = [[3], [98]]
    state.trick = 10
    state.rows = [[20], [30], [40], [55]]
    play_trick(state, [3, 98])
    state.apply(0, 3)  # 55: 7 heads → 70 ≥ 66
    assert state.is_over()
    result = state.result()
    assert result.scores == (70, 0)
    assert result.ranks == (2, 1)
    assert state.to_move() == [] and state.legal(1) == []


def test_exactly_the_end_score_ends_the_game_by_default() -> None:
    state = position([[20], [30], [40], [50]], [[5], [99]], totals=[63, 0], trick=10)
    play_trick(state, [5, 99])
    state.apply(0, 3)
    assert state.totals[0] == 66
    assert state.is_over()


def test_more_than_option_needs_a_total_above_the_end_score() -> None:
    state = position(
        [[20], [30], [40], [50]],
        [[5], [99]],
        totals=[63, 0],
        trick=10,
        options={"more_than": True},
    )
    play_trick(state, [5, 99])
    state.apply(0, 3)
    assert state.totals[0] == 66
    assert not state.is_over()
    assert state.round == 2


def test_equal_totals_share_a_place() -> None:
    state = position(
        [[20], [30], [40], [50]], [[5], [99], [98], [97]], totals=[10, 70, 10, 30], trick=10
    )
    play_trick(state, [5, 99, 98, 97])
    state.apply(0, 3)  # +3 heads: seat 0 at 13
    state2 = position(
        [[20], [30], [40], [50]], [[96], [99], [98], [97]], totals=[10, 70, 10, 30], trick=10
    )
    play_trick(state2, [96, 99, 98, 97])
    assert state2.is_over()
    assert state2.result().ranks == (1, 4, 1, 3)
    assert state.result().ranks == (2, 4, 1, 3)


def test_round_cap_ends_the_game_and_says_so() -> None:
    state = SPEC.new(5, 3, {"max_rounds": 2, "end_score": 1000})
    assert isinstance(state, Take5State)
    finish_round(state)
    assert not state.is_over()
    finish_round(state)
    assert state.is_over()
    assert state.round == 2
    assert state.result().details == {"rounds": 2, "capped": True}
    assert state.log[-1][1]["capped"] is True


# -- variants ------------------------------------------------------------------------------


def test_tactics_uses_only_cards_up_to_ten_per_seat_plus_four() -> None:
    state = SPEC.new(9, 3, {"tactics": True})
    assert isinstance(state, Take5State)
    in_play = sorted(c for h in state.hands for c in h) + sorted(r[0] for r in state.rows)
    assert sorted(in_play) == list(range(1, 35))
    assert state.undealt() == []


def test_professional_places_a_card_before_a_higher_first_card() -> None:
    options = {"professional": True}
    state = position([[30, 31], [50], [70], [90]], [[28, 1], [95, 2]], options=options)
    play_trick(state, [28, 95])
    assert state.rows == [[28, 30, 31], [50], [70], [90, 95]]
    assert choose_row([[30], [50]], 45, professional=True) == (
        1,
        "left",
    )  # 5 below 50 < 15 above 30
    assert choose_row([[30], [50]], 39, professional=True) == (
        0,
        "right",
    )  # 9 above 30 < 11 below 50


def test_professional_sixth_card_at_the_left_end_takes_the_row() -> None:
    options = {"professional": True}
    row = [30, 31, 32, 33, 34]
    state = position([row, [50], [70], [90]], [[29, 1], [95, 2]], options=options)
    play_trick(state, [29, 95])
    assert state.rows[0] == [29]
    assert state.totals == [3 + 1 + 1 + 5 + 1, 0]


def test_professional_too_low_only_when_no_end_fits() -> None:
    options = {"professional": True}
    # 40 is above every first card and below every last card: it fits nowhere.
    state = position([[10, 45], [20, 50], [30, 60], [35, 70]], [[40, 1], [99, 2]], options=options)
    play_trick(state, [40, 99])
    assert state.to_move() == [0]
    assert choose_row([[10, 45], [20, 50]], 40, professional=True) is None


# -- options and seats ---------------------------------------------------------------------


def test_options_are_validated_with_clear_errors() -> None:
    assert SPEC.validate_options({"end_score": "50", "tactics": "yes", "max_rounds": "none"}) == {
        "end_score": 50,
        "more_than": False,
        "tactics": True,
        "professional": False,
        "max_rounds": None,
    }
    with pytest.raises(OptionError, match="no option 'colour'"):
        SPEC.validate_options({"colour": 1})
    with pytest.raises(OptionError, match="at least 1"):
        SPEC.validate_options({"end_score": 0})
    with pytest.raises(OptionError, match="whole number"):
        SPEC.validate_options({"end_score": "many"})
    with pytest.raises(OptionError, match="true or false"):
        SPEC.validate_options({"tactics": "perhaps"})
    with pytest.raises(OptionError, match="may not be empty"):
        SPEC.validate_options({"end_score": None})


@pytest.mark.parametrize("seats", [0, 1, 11, True])
def test_seat_counts_outside_two_to_ten_are_refused(seats: int) -> None:
    with pytest.raises(SeatCountError, match="2 to 10 seats"):
        SPEC.new(1, seats)


def test_a_seed_must_be_a_non_negative_integer() -> None:
    with pytest.raises(GameError):
        SPEC.new(-1, 2)


def test_professional_tie_goes_to_the_row_met_first_before_the_right_end() -> None:
    # seeds/take5.md: on equal differences the lower row index wins, even over a right end.
    rows = [[30, 40], [10, 20], [50, 60], [70, 80]]
    # 25: gap 5 to row 0's left end (30) and gap 5 to row 1's right end (20)
    assert choose_row(rows, 25, professional=True) == (0, "left")
    # and the other way round: 23 is 3 above row 0's right end and 3 below row 1's left end
    assert choose_row([[10, 20], [26, 30], [60], [80]], 23, professional=True) == (0, "right")
