"""Simulated A/B tests with in-process players of known strength: is the SPRT right?

**Players.** A :class:`NoisyPolicy` plays a simple greedy policy for its game (written here over
the observation alone) and, with probability ``eps``, a uniformly random legal action instead:
``eps = 0`` is the greedy player, ``eps = 1`` the random one, and strength falls with ``eps``.

**Blocks.** :func:`play_block` plays one duplicate block with :func:`arena.players.play_local`:
the same deal (seed) twice, NEW in a seat, then OLD in that seat, the other seats held by the
same opponents seeded the same way in both games (so they play the same until the two games part
ways). NEW and OLD draw their noise from different seeds, as two processes would, or (coupled)
from the same seed, as two versions of a deterministic bot that differ in some decisions. Block
``b`` of a pool puts the tested seat at ``b mod seats``.

**Why pools.** A real game's true distribution of block scores is not known in closed form, so
a benchmark cannot know whether H0 or H1 "really" holds for two noisy players. Instead a large
pool of real blocks is played once; its empirical distribution over the bins *is* then a known
truth, and sequential tests drawn from it (blocks resampled independently, as blocks of a real
test are independent deals) have known error rates:

- H0 exactly: a pool of two identical players, symmetrised (swapping NEW and OLD of identical
  players maps ``d`` to ``1 - d`` in distribution, so the mixture of the pool and its mirror is
  as good an estimate of their distribution as the pool, with mean exactly 1/2 and t-value
  exactly 0);
- H1 exactly at the bound: a pool of a stronger against a weaker player, exponentially tilted
  (``p_k`` proportional to ``q_k e^(theta a_k)``) to the mean or t-value of H1. Tilting keeps the
  support of a real distribution (its ties, its skew) and reweights it smoothly; it is the
  distribution with that mean closest to the pool in Kullback-Leibler divergence ``KL(p || q)``
  (not the distribution the GSPRT's MLE fits, which minimises ``KL(q || p)``: the test is not
  handed its own model).

Resampling from a pool does not test the games; it tests the statistics on realistic block-score
distributions of 3 to 10 seats (many bins, many ties, skew), which is what can go wrong.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from arena.abtest.sprt import (
    Bounds,
    Hypotheses,
    SequentialTest,
    Verdict,
    bin_values,
    block_bin,
    normalised_place,
    t_to_nelo,
)
from arena.games import JSON, Action, State, get_game
from arena.games.take5 import bull_heads
from arena.players import play_local

Observation = dict[str, Any]
Policy = Callable[[Observation, list[Action]], Action]


# -- greedy policies ----------------------------------------------------------------------------


def take5_policy(obs: Observation, legal: list[Action]) -> Action:
    """Take 5: the card least likely to cost heads; the row with the fewest heads.

    A card below every row takes the cheapest row; a card that would be a row's sixth takes the
    row; otherwise it risks the row filling up before it lands, estimated from how many unseen
    cards lie between the row's end and the card.
    """
    rows: list[list[int]] = obs["rows"]
    if obs.get("decision") == "row":
        return min(legal, key=lambda r: (sum(bull_heads(c) for c in rows[r]), len(rows[r])))
    seen = set(obs["hand"]).union(*rows, *obs["taken"])
    unseen = max(1, 104 - len(seen))
    others = len(obs["totals"]) - 1

    def cost(card: int) -> float:
        below = [(row[-1], row) for row in rows if row[-1] < card]
        if not below:
            return min(sum(bull_heads(c) for c in row) for row in rows) + 0.5
        end, row = max(below)
        heads = sum(bull_heads(c) for c in row)
        if len(row) >= 5:
            return float(heads)
        between = sum(1 for c in range(end + 1, card) if c not in seen)
        fill = between * others / unseen  # expected cards landing on the row first
        room = 5 - len(row)
        return (heads + room) * min(1.0, fill / room) ** 2 + 0.001 * (card - end)

    return min(legal, key=cost)


def ten_policy(obs: Observation, legal: list[Action]) -> Action:
    """Ten: keep drawing while the chance of busting is small, then take the numbers (or the
    tokens when there are none); never bid or buy; pay with tokens first."""
    decision = obs.get("decision")
    if decision == "draw":
        unseen: dict[str, int] = obs["unseen"]
        total = sum(unseen.values()) or 1
        numbers, currency = obs["tableau_numbers"], obs["tableau_currency"]
        busting = sum(
            count
            for code, count in unseen.items()
            if (code[0] == "$" and currency + int(code[1]) >= 11)
            or (code[0] in "RBOG" and code[1] != "*" and numbers + int(code[1]) - currency >= 11)
        )
        if "draw" in legal and (not obs["tableau"] or busting / total < 0.3):
            return "draw"
        return "take_numbers" if numbers and "take_numbers" in legal else legal[-1]
    for preferred in ("pass", "none", "token"):
        if preferred in legal:
            return preferred
    return legal[0]


def _number(card: str) -> int:
    return int(card[1:]) if len(card) > 1 else 0


def phase10_policy(obs: Observation, legal: list[Action]) -> Action:
    """Phase 10: lay and hit whenever offered; take the discard top when it pairs a card in
    hand or is a Wild; discard a Skip first, else the highest unpaired card, never a Wild."""
    decision = obs.get("decision")
    hand: list[str] = obs["hand"]
    if decision == "draw":
        top = obs.get("discard_top") or ""
        pairs = top == "W" or (len(top) > 1 and any(_number(c) == _number(top) for c in hand))
        return "take" if pairs and "take" in legal else legal[0]
    if decision != "play":
        return legal[0]
    for kind in ("lay", "hit"):
        offered = [a for a in legal if kind in a]
        if offered:
            return offered[0]
    discards = [a for a in legal if "discard" in a]
    if not discards:
        return legal[0]
    counts = {n: sum(1 for c in hand if _number(c) == n) for n in {_number(c) for c in hand}}

    def keep(action: dict[str, Any]) -> tuple[int, int, int]:
        card = action["discard"]
        if card == "S":
            return (-1, 0, 0)
        return (1 if card == "W" else 0, counts.get(_number(card), 0), -_number(card))

    return min(discards, key=keep)


POLICIES: dict[str, Policy] = {
    "take5": take5_policy,
    "ten": ten_policy,
    "phase10": phase10_policy,
}


class NoisyPlayer:
    """The greedy policy of its game, or with probability ``eps`` a uniformly random legal
    action, from its own seeded generator. Reads only the seat's observation."""

    def __init__(self, policy: Policy, eps: float, seed: int | str, name: str) -> None:
        self.policy = policy
        self.eps = eps
        self.rng = random.Random(seed)
        self.name = name

    def choose(self, state: State, seat: int, legal: list[Action]) -> Action:
        if self.eps and self.rng.random() < self.eps:
            return legal[int(self.rng.random() * len(legal))]
        if len(legal) == 1:
            return legal[0]
        return self.policy(state.observation(seat), legal)


@dataclass(frozen=True)
class NoisyPolicy:
    """A player of known strength: the greedy policy of ``game`` with noise ``eps``."""

    game: str
    eps: float

    def __post_init__(self) -> None:
        if not 0 <= self.eps <= 1:
            raise ValueError(f"eps must be between 0 and 1, not {self.eps}")
        if self.game not in POLICIES:
            raise ValueError(f"no policy for {self.game!r}")

    def player(self, seed: int | str) -> NoisyPlayer:
        return NoisyPlayer(POLICIES[self.game], self.eps, seed, f"greedy~{self.eps:g}")


# -- duplicate blocks ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BlockOutcome:
    """One played block: the tested seat, and the places NEW and OLD took in it."""

    seats: int
    seat: int
    place_new: int
    place_old: int

    @property
    def bin(self) -> int:
        return block_bin(self.place_new, self.place_old, self.seats)

    @property
    def c_new(self) -> float:
        return normalised_place(self.place_new, self.seats)

    @property
    def c_old(self) -> float:
        return normalised_place(self.place_old, self.seats)


def play_block(
    game: str,
    seats: int,
    seed: int,
    seat: int,
    new: NoisyPolicy,
    old: NoisyPolicy,
    opponent: NoisyPolicy,
    options: Mapping[str, JSON] | None = None,
    coupled: bool = False,
) -> BlockOutcome:
    """Play deal ``seed`` twice, NEW then OLD in ``seat``; the opponents seeded alike both times.

    NEW and OLD draw their noise from different seeds, like two bots with randomness of their
    own; ``coupled`` gives them the same seed instead, so that they play alike until the first
    decision where one's noise fires and not the other's (two versions of a deterministic bot
    that differ in some decisions). No in-process player faults, so a place is the game's own
    rank."""
    spec = get_game(game)
    places = []
    for tested, tag in ((new, "new"), (old, "old")):
        tag = "tested" if coupled else tag
        players = [
            tested.player(f"{seed}:{tag}") if s == seat else opponent.player(f"{seed}:{s}")
            for s in range(seats)
        ]
        places.append(play_local(spec, seed, players, options).state.result().ranks[seat])
    return BlockOutcome(seats, seat, places[0], places[1])


@dataclass(frozen=True)
class Pool:
    """Blocks played once, whose empirical distribution stands for the truth."""

    game: str
    seats: int
    new: NoisyPolicy
    old: NoisyPolicy
    blocks: tuple[BlockOutcome, ...]
    coupled: bool = False
    """Whether NEW and OLD shared their noise seed (see :func:`play_block`)."""

    def counts(self) -> list[int]:
        counts = [0] * len(bin_values(self.seats))
        for block in self.blocks:
            counts[block.bin] += 1
        return counts

    def paired_variance(self) -> float:
        """Variance per match of the duplicate design: ``2 Var(d)`` (a block is two matches;
        this is the per-match variance whose square root nElo divides by)."""
        values = bin_values(self.seats)
        return 2 * _variance([values[b.bin] for b in self.blocks])

    def unpaired_variance(self) -> float:
        """Variance per match of the same games without the pairing: one game's normalised
        place, ``(Var(c_new) + Var(c_old)) / 2`` (an unpaired block, NEW's game and OLD's game
        on independent deals, would score ``1/2 + (c_new - c_old') / 2`` with ``2 Var`` of that)."""
        return (
            _variance([b.c_new for b in self.blocks]) + _variance([b.c_old for b in self.blocks])
        ) / 2


def _variance(xs: Sequence[float]) -> float:
    mean = sum(xs) / len(xs)
    return sum((x - mean) ** 2 for x in xs) / len(xs)


def play_blocks(
    game: str,
    seats: int,
    new: NoisyPolicy,
    old: NoisyPolicy,
    opponent: NoisyPolicy,
    first: int,
    count: int,
    seed: int = 0,
    options: Mapping[str, JSON] | None = None,
    coupled: bool = False,
) -> list[BlockOutcome]:
    """Blocks ``first .. first + count - 1`` of a pool: block ``b`` deals seed
    ``seed * 1_000_000 + b`` and tests seat ``b mod seats`` (so chunks can be played apart)."""
    return [
        play_block(
            game, seats, seed * 1_000_000 + b, b % seats, new, old, opponent, options, coupled
        )
        for b in range(first, first + count)
    ]


# -- distributions with a known truth ----------------------------------------------------------


def normalised(weights: Sequence[float]) -> list[float]:
    total = float(sum(weights))
    if total <= 0:
        raise ValueError("no weight")
    return [w / total for w in weights]


def symmetrised(counts: Sequence[float]) -> list[float]:
    """The mixture of a distribution over the bins and its mirror (``d -> 1 - d``): mean 1/2."""
    p = normalised(counts)
    return [(a + b) / 2 for a, b in zip(p, reversed(p), strict=True)]


def moments(p: Sequence[float], values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard deviation of a distribution over the bins."""
    mean = sum(pk * a for pk, a in zip(p, values, strict=True))
    return mean, math.sqrt(sum(pk * (a - mean) ** 2 for pk, a in zip(p, values, strict=True)))


def t_value(p: Sequence[float], values: Sequence[float], ref: float = 0.5) -> float:
    """``(mu - ref) / sigma`` of a distribution over the bins."""
    mean, sigma = moments(p, values)
    return (mean - ref) / sigma


def nelo_of(p: Sequence[float], values: Sequence[float]) -> float:
    """The normalised Elo of a distribution over the bins (see :mod:`arena.abtest.sprt`)."""
    return t_to_nelo(t_value(p, values))


def tilted(p: Sequence[float], values: Sequence[float], theta: float) -> list[float]:
    """``p_k e^(theta a_k)``, normalised (computed stably)."""
    top = max(theta * a for pk, a in zip(p, values, strict=True) if pk)
    return normalised([pk * math.exp(theta * a - top) for pk, a in zip(p, values, strict=True)])


def tilt_to(
    p: Sequence[float],
    values: Sequence[float],
    target: float,
    statistic: Callable[[Sequence[float], Sequence[float]], float],
) -> list[float]:
    """The exponential tilt of ``p`` at which ``statistic`` (increasing in ``theta``: the mean,
    or the t-value over the ranges used here) equals ``target``, by bisection on ``theta``."""
    lo, hi = -1.0, 1.0
    while statistic(tilted(p, values, lo), values) > target:
        lo *= 2
        if lo < -1e4:
            raise ValueError(f"cannot tilt down to {target}")
    while statistic(tilted(p, values, hi), values) < target:
        hi *= 2
        if hi > 1e4:
            raise ValueError(f"cannot tilt up to {target}")
    for _ in range(200):
        mid = (lo + hi) / 2
        if statistic(tilted(p, values, mid), values) < target:
            lo = mid
        else:
            hi = mid
    q = tilted(p, values, (lo + hi) / 2)
    if abs(statistic(q, values) - target) > 1e-9:
        raise ValueError(f"the tilt did not reach {target} (not monotone here)")
    return q


def mean_of(p: Sequence[float], values: Sequence[float]) -> float:
    return moments(p, values)[0]


# -- resampled sequential tests -----------------------------------------------------------------


@dataclass(frozen=True)
class Rates:
    """How ``tests`` sequential tests drawn from one distribution ended."""

    tests: int
    h0: int
    h1: int
    undecided: int
    mean_blocks: float
    """Blocks to the end (a verdict, or the cap), averaged over the tests."""

    @property
    def h1_rate(self) -> float:
        return self.h1 / self.tests


def run_tests(
    p: Sequence[float],
    seats: int,
    hypotheses: Hypotheses,
    bounds: Bounds,
    tests: int,
    seed: int | str = 0,
    max_blocks: int | None = None,
    first: int = 0,
) -> Rates:
    """Run tests ``first .. first + tests - 1`` of a series of sequential tests on blocks drawn
    independently from ``p`` (a distribution over the bins of ``seats`` seats); test ``i`` draws
    from ``random.Random(f"{seed}:{i}")``, so a series can be run in chunks and
    :func:`merged`."""
    cumulative = list(accumulate(p))
    last = len(cumulative) - 1
    ends = {verdict: 0 for verdict in Verdict}
    blocks = 0
    for i in range(first, first + tests):
        rng = random.Random(f"{seed}:{i}")
        test = SequentialTest(seats, hypotheses, bounds, max_blocks)
        while not test.finished:
            test.add_bin(min(last, bisect_right(cumulative, rng.random() * cumulative[-1])))
        ends[test.verdict] += 1
        blocks += test.blocks
    return Rates(tests, ends[Verdict.H0], ends[Verdict.H1], ends[Verdict.UNDECIDED], blocks / tests)


def merged(parts: Sequence[Rates]) -> Rates:
    """The rates of a series run in chunks."""
    tests = sum(r.tests for r in parts)
    return Rates(
        tests,
        sum(r.h0 for r in parts),
        sum(r.h1 for r in parts),
        sum(r.undecided for r in parts),
        sum(r.mean_blocks * r.tests for r in parts) / tests,
    )
