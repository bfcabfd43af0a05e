"""Ten by determinized Monte-Carlo search: whole-game playouts by the bundled heuristic.

In Ten every card but the order of the draw pile is public, so a world consistent with what this
seat saw is the position with the pile shuffled again (``rules.sample_world`` builds the first;
the next ones shuffle its pile again, :func:`fast.shuffled`). Each decision takes a few candidate
actions (all of a draw decision's; for a bid, passing and the next few bids; for a buy, buying
nothing and the cards the heuristic rates best) and plays each, in every world, to the end of the
game with every seat (this one too, afterwards) playing the bundled heuristic's rules
(bots/heuristic/ten.py, ported exactly: against the bundled heuristic the opponent model is the
opponents). A playout is worth 1 for a win (shared among the tied) plus ``MARGIN`` per point of
lead over the best other seat (the win alone is a coarse signal). Every candidate sees the same
worlds, so each world gives a paired gain of the candidate over the heuristic's own choice.

The heuristic's choice stands unless another candidate's mean gain is ``Z`` standard errors
above zero (with a few worlds, the plain best mean is mostly noise: a search that picked it lost
to the heuristic). After ``CHECK`` worlds, the candidates clearly no better are dropped, and the
search stops when none is left: most decisions cost a few playouts. Payments follow the
heuristic's rule without a search (a third of the decisions; searching them did not win more in
a small trial, and costs time).

Time: a fixed budget of playouts per decision (``PLAYOUTS``, ``MAX_WORLDS``), and a deadline from
``match.time`` as a safety net only: the search stops at a share of ``decision_ms`` (plus a little
of the bank) and plays what it found so far; with no time at all, the heuristic's own choice. A
decision's generator is seeded from the match id, the seat and the decision's number, so a match
replays the same when no deadline cuts a search short.

Speed: through the rules' objects a whole game of heuristic seats costs about 180 ms (an
observation dict per decision, an event log); :mod:`fast` plays the same game on plain lists
(about 1 ms a game besides scoring, which is cached), and a test checks it step for step against
the rules.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from typing import Any

from . import fast
from .rules import sample_world

PLAYOUTS = 16
"""Playouts per decision at most, over all candidates: the fixed budget."""
MAX_WORLDS = 8
"""Worlds per decision at most."""
CHECK = 3
"""After this many worlds, candidates that are clearly no better than the heuristic's choice
are dropped (their paired gain not above ``DROP_Z`` standard errors); the search stops when
none is left."""
DROP_Z = -0.5
MAX_BIDS = 4
"""A bid decision's candidates: passing, and bids of the high bid plus 1 .. this."""
MAX_BUYS = 4
"""A buy decision's candidates: nothing, and the market cards the heuristic rates best."""
MAX_CARDS = 1
"""A payment's candidates (when ``SEARCH_PAYS``): the heuristic's unit, a token, a bust token,
and this many of the cards whose loss costs least."""
Z = 1.0
"""Another candidate than the heuristic's is played only when its paired gain over the worlds
is at least this many standard errors above zero (noise alone must not move the choice)."""
SEARCH_PAYS = False
"""Whether payments are searched too (else they follow the heuristic's rule)."""
MARGIN = 0.03
"""A playout's value per point of lead over the best other seat (a win is worth 1)."""
TIME_SHARE = 0.4
"""The share of ``decision_ms`` the search may use (the rest covers the pipe and the loop)."""
BANK_SHARE = 0.01
"""The share of the bank left that a decision may draw on too."""
MARGIN_MS = 5.0


class Budget:
    """When a decision must stop searching, from the ``time`` the arena sent with it."""

    def __init__(self, told: Mapping[str, Any], began: float) -> None:
        decision = float(told.get("decision_ms", 1000) or 0)
        bank = float(told.get("bank_ms", 0) or 0)
        spare = TIME_SHARE * decision + BANK_SHARE * bank - MARGIN_MS
        self.deadline = began + max(0.0, spare) / 1000.0

    def left(self) -> bool:
        return time.perf_counter() < self.deadline


def value(sim: fast.Sim, seat: int) -> float:
    """What an ended playout is worth to ``seat``: a win's share, plus the lead in points."""
    points = sim.points()
    ranks = sim.ranks()
    best_other = max(p for s, p in enumerate(points) if s != seat)
    won = 1.0 / ranks.count(1) if ranks[seat] == 1 else 0.0
    return won + MARGIN * (points[seat] - best_other)


def candidates(sim: fast.Sim, actions: list[int], favourite: int) -> list[int]:
    """The actions worth searching (a subset of ``actions``, ``favourite`` always in)."""
    decision = sim.decision
    if decision == fast.DRAW:
        return list(actions)
    if decision == fast.BID:
        top = sim.high_bid + MAX_BIDS
        chosen = [a for a in actions if a <= top]
    elif decision == fast.BUY:
        seat = sim.buyer
        key = sim.key[seat]
        now = fast.score_of(key)

        def rating(card: int) -> float:
            return fast.score_of(key | fast.BIT[card]) - now - 0.25 * fast.NUMBER[card]

        cards = sorted((a for a in actions if a != fast.NONE), key=rating, reverse=True)
        chosen = [fast.NONE, *cards[:MAX_BUYS]]
    else:
        seat = sim.payer
        now = fast.score_of(sim.key[seat])
        cards = [a for a in actions if a >= 0]
        cards.sort(key=lambda c: now - fast.score_of(sim.without(seat, c)))
        chosen = [a for a in actions if a < 0] + cards[:MAX_CARDS]
    if favourite not in chosen:
        chosen.append(favourite)
    return [a for a in actions if a in chosen]


class Searcher:
    """One seat's search in one match: the generator for each decision is seeded from the match
    id, the seat and the decision's number, so a replay with the same budget plays the same."""

    def __init__(self, match_id: str, seat: int) -> None:
        self.match_id = match_id
        self.seat = seat
        self.decisions = 0
        self.worlds_used: list[int] = []
        """Worlds searched per decision (for tests and tuning)."""
        self.kinds: list[tuple[int, int]] = []
        self.deviations: list[int] = []
        """The decisions (their kinds) where the search overruled the heuristic."""

    def choose(
        self,
        observation: dict[str, Any],
        legal: list[Any],
        options: Mapping[str, Any],
        told: Mapping[str, Any],
        playouts: int = PLAYOUTS,
    ) -> int:
        began = time.perf_counter()
        budget = Budget(told, began)
        self.decisions += 1
        rng = random.Random(f"{self.match_id}:{self.seat}:{self.decisions}")
        if len(legal) == 1:
            self.worlds_used.append(0)
            return 0
        root = fast.Sim.from_state(sample_world(observation, options, rng))
        decision = root.decision
        actions = [fast.from_rules(decision, a) for a in legal]
        favourite = root.heuristic()
        fallback = actions.index(favourite) if favourite in actions else 0
        if not budget.left():
            self.worlds_used.append(0)
            return fallback
        if decision == fast.PAY and not SEARCH_PAYS:
            self.worlds_used.append(0)
            return fallback
        searched = candidates(root, actions, favourite)
        if len(searched) == 1:
            self.worlds_used.append(0)
            return actions.index(searched[0])
        at = searched.index(favourite)
        alive = [i for i in range(len(searched)) if i != at]
        gains: list[list[float]] = [[] for _ in searched]
        """Per candidate, its value minus the heuristic's choice's, world by world."""
        spent = worlds = 0
        while alive and worlds < MAX_WORLDS and spent < playouts:
            world = root if worlds == 0 else fast.shuffled(root, rng)
            scores = {}
            for i in [at, *alive]:
                if not budget.left():
                    break
                sim = world.copy()
                sim.apply(searched[i])
                if not sim.play_out(budget.deadline):
                    break
                scores[i] = value(sim, self.seat)
            if len(scores) < 1 + len(alive):
                break
            for i in alive:
                gains[i].append(scores[i] - scores[at])
            spent += len(scores)
            worlds += 1
            if worlds >= CHECK:
                alive = [i for i in alive if promising(gains[i], DROP_Z)]
        self.worlds_used.append(worlds)
        self.kinds.append((decision, spent))
        best, best_gain = at, 0.0
        for i in alive:
            row = gains[i]
            if len(row) >= CHECK and promising(row, Z) and mean_of(row) > best_gain:
                best, best_gain = i, mean_of(row)
        if best != at:
            self.deviations.append(decision)
        return actions.index(searched[best])


def mean_of(row: list[float]) -> float:
    return sum(row) / len(row)


def promising(row: list[float], z: float) -> bool:
    """Whether the mean of ``row`` (paired gains) is more than ``z`` standard errors above zero
    (``z`` may be negative: not clearly below zero). A row of equal gains is promising only if
    they are positive: a candidate that always does as well as the heuristic's choice cannot
    beat it."""
    n = len(row)
    mean = sum(row) / n
    if n < 2:
        return mean > 0 if z >= 0 else True
    error = math.sqrt(sum((x - mean) ** 2 for x in row) / (n - 1) / n)
    if error == 0:
        return mean > 0
    return mean > z * error


searchers: dict[tuple[str, int], Searcher] = {}


def choose(observation: dict[str, Any], legal: list[Any], match: Any) -> int:
    """The arenabot entry point: the index in ``legal`` to play."""
    key = (match.id, match.seat)
    if key not in searchers:
        searchers.clear()  # one match at a time: forget the last one
        searchers[key] = Searcher(match.id, match.seat)
    return searchers[key].choose(observation, legal, match.options, match.time)
