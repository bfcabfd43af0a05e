"""Ten: each rule on a built position, scoring, tie-breaks, illegal actions."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.games import Action, GameOverError, IllegalActionError, State, get_game, ten
from arena.games.ten import Decision, TenState
from arena.players import Player, RandomPlayer, play_local
from benchmarks.sources import load_source


def build(
    seats: int = 3,
    *,
    draw: Sequence[str] = ("R1", "R2", "R3"),
    tableau: Sequence[str] = (),
    market: Sequence[str] = (),
    collected: Sequence[Sequence[str]] | None = None,
    currency: Sequence[int] | None = None,
    busts: Sequence[int] | None = None,
    active: int = 0,
) -> TenState:
    """A position where ``active`` decides whether to draw; ``draw[0]`` is the next card drawn."""
    state = ten.SPEC.new(0, seats)
    assert isinstance(state, TenState)
    state.draw_pile = list(reversed(draw))
    state.tableau = list(tableau)
    state.market = list(market)
    state.discard = []
    state.collected = [list(c) for c in collected] if collected else [[] for _ in range(seats)]
    state.currency = list(currency) if currency is not None else [5] * seats
    state.busts = list(busts) if busts is not None else [0] * seats
    state.active = active
    state.decision = Decision.DRAW
    state.log.clear()
    return state


def decision(state: TenState) -> Decision | None:
    """The decision pending (a function, so that mypy does not keep a narrowed attribute)."""
    return state.decision


def events(state: TenState, kind: str) -> list[dict[str, object]]:
    return [e for e in state.public_events() if e["type"] == kind]


# -- the deck -----------------------------------------------------------------------------------


def test_full_deck_composition() -> None:
    deck = Counter(ten.full_deck())
    assert sum(deck.values()) == 129
    kinds = Counter(ten.CARDS[c].kind for c in ten.full_deck())
    assert kinds == {
        ten.Kind.NUMBER: 84,
        ten.Kind.COLOUR_WILD: 8,
        ten.Kind.NUMBER_WILD: 9,
        ten.Kind.FULL_WILD: 1,
        ten.Kind.CURRENCY: 27,
    }
    assert deck["R1"] == 3 and deck["B6"] == 3 and deck["O7"] == 1 and deck["G9"] == 1
    assert deck["R*"] == 2 and deck["*5"] == 1 and deck["#"] == 1
    assert [deck[f"${v}"] for v in range(1, 6)] == [6, 6, 5, 5, 5]


@pytest.mark.parametrize(("seats", "size"), [(1, 89), (2, 89), (3, 109), (4, 129), (5, 129)])
def test_player_count_decks(seats: int, size: int) -> None:
    deck = ten.deck_for(seats)
    assert len(deck) == size
    state = ten.SPEC.new(5, seats)
    assert isinstance(state, TenState)
    assert state.currency == [5] * seats or state.decision is Decision.BID
    counts = Counter(deck)
    if seats <= 3:
        assert counts["R1"] == 2 and counts["G3"] == 2
    if seats <= 2:
        assert counts["R4"] == 2 and counts["B6"] == 2
        assert sum(v for c, v in counts.items() if c.startswith("$")) == 11
    # wilds and the 7-9 cards are never marked
    assert counts["R7"] == 1 and counts["#"] == 1 and counts["G*"] == 2


def test_start_tokens_and_first_draw_is_automatic() -> None:
    state = ten.SPEC.new(3, 4)
    assert isinstance(state, TenState)
    assert state.public_events()[0]["currency"] == [5, 5, 5, 5]
    assert events(state, "draw")[0]["seat"] == 0
    assert len(state.draw_pile) == 128


# -- the draw phase -----------------------------------------------------------------------------


def test_ten_does_not_bust_eleven_does() -> None:
    state = build(draw=("R5", "B1"), tableau=("G5",))
    state.apply(0, "draw")
    assert decision(state) is Decision.DRAW and state.tableau == ["G5", "R5"]
    state.apply(0, "draw")
    assert events(state, "bust")[0]["kind"] == "number"


def test_number_bust_pays_the_others_and_fills_the_market() -> None:
    state = build(draw=("R8", "B1"), tableau=("R5", "$2"), currency=[5, 9, 3])
    state.apply(0, "draw")  # 5 + 8 - 2 = 11
    (bust,) = events(state, "bust")
    assert bust["kind"] == "number"
    assert state.busts == [1, 0, 0]
    assert sorted(state.market) == ["R5", "R8"]
    assert state.discard == ["$2"]
    assert state.currency == [5, 10, 5]  # seat 1 capped at 10
    assert bust["gains"] == [0, 1, 2]
    assert state.active == 1  # the turn passed, and seat 1 drew B1
    assert state.tableau == ["B1"]


def test_currency_bust_pays_nobody() -> None:
    state = build(draw=("$2", "B1"), tableau=("$5", "R3", "$4"), currency=[5, 5, 5])
    state.apply(0, "draw")  # currency 11
    (bust,) = events(state, "bust")
    assert bust["kind"] == "currency"
    assert state.currency == [5, 5, 5]
    assert state.busts == [1, 0, 0]
    assert state.market == ["R3"]
    assert sorted(state.discard) == ["$2", "$4", "$5"]


def test_currency_lowers_the_number_total() -> None:
    state = build(draw=("R9", "B1"), tableau=("R5", "$3"))
    state.apply(0, "draw")  # 14 - 3 = 11: bust
    assert events(state, "bust")
    state = build(draw=("R8", "B1"), tableau=("R5", "$3"))
    state.apply(0, "draw")  # 13 - 3 = 10: fine
    assert not events(state, "bust") and state.decision is Decision.DRAW


def test_take_numbers_reward() -> None:
    state = build(
        draw=("B1", "B2"),
        tableau=("R5", "$3", "G2"),
        currency=[5, 8, 2],
        market=("O4", "O9"),
    )
    state.apply(0, "take_numbers")
    assert sorted(state.collected[0]) == ["G2", "R5"]
    assert state.currency == [5, 10, 5]  # the others gain 3, seat 1 capped
    assert state.discard == ["$3"]
    assert decision(state) is Decision.BUY and state.buyer == 0
    assert state.legal(0) == ["none", {"buy": "O4"}]  # O9: 9 > 5 tokens + 2 cards
    state.apply(0, "none")
    assert state.active == 1


def test_take_currency_reward_has_no_buy_phase() -> None:
    state = build(draw=("B1", "B2"), tableau=("R5", "$3", "$4"), currency=[5, 5, 5], market=("O1",))
    state.apply(0, "take_currency")
    assert state.currency == [10, 5, 5]  # 5 + 7 capped at 10
    assert sorted(state.market) == ["O1", "R5"]
    assert sorted(state.discard) == ["$3", "$4"]
    assert state.active == 1 and state.buyer is None
    assert events(state, "take_currency")[0]["gains"] == [5, 0, 0]


def test_cap_option() -> None:
    state = ten.SPEC.new(0, 2, {"token_cap": 6, "start_tokens": 5})
    assert isinstance(state, TenState)
    assert state._gain(1, 4) == 1 and state.currency[1] == 6


def test_bust_tokens_do_not_count_toward_the_cap() -> None:
    state = build(draw=("B1", "B2"), tableau=("$4",), currency=[8, 5, 5], busts=[3, 0, 0])
    state.apply(0, "take_currency")
    assert state.currency[0] == 10 and state.busts[0] == 3


# -- auctions -----------------------------------------------------------------------------------


def test_auction_with_bids() -> None:
    state = build(
        draw=("*4", "B1"),
        tableau=("R2",),
        currency=[5, 2, 1],
        collected=[[], ["G1"], []],
        busts=[0, 0, 1],
    )
    state.apply(0, "draw")
    assert decision(state) is Decision.BID and state.to_move() == [1]
    # seat 1 can pay 2 tokens + 1 card
    assert state.legal(1) == ["pass", {"bid": 1}, {"bid": 2}, {"bid": 3}]
    state.apply(1, {"bid": 2})
    assert state.to_move() == [2]
    # seat 2 can pay 1 token + a bust token worth 3
    assert state.legal(2) == ["pass", {"bid": 3}, {"bid": 4}]
    state.apply(2, {"bid": 4})
    assert state.to_move() == [0]  # the active seat bids last
    state.apply(0, "pass")
    assert events(state, "auction_won") == [
        {"type": "auction_won", "seat": 2, "wild": "*4", "price": 4}
    ]
    # seat 2 has two kinds of unit: it chooses
    assert decision(state) is Decision.PAY and state.legal(2) == ["token", "bust"]
    state.apply(2, "bust")
    # only the token is left: paid automatically
    pays = [(e["unit"], e["owed"], e["auto"]) for e in events(state, "pay")]
    assert pays == [("bust", 1, False), ("token", 0, True)]
    assert state.currency[2] == 0 and state.busts[2] == 0
    assert state.collected[2] == ["*4"]
    # the active seat goes on with its turn, tableau untouched
    assert decision(state) is Decision.DRAW and state.to_move() == [0]
    assert state.tableau == ["R2"]
    assert state.legal(0) == ["draw", "take_numbers", "take_currency"]


def test_auction_all_pass_discards_the_wild() -> None:
    state = build(draw=("#", "B1"), currency=[5, 5, 5])
    state.apply(0, "draw")
    for seat in (1, 2, 0):
        state.apply(seat, "pass")
    assert state.discard == ["#"]
    assert all("#" not in c for c in state.collected)
    assert events(state, "auction_void")
    assert decision(state) is Decision.DRAW and state.active == 0
    # the first draw was made: the seat may stop with an empty tableau
    state.apply(0, "take_numbers")
    assert state.active == 1


def test_seat_that_cannot_outbid_passes_automatically() -> None:
    state = build(draw=("R*", "B1"), currency=[5, 0, 3])
    state.apply(0, "draw")
    passes = events(state, "pass")
    assert passes == [{"type": "pass", "seat": 1, "auto": True}]
    state.apply(2, {"bid": 3})
    assert state.legal(0)[0] == "pass" and state.legal(0)[1] == {"bid": 4}
    state.apply(0, {"bid": 5})
    assert state.currency == [0, 0, 3] and state.collected[0] == ["R*"]


def test_solo_auction_and_lost_currency() -> None:
    state = build(1, draw=("*9", "R1", "B2"), tableau=("R3", "$2"), currency=[5])
    state.apply(0, "draw")
    assert state.legal(0) == ["pass", *({"bid": k} for k in range(1, 6))]
    state.apply(0, {"bid": 1})
    assert state.collected[0] == ["*9"] and state.currency == [4]
    state.apply(0, "take_numbers")
    assert state.currency == [4]  # the $2 would go to other seats: lost
    assert events(state, "take_numbers")[0]["gains"] == [0]


def test_solo_game_result_is_the_score() -> None:
    state = ten.SPEC.new(3, 1)
    while not state.is_over():
        (seat,) = state.to_move()
        legal = state.legal(seat)
        state.apply(seat, "take_numbers" if "take_numbers" in legal else legal[-1])
    assert isinstance(state, TenState)
    result = state.result()
    assert result.ranks == (1,)
    assert list(result.scores) == [ten.score_cards(state.collected[0])]
    assert result.scores[0] > 0


# -- paying -------------------------------------------------------------------------------------


def test_overpaying_with_a_bust_token_gives_no_change() -> None:
    state = build(
        draw=("B1", "B2"), tableau=("R1",), market=("G2",), currency=[4, 5, 5], busts=[1, 0, 0]
    )
    state.apply(0, "take_numbers")
    state.apply(0, {"buy": "G2"})
    assert state.legal(0) == ["token", "bust", {"card": "R1"}]
    state.apply(0, "bust")
    assert state.busts[0] == 0 and state.currency[0] == 4  # no change for the extra 1
    assert sorted(state.collected[0]) == ["G2", "R1"]
    assert events(state, "pay")[-1]["owed"] == 0
    assert state.active == 1


def test_paying_with_collected_cards() -> None:
    state = build(
        draw=("B1", "B2"),
        tableau=("R1",),
        market=("G2",),
        collected=[["O5", "O5"], [], []],
        currency=[1, 5, 5],
    )
    state.apply(0, "take_numbers")
    state.apply(0, {"buy": "G2"})
    assert state.legal(0) == ["token", {"card": "O5"}, {"card": "R1"}]
    state.apply(0, {"card": "O5"})
    state.apply(0, {"card": "O5"})
    assert sorted(state.collected[0]) == ["G2", "R1"]
    assert state.discard.count("O5") == 2
    assert state.currency[0] == 1


def test_payment_with_one_kind_of_unit_is_automatic() -> None:
    state = build(draw=("B1", "B2"), market=("G7",), currency=[9, 5, 5])
    state.decision = None
    state._open_buy(0)
    state.apply(0, {"buy": "G7"})
    assert state.currency[0] == 2 and state.collected[0] == ["G7"]
    pays = events(state, "pay")
    assert len(pays) == 7 and all(e["auto"] and e["unit"] == "token" for e in pays)


# -- the buy phase ------------------------------------------------------------------------------


def test_duplicate_purchase_ban_and_price() -> None:
    state = build(
        draw=("B1", "B2"),
        tableau=("R5",),
        market=("R5", "B5", "G9", "R6"),
        collected=[["*5", "R*"], [], []],
        currency=[5, 5, 5],
    )
    state.apply(0, "take_numbers")
    # holds R5 now: R5 banned; G9 costs 9 > 5 tokens + 3 cards; wilds do not ban
    assert state.legal(0) == ["none", {"buy": "B5"}, {"buy": "R6"}]
    with pytest.raises(IllegalActionError):
        state.apply(0, {"buy": "R5"})
    with pytest.raises(IllegalActionError):
        state.apply(0, {"buy": "G9"})


def test_no_buy_phase_when_nothing_can_be_bought() -> None:
    state = build(draw=("B1", "B2"), tableau=("R5",), market=("R5",), currency=[5, 5, 5])
    state.apply(0, "take_numbers")
    assert events(state, "no_buy") == [{"type": "no_buy", "seat": 0, "auto": True}]
    assert state.active == 1


# -- the end ------------------------------------------------------------------------------------


def test_last_card_then_final_buys_in_order() -> None:
    state = build(
        draw=("R2",),
        tableau=("R1",),
        market=("G1", "G2", "G3"),
        currency=[5, 5, 5],
        active=1,
    )
    state.apply(1, "draw")  # the last card
    assert state.draw_pile == []
    assert state.legal(1) == ["take_numbers", "take_currency"]
    state.apply(1, "take_numbers")
    assert decision(state) is Decision.BUY and state.buyer == 1  # its own buy phase
    state.apply(1, {"buy": "G1"})
    assert state.legal(1) == ["token", {"card": "R1"}, {"card": "R2"}]
    state.apply(1, "token")
    assert state.currency[1] == 4
    # the final buy phases: left of seat 1, ending with seat 1
    assert state.to_move() == [2]
    state.apply(2, {"buy": "G2"})  # seat 2 holds tokens only: paid automatically
    assert state.currency[2] == 3
    assert state.to_move() == [0]
    state.apply(0, "none")
    assert state.to_move() == [1]
    state.apply(1, {"buy": "G3"})
    for _ in range(3):
        state.apply(1, "token")
    assert state.is_over()
    order = [e["seat"] for e in state.public_events() if e["type"] in ("buy", "no_buy")]
    assert order == [1, 2, 0, 1]
    result = state.result()
    assert list(result.scores) == [0, 3, 1]  # seat 1: R1 R2 G1 G3; seat 2: G2
    assert result.ranks == (3, 1, 2)


def test_last_card_bust_goes_to_final_buys() -> None:
    state = build(draw=("R9",), tableau=("R5",), market=(), currency=[5, 5, 5])
    state.apply(0, "draw")
    assert events(state, "bust") and events(state, "final_buys")
    assert state.to_move() == [1]  # R5, R9 in the market; seat 1 may buy
    assert state.legal(1) == ["none", {"buy": "R5"}]


def test_last_card_wild_auction_then_must_stop() -> None:
    state = build(draw=("G*",), tableau=("R5",), currency=[5, 5, 5])
    state.apply(0, "draw")
    for seat in (1, 2):
        state.apply(seat, "pass")
    state.apply(0, {"bid": 1})
    assert state.collected[0] == ["G*"]
    assert state.legal(0) == ["take_numbers", "take_currency"]
    with pytest.raises(IllegalActionError):
        state.apply(0, "draw")


# -- illegal actions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action", ["stop", {"bid": 1}, {"draw": 1}, ["draw"], None, 3, {"buy": "R1"}]
)
def test_illegal_actions_in_the_draw_phase(action: object) -> None:
    state = build()
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, action)
    assert info.value.seat == 0
    assert "turn" in info.value.position


def test_illegal_bids() -> None:
    state = build(draw=("*1", "B1"), currency=[5, 2, 5])
    state.apply(0, "draw")
    for bad in ({"bid": 0}, {"bid": 3}, {"bid": True}, {"bid": "1"}, {"bid": 1, "x": 1}):
        with pytest.raises(IllegalActionError):
            state.apply(1, bad)
    with pytest.raises(IllegalActionError, match="seat 1 is to decide"):
        state.apply(2, {"bid": 1})
    state.apply(1, {"bid": 2})
    with pytest.raises(IllegalActionError):
        state.apply(2, {"bid": 2})  # must outbid


def test_actions_after_the_end_raise() -> None:
    state = build(draw=("R9",), tableau=("R5",), currency=[5, 5, 5])
    state.apply(0, "draw")
    while not state.is_over():
        (seat,) = state.to_move()
        state.apply(seat, state.legal(seat)[0])
    with pytest.raises(IllegalActionError, match="over"):
        state.apply(0, "draw")
    assert state.legal(0) == [] and state.observation(0)["decision"] is None


def test_result_before_the_end_raises() -> None:
    with pytest.raises(GameOverError):
        build().result()


# -- scoring ------------------------------------------------------------------------------------


def test_seed_example_scores_eleven() -> None:
    cards = ["R1", "R2", "R3", "R4", "R5", "G4", "G5", "G6", "B8", "B9", "O2"]
    assert ten.score_cards(cards) == 11


def test_only_the_longest_run_scores() -> None:
    assert ten.score_cards(["B1", "B2", "B3", "B5", "B7"]) == 3
    assert ten.score_cards(["B1", "B2", "B3", "B5", "B6", "B7", "B9"]) == 3


def longest_filled_run(numbers: set[int], fills: int) -> int:
    """The rule itself: the longest run of consecutive numbers that ``fills`` wilds can complete
    (each wild stands for one missing number); all nine score 10."""
    best = 0
    for start in range(1, 10):
        for stop in range(start, 10):
            missing = sum(1 for n in range(start, stop + 1) if n not in numbers)
            if missing <= fills:
                best = max(best, stop - start + 1)
    return 10 if best == 9 else best


def test_the_run_table_is_the_longest_run_of_every_mask_and_fill_count() -> None:
    for mask in range(512):
        numbers = {n for n in range(1, 10) if mask >> (n - 1) & 1}
        for fills in range(ten.MAX_FILLS + 1):
            assert ten.RUN_SCORES[mask][fills] == longest_filled_run(numbers, fills), (mask, fills)


def test_complete_run_scores_ten() -> None:
    assert ten.score_cards([f"O{n}" for n in range(1, 10)]) == 10
    assert ten.score_cards([f"O{n}" for n in range(1, 9)] + ["O*"]) == 10
    assert ten.score_cards([f"O{n}" for n in range(2, 10)] + ["*1"]) == 10
    assert ten.score_cards([f"O{n}" for n in range(2, 10)] + ["R*"]) == 8 + 1  # R* alone: red 1


def test_duplicates_count_once() -> None:
    assert ten.score_cards(["G1", "G1", "G2"]) == 2


def test_wilds_used_once() -> None:
    assert ten.score_cards(["R1", "R3", "R5", "R*"]) == 3
    assert ten.score_cards(["R1", "R3", "R5", "R*", "R*"]) == 5
    assert ten.score_cards(["R1", "R3", "R5", "R*", "R*", "#"]) == 6
    assert ten.score_cards(["#"]) == 1
    assert ten.score_cards(["*3", "*4"]) == 2
    assert ten.score_cards(["*3", "*5"]) == 2  # two colours, 1 each
    assert ten.score_cards(["*3", "*5", "R4"]) == 3
    assert ten.score_cards(["*4", "R4", "B4", "O4", "G4"]) == 4


def test_wild_assignment_that_is_not_the_obvious_one() -> None:
    # Greedy (# first where it gains most: red 5) gives 10 + 2 = 12; the best is *5 as red 5
    # and # as blue 3: 10 + 4 = 14.
    cards = ["R1", "R2", "R3", "R4", "R6", "R7", "R8", "R9", "B1", "B2", "B4", "*5", "#"]
    assert ten.score_cards(cards) == 14
    # *3 as green 3 lets the green wild reach G6 (green 6, blue 2, orange 3 with # = 11); the
    # best keeps *3 for orange, G* for green 3 and # for blue 7: 5 + 3 + 4 = 12.
    cards = ["G1", "G2", "G4", "G5", "G*", "O2", "O4", "B5", "B6", "B8", "*3", "#"]
    assert ten.score_cards(cards) == 5 + 3 + 4
    assert ten.score_cards(cards) == brute_force_score(cards)


def longest_run(numbers: set[int]) -> int:
    best = run = 0
    for n in range(1, 10):
        run = run + 1 if n in numbers else 0
        best = max(best, run)
    return 10 if best == 9 else best


def brute_force_score(cards: list[str]) -> int:
    """Every wild tried at every place it may stand; independent of the engine's programme."""
    colours = "RBOG"
    fixed: dict[str, set[int]] = {c: set() for c in colours}
    places: list[list[tuple[str, int]]] = []
    for code in cards:
        if code == "#":
            places.append([(c, n) for c in colours for n in range(1, 10)])
        elif code.endswith("*"):
            places.append([(code[0], n) for n in range(1, 10)])
        elif code.startswith("*"):
            places.append([(c, int(code[1])) for c in colours])
        elif code[0] in colours:
            fixed[code[0]].add(int(code[1]))
    best = 0
    for choice in itertools.product(*places):
        held = {c: set(fixed[c]) for c in colours}
        for colour, number in choice:
            held[colour].add(number)
        best = max(best, sum(longest_run(held[c]) for c in colours))
    return best


@pytest.mark.parametrize(
    "cards",
    [
        ["R1", "R3", "B2", "*2", "R*"],
        ["R1", "R2", "R4", "B3", "B5", "*3", "*4", "#"],
        ["G5", "G7", "O6", "O8", "*6", "*7", "G*", "O*"],
        ["R2", "R3", "R5", "R6", "B4", "*4", "#", "B*"],
        ["*1", "*2", "*3", "*4", "R5", "B5", "O6", "G6"],
        ["O1", "O2", "O3", "O4", "O6", "O7", "O8", "O9", "G5", "*5", "O*"],
    ],
)
def test_scoring_matches_brute_force(cards: list[str]) -> None:
    assert ten.score_cards(cards) == brute_force_score(cards)


# -- the ranking --------------------------------------------------------------------------------


def test_tie_breaks() -> None:
    # points, then more currency tokens, then fewer collected cards, then shared
    assert ten.rank_seats([5, 5, 5, 5, 7], [3, 4, 3, 3, 0], [2, 9, 1, 2, 9]) == (4, 2, 3, 4, 1)


def test_result_uses_tie_breaks() -> None:
    state = build(
        draw=("R9",),
        tableau=("R5",),
        collected=[["B1", "B2"], ["G1", "G2", "G2"], ["O1", "O2"]],
        currency=[3, 3, 3],
    )
    state.apply(0, "draw")  # bust on the last card
    while not state.is_over():
        (seat,) = state.to_move()
        state.apply(seat, "none")
    result = state.result()
    assert list(result.scores) == [2, 2, 2]
    assert state.currency == [3, 3, 3]
    assert result.ranks == (1, 3, 1)
    assert events(state, "game_end")[0]["ranks"] == [1, 3, 1]


def test_registry_and_observation_keys() -> None:
    spec = get_game("ten")
    state = spec.new(11, 2)
    obs = state.observation(state.to_move()[0])
    assert obs["decision"] in ("draw", "bid", "pay", "buy")
    assert "draw_pile" in obs and isinstance(obs["draw_pile"], int)
    assert "seat" in obs
    assert all(isinstance(TenState.describe(e), str) for e in state.public_events())


# -- the heuristic bot --------------------------------------------------------------------------


def load_heuristic() -> Any:
    path = Path(__file__).resolve().parents[2] / "bots" / "heuristic" / "ten.py"
    return load_source(path, "heuristic_ten")


class HeuristicPlayer:
    """Adapter: the standalone bot's ``choose(observation, legal)`` as an in-process player."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.name = "heuristic"

    def choose(self, state: State, seat: int, legal: list[Action]) -> Action:
        index = self.module.choose(state.observation(seat), legal)
        assert isinstance(index, int) and 0 <= index < len(legal)
        return legal[index]


def test_heuristic_scores_like_the_engine() -> None:
    bot = load_heuristic()
    for cards in (
        ["R1", "R2", "R3", "R4", "R6", "R7", "R8", "R9", "B1", "B2", "B4", "*5", "#"],
        ["G1", "G2", "G4", "G5", "G*", "O2", "O4", "B5", "B6", "B8", "*3", "#"],
    ):
        assert bot.score(cards) == ten.score_cards(cards)


@pytest.mark.slow
def test_heuristic_beats_random() -> None:
    bot = load_heuristic()
    games = wins = 0
    expected = 0.0
    for seats in (2, 3, 4):
        for game in range(40):
            me = game % seats
            players: list[Player] = [
                HeuristicPlayer(bot) if s == me else RandomPlayer(f"{game}:{s}")
                for s in range(seats)
            ]
            result = play_local(ten.SPEC, 1000 + game, players).state.result()
            games += 1
            wins += result.ranks[me] == 1
            expected += 1 / seats
    # a random seat wins about 1/seats of its games (36 of 120 here); the heuristic must win
    # at least 90 -- more than 10 standard deviations above that
    assert wins >= 90, (wins, games, expected)
