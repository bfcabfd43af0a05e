"""The bundled heuristic's play (bots/heuristic/phase10.py) on a fast hand: the opponents'
model in the playouts.

The opponents the reference bot meets most are the bundled heuristic; a search whose playouts
model them by another policy misjudges them (they take from the discard pile far more often than
the reference's own policy would, so what one discards feeds them more). So the playouts play
the other seats by the heuristic's own rules, ported decision by decision on plain lists: its
measure of progress (the same arithmetic, on the hand in the rules' order, which its tie-breaks
depend on), when it takes the discard pile's top, its hits (the first natural card that fits,
group by group), its Skip's target (the seat with the most phases done, then the fewest cards)
and its discards. Its lay-down (greedy, step by step) is approximated by the fast model's
builder: the same cards end up on the table once the rest is hit. A test checks the port picks
what the heuristic picks, decision by decision.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from .rules.phase10_groups import COLOURS, NUMBERS, ORDER, SKIP, WILD, full_deck

if TYPE_CHECKING:
    from .fast import Hand

SETS_AND_RUNS: dict[int, tuple[tuple[str, int], ...]] = {
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
"""The phases as the heuristic spells them."""
SET_SIZES: dict[int, list[int]] = {
    p: sorted((size for kind, size in needs if kind == "set"), reverse=True)
    for p, needs in SETS_AND_RUNS.items()
}
NUMBER: dict[str, int] = {c: NUMBERS[c] for c in full_deck()}
COLOUR_INDEX: dict[str, int] = {c: COLOURS.index(c[0]) + 1 for c in full_deck() if len(c) > 1}

_memo: dict[str, float] = {}
"""Progress by phase and hand, keyed by a string: a string (and a float) is no object the
cyclic garbage collector tracks, and tuple keys made its full collections take seconds."""


def number(card: str) -> int:
    return int(card[1:]) if len(card) > 1 else 0


def points(card: str) -> int:
    if card == WILD:
        return 25
    if card == SKIP:
        return 15
    return 5 if number(card) <= 9 else 10


def run_present(numbers: set[int], size: int) -> tuple[int, int]:
    best, start = -1, 1
    for lo in range(1, 14 - size):
        present = sum(1 for v in range(lo, lo + size) if v in numbers)
        if present > best:
            best, start = present, lo
    return best, start


def progress(phase: int, hand: tuple[str, ...]) -> float:
    """The heuristic's ``progress`` (memoised): how close ``hand``, in its order, is to
    ``phase``."""
    key = str(phase) + "".join(hand)  # unambiguous: every card starts with a letter
    found = _memo.get(key)
    if found is None:
        found = _progress(phase, hand)
        if len(_memo) > 300_000:
            _memo.clear()
        _memo[key] = found
    return found


def _progress(phase: int, hand: tuple[str, ...]) -> float:
    """The heuristic's arithmetic on counts: the same numbers (its tie-break, the number first
    seen in the hand among the most common, included)."""
    needs = SETS_AND_RUNS[phase]
    wilds = 0
    if needs[0][0] == "colour":
        by_colour = [0, 0, 0, 0, 0]
        for card in hand:
            if len(card) > 1:
                by_colour[COLOUR_INDEX[card]] += 1
            elif card == WILD:
                wilds += 1
        best = max(by_colour)
        return -max(0, needs[0][1] - best - wilds) * 10.0 + best * 0.5
    count = [0] * 13
    first = [99] * 13
    for at, card in enumerate(hand):
        n = NUMBER[card]
        if n:
            if not count[n]:
                first[n] = at
            count[n] += 1
        elif card == WILD:
            wilds += 1
    sets = SET_SIZES[phase]
    counts = sorted((c for c in count if c), reverse=True)
    missing = 0
    bonus = 0.0
    for index, size in enumerate(sets):
        have = counts[index] if index < len(counts) else 0
        missing += max(0, size - have)
        bonus += min(have, size)
    used = 0
    if sets and counts:
        used = min((n for n in range(1, 13) if count[n] == counts[0]), key=first.__getitem__)
    for kind, size in needs:
        if kind == "run":
            flags = [1 if count[v] and v != used else 0 for v in range(13)]
            present = max(sum(flags[lo : lo + size]) for lo in range(1, 14 - size))
            missing += size - present
            bonus += present
    return -max(0, missing - wilds) * 10 + bonus * 0.1


def _progress_slow(phase: int, hand: tuple[str, ...]) -> float:
    """The heuristic's ``progress`` as it is written (the test's reference)."""
    wilds = hand.count(WILD)
    naturals = [c for c in hand if len(c) > 1]
    needs = SETS_AND_RUNS[phase]
    missing = 0
    if needs[0][0] == "colour":
        by_colour = Counter(c[0] for c in naturals)
        best = max(by_colour.values(), default=0)
        missing = max(0, needs[0][1] - best)
        return -max(0, missing - wilds) * 10.0 + best * 0.5
    by_number = Counter(number(c) for c in naturals)
    bonus = 0.0
    sets = sorted((size for kind, size in needs if kind == "set"), reverse=True)
    counts = sorted(by_number.values(), reverse=True)
    used_numbers: set[int] = set()
    for index, size in enumerate(sets):
        have = counts[index] if index < len(counts) else 0
        missing += max(0, size - have)
        bonus += min(have, size)
    top = [n for n, _ in by_number.most_common(len(sets))]
    used_numbers.update(top)
    for kind, size in needs:
        if kind == "run":
            present, _ = run_present(set(by_number) - (used_numbers if sets else set()), size)
            missing += size - present
            bonus += present
    return -max(0, missing - wilds) * 10 + bonus * 0.1


def in_order(cards: list[str]) -> tuple[str, ...]:
    """The cards as the rules keep a hand (by colour, then number; Wilds, then Skips)."""
    return tuple(sorted(cards, key=ORDER.__getitem__))


def wants_top(play: Hand) -> bool:
    """Whether the heuristic, to move, takes the discard pile's top."""
    if not play.can_take():
        return False
    if not play.can_draw():
        return True
    top = play.discard_pile[-1]
    if top == WILD:
        return True
    seat = play.turn
    if play.laid[seat]:
        return any(g.fits(top) for g in play.table)
    phase = play.phase[seat]
    if phase is None:
        return False
    hand = in_order(play.hands[seat])
    before = progress(phase, hand)
    after = max(
        progress(phase, (*(c for c in hand if c != drop), top)) for drop in dict.fromkeys(hand)
    )
    return after > before + 0.05


def hit(play: Hand) -> tuple[int, str, str | None] | None:
    """The heuristic's next hit, if any: the first natural card (in the hand's order) that fits
    a group (the groups in their order), else the first Wild that does; a run's low end first."""
    hand = list(dict.fromkeys(in_order(play.hands[play.turn])))
    first: tuple[int, str, str | None] | None = None
    for gid, group in enumerate(play.table):
        for card in hand:
            ends = group.ends(card)
            if not ends:
                continue
            if card != WILD:
                return gid, card, ends[0]
            if first is None:
                first = gid, card, ends[0]
    return first


def discard(play: Hand) -> tuple[str, int | None]:
    """The heuristic's discard: a Skip at the seat with the most phases done (then the fewest
    cards); once down, the highest card no group takes; before, the card whose loss costs its
    progress least (never a Wild if it can help it), highest points first."""
    seat = play.turn
    hand = in_order(play.hands[seat])
    if SKIP in hand:
        targets = play.skip_targets() if len(hand) > 1 else []
        if not targets:
            return SKIP, None
        return SKIP, max(targets, key=lambda t: (play.done[t], -len(play.hands[t])))
    cards = list(dict.fromkeys(hand))
    if play.laid[seat]:

        def cost(card: str) -> tuple[int, int, int]:
            hittable = any(g.fits(card) for g in play.table)
            return (1 if card == WILD else 0, 1 if hittable else 0, -points(card))

        return min(cards, key=cost), None
    phase = play.phase[seat]
    if phase is None:
        return max(cards, key=points), None

    def keep_value(card: str) -> tuple[float, int]:
        rest = list(hand)
        rest.remove(card)
        wild = 100.0 if card == WILD else 0.0
        return (wild - progress(phase, tuple(rest)), -points(card))

    return min(cards, key=keep_value), None
