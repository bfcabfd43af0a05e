"""One hand of Phase 10 on plain lists, and the playout policy that plays it.

The rules' ``State`` is exact but slow for playouts (every legal list is computed through the
feasibility search, every lay-down goes group by group, card by card). :class:`Hand` keeps what a
hand needs (hands, piles, the groups on the table, who laid down, whose turn, the Skips waiting)
and moves by whole turns' worth of coarse actions: draw or take, lay a whole phase, hit, discard.
Each move does what the rules do (reshuffle when the draw pile runs out, go out on an empty hand,
skip a seat with a Skip waiting, end the hand at the turn cap or when no seat can draw); a test
plays hands in both, step for step, and checks they agree. Whether a phase can be laid is the
rules' own feasibility search (``fits_phase``), and every lay-down the policy builds is checked
against the rules' lay steps by that test too.

Only the default rules of a hand are modelled (no final discard, no "Skip the next seat", one
natural card per group, hits on others' groups the turn one lays down); the search asks
:func:`supported` before it uses this model.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from . import model
from .rules.phase10_groups import (
    COLOURS,
    NUMBERS,
    PHASES,
    SKIP,
    TOP,
    WILD,
    Req,
    by_colour,
    fits_phase,
    points,
    pool_of,
)

NUM: dict[str, int] = dict(NUMBERS)
"""A card's number (0 for a Wild or a Skip)."""
COL: dict[str, int] = {c: (COLOURS.index(c[0]) + 1 if len(c) > 1 else 0) for c in NUMBERS}
"""A card's colour index 1..4 (0 for a Wild or a Skip)."""
PTS: dict[str, int] = {c: points(c) for c in NUMBERS}
SIZES: dict[int, tuple[tuple[str, int], ...]] = {
    p: tuple((str(n.kind), n.size) for n in needs) for p, needs in PHASES.items()
}
COLOURED: dict[int, bool] = {p: by_colour(p) for p in PHASES}
DEFAULTS: dict[str, Any] = {
    "final_discard": False,
    "skip_next": False,
    "natural_per_phase": False,
    "all_advance": False,
    "pick_phase": False,
    "hit_others_same_turn": True,
}
"""The options this model plays by (the others, caps and the phase sequence, it reads)."""


def supported(options: Mapping[str, Any]) -> bool:
    """Whether the match's options are ones this model plays by."""
    return all(options.get(k, v) == v for k, v in DEFAULTS.items())


SKIP_DONE = 1.0
"""A Skip target's threat grows by this much per phase it has completed (the game is won by
phases: Skip the leader of the game, not only the seat closest to ending the hand). Measured, 3,000
paired in-process games, on top of ``DENY``: +0.9 points ± 1.3, not significant (alone, before
``DENY``: +1.0 ± 1.35; 0.3 instead of 1.0: +0.8 ± 1.35)."""

DENY = 0.5
"""Before laying down, with the next seat not down and playing a phase that starts with a set (or
a colour group), a card of a number (colour) it is known to hold (``known``: it took one from
the discard pile) counts as this much more needed: the bundled heuristic takes the top when it
raises its progress, and a second card of a number it collects does (measured, 3,000 paired
in-process games: +1.4 points ± 1.0; 1.5 instead of 0.5 the same, +0.03 ± 0.15)."""

DENY_DOWN = 0.5
"""Once down, among the cards it cannot hit, a card the next seat (not down) would likely take
from the discard pile is discarded after the others of the same worth (Deny once down: the game
is won by phases before points; measured, 3,000 paired in-process games on each of two seed
ranges: +0.93 ± 0.75 and +1.50 ± 0.80 points of win rate)."""

FEED = 0.5
"""Before laying down, a card the next seat could take and hit counts as this much more
needed (giving it away brings that seat closer to going out)."""


# -- how far a hand is from its phase ---------------------------------------------------------


def counts_of(hand: list[str], coloured: bool) -> list[int]:
    """The hand as (Wilds, then per number 1..12 or per colour 1..4) counts; Skips left out."""
    counts = [0] * (5 if coloured else TOP + 1)
    table = COL if coloured else NUM
    for card in hand:
        if card == WILD:
            counts[0] += 1
        elif card != SKIP:
            counts[table[card]] += 1
    return counts


_missing: dict[bytes, int] = {}
"""Memoised :func:`missing`, keyed by bytes (no object the cyclic garbage collector tracks)."""


def missing(phase: int, counts: list[int]) -> int:
    """The cards the hand still lacks for ``phase`` after its Wilds stand in (0: about ready;
    the rules' feasibility search has the last word). Memoised."""
    if COLOURED[phase] or (SIZES[phase][0][0] == "set" and SIZES[phase][1][0] == "set"):
        return max(0, _lacking(phase, counts) - counts[0])
    key = bytes([phase, *counts])
    found = _missing.get(key)
    if found is None:
        found = max(0, _lacking(phase, counts) - counts[0])
        if len(_missing) > 200_000:
            _missing.clear()
        _missing[key] = found
    return found


def _lacking(phase: int, c: list[int]) -> int:
    needs = SIZES[phase]
    if COLOURED[phase]:
        return needs[0][1] - max(c[1:])
    kinds = [k for k, _ in needs]
    if kinds == ["set", "set"]:
        top = sorted(c[1:], reverse=True)
        return max(0, needs[0][1] - top[0]) + max(0, needs[1][1] - top[1])
    flags = [1 if x else 0 for x in c]
    if kinds == ["run"]:
        size = needs[0][1]
        return size - max(sum(flags[lo : lo + size]) for lo in range(1, TOP - size + 2))
    # a set, then a run: the run takes one card of each number in its window, the set the rest
    # of one number (a number in the window gives the set one card fewer, or the run a Wild)
    setsize, runsize = needs[0][1], needs[1][1]
    best = 99
    for lo in range(1, TOP - runsize + 2):
        hi = lo + runsize
        run_missing = runsize - sum(flags[lo:hi])
        outside = max(max(c[1:lo], default=0), max(c[hi:], default=0))
        inside = max(c[lo:hi]) - 1
        best = min(best, run_missing + max(0, setsize - max(outside, inside)))
    return best


def _present(c: list[int], lo: int, size: int) -> int:
    return sum(1 for v in range(lo, lo + size) if c[v])


def count_outs(phase: int, counts: list[int], lack: int, unseen: list[int]) -> int:
    """How many unseen cards would bring the hand (as ``counts``) closer to ``phase``."""
    if not lack:
        return 0
    found = unseen[0]
    for i in range(1, len(counts)):
        if unseen[i]:
            counts[i] += 1
            if missing(phase, counts) < lack:
                found += unseen[i]
            counts[i] -= 1
    return found


def hand_missing(phase: int, hand: list[str]) -> int:
    return missing(phase, counts_of(hand, COLOURED[phase]))


# -- a lay-down -------------------------------------------------------------------------------

Layout = list[tuple[str, int, list[str]]]
"""A phase laid down: per group in the phase's order, its kind, its key (the set's number, the
run's lowest number, the colour's index) and its cards (a run's lowest first)."""


def can_lay(phase: int, hand: list[str]) -> bool:
    """The rules' own answer: whether ``hand`` can lay ``phase`` down (default options)."""
    reqs = tuple(Req(n.kind, 0, n.size, True) for n in PHASES[phase])
    return fits_phase(reqs, pool_of(hand, COLOURED[phase]), 0, False)


def layout(phase: int, hand: list[str]) -> Layout | None:
    """A lay-down of ``phase`` from ``hand`` that lays every natural card that fits and as few
    Wilds as it can (the Wilds left are hit afterwards), or None if this simple builder finds
    none."""
    needs = SIZES[phase]
    wilds = hand.count(WILD)
    if COLOURED[phase]:
        c = counts_of(hand, True)
        key = max(range(1, 5), key=lambda k: (c[k], -k))
        extra = max(0, needs[0][1] - c[key])
        if not c[key] or extra > wilds:
            return None
        cards = [x for x in hand if COL[x] == key] + [WILD] * extra
        return [("colour", key, cards)]
    c = counts_of(hand, False)
    kinds = [k for k, _ in needs]
    if kinds == ["set", "set"]:
        return _sets(needs[0][1], needs[1][1], c, hand, wilds)
    if kinds == ["run"]:
        built = _run(needs[0][1], c, hand, wilds)
        return None if built is None else [built[0]]
    return _set_run(needs[0][1], needs[1][1], c, hand, wilds)


def _sets(a: int, b: int, c: list[int], hand: list[str], wilds: int) -> Layout | None:
    best: tuple[int, int, int, int] | None = None
    for i in range(1, TOP + 1):
        if not c[i]:
            continue
        for j in range(1, TOP + 1):
            if not c[j] or j == i:
                continue
            need = max(0, a - c[i]) + max(0, b - c[j])
            if need > wilds:
                continue
            score = (need, -(c[i] + c[j]), i, j)
            if best is None or score < best:
                best = score
    if best is None:
        return None
    _, _, i, j = best
    first = [x for x in hand if NUM[x] == i] + [WILD] * max(0, a - c[i])
    second = [x for x in hand if NUM[x] == j] + [WILD] * max(0, b - c[j])
    return [("set", i, first), ("set", j, second)]


def _run(
    size: int, c: list[int], hand: list[str], wilds: int
) -> tuple[tuple[str, int, list[str]], int] | None:
    """The run (and the Wilds it uses): the window with the most numbers present, lowest first,
    then stretched over the numbers present either side."""
    best_lo, best_gap = 0, size + 1
    for lo in range(1, TOP - size + 2):
        gap = size - _present(c, lo, size)
        if gap < best_gap:
            best_lo, best_gap = lo, gap
    if best_gap > wilds or best_gap >= size:
        return None
    lo, hi = best_lo, best_lo + size - 1
    while hi < TOP and c[hi + 1]:
        hi += 1
    while lo > 1 and c[lo - 1]:
        lo -= 1
    spare = list(hand)
    cards = []
    for v in range(lo, hi + 1):
        card = next((x for x in spare if NUM[x] == v), WILD)
        spare.remove(card)
        cards.append(card)
    return ("run", lo, cards), best_gap


def _set_run(
    setsize: int, runsize: int, c: list[int], hand: list[str], wilds: int
) -> Layout | None:
    best: tuple[int, int, int] | None = None
    for n in range(1, TOP + 1):
        if not c[n]:
            continue
        for give in (0, 1):  # copies of n kept back for the run
            if give > c[n] - 1:
                continue
            rest = list(c)
            rest[n] -= c[n] - give
            set_wilds = max(0, setsize - (c[n] - give))
            if set_wilds > wilds:
                continue
            built = _run(runsize, rest, hand, wilds - set_wilds)
            if built is None:
                continue
            score = (set_wilds + built[1], -(c[n] - give), n)
            if best is None or score[:2] < best[:2]:
                best = (score[0], score[1], n * 2 + give)
    if best is None:
        return None
    n, give = divmod(best[2], 2)
    taken = c[n] - give
    set_cards = [x for x in hand if NUM[x] == n][:taken]
    set_wilds = max(0, setsize - taken)
    set_cards += [WILD] * set_wilds
    spare = list(hand)
    for x in set_cards:
        spare.remove(x)
    rest = counts_of(spare, False)
    built = _run(runsize, rest, spare, wilds - set_wilds)
    if built is None:
        return None
    return [("set", n, set_cards), built[0]]


# -- the hand ---------------------------------------------------------------------------------


class Group:
    """A group on the table: kind, key (a run's lowest number), a run's highest, its cards."""

    __slots__ = ("cards", "high", "key", "kind", "owner")

    def __init__(self, owner: int, kind: str, key: int, cards: list[str]) -> None:
        self.owner = owner
        self.kind = kind
        self.key = key
        self.cards = cards
        self.high = key + len(cards) - 1

    def ends(self, card: str) -> list[str | None]:
        """Where ``card`` may be hit on this group (as the rules' ``hit_ends``)."""
        if card == SKIP:
            return []
        if self.kind == "set":
            return [None] if card == WILD or NUM[card] == self.key else []
        if self.kind == "colour":
            return [None] if card == WILD or COL[card] == self.key else []
        found: list[str | None] = []
        if self.key > 1 and (card == WILD or NUM[card] == self.key - 1):
            found.append("low")
        if self.high < TOP and (card == WILD or NUM[card] == self.high + 1):
            found.append("high")
        return found

    def fits(self, card: str) -> bool:
        return bool(self.ends(card))

    def to_json(self, gid: int) -> dict[str, Any]:
        data: dict[str, Any] = {"owner": self.owner, "kind": self.kind, "id": gid}
        if self.kind == "set":
            data["n"] = self.key
        elif self.kind == "run":
            data["lo"] = self.key
            data["hi"] = self.high
        else:
            data["c"] = COLOURS[self.key - 1]
        data["cards"] = list(self.cards)
        return data


class Hand:
    """A hand in play, on plain lists. ``phase[s]`` is the phase seat ``s`` plays this hand
    (None: it has none left), ``laid[s]`` whether it laid it down."""

    def __init__(
        self,
        hands: list[list[str]],
        draw: list[str],
        discard: list[str],
        table: list[Group],
        phase: list[int | None],
        laid: list[bool],
        skip_waiting: list[bool],
        active: list[int],
        turn: int,
        turns: int,
        max_turns: int | None,
        laid_this_turn: bool,
        rng: random.Random,
    ) -> None:
        self.hands = hands
        self.draw_pile = draw
        self.discard_pile = discard
        self.table = table
        self.phase = phase
        self.laid = laid
        self.skip_waiting = skip_waiting
        self.active = active
        self.turn = turn
        self.turns = turns
        self.max_turns = max_turns
        self.laid_this_turn = laid_this_turn
        self.rng = rng
        self.over = False
        self.out: int | None = None
        self.modelled: list[bool] = [False] * len(hands)
        """The seats played by the bundled heuristic's rules (:mod:`.model`), not the policy."""
        self.done: list[int] = [0] * len(hands)
        """Phases each seat has completed before this hand (the heuristic's Skip target)."""
        self.known: list[list[str]] = [[] for _ in hands]
        """Cards each seat is known to hold (taken from the discard pile): the Deny rule's
        evidence (set from the observation; empty in playouts)."""

    @classmethod
    def from_world(cls, world: Any, rng: random.Random) -> Hand:
        """The hand of a rules ``Phase10State`` (its hidden cards as dealt there)."""
        return cls(
            [list(h) for h in world.hands],
            list(world.draw_pile),
            list(world.discard_pile),
            [Group(g.owner, str(g.kind), g.key, list(g.cards)) for g in world.table],
            [world._phase_now(s) for s in range(world.seats)],
            [p is not None for p in world.laid],
            list(world.skip_waiting),
            list(world.active),
            world.turn,
            world.turns,
            world.max_turns,
            world.laid_this_turn,
            rng,
        ).counting([len(d) for d in world.done])

    def counting(self, done: list[int]) -> Hand:
        """This hand, knowing the phases each seat has completed."""
        self.done = list(done)
        return self

    def copy(self, hands: list[list[str]], draw: list[str], rng: random.Random) -> Hand:
        """This hand with other hidden cards (``hands``, ``draw``): the table copied."""
        play = Hand(
            [list(h) for h in hands],
            list(draw),
            list(self.discard_pile),
            [Group(g.owner, g.kind, g.key, list(g.cards)) for g in self.table],
            list(self.phase),
            list(self.laid),
            list(self.skip_waiting),
            self.active,
            self.turn,
            self.turns,
            self.max_turns,
            self.laid_this_turn,
            rng,
        )
        play.modelled = self.modelled
        play.done = self.done
        return play

    # -- moves, as the rules make them ---------------------------------------------------

    def can_draw(self) -> bool:
        return bool(self.draw_pile) or len(self.discard_pile) > 1

    def can_take(self) -> bool:
        return bool(self.discard_pile) and self.discard_pile[-1] != SKIP

    def draw(self) -> str:
        """Draw from the draw pile (the discard pile under its top reshuffled when it is
        empty); the card drawn."""
        if not self.draw_pile:
            top = self.discard_pile.pop()
            self.draw_pile = self.discard_pile
            self.rng.shuffle(self.draw_pile)
            self.discard_pile = [top]
        card = self.draw_pile.pop()
        self.hands[self.turn].append(card)
        return card

    def take(self) -> str:
        card = self.discard_pile.pop()
        self.hands[self.turn].append(card)
        return card

    def lay(self, groups: Layout) -> None:
        seat = self.turn
        hand = self.hands[seat]
        for kind, key, cards in groups:
            for card in cards:
                hand.remove(card)
            self.table.append(Group(seat, kind, key, list(cards)))
        self.laid[seat] = True
        self.laid_this_turn = True
        if not hand:
            self.go_out()

    def hit(self, gid: int, card: str, end: str | None) -> None:
        group = self.table[gid]
        self.hands[self.turn].remove(card)
        if end == "low":
            group.key -= 1
            group.cards.insert(0, card)
        else:
            group.cards.append(card)
            group.high += 1
        if not self.hands[self.turn]:
            self.go_out()

    def discard(self, card: str, target: int | None) -> None:
        self.hands[self.turn].remove(card)
        self.discard_pile.append(card)
        if target is not None:
            self.skip_waiting[target] = True
        if not self.hands[self.turn]:
            self.go_out()
        else:
            self.end_turn()

    def go_out(self) -> None:
        self.over = True
        self.out = self.turn

    def next_seat(self, seat: int) -> int:
        active = self.active
        return active[(active.index(seat) + 1) % len(active)]

    def end_turn(self) -> None:
        seat = self.next_seat(self.turn)
        while self.skip_waiting[seat]:
            self.skip_waiting[seat] = False
            seat = self.next_seat(seat)
        if self.max_turns is not None and self.turns >= self.max_turns * len(self.active):
            self.over = True
            return
        self.turns += 1
        self.turn = seat
        self.laid_this_turn = False
        if not self.can_draw() and not self.can_take():
            self.over = True

    def skip_targets(self) -> list[int]:
        return [s for s in self.active if s != self.turn and not self.skip_waiting[s]]

    # -- the policy ----------------------------------------------------------------------

    def wants_top(self) -> bool:
        """Whether the seat to move takes the discard pile's top (the bundled heuristic's
        idea: a Wild, a card it can hit, or one that brings its phase closer)."""
        if not self.can_take():
            return False
        if not self.can_draw():
            return True
        top = self.discard_pile[-1]
        if top == WILD:
            return True
        seat = self.turn
        if self.laid[seat]:
            return any(g.fits(top) for g in self.table)
        phase = self.phase[seat]
        if phase is None:
            return False
        hand = self.hands[seat]
        return hand_missing(phase, [*hand, top]) < hand_missing(phase, hand)

    def lay_and_hit(self) -> None:
        """Lay the phase down if the hand can (with :func:`layout`), then hit every card that
        fits (naturals first), as long as the seat has laid down."""
        seat = self.turn
        hand = self.hands[seat]
        phase = self.phase[seat]
        if not self.laid[seat] and phase is not None and can_lay(phase, hand):
            built = layout(phase, hand)
            if built is not None:
                self.lay(built)
        if not self.laid[seat] or self.over:
            return
        hit = True
        while hit and not self.over:
            hit = False
            for card in sorted(hand, key=lambda x: x == WILD):
                if card == WILD:  # where the hand's next card fits, if there is such a place
                    spot = self.wild_spot(hand)
                    if spot is not None:
                        self.hit(*spot)
                        hit = True
                        break
                for gid, group in enumerate(self.table):
                    ends = group.ends(card)
                    if ends:
                        self.hit(gid, card, ends[-1])
                        hit = True
                        break
                if hit:
                    break

    def discard_order(self, careful: bool = False) -> list[tuple[str, int | None]]:
        """The seat's discards, best first: a Skip at the seat most ahead, then the cards its
        phase (or, once down, the table) needs least, highest points first."""
        seat = self.turn
        hand = self.hands[seat]
        options: list[tuple[str, int | None]] = []
        if SKIP in hand:
            targets = self.skip_targets() if len(hand) > 1 else []
            targets.sort(key=lambda t: (-self.threat(t), t))
            options += [(SKIP, t) for t in targets] or [(SKIP, None)]
        keep = self.keeps(careful)
        options += [(c, None) for c in sorted(keep, key=keep.__getitem__)]
        return options

    def first_discard(self) -> tuple[str, int | None]:
        """The first of :meth:`discard_order`, without ordering the rest."""
        hand = self.hands[self.turn]
        if SKIP in hand:
            targets = self.skip_targets() if len(hand) > 1 else []
            if not targets:
                return SKIP, None
            return SKIP, min(targets, key=lambda t: (-self.threat(t), t))
        keep = self.keeps()
        return min(keep, key=keep.__getitem__), None

    def threat(self, seat: int) -> float:
        """How close ``seat`` is to ending the hand well for it (laid down, few cards left) and
        to winning the game (phases completed, ``SKIP_DONE``)."""
        return (
            (2.0 if self.laid[seat] else 0.0)
            - 0.1 * len(self.hands[seat])
            + SKIP_DONE * self.done[seat]
        )

    def unseen(self, coloured: bool) -> list[int]:
        """Per Wild and per number (or colour), how many of them the seat to move has not seen
        (its hand, the table and the discard pile's top aside)."""
        seen = [*self.hands[self.turn], *(c for g in self.table for c in g.cards)]
        if self.discard_pile:
            seen.append(self.discard_pile[-1])
        counts = counts_of(seen, coloured)
        total = [8] + [24 if coloured else 8] * (len(counts) - 1)
        return [max(0, t - c) for t, c in zip(total, counts, strict=True)]

    def keeps(self, careful: bool = False) -> dict[str, tuple[float, float, int]]:
        """How much the seat to move wants to keep each card but a Skip (lowest: discard
        first): a Wild always; once down, a card it can hit; before, a card its phase lacks
        without (then one near others: same number for sets, neighbours for runs, same colour
        for colour groups), high points going first."""
        seat = self.turn
        hand = self.hands[seat]
        cards = [x for x in dict.fromkeys(hand) if x != SKIP]
        phase = self.phase[seat]
        keep: dict[str, tuple[float, float, int]] = {}
        if self.laid[seat] or phase is None:
            for card in cards:
                fits = self.laid[seat] and any(g.fits(card) for g in self.table)
                near = self.reach(card) if self.laid[seat] else 0.0  # a run may grow to it
                keep[card] = (1e9 if card == WILD else 1.0 if fits else near, 0.0, -PTS[card])
            if DENY_DOWN > 0 and self.laid[seat]:
                taken = self.taken_by_next(seat)
                if taken is not None:
                    for card in cards:
                        if card != WILD and taken(card):
                            first, _, pts = keep[card]
                            keep[card] = (first, DENY_DOWN, pts)
            return keep
        coloured = COLOURED[phase]
        index = COL if coloured else NUM
        c = counts_of(hand, coloured)
        run = SIZES[phase][0][0] == "run"
        lacks: dict[int, int] = {}
        outs: dict[int, int] = {}
        after = self.next_seat(seat)
        feeding = FEED > 0 and self.laid[after]
        theirs = self.phase[after]
        collects = None  # how the next seat groups the cards it takes (None: Deny is off)
        if DENY > 0 and not feeding and theirs is not None:
            if COLOURED[theirs]:
                collects = COL
            elif SIZES[theirs][0][0] == "set":
                collects = NUM
        denied = {collects[x] for x in self.known[after] if collects[x]} if collects else set()
        unseen = self.unseen(coloured) if careful else []
        for card in cards:
            if card == WILD:
                keep[card] = (1e9, 0.0, 0)
                continue
            i = index[card]
            if i not in lacks:
                c[i] -= 1
                lacks[i] = missing(phase, c)
                if careful:
                    outs[i] = count_outs(phase, c, lacks[i], unseen)
                c[i] += 1
            if careful:
                keep[card] = (float(lacks[i]), -float(outs[i]), -PTS[card])
                continue
            if feeding and any(g.fits(card) for g in self.table):
                keep[card] = (float(lacks[i]) + FEED, 0.0, -PTS[card])
                continue
            if collects is not None and collects[card] in denied:
                keep[card] = (float(lacks[i]) + DENY, 0.0, -PTS[card])
                continue
            if run:
                near = (
                    -1.0
                    if c[i] > 1
                    else float(
                        sum(1 for v in (i - 2, i - 1, i + 1, i + 2) if 0 < v <= TOP and c[v])
                    )
                )
            else:
                near = float(c[i])
            keep[card] = (float(lacks[i]), near, -PTS[card])
        return keep

    def taken_by_next(self, seat: int) -> Callable[[str], bool] | None:
        """Whether the next seat, not down, would likely take a card from the discard pile: one of
        a number (colour) it is known to collect, or for a run-only phase a number it is not
        known to hold. None when nothing is known."""
        after = self.next_seat(seat)
        theirs = self.phase[after]
        if self.laid[after] or theirs is None or not self.known[after]:
            return None
        if COLOURED[theirs]:
            cols = {COL[x] for x in self.known[after] if COL[x]}
            return lambda card: COL[card] in cols
        nums = {NUM[x] for x in self.known[after] if NUM[x]}
        if SIZES[theirs][0][0] == "set":
            return lambda card: NUM[card] in nums
        return lambda card: bool(NUM[card]) and NUM[card] not in nums

    def wild_spot(self, hand: list[str]) -> tuple[int, str, str | None] | None:
        """Where to hit a Wild so that a natural card of ``hand`` fits next: a run's end next to
        one of them (None: no such place, the first place that takes a Wild will do)."""
        naturals = {NUM[c] for c in hand if NUM[c]}
        for gid, group in enumerate(self.table):
            if group.kind != "run":
                continue
            if group.high + 1 < TOP and group.high + 2 in naturals:
                return gid, WILD, "high"
            if group.key - 1 > 1 and group.key - 2 in naturals:
                return gid, WILD, "low"
        return None

    def reach(self, card: str) -> float:
        """How soon a run on the table may reach ``card`` (a half: two numbers away, a third:
        three); 0 when no run is near it."""
        n = NUM[card]
        best = 0.0
        if not n:
            return best
        for g in self.table:
            if g.kind != "run":
                continue
            d = n - g.high if n > g.high else g.key - n if n < g.key else 0
            if 2 <= d <= 3:
                best = max(best, 1.0 / d)
        return best

    def play_turn(self) -> None:
        """The seat to move plays its whole turn by the policy (or, for a seat in
        ``modelled``, by the bundled heuristic's rules)."""
        heuristic = self.modelled[self.turn]
        if model.wants_top(self) if heuristic else self.wants_top():
            self.take()
        else:
            self.draw()
        self.finish_turn()

    def finish_turn(self) -> None:
        """After drawing: lay, hit, and discard by the policy (or the heuristic's rules)."""
        if self.modelled[self.turn]:
            self.heuristic_rest()
            return
        self.lay_and_hit()
        if self.over:
            return
        card, target = self.first_discard()
        self.discard(card, target)

    def heuristic_rest(self) -> None:
        """The bundled heuristic's turn after drawing: lay the phase down if it can, hit what
        fits, discard."""
        seat = self.turn
        phase = self.phase[seat]
        if not self.laid[seat] and phase is not None and can_lay(phase, self.hands[seat]):
            built = layout(phase, self.hands[seat])
            if built is not None:
                self.lay(built)
        while self.laid[seat] and not self.over:
            found = model.hit(self)
            if found is None:
                break
            self.hit(*found)
        if self.over:
            return
        card, target = model.discard(self)
        self.discard(card, target)

    def play_out(self, horizon: int) -> None:
        """Play turns by the policy until the hand ends or ``horizon`` turns have passed."""
        for _ in range(horizon):
            if self.over:
                return
            self.play_turn()

    def hand_points(self, seat: int) -> int:
        return sum(PTS[c] for c in self.hands[seat])
