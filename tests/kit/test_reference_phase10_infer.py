"""The Phase 10 reference bot's reader of the other hands (bots/reference/phase10/infer.py): it
follows every hand of real games card for card, the heuristic's rules it weighs guesses by never
rule out the true hand, the worlds it deals hold exactly the cards unseen, and what a seat did
moves the guesses the way the heuristic's rules say it should."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from arena.games import get_game
from tests.kit.test_reference_bot import REFERENCE, load_module, load_policy

GAME = "phase10"


@pytest.fixture(scope="module")
def bot() -> Any:
    return load_policy(GAME)


def heuristic_games(seeds: range, seats: int = 3) -> Any:
    """Each position of games of bundled heuristics, before each action: (state, action)."""
    heuristic = load_module(REFERENCE.parent / "heuristic" / "phase10.py")
    for seed in seeds:
        state: Any = get_game(GAME).new(seed, seats)
        while not state.is_over():
            mover = state.to_move()[0]
            legal = state.legal(mover)
            yield state, mover, legal[heuristic.choose(state.observation(mover), legal)]


def test_the_reader_follows_every_hand_card_for_card(bot: Any) -> None:
    """After every action of real games, the reader of seat 0 knows the cards each seat took
    (as the rules' ``known``), its unseen cards are the draw pile and the others' unknown cards,
    and each guess holds as many cards as the seat's unknown part."""
    reader = bot.infer.Reader(0, random.Random(1), 16)
    checked = 0
    state: Any = None
    cursor = 0
    events: list[Any] = []
    for position, mover, action in heuristic_games(range(4)):
        if position is not state:
            state, cursor, events = position, 0, []
            reader = bot.infer.Reader(0, random.Random(1), 16)
        state.apply(mover, action)
        events += state.events_for(0, cursor)
        cursor = len(state.log)
        reader.update(events)
        if state.is_over() or state.laying is not None:
            continue  # mid lay-down, cards have left the hand before the event tells
        if not reader.ready:
            assert state.is_over() or not any(state.hands), "the reader went off track"
            continue
        unseen = Counter(state.draw_pile)
        for s in (1, 2):
            assert Counter(reader.known[s]) == Counter(state.known[s])
            unknown = Counter(state.hands[s]) - Counter(state.known[s])
            unseen += unknown
            sizes = {len(g) for g in reader.guesses[s]}
            assert sizes == {sum(unknown.values())}
        assert reader.hidden == unseen
        checked += 1
    assert checked > 500


def test_the_heuristics_rules_never_rule_out_the_true_hand(bot: Any) -> None:
    """Every time the reader weighs its guesses of a seat by what the heuristic would have
    done, the seat's true hand at that moment agrees (else the reader would steer away from the
    truth)."""
    infer = bot.infer
    weighed = []
    before: list[list[str]] = []

    class Checking(infer.Reader):  # type: ignore[misc,name-defined]
        def _weigh(self, seat: int, agrees: Any) -> None:
            weighed.append(agrees(list(before[seat])))
            super()._weigh(seat, agrees)

    state: Any = None
    for position, mover, action in heuristic_games(range(6)):
        if position is not state:
            state, cursor, events = position, 0, []
            reader = Checking(0, random.Random(2), 8)
        before = [list(h) for h in state.hands]
        state.apply(mover, action)
        events += state.events_for(0, cursor)
        cursor = len(state.log)
        reader.update(events)
    assert len(weighed) > 1000
    assert all(weighed)


def test_a_deal_holds_exactly_the_unseen_cards(bot: Any) -> None:
    """Dealt by the reader's guesses or uniformly, the other seats get as many cards as they
    hold unseen, this seat none, and hands and draw pile together are the pool."""
    infer = bot.infer
    reader = infer.Reader(0, random.Random(3), 8)
    state: Any = None
    for position, mover, action in heuristic_games(range(1)):
        if position is not state:
            state, cursor, events = position, 0, []
        state.apply(mover, action)
        events += state.events_for(0, cursor)
        cursor = len(state.log)
        reader.update(events)
        if state.is_over() or state.laying is not None or not reader.ready:
            continue
        pool = list(state.draw_pile)
        unknown = [0, 0, 0]
        for s in (1, 2):
            rest = list((Counter(state.hands[s]) - Counter(state.known[s])).elements())
            unknown[s] = len(rest)
            pool += rest
        for source in (reader, None):
            dealt, draw = infer.deal(source, pool, unknown, 0, random.Random(4))
            assert [len(h) for h in dealt] == unknown
            assert Counter(draw) + sum((Counter(h) for h in dealt), Counter()) == Counter(pool)


def share(reader: Any, seat: int, holds: Any) -> float:
    guesses = reader.guesses[seat]
    weights = reader.weights[seat]
    return sum(w for g, w in zip(guesses, weights, strict=True) if holds(g)) / sum(weights)


DEAL = [
    {"type": "hand", "hand": 1, "dealer": 2, "seats": [0, 1, 2], "upcard": "Y2",
     "tiebreak": False, "phases": [1, 1, 1]},
    {"type": "deal", "hand": 1,
     "cards": ["R3", "R5", "R8", "R9", "B7", "G2", "G4", "G6", "Y5", "Y12"]},
]  # fmt: skip


def test_a_seat_that_throws_another_card_holds_no_skip(bot: Any) -> None:
    """The heuristic throws a Skip before anything else: once seat 1 discarded a number, few
    guesses of its hand hold a Skip (about half did before)."""
    reader = bot.infer.Reader(0, random.Random(5), 400)
    reader.update(DEAL)
    before = share(reader, 1, lambda g: "S" in g)
    thrown = {"type": "discard", "seat": 1, "card": "B11", "target": None}
    reader.update([*DEAL, {"type": "draw", "seat": 1}, thrown])
    after = share(reader, 1, lambda g: "S" in g)
    assert before > 0.3
    assert after < 0.1


def test_a_seat_that_declines_the_top_rarely_holds_a_hand_that_wants_it(bot: Any) -> None:
    """The heuristic takes a top that raises its progress: once seat 1 drew blind over the
    upcard Y2, few guesses of its hand before the draw would have taken it (a quarter did before)."""
    reader = bot.infer.Reader(0, random.Random(6), 400)
    reader.update(DEAL)

    def wanted(guess: list[str]) -> bool:
        return bool(reader._wants_top(1, guess[:10]))  # the draw is appended after

    before = share(reader, 1, wanted)
    reader.update([*DEAL, {"type": "draw", "seat": 1}])
    assert before > 0.2
    assert share(reader, 1, wanted) < before / 4


def test_a_seat_that_takes_a_card_is_known_to_hold_it_and_likely_its_like(bot: Any) -> None:
    """Collecting sets (phase 1), seat 2 took the B6 seat 1 threw: the B6 is known (kept apart
    from the guesses), and most guesses hold another 6 (about half did before)."""
    reader = bot.infer.Reader(0, random.Random(7), 400)
    reader.update(DEAL)
    sixes = share(reader, 2, lambda g: any(c[1:] == "6" for c in g))
    turns = [
        *DEAL,
        {"type": "draw", "seat": 1},
        {"type": "discard", "seat": 1, "card": "B6", "target": None},
        {"type": "take", "seat": 2, "card": "B6"},
    ]
    reader.update(turns)
    assert reader.known[2] == ["B6"]
    assert share(reader, 2, lambda g: any(c[1:] == "6" for c in g)) > max(0.8, sixes + 0.25)
