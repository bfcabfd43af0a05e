"""The lay-down search against an independent brute force.

The brute force here shares nothing with the rules module but the card strings: it tries every
sub-multiset of the hand as each group of the phase. Two checks:

* for many random 11-card hands, "the phase may be laid" (``{"lay": k}`` offered) agrees with
  the exhaustive search, under each option that changes it;
* for many smaller hands, the complete lay-downs reachable through the step-by-step decision
  are exactly the lay-downs the brute force finds, and no step is a dead end.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import combinations

import pytest

from arena.games import Action
from arena.games.phase10 import LayDown, Phase10State, Step
from arena.games.phase10_groups import Group
from tests.games.test_phase10_helpers import build

GROUPS = {
    1: (("set", 3), ("set", 3)),
    2: (("set", 3), ("run", 4)),
    3: (("set", 4), ("run", 4)),
    4: (("run", 7),),
    5: (("run", 8),),
    6: (("run", 9),),
    7: (("set", 4), ("set", 4)),
    8: (("colour", 7),),
    9: (("set", 5), ("set", 2)),
    10: (("set", 5), ("set", 3)),
}

Laid = tuple[object, ...]


def num(card: str) -> int:
    return int(card[1:])


def naturals(cards: Sequence[str]) -> list[str]:
    return [c for c in cards if c != "W"]


def shapes(kind: str, size: int, cards: Sequence[str], need_natural: bool) -> list[Laid]:
    """Every way ``cards`` (all of them) form one group of ``kind``: canonical descriptions."""
    if len(cards) < size or "S" in cards:
        return []
    nats = naturals(cards)
    if need_natural and not nats:
        return []
    wilds = len(cards) - len(nats)
    if kind == "set":
        numbers = {num(c) for c in nats}
        if len(numbers) > 1:
            return []
        keys = numbers or set(range(1, 13))
        return [("set", n, tuple(sorted(cards))) for n in sorted(keys)]
    if kind == "colour":
        colours = {c[0] for c in nats}
        if len(colours) > 1:
            return []
        keys_c = colours or set("RBGY")
        return [("colour", c, tuple(sorted(cards))) for c in sorted(keys_c)]
    values = sorted(num(c) for c in nats)
    if len(set(values)) < len(values):
        return []
    out: list[Laid] = []
    for lo in range(1, 14 - len(cards)):
        hi = lo + len(cards) - 1
        if all(lo <= v <= hi for v in values):
            by_value = {num(c): c for c in nats}
            order = tuple(by_value.get(v, "W") for v in range(lo, hi + 1))
            assert order.count("W") == wilds
            out.append(("run", lo, order))
    return out


def sub_multisets(cards: Sequence[str], least: int) -> Iterator[tuple[tuple[str, ...], list[str]]]:
    """Each distinct sub-multiset of at least ``least`` cards, with what is left."""
    seen: set[tuple[str, ...]] = set()
    for size in range(least, len(cards) + 1):
        for picked in combinations(range(len(cards)), size):
            chosen = tuple(sorted(cards[i] for i in picked))
            if chosen in seen:
                continue
            seen.add(chosen)
            rest = [cards[i] for i in range(len(cards)) if i not in picked]
            yield chosen, rest


def brute_lay_downs(
    phase: int, hand: Sequence[str], keep: int = 0, per_phase: bool = False
) -> set[tuple[Laid, ...]]:
    """Every complete lay-down of ``phase`` from ``hand`` (groups in the phase's order)."""
    found: set[tuple[Laid, ...]] = set()

    def extend(index: int, cards: list[str], laid: tuple[Laid, ...], natural: bool) -> None:
        if index == len(GROUPS[phase]):
            if len(cards) >= keep and (natural or not per_phase):
                found.add(laid)
            return
        kind, size = GROUPS[phase][index]
        for chosen, rest in sub_multisets(cards, size):
            for shape in shapes(kind, size, chosen, not per_phase):
                extend(index + 1, rest, (*laid, shape), natural or bool(naturals(chosen)))

    extend(0, list(hand), (), False)
    return found


def brute_can_lay(phase: int, hand: Sequence[str], keep: int, per_phase: bool) -> bool:
    return bool(brute_lay_downs(phase, hand, keep, per_phase))


# -- random hands that often hold a phase ----------------------------------------------------


def random_hand(rng: random.Random, size: int) -> list[str]:
    """A hand drawn from a narrowed deck: a few numbers, a few colours, some Wilds and Skips."""
    low = rng.randint(1, 12)
    numbers = range(low, min(12, low + rng.randint(2, 9)) + 1)
    colours = rng.sample("RBGY", rng.randint(1, 4))
    pool = [f"{c}{n}" for c in colours for n in numbers for _ in range(2)]
    pool += ["W"] * rng.choice((0, 1, 2, 3, 4, 6, 8)) + ["S"] * rng.randint(0, 1)
    if len(pool) < size or rng.random() < 0.3:  # sometimes the whole deck
        pool = [f"{c}{n}" for c in "RBGY" for n in range(1, 13) for _ in range(2)]
        pool += ["W"] * 8 + ["S"] * 4
    return rng.sample(pool, size)


def wild_hand(rng: random.Random, size: int) -> list[str]:
    """Many Wilds, naturals of one or two numbers, Skips: where the natural-card rule bites."""
    hand = ["W"] * rng.randint(4, 8)
    first, second = rng.sample(range(1, 13), 2)
    hand += [f"{c}{first}" for c in rng.sample("RBGY", rng.randint(1, 3))]
    hand += ["S"] * min(4, size - len(hand))
    colours = iter(rng.sample("RBGY" * 2, 8))
    while len(hand) < size:
        hand.append(f"{next(colours)}{second}")
    return hand[:size]


def planted_hand(rng: random.Random, phase: int, extra: int) -> list[str]:
    """A hand holding one lay-down of ``phase`` (Wilds sprinkled in) and ``extra`` more cards."""
    deck = [f"{c}{n}" for c in "RBGY" for n in range(1, 13) for _ in range(2)]
    deck += ["W"] * 8 + ["S"] * 4
    rng.shuffle(deck)
    hand: list[str] = []

    def take(card: str) -> None:
        if rng.random() < 0.2 and "W" in deck:
            card = "W"
        if card not in deck:
            card = "W" if "W" in deck else deck[-1]
        deck.remove(card)
        hand.append(card)

    for kind, size in GROUPS[phase]:
        if kind == "set":
            n = rng.randint(1, 12)
            for _ in range(size):
                take(f"{rng.choice('RBGY')}{n}")
        elif kind == "run":
            lo = rng.randint(1, 13 - size)
            for v in range(lo, lo + size):
                take(f"{rng.choice('RBGY')}{v}")
        else:
            c = rng.choice("RBGY")
            for _ in range(size):
                take(f"{c}{rng.randint(1, 12)}")
    hand.extend(deck[:extra])
    return hand


def state_for(
    phase: int, hand: Sequence[str], final_discard: bool, per_phase: bool
) -> Phase10State:
    options = {"final_discard": final_discard, "natural_per_phase": per_phase}
    return build(2, {0: list(hand)}, options=options, discard=(), done={0: list(range(1, phase))})


@pytest.mark.parametrize(
    ("final_discard", "per_phase"), [(False, False), (True, False), (False, True)]
)
def test_phase_detection_agrees_with_brute_force(final_discard: bool, per_phase: bool) -> None:
    rng = random.Random(f"detect {final_discard} {per_phase}")
    outcomes = {True: 0, False: 0}
    for trial in range(180):
        phase = rng.randint(1, 10)
        if trial % 3 == 0:
            hand = random_hand(rng, 11)
        elif trial % 3 == 1:
            hand = planted_hand(rng, phase, 11)[:11]
        else:
            hand = wild_hand(rng, 11)
        expected = brute_can_lay(phase, hand, 1 if final_discard else 0, per_phase)
        state = state_for(phase, hand, final_discard, per_phase)
        offered = {"lay": phase} in state.legal(0)
        assert offered == expected, (trial, phase, sorted(hand))
        outcomes[expected] += 1
    assert min(outcomes.values()) >= 30, outcomes  # both answers were really exercised


def copy_lay(lay: LayDown | None) -> LayDown | None:
    if lay is None:
        return None
    groups = [Group(g.owner, g.kind, g.key, list(g.cards)) for g in lay.groups]
    opened = lay.open
    return LayDown(
        lay.phase,
        groups,
        None
        if opened is None
        else Group(opened.owner, opened.kind, opened.key, list(opened.cards)),
    )


def step_lay_downs(state: Phase10State, seat: int) -> set[tuple[Laid, ...]]:
    """Every complete lay-down reachable through the ``lay`` steps; asserts no dead end."""
    found: set[tuple[Laid, ...]] = set()
    visited: set[tuple[object, ...]] = set()
    first = len(state.table)

    def explore() -> None:
        if state.laying is None:
            laid = []
            for group in state.table[first:]:
                data = group.to_json(None)
                if data["kind"] == "run":
                    laid.append(("run", data["lo"], tuple(group.cards)))
                elif data["kind"] == "set":
                    laid.append(("set", data["n"], tuple(sorted(group.cards))))
                else:
                    laid.append(("colour", data["c"], tuple(sorted(group.cards))))
            found.add(tuple(laid))
            return
        lay = state.laying
        groups = [*lay.groups, *([lay.open] if lay.open else [])]
        shape = tuple(
            (g.kind, g.key, tuple(g.cards if g.kind == "run" else sorted(g.cards))) for g in groups
        )
        key = (tuple(sorted(state.hands[seat])), lay.open is None, shape)
        if key in visited:  # the same cards reached in another order
            return
        visited.add(key)
        legal = state.legal(seat)
        assert legal, f"dead end while laying: {state.laying.to_json()} hand {state.hands[seat]}"
        saved = (list(state.hands[seat]), copy_lay(state.laying), len(state.log))
        for action in legal:
            state.apply(seat, action)
            explore()
            hand, laying, log = saved
            state.hands[seat] = list(hand)
            state.laying = copy_lay(laying)
            del state.table[first:]
            state.step, state.laid[seat], state.laid_this_turn = Step.LAY, None, False
            del state.log[log:]
            state._legal = None

    explore()
    return found


@pytest.mark.parametrize(
    ("per_phase", "final_discard"),
    [(False, False), (True, False), (False, True)],
    ids=["per_group", "per_phase", "final_discard"],
)
def test_every_lay_down_is_reachable_step_by_step(per_phase: bool, final_discard: bool) -> None:
    rng = random.Random(f"steps {per_phase} {final_discard}")
    checked = 0
    most = 0
    for _ in range(30):
        phase = rng.randint(1, 10)
        hand = planted_hand(rng, phase, rng.randint(0, 2))[:9]
        keep = 1 if final_discard else 0
        expected = brute_lay_downs(phase, hand, keep, per_phase)
        if not expected or "S" in hand:
            continue
        # Without final_discard, a Skip is kept back so that laying down never empties the
        # hand (that would end it, and the search could not go on from there).
        held = hand if final_discard else [*hand, "S"]
        state = state_for(phase, held, final_discard, per_phase)
        state.apply(0, {"lay": phase})
        state.hands[0] = sorted(state.hands[0])
        reached = step_lay_downs(state, 0)
        assert reached == expected, (phase, sorted(hand), expected ^ reached)
        checked += 1
        most = max(most, len(expected))
    assert checked >= 15 and most >= 5, (checked, most)


def test_brute_force_sees_known_answers() -> None:
    assert brute_can_lay(1, ["R5", "B5", "W", "R7", "B7", "Y7"], 0, False)
    assert brute_can_lay(1, ["W", "W", "W", "W", "R7", "B7"], 0, False)
    assert not brute_can_lay(1, ["W", "W", "W", "W", "W", "R7"], 0, False)
    assert brute_can_lay(1, ["W", "W", "W", "W", "W", "R7"], 0, True)
    assert not brute_can_lay(1, ["W", "W", "W", "W", "W", "R7"], 1, True)
    assert not brute_can_lay(4, ["R11", "R12", "B1", "B2", "B3", "B4", "W"], 0, False)
    assert brute_lay_downs(4, ["R2", "R3", "R4", "R5", "R6", "R7", "W"]) == {
        (("run", 1, ("W", "R2", "R3", "R4", "R5", "R6", "R7")),),
        (("run", 2, ("R2", "R3", "R4", "R5", "R6", "R7", "W")),),
    }


def test_many_lay_downs_but_short_lists() -> None:
    # Two sets from four 5s, four 7s and three Wilds: 1,904 distinct complete lay-downs (one
    # legal list of whole lay-downs would hold them all), yet each step offers a handful.
    hand = ["R5", "B5", "G5", "Y5", "R7", "B7", "G7", "Y7", "W", "W", "W"]
    expected = brute_lay_downs(1, hand)
    assert len(expected) == 1904
    state = state_for(1, [*hand, "S"], False, False)
    state.apply(0, {"lay": 1})
    sizes: list[int] = []
    original = state.legal

    def measured(seat: int) -> list[Action]:
        legal = original(seat)
        sizes.append(len(legal))
        return legal

    state.legal = measured  # type: ignore[method-assign]
    assert step_lay_downs(state, 0) == expected
    assert max(sizes) <= 8, max(sizes)
