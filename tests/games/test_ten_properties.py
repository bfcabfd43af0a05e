"""Ten: properties of random legal playouts for 1-5 seats."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import Action, IllegalActionError, State, ten
from arena.games.ten import TenState, well_formed
from tests.games.playouts import canonical, check_interface_data, check_no_leak, random_playout

seeds = st.integers(min_value=0, max_value=2**32 - 1)
seat_counts = st.integers(min_value=1, max_value=5)


def check_cards(state: State) -> None:
    """Every card is in exactly one place, and the places add up to the deck in play."""
    assert isinstance(state, TenState)
    places = [state.draw_pile, state.tableau, state.market, state.discard, *state.collected]
    held = Counter(card for place in places for card in place)
    for loose in (state.wild, state.purchase):
        if loose is not None:
            held[loose] += 1
    assert held == Counter(state.deck)
    assert all(ten.CARDS[c].kind is ten.Kind.NUMBER for c in state.market)
    assert all(not ten.CARDS[c].is_wild for c in state.tableau)
    assert all(ten.CARDS[c].kind is not ten.Kind.CURRENCY for cs in state.collected for c in cs)


class Ledger:
    """Token and card holdings rebuilt from the public events alone, read incrementally."""

    def __init__(self) -> None:
        self.read = 0
        self.currency: list[int] = []
        self.busts: list[int] = []
        self.held: list[Counter[str]] = []

    def follow(self, state: State) -> None:
        for event in state.public_events(self.read):
            self.note(event)
        self.read = len(state.log)

    def note(self, event: dict[str, object]) -> None:
        kind, seat = event["type"], event.get("seat")
        if kind == "setup":
            assert isinstance(event["currency"], list)
            self.currency = list(event["currency"])
            self.busts = [0] * len(self.currency)
            self.held = [Counter() for _ in self.currency]
        elif kind in ("bust", "take_numbers", "take_currency"):
            assert isinstance(event["gains"], list)
            self.currency = [c + g for c, g in zip(self.currency, event["gains"], strict=True)]
        assert seat is None or isinstance(seat, int)
        if kind == "bust":
            assert seat is not None
            self.busts[seat] += 1
        elif kind == "take_numbers":
            assert seat is not None and isinstance(event["cards"], list)
            self.held[seat].update(event["cards"])
        elif kind == "paid":
            assert seat is not None and isinstance(event["card"], str)
            self.held[seat][event["card"]] += 1
        elif kind == "pay":
            assert seat is not None
            if event["unit"] == "token":
                self.currency[seat] -= 1
            elif event["unit"] == "bust":
                self.busts[seat] -= 1
            else:
                assert isinstance(event["card"], str)
                self.held[seat][event["card"]] -= 1

    def check(self, state: State) -> None:
        """Holdings are within bounds and equal what the public events say moved."""
        assert isinstance(state, TenState)
        self.follow(state)
        assert self.currency == state.currency
        assert self.busts == state.busts
        assert [+h for h in self.held] == [Counter(c) for c in state.collected]
        assert all(0 <= c <= state.cap for c in state.currency)
        assert all(b >= 0 for b in state.busts)


def check_decider(state: State) -> None:
    assert isinstance(state, TenState)
    if state.is_over():
        return
    (seat,) = state.to_move()
    obs = state.observation(seat)
    assert obs["decision"] is not None and obs["seat"] == seat
    for other in range(state.seats):
        if other != seat:
            assert state.observation(other)["decision"] is None


@settings(max_examples=12, deadline=None)
@given(seed=seeds, seats=seat_counts, chooser=seeds)
def test_random_playouts_keep_every_card_and_token(seed: int, seats: int, chooser: int) -> None:
    ledger = Ledger()
    steps = [0]

    def check_step(state: State) -> None:
        check_cards(state)
        ledger.check(state)
        check_decider(state)
        steps[0] += 1
        if steps[0] % 8 == 0 or state.is_over():
            # (it re-encodes the whole log: every step would make the test quadratic)
            check_interface_data(state)

    state, _ = random_playout(ten.SPEC, seed, seats, chooser_seed=chooser, each_step=check_step)
    assert isinstance(state, TenState)
    assert not state.draw_pile
    result = state.result()
    assert len(result.scores) == seats and min(result.ranks) == 1
    assert list(result.scores) == [ten.score_cards(c) for c in state.collected]


@settings(max_examples=10, deadline=None)
@given(seed=seeds, seats=seat_counts, chooser=seeds)
def test_determinism(seed: int, seats: int, chooser: int) -> None:
    first, actions = random_playout(ten.SPEC, seed, seats, chooser_seed=chooser)
    again = ten.SPEC.new(seed, seats)
    for seat, action in actions:
        again.apply(seat, action)
    assert canonical(again.snapshot()) == canonical(first.snapshot())
    assert canonical(again.log) == canonical(first.log)
    assert again.result() == first.result()


@settings(max_examples=6, deadline=None)
@given(seed=seeds, seats=seat_counts, chooser=seeds)
def test_no_leak(seed: int, seats: int, chooser: int) -> None:
    rng = random.Random(seed ^ chooser)
    steps = [0]

    def every_few(state: State) -> None:
        steps[0] += 1
        if steps[0] % 11 == 0 or state.is_over():
            check_no_leak(state, rng)

    random_playout(ten.SPEC, seed, seats, chooser_seed=chooser, each_step=every_few)


def test_resample_changes_only_the_draw_order() -> None:
    state = ten.SPEC.new(4, 3)
    assert isinstance(state, TenState)
    other = state.resample_hidden(0, random.Random(1))
    assert other.draw_pile != state.draw_pile
    assert sorted(other.draw_pile) == sorted(state.draw_pile)
    snap, osnap = state.snapshot(), other.snapshot()
    del snap["draw_pile"], osnap["draw_pile"]
    assert snap == osnap
    # the copy is independent of the original
    other.collected[0].append("R1")
    other.market.append("B2")
    assert state.collected[0] != other.collected[0] and state.market != other.market


def test_clone_plays_on_like_the_original() -> None:
    state, actions = random_playout(ten.SPEC, 9, 4, chooser_seed=3)
    start = ten.SPEC.new(9, 4)
    half = len(actions) // 2
    for seat, action in actions[:half]:
        start.apply(seat, action)
    copy = start.clone()
    for seat, action in actions[half:]:
        copy.apply(seat, action)
    assert canonical(copy.snapshot()) == canonical(state.snapshot())
    assert canonical(copy.log) == canonical(state.log)
    assert not start.is_over()


def test_scoring_matches_brute_force_on_random_holdings() -> None:
    from tests.games.test_ten import brute_force_score

    rng = random.Random(5)
    wilds = ["R*", "B*", "O*", "G*", "#", *(f"*{n}" for n in range(1, 10))]
    numbers = [f"{c}{n}" for c in "RBOG" for n in range(1, 10)]
    for _ in range(150):
        cards = rng.sample(numbers, rng.randrange(0, 16)) + rng.sample(wilds, rng.randrange(0, 4))
        assert ten.score_cards(cards) == brute_force_score(cards), cards


def candidate_actions() -> list[Action]:
    """Every action of every decision, legal or not, plus some malformed ones."""
    codes = sorted(ten.CARDS)
    return [
        "draw",
        "take_numbers",
        "take_currency",
        "pass",
        "none",
        "token",
        "bust",
        "stop",
        None,
        1,
        {"bid": True},
        *({"bid": k} for k in range(0, 45)),
        *({"buy": c} for c in codes),
        *({"card": c} for c in codes),
    ]


@settings(max_examples=6, deadline=None)
@given(seed=seeds, seats=seat_counts, chooser=seeds)
def test_legal_lists_are_exact(seed: int, seats: int, chooser: int) -> None:
    """At sampled positions every legal action applies and every other candidate raises."""
    candidates = candidate_actions()
    steps = [0]

    def probe(state: State) -> None:
        steps[0] += 1
        if steps[0] % 23 or state.is_over():
            return
        (seat,) = state.to_move()
        legal = state.legal(seat)
        for action in candidates:
            trial = state.clone()
            if action in legal and well_formed(action):
                trial.apply(seat, action)
            else:
                with pytest.raises(IllegalActionError):
                    trial.apply(seat, action)
        for other in range(state.seats):
            if other != seat:
                with pytest.raises(IllegalActionError):
                    state.clone().apply(other, legal[0])

    random_playout(ten.SPEC, seed, seats, chooser_seed=chooser, each_step=probe)


@settings(max_examples=5, deadline=None)
@given(seed=seeds, seats=seat_counts)
def test_every_event_has_a_readable_line(seed: int, seats: int) -> None:
    state, _ = random_playout(ten.SPEC, seed, seats, chooser_seed=seed)
    for event in state.public_events():
        line = TenState.describe(event)
        assert line and line != str(event), event
