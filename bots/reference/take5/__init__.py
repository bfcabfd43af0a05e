"""Take 5 by determinized Monte-Carlo search with an opponent model read from the play.

Each decision samples worlds consistent with what this seat saw (``rules.sample_world``: the other
hands dealt at random from the unseen cards), and in each world plays legal actions to the end of
the round. In the playouts every seat (this one too, after its first card) plays by the bundled
heuristic's rule (the card with the smallest expected penalty, the cheapest row), except the
opponents seen to play at random, which play at random there too (a card, and a row when the
card is too low: in the standard placement's loop): each playout draws every
opponent's way of play from its odds (:class:`Opponents`: the likelihood of each card it played,
and each row it took, under the rule and at random; a trick or two tell them apart). Plain
Monte-Carlo with random playouts wins about 40-45% against three heuristics; playouts whose
players play like the real ones tell much better which card is safe. Taking random players for
heuristics cost the most against them (the search bets that they avoid the risky cards, which
they do not): with the odds read from the risky share of their cards, it took rounds to tell
them, and the bot won 87% of 100 games (in-process) against 3 random players, 96% when told.

Value: what counts is winning the game, not the round. A playout's heads are turned into this
seat's chance to win (:class:`Outlook`): exact when the round ends the game (the lowest total
wins), otherwise from a normal model of the rounds still to come (each seat adds its own rate
of heads a round, give or take ``ROUND_SD`` times the root of that rate, for as many rounds as
the first seat to reach the end leaves): the rate is the seat's heads per round so far, shrunk
with the weight of two rounds to a prior by how it plays (:func:`expected_rates`: a round's 52
heads shared out with a weight of 1 per random player and 0.38 per rule player, so 13 each
among equals, 6 against 16 for a rule player among random ones, as measured). So a random
player is not a close rival at ten heads ahead from the first round on, and this seat's own
heads are its main risk against them. Ten heads matter more near the end, and against the
closest rival more than against the last. The heads this seat
gives away against the others break ties (when the chance hardly moves: early, or a game won or
lost).

Opponents' hands: a seat that plays by the heuristic's rule played, each trick of this round,
the card the rule picks from the hand it held then; so its hand in a world is dealt again until
it would have played as it did (:class:`Deals`, rejection with at most ``TRIES`` deals a world;
a seat none of whose deals fits does not play by the rule after all and is dealt at random).

Where to spend the playouts (:meth:`Searcher.choose`): the worlds are shared by every action
still in the running (paired: the same deals, the same random choices), and the actions are cut
by successive halving: the budget is split evenly over ``ceil(log2(actions))`` stages, and after
each stage the worse half drops out, so the clear losers of the first tricks (ten cards, ten
tricks each) cost a few playouts and the last two get up to ``WORLDS``. Each decision has a fixed
budget of tricks to play (``BUDGET``), so its time is bounded whatever the trick; a single legal
action is played at once. A deadline from ``match.time`` is a safety net only: the search stops
at a share of ``decision_ms`` (plus a little of the bank) and plays the best action so far; with
no time at all, the heuristic's own choice. A decision's generator is seeded from the match id,
the seat and the decision's number, so a match replays the same when no deadline cuts a search
short.

Speed: the rules' ``State.clone()`` and ``sample_world`` are too slow for hundreds of playouts
per decision in Python. So ``sample_world`` runs once a decision, and each world deals its hidden
cards again (:class:`Deals`), and a playout runs on plain lists (rows, hands,
heads) with the trick resolution of :class:`Round`: the rules' resolution (the professional
variant's left end goes through ``rules.take5.choose_row``); a test plays random tricks in both
and checks they agree. The standard placement has a faster loop (:meth:`Round.play_plain`, tested
against the rules and against :meth:`Round.resolve`): a row is only its end, its length and its
heads, kept in the order of the ends (a card is placed by a bisection, and the order holds), the
unseen cards between two ends are counted by a slice, the rule is priced only for the seats that
play by it, and a world's random draws are made once and replayed to every action
(:class:`Noise`, where a generator seeded per action cost about as much as a short playout).
That loop is also written in C (``playout.c``, built with the arena into this folder as
``_playout`` for the interpreter bots run with; :data:`FAST`): the same steps on the same
doubles, from the same draws, so both loops play every playout alike (a test compares them in
1,500 positions, and the 400 games of the evaluation came out the same with either). It makes a
decision's playouts about 30 times as fast, so the budget is four times the Python loop's
(:data:`BUDGET`, :data:`WORLDS`) at about 0.6 of its time; where the module is missing (no
compiler, a pure-Python install) or stale, and in the professional variant (whose placement the
C loop does not play), the Python loop plays with the smaller budget, so a
match replays the same on one install, not across the two. Against 3 random players the 6,000
tricks win 97.0% [94.8, 98.3] of the 400 games where 1,500 won 90.0% (the Python loop's budget:
more worlds at that budget win no more), at 11 ms CPU a decision (benchmarks/REPORT-reference-
take5.md, tenth session).

The heuristic's rule is cheap there: its expected penalty grows with the
card between two row ends, so only the lowest card of each gap can be its choice (at most five
cards to price, whatever the hand; a test checks the choice is the bundled heuristic's). Every
constant of the game comes from ``rules``.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import math
import random
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .rules import sample_world
from .rules.take5 import HAND_SIZE, HEADS, ROW_LIMIT, cards_in_play, choose_row


def load_fast() -> Any:
    """The playout loop in C (``playout.c``, built with the arena as ``_playout`` beside this
    file), or None: not built (no compiler, a pure-Python install), or built from another
    version of ``playout.c`` (its digest is compiled in). Both loops play the same."""
    try:
        from . import _playout  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        digest = hashlib.sha256(Path(__file__).with_name("playout.c").read_bytes()).hexdigest()
    except OSError:
        return None
    if getattr(_playout, "DIGEST", None) != digest:
        return None
    _playout.configure(HEADS, ROW_LIMIT)
    return _playout


FAST = load_fast()
"""The C playout loop when it is built and current (:meth:`Round.play_plain` uses it)."""


TRIES = 40
"""Deals of one opponent's hand tried per world for one that fits its play this round."""
WORLDS = 192 if FAST is not None else 48
"""The most worlds an action is played in (the last ones standing)."""
BUDGET = 6000 if FAST is not None else 1500
"""Tricks a decision may play out over all its playouts (an action in a world costs the tricks
left in the round): the bound on its work. Four times as many with the C loop as with the
Python one, at about 0.6 of the Python loop's time a decision (11 against 17-22 ms)."""
PYTHON_CAPS = (48, 1500)
"""``WORLDS`` and ``BUDGET`` where the playouts run in Python: without the C module, and in the
professional variant (whose placement only the Python loop plays)."""
EPSILON = 0.02
"""The share of an opponent's plays that the rule's likelihood leaves to chance (see
:class:`Opponents`)."""
PRIOR_RANDOM = 0.5
"""The odds that an opponent plays at random before any of its cards is seen."""
ROUND_SD = 2.33
"""The spread of the heads a seat takes in a round, over the square root of its mean rate (4
seats, measured: about 5.7 for a heuristic player taking 5.9 a round against 3 random ones, 9.0
for a random player taking 15.7, 8.5 at the mean of 13): the model of the rounds to come."""
ROUNDS_PER_HEADS = 19.0
"""After a round whose leader has L heads, about ``1 + (end - 5 - L) / 19`` rounds are left
(measured over games of 4 seats)."""
ROUND_MEAN = 13.0
"""The heads a seat takes in a round on average (4 seats, heuristic or random players): the
prior of each seat's own rate."""
PRIOR_ROUNDS = 2.0
"""How many rounds' worth of weight that prior has against the rounds a seat has played."""
RULE_WEIGHT = 0.38
"""A rule player's share of a round's heads next to a random player's (see
:func:`expected_rates`): 0.38 / (0.38 + 3) of 52 is the 5.9 heads the heuristic takes a round
against 3 random players (measured)."""
TIE_WEIGHT = 0.002
"""The weight of the heads given away (others' mean minus own) next to the chance to win."""
TIME_SHARE = 0.4
"""The share of ``decision_ms`` the search may use (the rest covers the pipe and the loop)."""
BANK_SHARE = 0.01
"""The share of the bank left that a decision may draw on too."""
MARGIN_MS = 4.0


class Budget:
    """When a decision must stop searching, from the ``time`` the arena sent with it."""

    def __init__(self, told: Mapping[str, Any], began: float) -> None:
        decision = float(told.get("decision_ms", 1000) or 0)
        bank = float(told.get("bank_ms", 0) or 0)
        spare = TIME_SHARE * decision + BANK_SHARE * bank - MARGIN_MS
        self.deadline = began + max(0.0, spare) / 1000.0

    def left(self) -> bool:
        return time.perf_counter() < self.deadline


# -- the heuristic, on plain lists -------------------------------------------------------------


def unseen_prefix(seen: list[bool]) -> list[int]:
    """``prefix[c]``: how many cards 1..c nobody has seen this round (``seen[0]`` is no card)."""
    return list(itertools.accumulate(unseen_flags(seen)))


def unseen_flags(seen: list[bool]) -> list[int]:
    """1 for each card nobody has seen, 0 for the others (and for index 0, no card)."""
    return [0, *(0 if x else 1 for x in seen[1:])]


def targets(
    rows: list[list[int]], row_heads: list[int]
) -> tuple[list[int], list[tuple[int, int, int]]]:
    """The rows by their end, lowest first: the ends, and per row (its end, its heads, the slots
    it has left: 0 when full)."""
    order = sorted(range(len(rows)), key=lambda r: rows[r][-1])
    ends = [rows[r][-1] for r in order]
    return ends, [(rows[r][-1], row_heads[r], ROW_LIMIT - len(rows[r])) for r in order]


def tail(slots: int, mean: float) -> float:
    """P(at least ``slots`` events) for a Poisson count of mean ``mean``."""
    term = total = math.exp(-mean)
    for i in range(1, slots):
        term *= mean / i
        total += term
    return max(0.0, 1.0 - total)


def pick_card(
    hand: list[int],
    ends: list[int],
    rows: list[tuple[int, int, int]],
    cheapest: float,
    prefix: list[int],
    scale: float,
) -> int:
    """The index in ``hand`` (sorted) of the card with the smallest expected penalty: the
    bundled heuristic's rule (bots/heuristic/take5.py, same arithmetic). ``ends`` and ``rows``
    are :func:`targets`, ``cheapest`` the fewest heads of a row plus 0.5, ``prefix`` counts the
    cards nobody has seen, ``scale`` is the opponents over the cards this seat has not seen.

    Between two row ends the penalty grows with the card (more unseen cards can come first, and
    a small term for the gap), and below every end it is the same for all: so only the lowest
    card of each gap is priced, and the lowest of equals wins, as the heuristic's ``min`` does.
    """
    best, best_cost = 0, math.inf
    if hand[0] < ends[0]:
        best_cost = cheapest
    last = len(ends) - 1
    size = len(hand)
    for k, end in enumerate(ends):
        at = bisect.bisect_right(hand, end)
        if at == size:
            break
        card = hand[at]
        if k < last and card > ends[k + 1]:
            continue
        _, heads, slots = rows[k]
        if not slots:
            cost = float(heads)
        else:
            mean = (prefix[card - 1] - prefix[end]) * scale
            term = total = math.exp(-mean)
            for i in range(1, slots):
                term *= mean / i
                total += term
            cost = max(0.0, 1.0 - total) * (heads + slots) + 0.001 * (card - end)
        if cost < best_cost:
            best, best_cost = at, cost
    return best


Context = tuple[list[int], list[tuple[int, int, int]], float, list[int], float]
"""What the heuristic's rule sees of a trick: :func:`pick_card`'s arguments but the hand."""


def consistent(hand: list[int], history: list[tuple[Context, int]]) -> bool:
    """Whether a seat holding ``hand`` (sorted) now would, by the heuristic's rule, have played
    the cards it played this round (``history``: the latest first)."""
    held = list(hand)
    for (ends, by_end, cheapest, prefix, scale), card in history:
        bisect.insort(held, card)
        if held[pick_card(held, ends, by_end, cheapest, prefix, scale)] != card:
            return False
    return True


def pick_row(rows: list[list[int]], row_heads: list[int]) -> int:
    """The cheapest row: fewest heads, then fewest cards, then the first."""
    return min(range(len(rows)), key=lambda r: (row_heads[r], len(rows[r]), r))


# -- a playout on plain lists ------------------------------------------------------------------


class Noise:
    """Random numbers drawn once for a world and replayed in order to every action there (the
    same random choices, as a generator seeded alike would give, without seeding one per
    action)."""

    def __init__(self, values: list[float]) -> None:
        self.random = iter(values).__next__


class Round:
    """The rest of a round: rows, hands, the heads each seat took, what everyone has seen."""

    def __init__(
        self,
        rows: list[list[int]],
        hands: list[list[int]],
        seen: list[bool] | list[int],
        professional: bool,
        wild: frozenset[int] = frozenset(),
        rng: random.Random | Noise | None = None,
        flags: bool = False,
    ) -> None:
        self.wild = wild
        """The seats that play at random in this playout (the others play the heuristic)."""
        self.rng = rng
        """Draws the wild seats' cards (needed only when there are some)."""
        self.rows = [list(r) for r in rows]
        self.row_heads = [sum(HEADS[c] for c in r) for r in self.rows]
        self.hands = [list(h) for h in hands]
        self.heads = [0] * len(hands)
        self.unseen: list[int] = list(seen) if flags else unseen_flags(seen)  # type: ignore[arg-type]
        """1 for each card nobody has seen yet this round (``flags``: ``seen`` is that list
        already): prefix sums count the unseen."""
        self.professional = professional

    def place(self, card: int, seat: int, row_choice: int | None = None) -> None:
        """Place one revealed card as the rules do; a card too low takes ``row_choice`` (or the
        cheapest row, as the heuristic chooses)."""
        rows = self.rows
        if self.professional:
            where = choose_row(rows, card, True)
            target, end = (None, "right") if where is None else where
        else:
            target, best, end = None, 0, "right"
            for r, row in enumerate(rows):
                last = row[-1]
                if best < last < card:
                    target, best = r, last
        if target is None:
            r = pick_row(rows, self.row_heads) if row_choice is None else row_choice
            self.take(seat, r, card)
        elif len(rows[target]) >= ROW_LIMIT:
            self.take(seat, target, card)
        elif end == "right":
            rows[target].append(card)
            self.row_heads[target] += HEADS[card]
        else:
            rows[target].insert(0, card)
            self.row_heads[target] += HEADS[card]

    def take(self, seat: int, r: int, card: int) -> None:
        self.heads[seat] += self.row_heads[r]
        self.rows[r] = [card]
        self.row_heads[r] = HEADS[card]

    def resolve(self, cards: list[int]) -> None:
        """Reveal one card per seat and place them lowest first."""
        unseen = self.unseen
        for card in cards:
            unseen[card] = 0
        if self.professional:
            for card, seat in sorted(zip(cards, range(len(cards)), strict=True)):
                self.place(card, seat)
            return
        rows, row_heads, heads = self.rows, self.row_heads, self.heads
        for card, seat in sorted(zip(cards, range(len(cards)), strict=True)):
            target, best = -1, 0  # after the highest end below the card, as the rules place
            for r, row in enumerate(rows):
                last = row[-1]
                if best < last < card:
                    target, best = r, last
            if target < 0:
                target = pick_row(rows, row_heads)
            elif len(rows[target]) < ROW_LIMIT:
                rows[target].append(card)
                row_heads[target] += HEADS[card]
                continue
            heads[seat] += row_heads[target]
            rows[target] = [card]
            row_heads[target] = HEADS[card]

    def choices(self, forced: Mapping[int, int]) -> list[int]:
        """Each seat's card for this trick: ``forced`` ones, the rest by the heuristic (its rule
        as :func:`pick_card` applies it, inlined here: the playouts' inner loop)."""
        prefix = list(itertools.accumulate(self.unseen))
        hands = self.hands
        scale = (len(hands) - 1) / max(1, prefix[-1] - len(hands[0]))
        rows, row_heads = self.rows, self.row_heads
        by_end = sorted(
            [(row[-1], row_heads[r], ROW_LIMIT - len(row)) for r, row in enumerate(rows)]
        )
        ends = [e for e, _, _ in by_end]
        low = ends[0]
        cheapest = min(row_heads) + 0.5
        gaps = list(zip(by_end, [*ends[1:], 1 << 30], strict=True))
        wild = self.wild
        bisect_right, exp = bisect.bisect_right, math.exp
        cards = []
        for seat, hand in enumerate(hands):
            if seat in forced:
                card = forced[seat]
                hand.remove(card)
            elif seat in wild:
                card = hand.pop(int(self.rng.random() * len(hand)))  # type: ignore[union-attr]
            else:
                best, best_cost = 0, math.inf
                if hand[0] < low:
                    best_cost = cheapest
                size = len(hand)
                for (end, heads, slots), below in gaps:
                    at = bisect_right(hand, end)
                    if at == size:
                        break
                    card = hand[at]
                    if card > below:
                        continue
                    if not slots:
                        cost = float(heads)
                    else:
                        mean = (prefix[card - 1] - prefix[end]) * scale
                        term = total = exp(-mean)
                        for i in range(1, slots):
                            term *= mean / i
                            total += term
                        cost = max(0.0, 1.0 - total) * (heads + slots) + 0.001 * (card - end)
                    if cost < best_cost:
                        best, best_cost = at, cost
                card = hand.pop(best)
            cards.append(card)
        return cards

    def play_out(self, forced: Mapping[int, int] | None = None) -> None:
        """Play every trick left; ``forced`` fixes some seats' cards in the first one."""
        if not self.professional:
            self.play_plain(forced or {})
            return
        if forced:
            self.resolve(self.choices(forced))
        while self.hands[0]:
            self.resolve(self.choices({}))

    def play_plain(self, forced: Mapping[int, int]) -> None:
        """:meth:`play_out` for the standard placement, in one loop on four lists per row (its
        end, its length, its heads and its index in the rules: a playout needs nothing else of
        a row), kept in the order of their ends: a card goes after the highest end below it (a
        bisection), which keeps that order, and a card too low starts the first row. The rule's
        pricing (as in :meth:`choices`) is done only when a seat plays by it. A wild seat takes
        a row at random when its card is too low, as a random player does."""
        order = sorted(range(len(self.rows)), key=lambda r: self.rows[r][-1])
        ends = [self.rows[r][-1] for r in order]
        lens = [len(self.rows[r]) for r in order]
        rheads = [self.row_heads[r] for r in order]
        hands, heads, unseen = self.hands, self.heads, self.unseen
        wild, rng = self.wild, self.rng
        seats = range(len(hands))
        if FAST is not None and len(forced) <= 1:
            ((seat, card),) = forced.items() if forced else ((-1, 0),)
            draw = None if rng is None else rng.random
            wilds = [s in wild for s in seats]
            FAST.play_plain(
                ends, lens, rheads, order, hands, heads, unseen, wilds, draw, seat, card
            )
            return
        rule = [s for s in seats if s not in wild]
        random_seats = [s for s in seats if s in wild]
        opponents = len(hands) - 1
        count = len(ends)
        bisect_left, bisect_right, exp = bisect.bisect_left, bisect.bisect_right, math.exp
        cards = [0] * len(hands)
        hidden = sum(unseen)
        while hands[0]:
            choosers = []
            for s in rule:
                if s in forced:
                    cards[s] = forced[s]
                    hands[s].remove(forced[s])
                else:
                    choosers.append(s)
            if choosers:
                scale = opponents / max(1, hidden - len(hands[0]))
                low = ends[0]
                cheapest = min(rheads) + 0.5
                belows = ends[1:]
                belows.append(1 << 30)
                for s in choosers:
                    hand = hands[s]
                    best, best_cost = 0, math.inf
                    if hand[0] < low:
                        best_cost = cheapest
                    size = len(hand)
                    for end, h, n, below in zip(ends, rheads, lens, belows, strict=True):
                        at = bisect_right(hand, end)
                        if at == size:
                            break
                        card = hand[at]
                        if card > below:
                            continue
                        slots = ROW_LIMIT - n
                        if not slots:
                            cost = float(h)
                        else:
                            mean = sum(unseen[end + 1 : card]) * scale
                            term = total = exp(-mean)
                            for i in range(1, slots):
                                term *= mean / i
                                total += term
                            cost = max(0.0, 1.0 - total) * (h + slots) + 0.001 * (card - end)
                        if cost < best_cost:
                            best, best_cost = at, cost
                    cards[s] = hand.pop(best)
            for s in random_seats:
                hand = hands[s]
                if s in forced:
                    cards[s] = forced[s]
                    hand.remove(forced[s])
                else:
                    cards[s] = hand.pop(int(rng.random() * len(hand)))  # type: ignore[union-attr]
            forced = {}
            for card in cards:
                hidden -= unseen[card]
                unseen[card] = 0
            for card, seat in sorted(zip(cards, seats, strict=True)):
                at = bisect_left(ends, card) - 1  # the highest end below the card
                if at >= 0:
                    if lens[at] < ROW_LIMIT:
                        ends[at] = card
                        lens[at] += 1
                        rheads[at] += HEADS[card]
                    else:
                        heads[seat] += rheads[at]
                        ends[at], lens[at], rheads[at] = card, 1, HEADS[card]
                    continue
                if seat in wild:  # a row at random, by its index in the rules
                    at = order.index(int(rng.random() * count))  # type: ignore[union-attr]
                else:  # the cheapest row: fewest heads, then fewest cards, then the first
                    at = min(range(count), key=lambda r: (rheads[r], lens[r], order[r]))
                heads[seat] += rheads[at]
                for values, value in ((ends, card), (lens, 1), (rheads, HEADS[card])):
                    del values[at]
                    values.insert(0, value)
                order.insert(0, order.pop(at))


class Opponents:
    """How each other seat plays, read from the public events: the odds that it plays at random
    rather than by the bundled heuristic's rule, from the likelihood of each card it played (and
    each row it took) under either model.

    A random player plays each of its ``n`` cards with chance ``1/n``. A player by the rule plays
    the card it rates best (the lowest expected penalty; the lowest card of equals): the card it
    played is its choice exactly when the ``n - 1`` others in its hand all rate worse, and its
    hand is ``n - 1`` cards drawn from those this seat has not seen (a hypergeometric chance). The
    rule's view differs a little from this seat's (it knows its own hand), and another bot may
    play much like the rule: so the rule's likelihood keeps a floor (``EPSILON``: that share of
    its plays is taken as random). One card played against the rule moves the odds by about
    ``1/EPSILON``, one by it by a few: a seat is told within a trick or two, and a row taken
    that is not the cheapest counts likewise. The log odds add up over the whole game (from even
    odds, ``PRIOR_RANDOM``)."""

    def __init__(self, seats: int, seat: int, deck: int) -> None:
        self.seat = seat
        self.deck = deck
        self.cursor = 0
        self.evidence = [0.0] * seats
        """Per seat, the log likelihood ratio of random play to the rule's, over the game."""
        self.rows: list[list[int]] = []
        self.seen = [False] * (deck + 1)
        self.hand: list[int] = []
        """This seat's own hand (from the ``deal`` event, less its cards revealed since)."""
        self.tricks: list[tuple[Context, list[int]]] = []
        """This round's tricks so far: what the heuristic's rule saw before each (its
        :data:`Context`) and the cards revealed."""

    def read(self, events: list[dict[str, Any]]) -> None:
        """Take in the events not read yet."""
        for event in events[self.cursor :]:
            kind = event.get("type")
            if kind == "round":
                self.rows = [list(r) for r in event["rows"]]
                self.seen = [False] * (self.deck + 1)
                self.tricks = []
                self.hand = []
                for row in self.rows:
                    for c in row:
                        self.seen[c] = True
            elif kind == "deal":
                self.hand = list(event["hand"])
            elif kind == "reveal" and self.rows:
                self.judge(event["cards"], event["trick"])
            elif kind == "choose_row" and self.rows:
                self.judge_row(event["seat"], event["row"])
            elif kind == "place" and self.rows:
                row = self.rows[event["row"]]
                if event.get("end") == "left":
                    row.insert(0, event["card"])
                else:
                    row.append(event["card"])
            elif kind == "take" and self.rows:
                self.rows[event["row"]] = [event["card"]]
        self.cursor = len(events)

    def judge(self, cards: list[int], trick: int) -> None:
        """Weigh one trick's cards: each other seat's card under the rule and at random."""
        rows = self.rows
        row_heads = [sum(HEADS[c] for c in r) for r in rows]
        prefix = unseen_prefix(self.seen)
        held = HAND_SIZE - trick + 1
        unseen = max(1, prefix[-1] - held)  # the rule counts its own hand as seen
        ends, by_end = targets(rows, row_heads)
        cheapest = min(row_heads) + 0.5
        opponents = len(cards) - 1
        self.tricks.append(((ends, by_end, cheapest, prefix, opponents / unseen), list(cards)))
        mine = set(self.hand)
        mine.add(cards[self.seat])
        played = set(cards)
        pool = [c for c in range(1, self.deck + 1) if not self.seen[c] and c not in mine]
        keys = {
            c: (rule_cost(c, ends, by_end, cheapest, prefix, unseen, opponents), c) for c in pool
        }
        order = sorted(keys.values())
        if held > 1:
            for s, card in enumerate(cards):
                if s == self.seat or card not in keys:
                    continue
                # the cards s may have held beside ``card``: the pool less the others' plays
                others = len(pool) - len(played - {card} - mine) - 1
                better = bisect.bisect_left(order, keys[card])
                better -= sum(1 for c in played if c != card and c in keys and keys[c] < keys[card])
                worse = others - better
                rule = math.comb(worse, held - 1) / math.comb(others, held - 1)
                likely = (1.0 - EPSILON) * rule + EPSILON / held
                self.evidence[s] += math.log(1.0 / held / likely)
        for card in cards:
            self.seen[card] = True
        if cards[self.seat] in self.hand:
            self.hand.remove(cards[self.seat])

    def judge_row(self, seat: int, row: int) -> None:
        """Weigh a row taken by a card too low: the rule takes the cheapest."""
        if seat == self.seat:
            return
        rows = self.rows
        cheapest = pick_row(rows, [sum(HEADS[c] for c in r) for r in rows])
        likely = (1.0 - EPSILON) * (row == cheapest) + EPSILON / len(rows)
        self.evidence[seat] += math.log(1.0 / len(rows) / likely)

    def random_odds(self) -> list[float]:
        """Per seat, the chance that it plays at random rather than by the heuristic."""
        prior = math.log(PRIOR_RANDOM / (1.0 - PRIOR_RANDOM))
        odds = [1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, prior + e)))) for e in self.evidence]
        odds[self.seat] = 0.0
        return odds

    def history(self, wild: frozenset[int]) -> dict[int, list[tuple[Context, int]]]:
        """Per other seat that plays by the heuristic's rule (not in ``wild``), its cards this
        round with what the rule saw when each was played, the latest first."""
        seats = range(len(self.evidence))
        return {
            s: [(context, cards[s]) for context, cards in reversed(self.tricks)]
            for s in seats
            if s != self.seat and s not in wild and self.tricks
        }

    def wild(self, rng: random.Random | None = None) -> frozenset[int]:
        """The seats that play at random in one playout: each drawn with its odds from ``rng``
        (without it, the seats more likely random than not)."""
        odds = self.random_odds()
        if rng is None:
            return frozenset(s for s, p in enumerate(odds) if p > 0.5)
        return frozenset(s for s, p in enumerate(odds) if rng.random() < p)


def rule_cost(
    card: int,
    ends: list[int],
    rows: list[tuple[int, int, int]],
    cheapest: float,
    prefix: list[int],
    unseen: int,
    opponents: int,
) -> float:
    """The heuristic's expected penalty of one card, as the rule reckons it (``unseen``: the
    cards it has not seen; this seat's ``prefix`` stands in for its count of them)."""
    at = bisect.bisect_left(ends, card)
    if at == 0:
        return cheapest
    end, heads, slots = rows[at - 1]
    if not slots:
        return float(heads)
    mean = (prefix[card - 1] - prefix[end]) * opponents / unseen
    return tail(slots, mean) * (heads + slots) + 0.001 * (card - end)


# -- what a round's heads are worth --------------------------------------------------------------

HERMITE = (
    (-2.8569700138728056, 0.011257411327720689),
    (-1.355626179974266, 0.22207592200561266),
    (0.0, 0.5333333333333333),
    (1.355626179974266, 0.22207592200561266),
    (2.8569700138728056, 0.011257411327720689),
)
"""Gauss-Hermite nodes and weights for an expectation over a standard normal (5 points)."""


def expected_rates(before: list[int], played: int, odds: list[float]) -> list[float]:
    """The heads each seat is expected to take a round from now on: its heads per round so
    far (``before``, over ``played`` rounds), shrunk to a prior with the weight of
    ``PRIOR_ROUNDS`` rounds. The prior depends on how the seat plays (``odds``: its chance to
    play at random, 0 for this seat): a round's heads, about ``ROUND_MEAN`` a seat, are shared
    out in proportion to 1 for a random player and ``RULE_WEIGHT`` for one that plays by the
    heuristic's rule, so four of a kind take 13 each, and against three random players a rule
    player takes about 6 and each random one about 16 (measured)."""
    weights = [p + (1.0 - p) * RULE_WEIGHT for p in odds]
    table = ROUND_MEAN * len(before) / sum(weights)
    return [
        (t + PRIOR_ROUNDS * table * w) / (played + PRIOR_ROUNDS)
        for t, w in zip(before, weights, strict=True)
    ]


def normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


class Outlook:
    """This seat's chance to win the game, given the totals after the round a playout ends: the
    value of a playout (memoized: the same heads come back often within a decision)."""

    def __init__(
        self,
        seat: int,
        before: list[int],
        settings: Mapping[str, Any],
        last: bool,
        rates: list[float] | None = None,
    ) -> None:
        self.seat = seat
        self.before = before
        """The totals before this round."""
        self.rates = list(rates) if rates is not None else [ROUND_MEAN] * len(before)
        """The heads each seat is expected to take a round from now on."""
        self.end = int(settings.get("end_score", 66))
        self.more_than = bool(settings.get("more_than"))
        self.last = last
        """This round is the last one (``max_rounds``)."""
        self.memo: dict[tuple[int, ...], float] = {}

    def value(self, heads: list[int]) -> float:
        """The chance to win, plus the heads given away as a tie-break (``TIE_WEIGHT``)."""
        key = tuple(heads)
        known = self.memo.get(key)
        if known is None:
            seat = self.seat
            after = [t + h for t, h in zip(self.before, heads, strict=True)]
            others = (sum(heads) - heads[seat]) / (len(heads) - 1)
            known = self.chance(after) + TIE_WEIGHT * (others - heads[seat])
            self.memo[key] = known
        return known

    def chance(self, after: list[int]) -> float:
        """P(this seat ends with the lowest total; a shared first place shared out)."""
        end = self.end
        over = any(t > end if self.more_than else t >= end for t in after)
        mine = float(after[self.seat])
        if over or self.last:
            best = min(after)
            return 1.0 / after.count(best) if mine == best else 0.0
        rates = self.rates
        extra = ROUNDS_PER_HEADS - ROUND_MEAN
        rounds = max(
            1.0, min(1.0 + (end - 5 - t) / (r + extra) for t, r in zip(after, rates, strict=True))
        )
        mine += rounds * rates[self.seat]
        sds = [ROUND_SD * math.sqrt(max(1.0, r) * rounds) for r in rates]
        own = sds[self.seat]
        gaps = [
            ((t + rounds * r - mine) / sd, own / sd)
            for s, (t, r, sd) in enumerate(zip(after, rates, sds, strict=True))
            if s != self.seat
        ]
        total = 0.0
        erfc, root = math.erfc, -1.0 / math.sqrt(2.0)
        for z, weight in HERMITE:  # normal_cdf(x) is erfc(-x / sqrt 2) / 2, inlined
            product = weight
            for gap, ratio in gaps:
                product *= 0.5 * erfc(root * (gap - ratio * z))
            total += product
        return total


class Deals:
    """Worlds for one decision: the kit's ``rules.sample_world`` gives the first (the hidden
    cards: the other hands and the undealt cards); each world deals those cards again, shuffled,
    into hands of the same sizes, without building a whole position each time (about 250 µs).
    A playout ends with the round, so only the hands differ.

    The opponent model reads the hands too: a seat that plays by the heuristic's rule played,
    each trick of this round, the card the rule picks from its hand then. So its hand is dealt
    again (up to ``TRIES`` times) until it would have played what it played (``history``, from
    :meth:`Opponents.history`); a seat none of whose tries fits is dealt at random from then
    on (it does not play by the rule after all)."""

    def __init__(
        self,
        world: Any,
        seat: int,
        rng: random.Random,
        history: Mapping[int, list[tuple[Context, int]]] | None = None,
    ) -> None:
        self.world = world
        self.seat = seat
        self.rng = rng
        self.history = dict(history or {})
        self.hidden = [c for s, h in enumerate(world.hands) if s != seat for c in h]
        self.hidden += world.undealt()

    def next(self) -> list[list[int]]:
        hands: list[list[int]] = self.world.hands
        dealt: list[list[int]] = [[] for _ in hands]
        dealt[self.seat] = hands[self.seat]
        rest = self.hidden
        for s, history in list(self.history.items()):
            size = len(hands[s])
            for _ in range(TRIES):
                hand = sorted(self.rng.sample(rest, size))
                if consistent(hand, history):
                    break
            else:
                del self.history[s]
                continue
            dealt[s] = hand
            taken = set(hand)
            rest = [c for c in rest if c not in taken]
        free = [s for s in range(len(hands)) if s != self.seat and s not in self.history]
        cards = self.rng.sample(rest, sum(len(hands[s]) for s in free))
        at = 0
        for s in free:
            dealt[s] = sorted(cards[at : at + len(hands[s])])
            at += len(hands[s])
        return dealt


# -- the decision ------------------------------------------------------------------------------


class Searcher:
    """One seat's search in one match: the generator for each decision is seeded from the match
    id, the seat and the decision's number, so a replay with the same budget plays the same."""

    def __init__(self, match_id: str, seat: int) -> None:
        self.match_id = match_id
        self.seat = seat
        self.decisions = 0
        self.opponents: Opponents | None = None
        self.worlds_used: list[int] = []
        """Worlds searched per decision (for tests and tuning)."""
        self.tricks_played: list[int] = []
        """Tricks played out per decision, over all its playouts (for tests and tuning)."""

    def choose(
        self,
        observation: dict[str, Any],
        legal: list[Any],
        options: Mapping[str, Any],
        told: Mapping[str, Any],
        worlds: int | None = None,
        events: list[dict[str, Any]] | None = None,
        budget: int | None = None,
    ) -> int:
        """The index in ``legal`` to play: up to ``worlds`` worlds for the last actions
        standing, and at most ``budget`` tricks played out in all."""
        began = time.perf_counter()
        caps = PYTHON_CAPS if options.get("professional") else (WORLDS, BUDGET)
        worlds = caps[0] if worlds is None else worlds
        budget = caps[1] if budget is None else budget
        if events is not None:
            if self.opponents is None:
                seats = len(observation["totals"])
                deck = cards_in_play(seats, bool(options.get("tactics", False)))[-1]
                self.opponents = Opponents(seats, self.seat, deck)
            self.opponents.read(events)
        clock = Budget(told, began)
        self.decisions += 1
        rng = random.Random(f"{self.match_id}:{self.seat}:{self.decisions}")
        if len(legal) == 1:
            return self.searched(0, 0, 0)
        row_decision = observation.get("decision") == "row"
        fallback = self.heuristic(observation, legal, options, row_decision)
        if not clock.left():
            return self.searched(fallback, 0, 0)
        tricks = max(1, len(observation["hand"]))  # a row decision's trick is nearly done
        seen, _ = self.seen_cards(observation, options)
        for card, _seat in observation.get("to_place", []):
            seen[card] = True
        flags = unseen_flags(seen)
        history = self.opponents.history(self.opponents.wild()) if self.opponents else {}
        deal = Deals(sample_world(observation, options, rng), self.seat, rng, history)
        settings = deal.world.options
        totals: list[int] = list(observation["totals"])
        base: list[int] = list(observation["round_heads"])
        last = (
            settings.get("max_rounds") is not None
            and observation["round"] >= settings["max_rounds"]
        )
        before = [t - b for t, b in zip(totals, base, strict=True)]
        odds = self.opponents.random_odds() if self.opponents else [0.0] * len(before)
        rates = expected_rates(before, observation["round"] - 1, odds)
        outlook = Outlook(self.seat, before, settings, last, rates)
        alive = list(range(len(legal)))
        sums = [0.0] * len(legal)
        share = budget // max(1, math.ceil(math.log2(len(legal))))
        done = spent = 0
        cut = self.stage(share, len(alive), tricks)
        while done < worlds and spent + len(alive) * tricks <= budget and clock.left():
            hands = deal.next()
            scores = self.evaluate(
                hands, deal.world, observation, [legal[i] for i in alive], flags, row_decision
            )
            for i, s in zip(alive, scores, strict=True):
                sums[i] += outlook.value([b + h for b, h in zip(base, s, strict=True)])
            done += 1
            spent += len(alive) * tricks
            if done == cut:
                alive.sort(key=lambda i: (-sums[i], i != fallback, i))
                del alive[(len(alive) + 1) // 2 :]
                alive.sort()
                cut = done + self.stage(share, len(alive), tricks)
        if not done:
            return self.searched(fallback, 0, 0)
        best = max(alive, key=lambda i: (sums[i], i == fallback, -i))
        return self.searched(best, done, spent)

    @staticmethod
    def stage(share: int, alive: int, tricks: int) -> int:
        """How many worlds the next stage plays before the worse half drops out: its share of
        the budget over what a world costs now (at least one); the last two play on to the
        end (0: no cut)."""
        return 0 if alive <= 2 else max(1, share // (alive * tricks))

    def searched(self, choice: int, worlds: int, tricks: int) -> int:
        """Note what a decision searched, and return its choice."""
        self.worlds_used.append(worlds)
        self.tricks_played.append(tricks)
        return choice

    def heuristic(
        self,
        observation: dict[str, Any],
        legal: list[Any],
        options: Mapping[str, Any],
        row_decision: bool,
    ) -> int:
        """The heuristic's own choice (the answer when there is no time to search)."""
        rows: list[list[int]] = observation["rows"]
        row_heads = [sum(HEADS[c] for c in r) for r in rows]
        if row_decision:
            return min(
                range(len(legal)), key=lambda i: (row_heads[legal[i]], len(rows[legal[i]]), i)
            )
        seen, _ = self.seen_cards(observation, options)
        hand = sorted(legal)
        prefix = unseen_prefix(seen)
        scale = (len(observation["totals"]) - 1) / max(1, prefix[-1] - len(hand))
        ends, by_end = targets(rows, row_heads)
        cheapest = min(row_heads) + 0.5
        card = hand[pick_card(hand, ends, by_end, cheapest, prefix, scale)]
        return legal.index(card)

    @staticmethod
    def seen_cards(
        observation: dict[str, Any], options: Mapping[str, Any]
    ) -> tuple[list[bool], int]:
        """What every seat has seen this round (rows and taken cards), over the round's deck."""
        seats = len(observation["totals"])
        deck = cards_in_play(seats, bool(options.get("tactics", False)))
        seen = [False] * (deck[-1] + 1)
        for row in observation["rows"]:
            for c in row:
                seen[c] = True
        for taken in observation["taken"]:
            for c in taken:
                seen[c] = True
        return seen, deck[-1]

    def evaluate(
        self,
        hands: list[list[int]],
        world: Any,
        observation: dict[str, Any],
        actions: list[Any],
        flags: list[int],
        row_decision: bool,
    ) -> list[list[int]]:
        """Each action's heads this round (per seat, from the decision on) in one world: its
        hands, the rest is ``world``'s; every action sees the same random choices (paired)."""
        professional = bool(world.options.get("professional"))
        salt = world.rng.getrandbits(32)
        draw = random.Random(salt + 1)
        wild = self.opponents.wild(draw) if self.opponents is not None else frozenset()
        heads = []
        noise = None
        if wild and not professional:  # a trick draws a card per wild seat, and maybe a row
            noise = [draw.random() for _ in range(len(hands[0]) * (len(wild) + 1))]
        for action in actions:
            rng: random.Random | Noise | None = None
            if noise is not None:
                rng = Noise(noise)
            elif wild:
                rng = random.Random(salt)
            play = Round(world.rows, hands, flags, professional, wild, rng, True)
            if row_decision:
                pairs = observation["to_place"]
                card, seat = pairs[0]
                play.place(card, seat, row_choice=action)
                for card, seat in pairs[1:]:
                    play.place(card, seat)
                play.play_out()
            else:
                play.play_out({self.seat: action})
            heads.append(play.heads)
        return heads


searchers: dict[tuple[str, int], Searcher] = {}


def choose(observation: dict[str, Any], legal: list[Any], match: Any) -> int:
    """The arenabot entry point: the index in ``legal`` to play."""
    key = (match.id, match.seat)
    if key not in searchers:
        searchers.clear()  # one match at a time: forget the last one
        searchers[key] = Searcher(match.id, match.seat)
    return searchers[key].choose(observation, legal, match.options, match.time, events=match.events)
