"""Phase 10 by determinized Monte-Carlo search over the rest of the hand.

Phase 10 is a race: a seat advances when it lays its phase down before someone goes out, so each
hand is won by laying down early and then going out before the others lay down. The decisions
that steer the race are searched: draw or take the discard pile's top, and which card to discard
(a Skip, and at whom). The others follow the playout policy (:mod:`.fast`): lay the phase down as
soon as the hand can, with every natural card that fits; hit every card that fits, a Wild where
a natural card of the hand fits next (the end of a run two numbers from it); once down, discard
first a card no run on the table is about to reach (two or three numbers away), then the most
points (once down, only hits empty the hand, and a card a run grows to can be hit later); before
down, hold back a card of a number (or colour) the next seat is known to collect (it took one
from the discard pile: ``fast.DENY``); a Skip at the seat closest to ending the hand or ahead in
the game (``fast.SKIP_DONE``).

Each searched decision samples worlds consistent with what this seat saw (``rules.sample_world``
with the match's events: the cards seen taken from the discard pile kept where they went), the
other hands' unseen cards dealt from what each seat did since the deal (:mod:`.infer`: a
particle filter that weighs guesses of each hand by the heuristic's own rules) and the rest at
random, and in each world plays
every candidate action followed by the rest of the hand (up to ``HORIZON`` turns): this seat by
its policy, the others by the bundled heuristic's own rules (:mod:`.model`, a port checked
against it decision by decision: the opponents a reference bot must beat, and a search whose
playouts model them by another policy misjudges what they take and when they go out).
Candidates: both draws; the discards the policy ranks best (``CANDIDATES``) and every Skip
target. A playout's value for this seat: whether it advanced minus the others' average, a little
for the points it holds less than them, and ``WIN_BONUS`` when the hand ends the game (its
winner by phases, then points). Every action sees the same worlds and the same random draws
(paired comparison). The policy's own choice is played unless another candidate beats it by
``Z_SWITCH`` standard errors of their paired difference (and by ``MARGIN``): a hand's outcome is
noisy, and with a flat margin a search cut short by its deadline followed single lucky worlds
(measured: the search lost to its own policy). Worlds are drawn in rounds of ``ROUND`` after
``MIN_WORLDS`` until ``WORLDS``, stopping early once every alternative is clearly worse than the
policy's choice or one is clearly better.

Time: at most ``WORLDS`` worlds per decision, and a deadline from ``match.time`` as a safety net:
the search stops at a share of ``decision_ms`` (plus a little of the bank) and plays the best
action so far by the same test, or the policy's own choice with no time at all. A decision's
generator is seeded from the match id, the seat and the decision's number, so with a fixed
budget a match replays the same.

CPU: the arena limits a bot process's CPU time over its whole life (``RLIMIT_CPU``), and a
process plays match after match; the search stops for good when less than ``CPU_SPARE`` seconds
of that limit are left, and the policy plays on (measured: without this the process was killed
by SIGXCPU after about 90 games of a benchmark, in the middle of a match).

Strength (Phase 10, 3 seats, against 2 bundled heuristics, seats rotated; 33% is parity, the
target 55%): the policy alone, in-process on 3,000 seeds, 49.0% [47.2, 50.8] (session 13: Deny
once down, paired +0.93 points ± 0.75 over 48.1% [46.3, 49.9], confirmed on 3,000 other seeds
at +1.50 ± 0.80; session 11: the Deny rule and the Skip at the game's leader, paired +2.3
points ± 1.6 over 45.8% [44.1, 47.6];
that was +1.8 ± 1.2 over 44.1% before the run-reach and Wild rules); through processes, see
benchmarks/REPORT-reference-phase10.md. The target is not met.

Speed: a world's first deal comes from ``sample_world`` (a whole rules position, about 1 ms); the
next ones deal its hidden cards again on plain lists. Playouts run on :class:`.fast.Hand`, which a
test checks against the rules step for step.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from typing import Any

from .fast import COLOURS, WILD, Hand, Layout, layout, supported
from .infer import Reader, deal
from .rules import sample_world

WORLDS = 32
"""Worlds per searched decision (the fixed budget)."""
CANDIDATES = 3
"""The discards searched: the policy's best few (and every Skip target)."""
HORIZON = 36
"""Turns a playout plays at most (a hand of three seats takes about 18)."""
POINT_WEIGHT = 0.004
"""A point fewer in hand than the others, in phases."""
WIN_BONUS = 2.0
"""Winning the game in the playout's hand, in phases."""
CAREFUL = False
MODEL_OTHERS = True
"""Whether the playouts play the other seats by the bundled heuristic's rules (:mod:`.model`)."""
MARGIN = 0.02
"""How much better per world (in phases) a searched action must do than the policy's choice."""
Z_SWITCH = 1.5
"""How many standard errors of the paired difference a searched action must gain by."""
MIN_SWITCH = 8
"""Worlds below which the policy's choice always stands (too few to estimate the noise)."""
Z_SETTLE = 2.5
"""Stop sampling once every difference is this many standard errors one way."""
MIN_WORLDS = 16
"""Worlds searched before the search may stop early."""
ROUND = 8
"""Worlds between two looks at whether the search may stop."""
TIME_SHARE = 0.4
"""The share of ``decision_ms`` the search may use (the rest covers the pipe and the loop)."""
BANK_SHARE = 0.005
"""The share of the bank left that a decision may draw on too."""
MARGIN_MS = 5.0
READ = True
"""Whether the worlds deal the other hands from what their seats did since the deal
(:mod:`.infer`), rather than uniformly from the unseen cards (measured, 400 paired in-process
games at 16 worlds: 50.0% against 46.25%, +3.75 points ± 5.98, not significant)."""
CPU_SPARE = 60.0
"""Seconds of the process's lifetime CPU limit the search leaves unused (see :func:`cpu_left`)."""


def cpu_left() -> float:
    """Seconds of CPU this process may still use before the soft ``RLIMIT_CPU`` (SIGXCPU, then
    SIGKILL); infinite where there is no limit or no way to read it."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return math.inf
    soft, _ = resource.getrlimit(resource.RLIMIT_CPU)
    if soft == resource.RLIM_INFINITY or soft < 0:
        return math.inf
    used = resource.getrusage(resource.RUSAGE_SELF)
    return float(soft) - (used.ru_utime + used.ru_stime)


class Budget:
    """When a decision must stop searching, from the ``time`` the arena sent with it."""

    def __init__(self, told: Mapping[str, Any], began: float) -> None:
        decision = float(told.get("decision_ms", 1000) or 0)
        bank = float(told.get("bank_ms", 0) or 0)
        spare = TIME_SHARE * decision + BANK_SHARE * bank - MARGIN_MS
        self.deadline = began + max(0.0, spare) / 1000.0

    def left(self) -> bool:
        return time.perf_counter() < self.deadline


def observed(observation: Mapping[str, Any]) -> Hand:
    """The hand as far as the seat sees it: its own cards real, the others' and the draw pile
    placeholders (enough for the policy's choice for this seat)."""
    seat: int = observation["seat"]
    seats = len(observation["totals"])
    hands = [
        list(observation["hand"]) if s == seat else ["?"] * observation["hand_sizes"][s]
        for s in range(seats)
    ]
    top = observation["discard_top"]
    discard = ["?"] * max(0, observation["discard_size"] - 1) + ([top] if top else [])
    table = []
    for g in observation["table"]:
        kind = g["kind"]
        key = g["n"] if kind == "set" else g["lo"] if kind == "run" else COLOURS.index(g["c"]) + 1
        from .fast import Group

        table.append(Group(g["owner"], kind, key, list(g["cards"])))
    mine = Hand(
        hands,
        ["?"] * observation["draw_size"],
        discard,
        table,
        list(observation["phase"]),
        [p is not None for p in observation["laid"]],
        list(observation["skip_waiting"]),
        list(observation["active"]),
        observation["turn"] if observation["turn"] is not None else seat,
        observation["turns"],
        None,
        False,
        random.Random(0),
    ).counting([len(d) for d in observation["completed"]])
    mine.known = [list(k) for k in observation.get("known") or [[] for _ in range(seats)]]
    return mine


def discard_action(card: str, target: int | None) -> dict[str, Any]:
    action: dict[str, Any] = {"discard": card}
    if target is not None:
        action["target"] = target
    return action


class Searcher:
    """One seat's search in one match: the generator for each decision is seeded from the match
    id, the seat and the decision's number, so a replay with the same budget plays the same."""

    def __init__(self, match_id: str, seat: int) -> None:
        self.match_id = match_id
        self.seat = seat
        self.decisions = 0
        self.plan: Layout | None = None
        """The lay-down this seat is laying (chosen when it starts to)."""
        self.worlds_used: list[int] = []
        self.reader = Reader(seat, random.Random(f"{match_id}:{seat}:read"))
        """What this seat has read of the other hands (used when ``READ``)."""
        """Worlds searched per decision (0: not searched), for tests and tuning."""

    def choose(
        self,
        observation: dict[str, Any],
        legal: list[Any],
        options: Mapping[str, Any],
        told: Mapping[str, Any],
        events: list[dict[str, Any]] | None = None,
        worlds: int = WORLDS,
    ) -> int:
        began = time.perf_counter()
        self.decisions += 1
        decision = observation.get("decision")
        if len(legal) == 1:
            self.worlds_used.append(0)
            return 0
        if decision == "lay":
            self.worlds_used.append(0)
            return self.lay_step(observation, legal)
        mine = observed(observation)
        if decision == "play":
            forced = self.lay_or_hit(observation, legal, mine)
            if forced is not None:
                self.worlds_used.append(0)
                return forced
        candidates = self.candidates(decision, legal, mine)
        fallback = 0
        if (
            len(candidates) <= 1
            or worlds <= 0
            or not supported(options)
            or observation.get("tiebreak") is not None
        ):
            self.worlds_used.append(0)
            return legal.index(candidates[0]) if candidates else fallback
        budget = Budget(told, began)
        if not budget.left() or cpu_left() < CPU_SPARE:
            self.worlds_used.append(0)
            return legal.index(candidates[0])
        rng = random.Random(f"{self.match_id}:{self.seat}:{self.decisions}")
        scores = self.search(observation, options, events, candidates, worlds, budget, rng)
        done = len(scores[0])
        self.worlds_used.append(done)
        if not done:
            return legal.index(candidates[0])
        return legal.index(candidates[pick(scores)])

    # -- the decisions not searched -------------------------------------------------------

    def lay_or_hit(self, observation: dict[str, Any], legal: list[Any], mine: Hand) -> int | None:
        """A play decision's lay-down or hit, when the policy makes one (it always does when it
        can); None when only discards are left to choose from."""
        hand: list[str] = list(observation["hand"])
        for i, action in enumerate(legal):
            if isinstance(action, dict) and "lay" in action:
                plan = layout(action["lay"], hand)
                if plan is not None:
                    self.plan = plan
                    return i
        hits = [a for a in legal if isinstance(a, dict) and "hit" in a]
        if not hits:
            return None
        for card in sorted(dict.fromkeys(hand), key=lambda x: x == WILD):
            spot = mine.wild_spot(hand) if card == WILD else None
            if spot is not None:
                action = {"hit": spot[0], "card": WILD, "end": spot[2]}
                if action in legal:
                    return legal.index(action)
            for gid, group in enumerate(mine.table):
                ends = group.ends(card)
                if ends:
                    action = {"hit": gid, "card": card}
                    if ends[-1] is not None:
                        action["end"] = ends[-1]
                    if action in legal:
                        return legal.index(action)
        return legal.index(hits[0])

    def lay_step(self, observation: dict[str, Any], legal: list[Any]) -> int:
        """The next step of the planned lay-down (or, off the plan, the bundled heuristic's:
        natural cards first, then Wilds, then close the group)."""
        laying = observation["laying"]
        plan = self.plan
        if plan is not None:
            index = len(laying["groups"])
            if index < len(plan):
                kind, key, cards = plan[index]
                opened = laying["open"]
                if opened is None:
                    want: Any = {kind: COLOURS[key - 1] if kind == "colour" else key}
                elif len(opened["cards"]) < len(cards):
                    want = {"add": cards[len(opened["cards"])]}
                else:
                    want = "end"
                if want in legal:
                    return legal.index(want)
        self.plan = None
        adds = [i for i, a in enumerate(legal) if isinstance(a, dict) and "add" in a]
        natural = [i for i in adds if legal[i]["add"] != WILD]
        if natural or adds:
            return (natural or adds)[0]
        if "end" in legal:
            return legal.index("end")
        return 0

    def candidates(self, decision: Any, legal: list[Any], mine: Hand) -> list[Any]:
        """The actions searched, the policy's choice first."""
        if decision == "draw":
            order = ["take", "draw"] if mine.wants_top() else ["draw", "take"]
            return [a for a in order if a in legal]
        found: list[Any] = []
        plain = 0
        for card, target in mine.discard_order(careful=CAREFUL):
            action = discard_action(card, target)
            if action not in legal:
                continue
            if card != "S":
                if plain >= CANDIDATES:
                    continue
                plain += 1
            found.append(action)
        return found or [legal[0]]

    # -- the search -----------------------------------------------------------------------

    def search(
        self,
        observation: dict[str, Any],
        options: Mapping[str, Any],
        events: list[dict[str, Any]] | None,
        candidates: list[Any],
        worlds: int,
        budget: Budget,
        rng: random.Random,
    ) -> list[list[float]]:
        """Each candidate's value in each world searched (the same worlds for all)."""
        scores: list[list[float]] = [[] for _ in candidates]
        world = sample_world(observation, options, rng, events)
        if not budget.left():
            return scores
        base = Hand.from_world(world, rng)
        context = Context(observation, self.seat)
        reader = None
        if READ and events is not None:
            self.reader.update(events)
            reader = self.reader
        return evaluate(
            base, observation["known"], self.seat, candidates, worlds, budget, rng, context, reader
        )


def evaluate(
    base: Hand,
    known: list[list[str]],
    seat: int,
    candidates: list[Any],
    worlds: int,
    budget: Budget,
    rng: random.Random,
    context: Context,
    reader: Reader | None = None,
) -> list[list[float]]:
    """Each candidate's value in each world (the first ``base`` as dealt, the next ones with
    the other hands' unknown cards and the draw pile dealt again; with a ``reader``, every world
    dealt from its guesses), every candidate followed by the rest of the hand played out, the
    other seats by the heuristic's model."""
    scores: list[list[float]] = [[] for _ in candidates]
    base.modelled = [MODEL_OTHERS and s != seat for s in range(len(base.hands))]
    pool = list(base.draw_pile)
    unknown = [0] * len(base.hands)
    for s, hand in enumerate(base.hands):
        if s == seat:
            continue
        rest = list(hand)
        for card in known[s]:
            rest.remove(card)
        unknown[s] = len(rest)
        pool += rest
    for k in range(worlds):
        if not budget.left() or (k >= MIN_WORLDS and k % ROUND == 0 and settled(scores)):
            break
        if reader is not None:
            dealt, draw = deal(reader, pool, unknown, seat, rng)
            hands = [h if s == seat else [*known[s], *dealt[s]] for s, h in enumerate(base.hands)]
        elif k:
            rng.shuffle(pool)
            at = 0
            hands = []
            for s, hand in enumerate(base.hands):
                if s == seat:
                    hands.append(hand)
                else:
                    hands.append([*known[s], *pool[at : at + unknown[s]]])
                    at += unknown[s]
            draw = pool[at:]
        else:
            hands, draw = base.hands, base.draw_pile
        salt = rng.getrandbits(32)
        values = []
        for action in candidates:
            if not budget.left():
                return scores  # this world unfinished: left out
            play = base.copy(hands, draw, random.Random(salt))
            if action == "draw":
                play.draw()
                play.finish_turn()
            elif action == "take":
                play.take()
                play.finish_turn()
            else:
                play.discard(action["discard"], action.get("target"))
            play.play_out(HORIZON)
            values.append(context.value(play))
        for i, v in enumerate(values):
            scores[i].append(v)
    return scores


def paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """The mean of ``a - b`` world by world, and its standard error."""
    n = len(a)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / n
    if n < 2:
        return mean, float("inf")
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, (var / n) ** 0.5


def pick(scores: list[list[float]]) -> int:
    """The candidate to play: the best on average if it beats the policy's own choice (the
    first) by ``Z_SWITCH`` standard errors of their paired difference and by ``MARGIN``, over
    ``MIN_SWITCH`` worlds at least, else the policy's choice."""
    n = len(scores[0])
    best = max(range(len(scores)), key=lambda i: (sum(scores[i]), -i))
    if best == 0 or n < MIN_SWITCH:
        return 0
    mean, se = paired(scores[best], scores[0])
    return best if mean > MARGIN and mean > Z_SWITCH * se else 0


def settled(scores: list[list[float]]) -> bool:
    """Whether more worlds would hardly change the pick: every other candidate is clearly
    worse than the policy's choice, or the best is clearly better."""
    stats = [paired(scores[i], scores[0]) for i in range(1, len(scores))]
    if all(m + Z_SETTLE * se < 0 or (m == 0.0 and se == 0.0) for m, se in stats):
        return True  # none better (or none different in any world so far)
    return any(m - Z_SETTLE * se > MARGIN for m, se in stats)


class Context:
    """What a playout's value needs beyond the hand: phases done, totals, the sequence's
    length."""

    def __init__(self, observation: Mapping[str, Any], seat: int) -> None:
        self.seat = seat
        self.done = [len(d) for d in observation["completed"]]
        self.totals = list(observation["totals"])
        self.phases = len(observation["sequence"])
        self.active = list(observation["active"])

    def value(self, hand: Hand) -> float:
        """How good the hand's end is for this seat, in phases (see the module's doc)."""
        seat = self.seat
        others = [s for s in self.active if s != seat]
        if not others:
            return 0.0
        advanced = [1.0 if hand.laid[s] else 0.0 for s in range(len(hand.laid))]
        held = [hand.hand_points(s) for s in range(len(hand.hands))]
        score = advanced[seat] - sum(advanced[s] for s in others) / len(others)
        score += POINT_WEIGHT * (sum(held[s] for s in others) / len(others) - held[seat])
        after = [d + a for d, a in zip(self.done, advanced, strict=True)]
        finishers = [s for s in self.active if after[s] >= self.phases]
        if finishers:
            best = min(self.totals[s] + held[s] for s in finishers)
            winners = [s for s in finishers if self.totals[s] + held[s] == best]
            score += WIN_BONUS if winners == [seat] else -WIN_BONUS if seat not in winners else 0
        return score


searchers: dict[tuple[str, int], Searcher] = {}


def choose(observation: dict[str, Any], legal: list[Any], match: Any) -> int:
    """The arenabot entry point: the index in ``legal`` to play."""
    key = (match.id, match.seat)
    if key not in searchers:
        searchers.clear()  # one match at a time: forget the last one
        searchers[key] = Searcher(match.id, match.seat)
    return searchers[key].choose(observation, legal, match.options, match.time, events=match.events)
