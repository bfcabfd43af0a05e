"""Phase 10 rules, each checked on a position built by hand."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.games import JSON, IllegalActionError, OptionError
from arena.games.phase10 import SPEC, Phase10State, Step, phase_sequence
from arena.games.phase10_groups import full_deck, points
from tests.games.test_phase10_helpers import build, card_count, lay

EXTRA = ["B11", "Y9"]
"""Two cards kept back so laying down does not empty the hand."""


def new(seed: int = 0, seats: int = 2, **options: object) -> Phase10State:
    state = SPEC.new(seed, seats, options)
    assert isinstance(state, Phase10State)
    return state


# -- the deck, the deal, the first upcard --------------------------------------------------


def test_deck_has_108_cards_of_the_right_kinds() -> None:
    deck = Counter(full_deck())
    assert sum(deck.values()) == 108
    assert deck["W"] == 8 and deck["S"] == 4
    assert all(deck[f"{c}{n}"] == 2 for c in "RBGY" for n in range(1, 13))


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_deal_gives_ten_each_and_seat_one_acts_first(seats: int) -> None:
    state = new(seed=3, seats=seats)
    if state.discard_pile[-1] == "S":
        pytest.skip("upcard is a Skip for this seed")
    assert state.dealer == 0 and state.turn == 1 and state.step == "draw"
    assert all(len(h) == 10 for h in state.hands)
    assert len(state.discard_pile) == 1
    assert len(state.draw_pile) == 108 - 10 * seats - 1
    assert sum(card_count(state).values()) == 108


def test_deal_passes_left_each_hand() -> None:
    state = build(3, {0: ["R1"]}, step="play")
    state.apply(0, {"discard": "R1"})  # seat 0 goes out
    hand = [e for a, e in state.log if e["type"] == "hand"][-1]
    assert hand["dealer"] == 1 and state.dealer == 1
    assert state.turn == 2 or state.discard_pile[-1] == "S"


def first_seed(upcard: str) -> int:
    return next(s for s in range(500) if new(seed=s, seats=3).log[0][1]["upcard"] == upcard)


def test_skip_upcard_skips_the_first_seat() -> None:
    state = new(seed=first_seed("S"), seats=3)
    assert state.turn == 2
    assert {"type": "skipped", "seat": 1, "reason": "upcard"} in state.public_events()
    assert state.legal(2) == ["draw"]  # a Skip is never taken from the discard pile


def test_wild_upcard_may_be_taken() -> None:
    state = new(seed=first_seed("W"), seats=3)
    assert state.turn == 1
    assert state.legal(1) == ["draw", "take"]
    state.apply(1, "take")
    assert "W" in state.hands[1] and state.discard_pile == []


# -- drawing ---------------------------------------------------------------------------------


def test_skip_cannot_be_taken_from_the_discard_pile() -> None:
    state = build(2, {0: ["R1"] * 2}, discard=["R5", "S"], step="draw")
    assert state.legal(0) == ["draw"]
    with pytest.raises(IllegalActionError):
        state.apply(0, "take")


def test_take_from_the_discard_pile() -> None:
    state = build(2, {0: ["R1", "R2"]}, discard=["R5", "G7"], step="draw")
    state.apply(0, "take")
    assert state.hands[0] == ["R1", "R2", "G7"] and state.discard_pile == ["R5"]
    assert state.step == "play"
    assert {"type": "take", "seat": 0, "card": "G7"} in state.public_events()


def test_draw_is_private() -> None:
    state = build(2, {0: ["R1", "R2"]}, step="draw")
    top = state.draw_pile[-1]
    state.apply(0, "draw")
    assert top in state.hands[0]
    assert state.public_events()[-1] == {"type": "draw", "seat": 0}
    assert state.events_for(0)[-1] == {"type": "drew", "seat": 0, "card": top}
    assert state.events_for(1)[-1] == {"type": "draw", "seat": 0}


def test_reshuffle_when_the_draw_pile_runs_out() -> None:
    state = build(2, {0: ["R1", "R2"]}, discard=["G1", "G2", "G3", "G4"], step="draw")
    state.hands[1].extend(state.draw_pile)  # park the rest of the deck in seat 1's hand
    state.draw_pile = []
    state.apply(0, "draw")
    assert state.discard_pile == ["G4"]
    assert len(state.draw_pile) == 2 and len(state.hands[0]) == 3
    (drawn,) = [c for c in state.hands[0] if c not in ("R1", "R2")]
    assert sorted([*state.draw_pile, drawn]) == ["G1", "G2", "G3"]
    assert {"type": "reshuffle", "cards": 3} in state.public_events()
    assert sum(card_count(state).values()) == 108


def test_no_draw_possible_ends_the_hand_blocked() -> None:
    state = build(3, {0: ["R1", "R2"], 1: ["S", "W"]}, discard=[], turn=1)
    state.hands[2].extend(state.draw_pile)
    state.draw_pile = []
    assert not state._can_draw()
    state.apply(1, {"discard": "S", "target": 2})
    # seat 0 faces an empty draw pile and a Skip on the discard pile: the hand ends
    blocked = [e for e in state.public_events() if e["type"] == "blocked"]
    assert blocked == [{"type": "blocked", "hand": 1, "seat": 0}]
    end = next(e for e in state.public_events() if e["type"] == "hand_end")
    assert end["out"] is None and end["points"][1] == 25
    assert state.result().details["blocked_hands"] == 1 if state.is_over() else state.hand_no == 2


# -- laying down each phase ------------------------------------------------------------------

LayGroups = list[tuple[dict[str, object], list[str]]]

PHASE_HANDS: dict[int, LayGroups] = {
    1: [({"set": 5}, ["R5", "B5", "G5"]), ({"set": 7}, ["R7", "B7", "Y7"])],
    2: [({"set": 5}, ["R5", "B5", "G5"]), ({"run": 3}, ["R3", "B4", "Y5", "G6"])],
    3: [({"set": 8}, ["R8", "B8", "G8", "Y8"]), ({"run": 3}, ["R3", "B4", "Y5", "G6"])],
    4: [({"run": 1}, ["R1", "B2", "G3", "Y4", "R5", "B6", "G7"])],
    5: [({"run": 5}, ["R5", "B6", "G7", "Y8", "R9", "B10", "G11", "Y12"])],
    6: [({"run": 2}, ["R2", "B3", "G4", "Y5", "R6", "B7", "G8", "Y9", "R10"])],
    7: [({"set": 2}, ["R2", "B2", "G2", "Y2"]), ({"set": 12}, ["R12", "B12", "G12", "Y12"])],
    8: [({"colour": "G"}, ["G1", "G3", "G3", "G5", "G8", "G10", "G12"])],
    9: [({"set": 4}, ["R4", "B4", "G4", "Y4", "R4"]), ({"set": 6}, ["R6", "B6"])],
    10: [({"set": 4}, ["R4", "B4", "G4", "Y4", "R4"]), ({"set": 6}, ["R6", "B6", "G6"])],
}


def with_wilds(groups: LayGroups) -> LayGroups:
    """The same groups with their second card (and a run's last card) replaced by Wilds."""
    out = []
    for opening, cards in groups:
        cards = list(cards)
        cards[1] = "W"
        if "run" in opening:
            cards[-1] = "W"
        out.append((opening, cards))
    return out


@pytest.mark.parametrize("wild", [False, True], ids=["natural", "wilds"])
@pytest.mark.parametrize("phase", range(1, 11))
def test_each_phase_is_laid(phase: int, wild: bool) -> None:
    groups = PHASE_HANDS[phase]
    if wild:
        groups = with_wilds(groups)
    cards = [c for _, cs in groups for c in cs]
    state = build(2, {0: [*cards, *EXTRA]}, done={0: list(range(1, phase))})
    assert state.legal(0)[0] == {"lay": phase}
    lay(state, 0, phase, groups)
    assert state.laid[0] == phase
    assert state.hands[0] == EXTRA
    assert [g.cards for g in state.table] == [list(cs) for _, cs in groups]
    event = state.public_events()[-1]
    assert event["type"] == "lay" and event["phase"] == phase
    assert state.step == "play"
    assert sum(card_count(state).values()) == 108


def test_phase_not_offered_without_the_cards() -> None:
    state = build(2, {0: ["R5", "B5", "G5", "R7", "B7", "Y8", "R1", "R2", "G9", "Y11", "B12"]})
    assert not any("lay" in a for a in state.legal(0) if isinstance(a, dict))


def test_a_group_without_a_natural_card_is_refused() -> None:
    # Three Wilds cannot make a set on their own: one natural per group is the default.
    state = build(2, {0: ["W", "W", "W", "R5", "B5", "G5"]})
    state.apply(0, {"lay": 1})
    openings = state.legal(0)
    assert openings == [{"set": 5}]  # no other number has a natural card
    state.apply(0, {"set": 5})
    state.apply(0, {"add": "R5"})
    state.apply(0, {"add": "B5"})
    # a third 5 would leave only Wilds for the second set: not offered, nor is closing
    assert state.legal(0) == [{"add": "W"}]
    state.apply(0, {"add": "W"})
    assert state.legal(0) == ["end"]  # a fourth card would leave too few for the second set
    state.apply(0, "end")
    assert state.legal(0) == [{"set": 5}]
    state.apply(0, {"set": 5})
    assert state.legal(0) == [{"add": "G5"}, {"add": "W"}]
    state.apply(0, {"add": "W"})
    state.apply(0, {"add": "W"})
    assert state.legal(0) == [{"add": "G5"}]  # a group of Wilds alone is not closable
    with pytest.raises(IllegalActionError):
        state.apply(0, "end")


def test_natural_per_phase_option_allows_an_all_wild_group() -> None:
    hand = ["W", "W", "W", "R5", "B5", "G5", *EXTRA]
    state = build(2, {0: hand}, options={"natural_per_phase": True})
    lay(state, 0, 1, [({"set": 5}, ["R5", "B5", "G5"]), ({"set": 7}, ["W", "W", "W"])])
    assert [g.cards for g in state.table] == [["R5", "B5", "G5"], ["W", "W", "W"]]
    assert state.table[1].key == 7


def test_natural_per_phase_still_needs_one_natural() -> None:
    state = build(2, {0: ["W"] * 6 + ["S", "S"]}, options={"natural_per_phase": True})
    assert {"lay": 1} not in state.legal(0)
    state.hands[0].append("Y9")
    state._legal = None
    assert {"lay": 1} in state.legal(0)


def test_lay_down_without_any_wild_of_an_all_wild_hand() -> None:
    state = build(2, {0: ["W"] * 6 + ["S", "S"]})
    assert {"lay": 1} not in state.legal(0)
    state.hands[0].append("Y9")  # Y9 W W + W W W: the second set has no natural
    state._legal = None
    assert {"lay": 1} not in state.legal(0)
    state.hands[0].append("G9")
    state._legal = None
    assert {"lay": 1} in state.legal(0)


def test_run_has_no_wrap_and_no_repeats() -> None:
    # 11 12 1 2 would need a wrap: not a run of 4.
    hand = ["R5", "B5", "G5", "R11", "R12", "B1", "B2", "Y7", "Y7", "Y9", "G9"]
    state = build(2, {0: hand}, done={0: [1]})
    assert {"lay": 2} not in state.legal(0)
    # 3 4 4 5 repeats a number: not a run of 4 either (the 6 is missing)
    hand = ["R8", "B8", "G8", "R3", "R4", "B4", "G5", "Y11", "Y11", "B12", "Y1"]
    state = build(2, {0: hand}, done={0: [1]})
    assert {"lay": 2} not in state.legal(0)
    state.hands[0][-1] = "G6"
    state._legal = None
    assert state.legal(0)[0] == {"lay": 2}


def test_run_at_the_edges() -> None:
    # The top: R6..R12 is a run, W R6..R11 too (the Wild is a 5); nothing passes 12.
    hand = ["R6", "R7", "R8", "R9", "R10", "R11", "R12", "G1", "W"]
    state = build(2, {0: [*hand, *EXTRA]}, done={0: [1, 2, 3]})
    state.apply(0, {"lay": 4})
    assert state.legal(0) == [{"run": 5}, {"run": 6}]
    state.apply(0, {"run": 6})
    for card in hand[:7]:
        state.apply(0, {"add": card})
    assert state.legal(0) == ["end"]  # no 13 for the Wild
    # The bottom: G1..B6 and a Wild make 1..7 only (a Wild cannot be 0).
    hand = ["G1", "G2", "G3", "Y4", "R5", "B6", "W"]
    state = build(2, {0: [*hand, *EXTRA]}, done={0: [1, 2, 3]})
    state.apply(0, {"lay": 4})
    assert state.legal(0) == [{"run": 1}]


def test_wild_value_is_fixed_by_its_place_in_the_run() -> None:
    hand = ["W", "R4", "B5", "G6", *EXTRA]
    state = build(2, {0: ["R8", "B8", "G8", *hand]}, done={0: [1]})
    lay(state, 0, 2, [({"set": 8}, ["R8", "B8", "G8"]), ({"run": 3}, ["W", "R4", "B5", "G6"])])
    run = state.table[1]
    assert (run.key, run.high) == (3, 6)
    assert state.public_events()[-1]["groups"][1]["lo"] == 3


def test_illegal_lay_steps_raise() -> None:
    state = build(2, {0: ["R5", "B5", "G5", "R7", "B7", "Y7", *EXTRA]})
    with pytest.raises(IllegalActionError):
        state.apply(0, {"lay": 2})
    state.apply(0, {"lay": 1})
    with pytest.raises(IllegalActionError):
        state.apply(0, {"add": "R5"})  # no group open yet
    state.apply(0, {"set": 5})
    with pytest.raises(IllegalActionError):
        state.apply(0, {"add": "R7"})
    with pytest.raises(IllegalActionError):
        state.apply(0, {"discard": "B11"})  # a started lay-down must be finished
    with pytest.raises(IllegalActionError):
        state.apply(0, "end")  # a set of 0


# -- hitting -----------------------------------------------------------------------------------

TABLE = [(1, "run", 3, ["R3", "R4", "W", "R6"]), (1, "set", 9, ["R9", "B9", "W"])]


def test_no_hit_before_the_phase_is_down() -> None:
    state = build(2, {0: ["R2", "Y9", "G1"]}, table=TABLE)
    assert not any("hit" in a for a in state.legal(0))


def test_hits_on_another_seats_groups_the_same_turn() -> None:
    hand = ["R5", "B5", "G5", "R7", "B7", "Y7", "R2", "Y9", "W"]
    state = build(2, {0: hand}, table=TABLE)
    lay(state, 0, 1, [({"set": 5}, ["R5", "B5", "G5"]), ({"set": 7}, ["R7", "B7", "Y7"])])
    hits = [a for a in state.legal(0) if "hit" in a]
    assert {"hit": 0, "card": "R2", "end": "low"} in hits
    assert {"hit": 1, "card": "Y9"} in hits
    assert {"hit": 0, "card": "W", "end": "low"} in hits
    assert {"hit": 0, "card": "W", "end": "high"} in hits
    assert {"hit": 2, "card": "W"} in hits  # own set of 5
    assert {"hit": 1, "card": "R2"} not in hits
    state.apply(0, {"hit": 0, "card": "R2", "end": "low"})
    assert state.table[0].cards == ["R2", "R3", "R4", "W", "R6"] and state.table[0].key == 2
    state.apply(0, {"hit": 0, "card": "W", "end": "high"})
    assert state.table[0].high == 7


def test_option_no_hits_on_others_the_turn_a_phase_is_laid() -> None:
    hand = ["R5", "B5", "G5", "R7", "B7", "Y7", "R2", "Y9", "W"]
    state = build(2, {0: hand}, table=TABLE, options={"hit_others_same_turn": False})
    lay(state, 0, 1, [({"set": 5}, ["R5", "B5", "G5"]), ({"set": 7}, ["R7", "B7", "Y7"])])
    hits = [a for a in state.legal(0) if "hit" in a]
    assert hits and all(state.table[a["hit"]].owner == 0 for a in hits)
    state.laid_this_turn = False  # a later turn
    state._legal = None
    assert {"hit": 1, "card": "Y9"} in state.legal(0)


def test_run_edges_one_and_twelve_take_no_hit_beyond() -> None:
    table = [(1, "run", 1, ["R1", "R2", "R3", "R4"]), (1, "run", 9, ["B9", "B10", "B11", "B12"])]
    state = build(2, {0: ["W", "R5", "B8", "G12", "Y1"]}, table=table, laid={0: 2})
    hits = [a for a in state.legal(0) if "hit" in a]
    assert sorted((a["hit"], a["card"], a["end"]) for a in hits) == [
        (0, "R5", "high"),
        (0, "W", "high"),
        (1, "B8", "low"),
        (1, "W", "low"),
    ]


def test_colour_group_hits() -> None:
    table = [(1, "colour", 3, ["G1", "G2", "G2", "W", "G7", "G8", "G9"])]
    state = build(2, {0: ["G12", "R12", "W"]}, table=table, laid={0: 8})
    hits = [a for a in state.legal(0) if "hit" in a]
    assert hits == [{"hit": 0, "card": "G12"}, {"hit": 0, "card": "W"}]


def test_going_out_by_a_hit_ends_the_hand() -> None:
    table = [(1, "set", 9, ["R9", "B9", "W"])]
    state = build(3, {0: ["Y9"], 1: ["R1", "R12"], 2: ["S", "W"]}, table=table, laid={0: 1})
    totals_before = list(state.totals)
    state.apply(0, {"hit": 0, "card": "Y9"})
    end = [e for e in state.public_events() if e["type"] == "hand_end"][-1]
    assert end["out"] == 0
    assert end["points"] == [0, 15, 40]
    assert state.totals == [totals_before[0], totals_before[1] + 15, totals_before[2] + 40]
    assert state.done[0] == [1] and state.done[1] == [] and state.done[2] == []
    assert end["advanced"] == [0]


def test_final_discard_option_forbids_going_out_by_a_hit() -> None:
    table = [(1, "set", 9, ["R9", "B9", "W"])]
    state = build(2, {0: ["Y9"]}, table=table, laid={0: 1}, options={"final_discard": True})
    assert state.legal(0) == [{"discard": "Y9"}]
    state.hands[0] = ["Y9", "G9"]
    state._legal = None
    assert {"hit": 0, "card": "Y9"} in state.legal(0)
    state.apply(0, {"hit": 0, "card": "Y9"})
    assert state.legal(0) == [{"discard": "G9"}]


def test_final_discard_option_keeps_a_card_after_laying_down() -> None:
    cards = ["R5", "B5", "G5", "R7", "B7", "Y7"]
    assert {"lay": 1} in build(2, {0: cards}).legal(0)
    assert {"lay": 1} not in build(2, {0: cards}, options={"final_discard": True}).legal(0)


def test_final_discard_option_counts_a_kept_skip() -> None:
    cards = ["R10", "G10", "Y10", "W", "W", "W", "W", "W"]
    nine = list(range(1, 10))
    options = {"final_discard": True}
    assert {"lay": 10} not in build(2, {0: cards}, options=options, done={0: nine}).legal(0)
    state = build(2, {0: [*cards, "S"]}, options=options, done={0: nine})
    assert {"lay": 10} in state.legal(0)


def test_laying_down_every_card_goes_out() -> None:
    state = build(2, {0: ["R5", "B5", "G5", "R7", "B7", "Y7"]})
    lay(state, 0, 1, [({"set": 5}, ["R5", "B5", "G5"]), ({"set": 7}, ["R7", "B7", "Y7"])])
    assert any(e == {"type": "out", "seat": 0, "hand": 1} for e in state.public_events())
    assert state.done[0] == [1]


# -- Skips -------------------------------------------------------------------------------------


def test_skip_targets_and_effect() -> None:
    state = build(4, {0: ["S", "R1"]})
    state.skip_waiting[2] = True
    assert [a.get("target") for a in state.legal(0) if a["discard"] == "S"] == [1, 3]
    with pytest.raises(IllegalActionError):
        state.apply(0, {"discard": "S", "target": 0})
    with pytest.raises(IllegalActionError):
        state.apply(0, {"discard": "S", "target": 2})
    state.apply(0, {"discard": "S", "target": 1})
    # seat 1 loses its turn; seat 2 also had one waiting: seat 3 plays
    assert state.turn == 3
    skipped = [e["seat"] for e in state.public_events() if e["type"] == "skipped"]
    assert skipped == [1, 2]
    assert state.skip_waiting == [False] * 4


def test_skip_waits_until_the_targets_turn() -> None:
    state = build(3, {0: ["S", "R1"]})
    state.apply(0, {"discard": "S", "target": 2})
    assert state.turn == 1 and state.skip_waiting == [False, False, True]
    state.apply(1, "draw")
    state.apply(1, {"discard": state.hands[1][0]})
    assert state.turn == 0 and state.skip_waiting == [False, False, False]


def test_skip_without_a_target_has_no_effect() -> None:
    state = build(2, {0: ["S", "R1"]})
    state.skip_waiting[1] = True
    assert {"discard": "S"} in state.legal(0)
    state.apply(0, {"discard": "S"})
    assert state.skip_waiting == [False, False]  # seat 1's earlier Skip was used up
    assert state.turn == 0


def test_skip_as_last_card_needs_no_target() -> None:
    state = build(3, {0: ["S"]}, laid={0: 1})
    assert state.legal(0) == [{"discard": "S"}]


def test_skip_next_option_targets_the_next_seat_only() -> None:
    state = build(4, {0: ["S", "R1"]}, turn=0, options={"skip_next": True})
    assert [a for a in state.legal(0) if a["discard"] == "S"] == [{"discard": "S", "target": 1}]


# -- scoring, advancing, the end -------------------------------------------------------------


def test_card_points() -> None:
    assert [points(c) for c in ["R1", "B9", "G10", "Y12", "S", "W"]] == [5, 5, 10, 10, 15, 25]


def test_all_advance_option() -> None:
    state = build(2, {0: ["R1"]}, options={"all_advance": True})
    state.apply(0, {"discard": "R1"})
    assert state.done == [[1], [1]]


def test_game_ends_when_a_seat_completes_the_last_phase() -> None:
    state = build(3, {0: ["R1"]}, done={0: list(range(1, 10)), 1: [1, 2]}, laid={0: 10})
    state.totals = [100, 20, 10]
    state.apply(0, {"discard": "R1"})
    assert state.is_over()
    result = state.result()
    assert result.ranks[0] == 1  # furthest phase wins despite the highest total
    assert result.details["phases"][0] == 10
    assert [e["type"] for e in state.public_events()][-1] == "game_end"


def test_lowest_total_wins_among_seats_completing_phase_ten() -> None:
    state = build(3, {0: ["R1"], 1: ["R3"]}, done={0: list(range(1, 10)), 1: list(range(1, 10))})
    state.laid = [10, 10, None]
    state.totals = [50, 30, 0]
    state.apply(0, {"discard": "R1"})
    assert state.is_over()
    assert state.totals[:2] == [50, 35]
    assert state.result().ranks == (2, 1, 3)


def tie_position(**options: object) -> Phase10State:
    nine = list(range(1, 10))
    state = build(3, {0: ["R1"], 1: ["R3"]}, done={0: nine, 1: nine}, options=options)
    state.laid = [10, 10, None]
    state.totals = [45, 40, 0]
    state.apply(0, {"discard": "R1"})
    return state


def test_tie_on_phase_ten_plays_a_tie_break_hand() -> None:
    state = tie_position()
    totals = list(state.totals)
    assert totals[:2] == [45, 45]
    assert not state.is_over()
    assert state.tiebreak == [0, 1] and state.active == [0, 1]
    assert {"type": "tiebreak", "seats": [0, 1], "total": 45} in state.public_events()
    assert state.hands[2] == [] and all(len(state.hands[s]) == 10 for s in (0, 1))
    assert state.turn in (0, 1)
    assert state._phases_open(state.turn) == [10]
    # play it out: seat 1 goes out by discarding its last card
    state.hands[1] = ["G4"]
    state.turn, state.step, state.laid = 1, Step.PLAY, [None, 10, None]
    state._legal = None
    state.apply(1, {"discard": "G4"})
    assert state.is_over()
    result = state.result()
    assert result.ranks == (2, 1, 3)
    assert result.details["tiebreak"] == {"seats": [0, 1], "winner": 1}
    assert state.totals == totals  # the tie-break hand is not scored


def test_tie_break_hand_with_nobody_out_leaves_the_tie() -> None:
    state = tie_position(max_turns=1)
    while not state.is_over():
        seat = state.turn
        legal = state.legal(seat)
        state.apply(seat, next(a for a in legal if a == "draw" or "discard" in a))
    assert state.result().ranks == (1, 1, 3)
    assert state.result().details["tiebreak"] == {"seats": [0, 1], "winner": None}


def test_tie_break_by_laying_down_option() -> None:
    state = tie_position(tiebreak="lay")
    cards = ["R4", "B4", "G4", "Y4", "R4", "R6", "B6", "G6"]
    state.hands[0] = [*cards, "Y1"]
    state.turn, state.step = 0, Step.PLAY
    state._legal = None
    lay(state, 0, 10, PHASE_HANDS[10])
    assert state.is_over()
    assert state.result().details["tiebreak"] == {"seats": [0, 1], "winner": 0}
    assert state.result().ranks == (1, 2, 3)


# -- options -----------------------------------------------------------------------------------


def test_phase_sequences() -> None:
    assert phase_sequence("all", None) == tuple(range(1, 11))
    assert phase_sequence("even", None) == (2, 4, 6, 8, 10)
    assert phase_sequence("odd", 3) == (1, 3, 5)
    assert phase_sequence("all", 5) == (1, 2, 3, 4, 5)


def test_first_phases_option_ends_the_game_early() -> None:
    state = build(2, {0: ["R1"]}, options={"first_phases": 1}, laid={0: 1})
    state.apply(0, {"discard": "R1"})
    assert state.is_over() and state.result().ranks == (1, 2)


def test_even_phases_start_at_two() -> None:
    state = new(options_seed := 1, 2, phases="even")
    assert options_seed == 1
    assert state._phase_now(0) == 2 and state.observation(0)["sequence"] == [2, 4, 6, 8, 10]


def test_pick_a_phase_option() -> None:
    # sets of 4 + run of 4 allows phases 1, 2, 3 and 7 is missing a second set of 4
    hand = ["R8", "B8", "G8", "Y8", "R3", "B4", "Y5", "G6", "R12", "B12", "G12"]
    state = build(2, {0: hand}, options={"pick_phase": True}, done={0: [2]})
    lays = [a["lay"] for a in state.legal(0) if "lay" in a]
    assert lays == [1, 3]
    lay(state, 0, 3, PHASE_HANDS[3])
    state.apply(0, {"discard": "R12"})
    assert state.turn == 1
    state.hands[1] = ["B1"]
    state.step = Step.PLAY
    state._legal = None
    state.apply(1, {"discard": "B1"})
    assert state.done[0] == [2, 3]
    assert state.observation(0)["phase"] == [None, None]


def test_pick_phase_and_all_advance_do_not_combine() -> None:
    with pytest.raises(OptionError):
        new(0, 2, pick_phase=True, all_advance=True)


def test_turn_cap_ends_the_hand_and_is_recorded() -> None:
    state = new(0, 2, max_turns=2, max_hands=1)
    while not state.is_over():
        seat = state.turn
        state.apply(seat, next(a for a in state.legal(seat) if a == "draw" or "discard" in a))
    caps = [e for e in state.public_events() if e["type"] == "cap"]
    assert caps[0] == {"type": "cap", "kind": "turns", "hand": 1, "turns": 4}
    assert caps[1] == {"type": "cap", "kind": "hands", "hand": 1}
    details = state.result().details
    assert details["capped"] == "hands" and details["turn_capped_hands"] == 1
    end = next(e for e in state.public_events() if e["type"] == "hand_end")
    assert end["out"] is None and all(p > 0 for p in end["points"])


def test_unknown_option_and_bad_values_are_refused() -> None:
    with pytest.raises(OptionError):
        SPEC.validate_options({"phases": "prime"})
    with pytest.raises(OptionError):
        SPEC.validate_options({"first_phases": 11})


# -- illegal actions and observations -------------------------------------------------------


def test_illegal_actions_raise() -> None:
    state = build(2, {0: ["R1", "R2"]}, step="draw")
    attempts: list[tuple[int, JSON]] = [
        (1, "draw"),
        (0, "discard"),
        (0, {"discard": "R1"}),
        (0, None),
        (0, 1),
    ]
    for seat, action in attempts:
        with pytest.raises(IllegalActionError):
            state.apply(seat, action)
    state.apply(0, "draw")
    wrong: list[JSON] = [{"discard": "B12"}, {"discard": "R1", "target": 1}, "draw", {"lay": 1}]
    for action in wrong:
        with pytest.raises(IllegalActionError):
            state.apply(0, action)
    with pytest.raises(IllegalActionError):
        state.apply(0, {"discard": True})


def test_observation_shows_only_what_the_seat_may_see() -> None:
    state = new(5, 3)
    obs = state.observation(2)
    assert obs["seat"] == 2 and obs["hand"] == state.hands[2]
    assert obs["decision"] is None and state.observation(state.turn)["decision"] == "draw"
    assert obs["hand_sizes"] == [10, 10, 10]
    assert set(obs) == {
        "decision", "seat", "hand_no", "dealer", "turn", "turns", "sequence", "active",
        "tiebreak", "hand", "table", "laying", "discard_top", "discard_size", "draw_size",
        "phase", "completed", "hand_sizes", "totals", "laid", "skip_waiting", "known",
    }  # fmt: skip
    assert obs["known"] == [[], [], []]
