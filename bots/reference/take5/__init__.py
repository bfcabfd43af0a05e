"""Take 5 by determinized Monte-Carlo search with a heuristic opponent model.

Each decision samples worlds consistent with what this seat saw (``rules.sample_world``: the other
hands dealt at random from the unseen cards), and in each world plays every legal action to the
end of the round, every seat (this one included, after its first action) choosing by the
bundled heuristic's rule: the card with the smallest expected penalty, the cheapest row. Plain
Monte-Carlo with random playouts wins about 40-45% against three heuristics; a playout whose
players play like real ones tells much better which card is safe. An action's value in a world
is the heads the others took this round on average minus the heads this seat took, plus a bonus
for winning when the round ends the game. The action with the best total over the worlds wins
(every action sees the same worlds, and the playouts are deterministic given a world, so the
comparison is paired).

Time: a fixed number of worlds per decision (``WORLDS``, fewer when many cards are left, so that
a decision costs about the same all round), and a deadline from ``match.time`` as a safety net
only: search stops at a share of ``decision_ms`` (plus a little of the bank) and the best action
so far is played; with no time at all, the heuristic's own choice.

Speed: the rules' ``State.clone()`` builds a new game and copies its log (about 80 µs), too slow
for hundreds of playouts per decision in Python, so a playout runs on plain lists (rows, hands,
heads) with the trick resolution below. It is the rules' resolution for the standard game (the
professional variant's left end goes through ``rules.take5.choose_row``); a test plays random
rounds in both and checks they agree. The worlds and every constant come from ``rules``.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import time
from collections.abc import Mapping
from typing import Any

from .rules import sample_world
from .rules.take5 import HEADS, ROW_LIMIT, cards_in_play, choose_row

WORLDS = 24
"""Worlds per decision with at most ``SPREAD`` playout tricks to go (the usual fixed budget)."""
SPREAD = 24
"""Fewer worlds when candidates × tricks to go exceed this: the work per decision stays flat."""
MIN_WORLDS = 6
WIN_BONUS = 12.0
"""The value of winning when a playout's round ends the game, in heads."""
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


def pick_card(
    hand: list[int],
    ends: list[int],
    rows: list[tuple[int, int, int]],
    cheapest: float,
    prefix: list[int],
    unseen: int,
    opponents: int,
) -> int:
    """The index in ``hand`` (sorted) of the card with the smallest expected penalty: the
    bundled heuristic's rule (bots/heuristic/take5.py, same arithmetic). ``ends`` and ``rows``
    are :func:`targets`, ``cheapest`` the fewest heads of a row plus 0.5, ``unseen`` the count
    of cards this seat has not seen."""
    best, best_cost = 0, math.inf
    exp = math.exp
    for index, card in enumerate(hand):
        at = bisect.bisect_left(ends, card)
        if at == 0:
            cost = cheapest
        else:
            end, heads, slots = rows[at - 1]
            if not slots:
                cost = float(heads)
            else:
                own = index - bisect.bisect_right(hand, end)
                mean = (prefix[card - 1] - prefix[end] - own) * opponents / unseen
                term = total = exp(-mean)  # P(at least `slots` of them come first): Poisson
                for i in range(1, slots):
                    term *= mean / i
                    total += term
                cost = max(0.0, 1.0 - total) * (heads + slots) + 0.001 * (card - end)
        if cost < best_cost:
            best, best_cost = index, cost
    return best


def pick_row(rows: list[list[int]], row_heads: list[int]) -> int:
    """The cheapest row: fewest heads, then fewest cards, then the first."""
    return min(range(len(rows)), key=lambda r: (row_heads[r], len(rows[r]), r))


# -- a playout on plain lists ------------------------------------------------------------------


class Round:
    """The rest of a round: rows, hands, the heads each seat took, what everyone has seen."""

    def __init__(
        self,
        rows: list[list[int]],
        hands: list[list[int]],
        seen: list[bool],
        professional: bool,
    ) -> None:
        self.rows = [list(r) for r in rows]
        self.row_heads = [sum(HEADS[c] for c in r) for r in self.rows]
        self.hands = [list(h) for h in hands]
        self.heads = [0] * len(hands)
        self.unseen = unseen_flags(seen)
        """1 for each card nobody has seen yet this round: prefix sums count the unseen."""
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
        for card in cards:
            self.unseen[card] = 0
        for card, seat in sorted(zip(cards, range(len(cards)), strict=True)):
            self.place(card, seat)

    def choices(self, forced: Mapping[int, int]) -> list[int]:
        """Each seat's card for this trick: ``forced`` ones, the rest by the heuristic."""
        prefix = list(itertools.accumulate(self.unseen))
        public = len(prefix) - 1 - prefix[-1]
        opponents = len(self.hands) - 1
        ends, rows = targets(self.rows, self.row_heads)
        cheapest = min(self.row_heads) + 0.5
        cards = []
        for seat, hand in enumerate(self.hands):
            if seat in forced:
                card = forced[seat]
                hand.remove(card)
            else:
                unseen = max(1, len(prefix) - 1 - public - len(hand))
                card = hand.pop(pick_card(hand, ends, rows, cheapest, prefix, unseen, opponents))
            cards.append(card)
        return cards

    def play_out(self, forced: Mapping[int, int] | None = None) -> None:
        """Play every trick left; ``forced`` fixes some seats' cards in the first one."""
        if forced:
            self.resolve(self.choices(forced))
        while self.hands[0]:
            self.resolve(self.choices({}))


def value(
    heads: list[int], seat: int, totals: list[int], settings: Mapping[str, Any], last: bool
) -> float:
    """How good a round's heads are for ``seat``: the others' average minus its own, and
    ``WIN_BONUS`` (shared among the tied) if the round ends the game and ``seat`` wins."""
    others = (sum(heads) - heads[seat]) / (len(heads) - 1)
    score = others - heads[seat]
    after = [t + h for t, h in zip(totals, heads, strict=True)]
    end = settings.get("end_score", 66)
    reached = any(t > end if settings.get("more_than") else t >= end for t in after)
    if reached or last:
        best = min(after)
        if after[seat] == best:
            score += WIN_BONUS / after.count(best)
    return score


class Deals:
    """Worlds for one decision: the first is the kit's ``rules.sample_world``; each next one
    deals the same hidden cards (the other hands and the undealt cards) again, shuffled, into
    hands of the same sizes: what ``sample_world`` does, without building a whole position each
    time (about 250 µs). A playout ends with the round, so only the hands differ."""

    def __init__(self, world: Any, seat: int, rng: random.Random) -> None:
        self.world = world
        self.seat = seat
        self.rng = rng
        self.first = True
        self.hidden = [c for s, h in enumerate(world.hands) if s != seat for c in h]
        self.hidden += world.undealt()

    def next(self) -> list[list[int]]:
        hands: list[list[int]] = self.world.hands
        if self.first:
            self.first = False
            return hands
        pool = self.hidden
        self.rng.shuffle(pool)
        dealt, at = [], 0
        for s, hand in enumerate(hands):
            if s == self.seat:
                dealt.append(hand)
            else:
                dealt.append(sorted(pool[at : at + len(hand)]))
                at += len(hand)
        return dealt


# -- the decision ------------------------------------------------------------------------------


class Searcher:
    """One seat's search in one match: the generator for each decision is seeded from the match
    id, the seat and the decision's number, so a replay with the same budget plays the same."""

    def __init__(self, match_id: str, seat: int) -> None:
        self.match_id = match_id
        self.seat = seat
        self.decisions = 0
        self.worlds_used: list[int] = []
        """Worlds searched per decision (for tests and tuning)."""

    def choose(
        self,
        observation: dict[str, Any],
        legal: list[Any],
        options: Mapping[str, Any],
        told: Mapping[str, Any],
        worlds: int = WORLDS,
    ) -> int:
        began = time.perf_counter()
        budget = Budget(told, began)
        self.decisions += 1
        rng = random.Random(f"{self.match_id}:{self.seat}:{self.decisions}")
        if len(legal) == 1:
            self.worlds_used.append(0)
            return 0
        row_decision = observation.get("decision") == "row"
        fallback = self.heuristic(observation, legal, options, row_decision)
        tricks = len(observation["hand"]) + (0 if row_decision else 1)
        count = max(MIN_WORLDS, min(worlds, worlds * SPREAD // max(1, len(legal) * tricks)))
        count = min(count, worlds)
        totals = [0.0] * len(legal)
        done = 0
        seen, _ = self.seen_cards(observation, options)
        for card, _seat in observation.get("to_place", []):
            seen[card] = True
        deal = Deals(sample_world(observation, options, rng), self.seat, rng)
        for _ in range(count):
            if not budget.left():
                break
            hands = deal.next()
            scores = self.evaluate(
                hands, deal.world, observation, legal, seen, row_decision, budget
            )
            if scores is None:
                break
            for i, s in enumerate(scores):
                totals[i] += s
            done += 1
        self.worlds_used.append(done)
        if not done:
            return fallback
        return max(range(len(legal)), key=lambda i: (totals[i], i == fallback, -i))

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
        public = len(seen) - 1 - prefix[-1]
        unseen = max(1, len(seen) - 1 - public - len(hand))
        ends, by_end = targets(rows, row_heads)
        opponents = len(observation["totals"]) - 1
        cheapest = min(row_heads) + 0.5
        card = hand[pick_card(hand, ends, by_end, cheapest, prefix, unseen, opponents)]
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
        legal: list[Any],
        seen: list[bool],
        row_decision: bool,
        budget: Budget,
    ) -> list[float] | None:
        """Each action's value in one world (its hands; the rest is ``world``'s), or None if
        time ran out."""
        settings = world.options
        totals: list[int] = list(observation["totals"])
        base_heads: list[int] = list(observation["round_heads"])
        last = (
            settings.get("max_rounds") is not None
            and observation["round"] >= settings["max_rounds"]
        )
        professional = bool(settings.get("professional"))
        before = [t - b for t, b in zip(totals, base_heads, strict=True)]
        scores = []
        for action in legal:
            if not budget.left():
                return None
            play = Round(world.rows, hands, seen, professional)
            if row_decision:
                pairs = observation["to_place"]
                card, seat = pairs[0]
                play.place(card, seat, row_choice=action)
                for card, seat in pairs[1:]:
                    play.place(card, seat)
                play.play_out()
            else:
                play.play_out({self.seat: action})
            heads = [b + h for b, h in zip(base_heads, play.heads, strict=True)]
            scores.append(value(heads, self.seat, before, settings, last))
        return scores


searchers: dict[tuple[str, int], Searcher] = {}


def choose(observation: dict[str, Any], legal: list[Any], match: Any) -> int:
    """The arenabot entry point: the index in ``legal`` to play."""
    key = (match.id, match.seat)
    if key not in searchers:
        searchers.clear()  # one match at a time: forget the last one
        searchers[key] = Searcher(match.id, match.seat)
    return searchers[key].choose(observation, legal, match.options, match.time)
