"""Take 5 by determinized Monte-Carlo search with an opponent model read from the play.

Each decision samples worlds consistent with what this seat saw (``rules.sample_world``: the other
hands dealt at random from the unseen cards), and in each world plays every legal action to the
end of the round. In the playouts every seat (this one too, after its first card) plays by the
bundled heuristic's rule (the card with the smallest expected penalty, the cheapest row), except
the opponents seen to play at random (:class:`Opponents`: they play many cards the heuristic
calls risky), which play at random there too. Plain Monte-Carlo with random playouts wins about
40-45% against three heuristics; playouts whose players play like the real ones tell much better
which card is safe. An action's value in a world is the heads the others took this round on
average minus the heads this seat took, plus a bonus for winning when the round ends the game.
The action with the best total over the worlds is played (every action sees the same worlds and
the same random choices, so the comparison is paired).

Time: a fixed number of worlds per decision (``WORLDS``; fewer, down to ``MIN_WORLDS``, when
the candidates times the tricks to play exceed ``SPREAD``, so the first tricks of a round do not
cost several times more), and a deadline from ``match.time`` as a safety net only: the search
stops at a share of ``decision_ms`` (plus a little of the bank) and plays the best action so
far; with no time at all, the heuristic's own choice. A decision's generator is seeded from the
match id, the seat and the decision's number.

Speed: the rules' ``State.clone()`` builds a new game and copies its log (about 80 µs) and
``sample_world`` builds a whole position (about 250 µs), too slow for hundreds of playouts per
decision in Python. So the first world of a decision comes from ``sample_world`` and the next
ones deal its hidden cards again (:class:`Deals`), and a playout runs on plain lists (rows,
hands, heads) with the trick resolution of :class:`Round`: the rules' resolution (the
professional variant's left end goes through ``rules.take5.choose_row``); a test plays random
tricks in both and checks they agree. Every constant comes from ``rules``.
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
from .rules.take5 import HAND_SIZE, HEADS, ROW_LIMIT, cards_in_play, choose_row

WORLDS = 40
"""Worlds per decision: the fixed budget, when candidates × tricks to play is at most SPREAD."""
SPREAD = 100
"""Beyond it, proportionally fewer worlds (at least MIN_WORLDS): the work per decision is
bounded."""
MIN_WORLDS = 6
RISKY = 1.0
"""A card whose expected penalty is at least this many heads is a risky one to play."""
HEURISTIC_RISKY = 0.25
RANDOM_RISKY = 0.52
"""The shares of risky cards the bundled heuristic and a random player play (measured over
whole games of 4 seats): each opponent's odds of playing at random come from its own share."""
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
        wild: frozenset[int] = frozenset(),
        rng: random.Random | None = None,
    ) -> None:
        self.wild = wild
        """The seats that play at random in this playout (the others play the heuristic)."""
        self.rng = rng or random.Random(0)
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
            elif seat in self.wild:
                card = hand.pop(int(self.rng.random() * len(hand)))
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


class Opponents:
    """How each other seat plays, read from the public events: the share of its cards that were
    risky when played (an expected penalty of at least ``RISKY`` heads by the heuristic's
    reckoning). The heuristic plays fewer than a random player: each playout draws which seats
    play at random with the odds this gives (even odds before any card is seen)."""

    def __init__(self, seats: int, seat: int, deck: int) -> None:
        self.seat = seat
        self.deck = deck
        self.cursor = 0
        self.risky = [0] * seats
        self.played = [0] * seats
        self.rows: list[list[int]] = []
        self.seen = [False] * (deck + 1)

    def read(self, events: list[dict[str, Any]]) -> None:
        """Take in the events not read yet."""
        for event in events[self.cursor :]:
            kind = event.get("type")
            if kind == "round":
                self.rows = [list(r) for r in event["rows"]]
                self.seen = [False] * (self.deck + 1)
                for row in self.rows:
                    for c in row:
                        self.seen[c] = True
            elif kind == "reveal" and self.rows:
                self.judge(event["cards"], event["trick"])
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
        rows = self.rows
        row_heads = [sum(HEADS[c] for c in r) for r in rows]
        prefix = unseen_prefix(self.seen)
        hand = HAND_SIZE - trick + 1
        unseen = max(1, self.deck - (self.deck - prefix[-1]) - hand)
        ends, by_end = targets(rows, row_heads)
        cheapest = min(row_heads) + 0.5
        for s, card in enumerate(cards):
            if s == self.seat:
                continue
            cost = card_cost(card, ends, by_end, cheapest, prefix, unseen, len(cards) - 1)
            self.played[s] += 1
            self.risky[s] += cost >= RISKY
        for card in cards:
            self.seen[card] = True

    def random_odds(self) -> list[float]:
        """Per seat, the chance that it plays at random rather than by the heuristic, from how
        many risky cards it played (binomial likelihoods, even odds before any card)."""
        odds = []
        for risky, played in zip(self.risky, self.played, strict=True):
            safe = played - risky
            log_ratio = risky * math.log(HEURISTIC_RISKY / RANDOM_RISKY) + safe * math.log(
                (1 - HEURISTIC_RISKY) / (1 - RANDOM_RISKY)
            )
            odds.append(1.0 / (1.0 + math.exp(min(50.0, log_ratio))))
        odds[self.seat] = 0.0
        return odds

    def wild(self, rng: random.Random | None = None) -> frozenset[int]:
        """The seats that play at random in one playout: each drawn with its odds from ``rng``
        (without it, the seats more likely random than not)."""
        odds = self.random_odds()
        if rng is None:
            return frozenset(s for s, p in enumerate(odds) if p > 0.5)
        return frozenset(s for s, p in enumerate(odds) if rng.random() < p)


def card_cost(
    card: int,
    ends: list[int],
    rows: list[tuple[int, int, int]],
    cheapest: float,
    prefix: list[int],
    unseen: int,
    opponents: int,
) -> float:
    """The heuristic's expected penalty of one card (as :func:`pick_card` reckons, without the
    player's own hand, which others do not see)."""
    at = bisect.bisect_left(ends, card)
    if at == 0:
        return cheapest
    end, heads, slots = rows[at - 1]
    if not slots:
        return float(heads)
    mean = (prefix[card - 1] - prefix[end]) * opponents / unseen
    term = total = math.exp(-mean)
    for i in range(1, slots):
        term *= mean / i
        total += term
    return max(0.0, 1.0 - total) * (heads + slots)


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
        self.opponents: Opponents | None = None
        self.worlds_used: list[int] = []
        """Worlds searched per decision (for tests and tuning)."""

    def choose(
        self,
        observation: dict[str, Any],
        legal: list[Any],
        options: Mapping[str, Any],
        told: Mapping[str, Any],
        worlds: int = WORLDS,
        events: list[dict[str, Any]] | None = None,
    ) -> int:
        began = time.perf_counter()
        if events is not None:
            if self.opponents is None:
                seats = len(observation["totals"])
                deck = cards_in_play(seats, bool(options.get("tactics", False)))[-1]
                self.opponents = Opponents(seats, self.seat, deck)
            self.opponents.read(events)
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
        if not budget.left():
            self.worlds_used.append(0)
            return fallback
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
        salt = world.rng.getrandbits(32)  # the same random play for every action: paired
        draw = random.Random(salt + 1)
        wild = self.opponents.wild(draw) if self.opponents is not None else frozenset()
        before = [t - b for t, b in zip(totals, base_heads, strict=True)]
        scores = []
        for action in legal:
            if not budget.left():
                return None
            play = Round(world.rows, hands, seen, professional, wild, random.Random(salt))
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
    return searchers[key].choose(observation, legal, match.options, match.time, events=match.events)
