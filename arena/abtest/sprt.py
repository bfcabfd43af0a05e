"""The statistics of an A/B test: duplicate block scores and a generalised SPRT on them.

**Blocks.** A block is one deal played twice: once with NEW in a seat, once with OLD in the same
seat, the same seed and the same opponents in the other seats (the seat rotates through the table
from block to block). With ``N`` seats and places from 1 (best) to ``N``, a seat's normalised place
is ``c = (N - place) / (N - 1)`` (1 for first, 0 for last) and the block scores

    d = 1/2 + (c_new - c_old) / 2 = (N - 1 + place_old - place_new) / (2 (N - 1)),

a number in ``[0, 1]`` that is 1/2 when NEW and OLD took the same place. ``d`` takes the
``2 (N - 1) + 1`` values ``k / (2 (N - 1))``, its *bins* (the part the pentanomial bins
LL, LD, DD+WL, WD, WW play for pairs of chess games; with two seats the bins are exactly those
five). Places are competition ranks (tied seats share the better place, "1, 2, 2, 4") after the
match loop has put every faulted seat below every seat that did not fault (``MatchRecord.ranks``,
:func:`arena.match.demote_faulted`): a fault costs its seat the last place(s), and when NEW faults
in its game the block counts against NEW exactly as a loss to the last place would.

**The test.** With ``n_k`` blocks in bin ``k`` (value ``a_k``) and ``n`` blocks in all, the
generalised log-likelihood ratio of H1 against H0 is

    LLR = sum_k n_k ln(p1_k / p0_k),

where ``p0`` (``p1``) is the distribution over the bins that maximises the likelihood
``sum_k n_k ln p_k`` among those satisfying H0 (H1): the exact constrained maximum likelihood,
not the Brownian (normal) approximation. Two kinds of hypothesis:

- *score*: the mean block score is ``s`` (``s0`` under H0, ``s1`` under H1), the constraint
  ``sum_k p_k (a_k - s) = 0``; logistic Elo bounds are turned into scores by
  :func:`elo_to_score` and tested this way (fastchess' "logistic" model);
- *normalised Elo*: ``(mu - 1/2) / sigma = t`` with ``mu`` and ``sigma`` the mean and standard
  deviation of the block score, ``t = sqrt(2) nElo / (800 / ln 10)`` (as for pentanomial pairs in
  fishtest and fastchess: a block is two matches, so the per-match standard deviation is
  ``sqrt(2) sigma``).

A linear constraint ``sum_k p_k h_k = 0`` is solved exactly by Lagrange multipliers: the optimum
is ``p_k = (n_k / n) / (1 + x h_k)`` where ``x`` solves the secular equation
``sum_k (n_k / n) h_k / (1 + x h_k) = 0`` (one root, found by a safeguarded Newton iteration,
for ``x`` in ``[-1 / max h, -1 / min h]`` where every ``1 + x h_k >= 0``). The maximisation runs
over every bin, observed or not: when the root leaves that interval, the optimum puts the
missing mass on the unobserved bin of extreme ``h`` (the Karush-Kuhn-Tucker condition), so no
regularisation of empty bins is needed. The normalised-Elo constraint is not linear; its optimum
is the fixed point of the linear problem with ``h_k = a_k - 1/2 - t sigma (1 + ((a_k - mu) /
sigma)^2) / 2`` at the current ``mu, sigma`` (the gradient of the constraint, shifted so that
``sum_k p_k h_k = mu - 1/2 - t sigma``), iterated from the uniform distribution (the method of
fishtest's ``MLE_t_value``; written from the derivation here, not copied).

The test stops at the first block where ``LLR <= ln(beta / (1 - alpha))`` (H0 accepted) or
``LLR >= ln((1 - beta) / alpha)`` (H1 accepted): Wald's bounds, which keep the false-positive
rate at most about ``alpha`` and the power at least about ``1 - beta``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from enum import Enum
from statistics import NormalDist

from arena.match import demote_faulted

NELO_PER_T = 800 / math.log(10)
"""Normalised Elo per unit of per-match t-value (``(mu - 1/2) / sigma_match``): 347.43...;
the slope of the logistic Elo curve at 1/2 scaled so that nElo ~ Elo for games without draws."""

Z95 = NormalDist().inv_cdf(0.975)
"""1.959...: the two-sided 95% normal quantile."""

MAX_NELO = 200.0
"""The largest normalised Elo a hypothesis may name (a per-block t of 0.81); beyond it no
table is needed to tell the bots apart, and the fixed-point iteration may not converge."""

_SECULAR_ITERATIONS = 200
_FIXED_POINT_ITERATIONS = 20_000
_FIXED_POINT_TOLERANCE = 1e-11
T_ZERO = 1e-7
"""A t-value nearer 0 than this is solved as 0 (the mean alone). Below it the constraint cannot
be held in floats: on one observed bin the optimum moves a mass of about t² off it, and the mean
moves by about t²/2, lost against 1/2 for t under about 1e-8 (a nElo of 1e-297 never converged)."""


# -- block scores -------------------------------------------------------------------------------


def bin_count(seats: int) -> int:
    """How many values a block score takes at a table of ``seats``: ``2 (seats - 1) + 1``."""
    if seats < 2:
        raise ValueError(f"a block needs at least 2 seats, not {seats}")
    return 2 * (seats - 1) + 1


def bin_values(seats: int) -> tuple[float, ...]:
    """The block score of each bin: ``k / (2 (seats - 1))`` for ``k = 0 .. 2 (seats - 1)``."""
    width = 2 * (seats - 1)
    return tuple(k / width for k in range(bin_count(seats)))


def normalised_place(place: int, seats: int) -> float:
    """``c = (seats - place) / (seats - 1)``: 1 for the first place, 0 for the last."""
    if not 1 <= place <= seats:
        raise ValueError(f"place {place} is not between 1 and {seats}")
    return (seats - place) / (seats - 1)


def block_bin(place_new: int, place_old: int, seats: int) -> int:
    """The bin of a block: ``seats - 1 + place_old - place_new`` (``seats - 1`` is a tie).

    ``place_new`` is the place NEW took in its game of the block, ``place_old`` the place OLD took
    in the same seat of the same deal; both after faulted seats were put last
    (:func:`seat_place`)."""
    normalised_place(place_new, seats)
    normalised_place(place_old, seats)
    return seats - 1 + place_old - place_new


def block_score(place_new: int, place_old: int, seats: int) -> float:
    """``d = 1/2 + (c_new - c_old) / 2`` (see the module docstring)."""
    return block_bin(place_new, place_old, seats) / (2 * (seats - 1))


def seat_place(ranks: Sequence[int], faulted: Iterable[int], seat: int) -> int:
    """``seat``'s place given the game's ``ranks`` and the seats that faulted: every faulted seat
    below every other, faulted seats sharing the last places (as the match loop records it)."""
    return demote_faulted(ranks, set(faulted))[seat]


# -- conversions --------------------------------------------------------------------------------


def elo_to_score(elo: float) -> float:
    """The expected score of a logistic Elo difference: ``1 / (1 + 10^(-elo / 400))``."""
    return 1 / (1 + 10 ** (-elo / 400))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected score ``0 < score < 1``:
    ``-400 log10(1 / score - 1)``. A score of 0 or 1 has no finite Elo: ``-inf``, ``inf``."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def nelo_to_t(nelo: float) -> float:
    """The per-block t-value ``(mu - 1/2) / sigma`` of a normalised Elo:
    ``sqrt(2) nelo / (800 / ln 10)``."""
    return math.sqrt(2) * nelo / NELO_PER_T


def t_to_nelo(t: float) -> float:
    """The normalised Elo of a per-block t-value (the inverse of :func:`nelo_to_t`)."""
    return t * NELO_PER_T / math.sqrt(2)


def score_to_nelo(score: float, variance: float) -> float:
    """Normalised Elo of a mean block score with block-score ``variance``:
    ``(score - 1/2) / sqrt(2 variance) * 800 / ln 10``."""
    if variance <= 0:
        raise ValueError("normalised Elo needs a positive variance")
    return (score - 0.5) / math.sqrt(variance) * NELO_PER_T / math.sqrt(2)


def nelo_to_score(nelo: float, variance: float) -> float:
    """The mean block score with normalised Elo ``nelo`` when the block-score variance is
    ``variance`` (the inverse of :func:`score_to_nelo`)."""
    return 0.5 + nelo_to_t(nelo) * math.sqrt(variance)


# -- hypotheses and bounds ----------------------------------------------------------------------


class Scale(Enum):
    """The unit a pair of hypotheses is written in."""

    SCORE = "score"
    """Mean block score, in (0, 1); 1/2 is "no difference"."""
    ELO = "elo"
    """Logistic Elo of the mean block score (tested as the score :func:`elo_to_score` gives)."""
    NELO = "nelo"
    """Normalised Elo: the t-value of the block score, scaled (see the module docstring)."""


@dataclass(frozen=True)
class Hypotheses:
    """H0: the true value is ``h0``; H1: it is ``h1`` (``h0 < h1``), in the unit ``scale``."""

    scale: Scale
    h0: float
    h1: float

    def __post_init__(self) -> None:
        if not self.h0 < self.h1:
            raise ValueError(f"H0 ({self.h0}) must be below H1 ({self.h1})")
        if self.scale is Scale.SCORE and not 0 < self.h0 < self.h1 < 1:
            raise ValueError("score hypotheses must lie strictly between 0 and 1")
        if self.scale is Scale.NELO and max(abs(self.h0), abs(self.h1)) > MAX_NELO:
            raise ValueError(f"normalised Elo hypotheses must lie within +-{MAX_NELO:.0f}")

    @classmethod
    def score(cls, s0: float, s1: float) -> Hypotheses:
        return cls(Scale.SCORE, s0, s1)

    @classmethod
    def elo(cls, elo0: float, elo1: float) -> Hypotheses:
        return cls(Scale.ELO, elo0, elo1)

    @classmethod
    def nelo(cls, nelo0: float, nelo1: float) -> Hypotheses:
        return cls(Scale.NELO, nelo0, nelo1)

    def scores(self) -> tuple[float, float]:
        """(s0, s1), the mean block scores of a score or Elo pair."""
        if self.scale is Scale.SCORE:
            return self.h0, self.h1
        if self.scale is Scale.ELO:
            return elo_to_score(self.h0), elo_to_score(self.h1)
        raise ValueError("normalised Elo hypotheses have no fixed score (it depends on sigma)")

    def t_values(self) -> tuple[float, float]:
        """(t0, t1), the per-block t-values of a normalised Elo pair."""
        if self.scale is not Scale.NELO:
            raise ValueError(f"{self.scale.value} hypotheses have no fixed t-value")
        return nelo_to_t(self.h0), nelo_to_t(self.h1)

    def describe(self) -> str:
        return f"{self.scale.value} [{self.h0:g}, {self.h1:g}]"


@dataclass(frozen=True)
class Bounds:
    """Wald's stopping bounds on the LLR for error rates ``alpha`` (false positive: accepting
    H1 when H0 holds) and ``beta`` (accepting H0 when H1 holds)."""

    alpha: float
    beta: float

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("alpha and beta must be in (0, 1) with alpha + beta < 1")

    @property
    def lower(self) -> float:
        """``ln(beta / (1 - alpha))``: at or below it, H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """``ln((1 - beta) / alpha)``: at or above it, H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)


class Verdict(Enum):
    """What a test says: NEW is no better (H0), better (H1), or not yet known."""

    H0 = "H0"
    H1 = "H1"
    UNDECIDED = "undecided"


def verdict_of(llr: float, bounds: Bounds) -> Verdict:
    """H1 at or above the upper bound, H0 at or below the lower one, else undecided."""
    if llr >= bounds.upper:
        return Verdict.H1
    if llr <= bounds.lower:
        return Verdict.H0
    return Verdict.UNDECIDED


# -- constrained maximum likelihood -------------------------------------------------------------


def _check_counts(counts: Sequence[float], values: Sequence[float]) -> float:
    if len(counts) != len(values) or len(values) < 2:
        raise ValueError("one count per bin, and at least two bins")
    if any(n < 0 for n in counts):
        raise ValueError("bin counts cannot be negative")
    total = float(sum(counts))
    if total <= 0:
        raise ValueError("no blocks yet")
    return total


def _secular_root(seen: Sequence[tuple[float, float]], lo: float, hi: float, start: float) -> float:
    """The root in ``(lo, hi)`` of ``f(x) = sum w_k h_k / (1 + x h_k)`` over the observed
    ``(w_k, h_k)`` (strictly decreasing there, positive near ``lo``, negative near ``hi``):
    Newton steps kept inside a shrinking bracket, bisecting when a step would leave it."""
    a, b = lo, hi
    x = start if lo < start < hi else 0.0
    for _ in range(_SECULAR_ITERATIONS):
        fx = slope = 0.0
        for w, hk in seen:
            q = hk / (1 + x * hk)
            fx += w * q
            slope -= w * q * q
        if fx == 0:
            return x
        if fx > 0:
            a = x
        else:
            b = x
        nxt = x - fx / slope
        tiny = abs(nxt - x) <= 1e-15 * max(1.0, abs(x))
        if tiny and abs(fx) <= 1e-12:
            return nxt
        # A tiny step far from a root is a step from next to a pole (a Newton step from 0 can
        # land there: counts [0, 12, 16, 2, 7, 1, 1], four seats): bisect instead.
        if tiny or not a < nxt < b:
            nxt = (a + b) / 2
        if nxt in (x, a, b):  # the bracket is down to neighbouring floats
            return x
        x = nxt
    return x


def _mle_linear(
    counts: Sequence[float], h: Sequence[float], start: float = 0.0
) -> tuple[list[float], float]:
    """The distribution ``p`` over all bins maximising ``sum n_k ln p_k`` subject to
    ``sum p_k = 1``, ``sum p_k h_k = 0`` and ``p_k >= 0``, and its multiplier ``x``.

    ``p_k = (n_k / n) / (1 + x h_k)`` on the observed bins; when the secular root would leave
    ``[-1 / max h, -1 / min h]`` (it cannot while the bin of extreme ``h`` is observed), ``x``
    stops at the end of that interval and the unobserved extreme bin takes the rest of the mass.
    ``start`` is where the root search begins (the previous root, when solving again).
    """
    total = float(sum(counts))
    seen = [(n / total, hk) for n, hk in zip(counts, h, strict=True) if n]
    hmax, hmin = max(h), min(h)
    if not hmin < 0 < hmax:
        raise ValueError("the constraint cannot be met on these bins")
    lo, hi = -1 / hmax, -1 / hmin
    spare: int | None = None
    if all(hk < hmax for _, hk in seen) and _secular(seen, lo) <= 0:
        x, spare = lo, h.index(hmax)
    elif all(hk > hmin for _, hk in seen) and _secular(seen, hi) >= 0:
        x, spare = hi, h.index(hmin)
    else:
        x = _secular_root(seen, lo, hi, start)
    p = [n / total / (1 + x * hk) if n else 0.0 for n, hk in zip(counts, h, strict=True)]
    if spare is not None:
        p[spare] = max(0.0, 1 - sum(p))
    return p, x


def _secular(seen: Sequence[tuple[float, float]], x: float) -> float:
    return sum(w * hk / (1 + x * hk) for w, hk in seen)


def mle_mean(counts: Sequence[float], values: Sequence[float], score: float) -> list[float]:
    """The maximum-likelihood distribution over the bins among those with mean ``score``."""
    _check_counts(counts, values)
    if not min(values) < score < max(values):
        raise ValueError(f"a mean of {score} is not inside the bins' range")
    return _mle_linear(counts, [a - score for a in values])[0]


def mle_t_value(
    counts: Sequence[float],
    values: Sequence[float],
    t: float,
    ref: float = 0.5,
    start: Sequence[float] | None = None,
) -> list[float]:
    """The maximum-likelihood distribution over the bins among those with
    ``(mu - ref) / sigma = t`` (for ``t = 0``: with mean ``ref``).

    The fixed-point iteration starts from ``start`` (a distribution over the bins with a
    positive variance, e.g. the optimum for the previous block's counts, which saves most of
    the iterations) or else from the uniform distribution. It converges in a few iterations
    (at most 75 in 1,500 random tables of 2 to 10 seats and nElo up to 200), except when the
    optimum keeps a little mass on an unobserved extreme bin, where it creeps (about a
    thousand iterations, e.g. six seats, counts ``[0, 0, 0, 0, 3, 5, 2, 0, 0, 0, 0]``, t 0.2035);
    should it not within 20,000, ``ArithmeticError`` is raised rather than a wrong distribution
    returned."""
    _check_counts(counts, values)
    if abs(t) < T_ZERO:
        return mle_mean(counts, values, ref)
    p = list(start) if start is not None else [1 / len(values)] * len(values)
    x = 0.0
    likelihood = -math.inf
    for _ in range(_FIXED_POINT_ITERATIONS):
        mu = sum(pk * a for pk, a in zip(p, values, strict=True))
        sigma = math.sqrt(sum(pk * (a - mu) ** 2 for pk, a in zip(p, values, strict=True)))
        if sigma <= 0:  # a point mass: no t-value; start again from the uniform distribution
            p = [1 / len(values)] * len(values)
            continue
        h = [a - ref - t * sigma * (1 + ((a - mu) / sigma) ** 2) / 2 for a in values]
        new, x = _mle_linear(counts, h, x)
        change = max(abs(u - v) for u, v in zip(new, p, strict=True))
        p = new
        if change < _FIXED_POINT_TOLERANCE:
            return p
        # When the optimum puts a little mass on an unobserved extreme bin, the iteration
        # creeps there slowly (linearly, at a rate near 1): accept it once the likelihood has
        # stopped moving and the constraint holds, which the LLR is all that depends on.
        before, likelihood = likelihood, log_likelihood(counts, p)
        if abs(likelihood - before) < 1e-14 * max(1.0, abs(likelihood)):
            mean = sum(pk * a for pk, a in zip(p, values, strict=True))
            spread = math.sqrt(sum(pk * (a - mean) ** 2 for pk, a in zip(p, values, strict=True)))
            if spread > 0 and abs((mean - ref) / spread - t) < 1e-12:
                return p
    raise ArithmeticError(f"the t-value MLE did not converge (t {t}, counts {list(counts)})")


def log_likelihood(counts: Sequence[float], p: Sequence[float]) -> float:
    """``sum_k n_k ln p_k`` over the observed bins."""
    return sum(n * math.log(pk) for n, pk in zip(counts, p, strict=True) if n)


def llr(counts: Sequence[float], values: Sequence[float], hypotheses: Hypotheses) -> float:
    """The generalised log-likelihood ratio of H1 against H0 for ``counts[k]`` blocks of score
    ``values[k]``: the log-likelihood of the best distribution under H1 minus that under H0."""
    return _llr_and_optima(counts, values, hypotheses, None)[0]


def _llr_and_optima(
    counts: Sequence[float],
    values: Sequence[float],
    hypotheses: Hypotheses,
    starts: tuple[Sequence[float], Sequence[float]] | None,
) -> tuple[float, tuple[list[float], list[float]]]:
    if hypotheses.scale is Scale.NELO:
        t0, t1 = hypotheses.t_values()
        p0 = mle_t_value(counts, values, t0, start=None if starts is None else starts[0])
        p1 = mle_t_value(counts, values, t1, start=None if starts is None else starts[1])
    else:
        s0, s1 = hypotheses.scores()
        p0 = mle_mean(counts, values, s0)
        p1 = mle_mean(counts, values, s1)
    return log_likelihood(counts, p1) - log_likelihood(counts, p0), (p0, p1)


# -- estimates ----------------------------------------------------------------------------------


def mean_variance(counts: Sequence[float], values: Sequence[float]) -> tuple[float, float]:
    """The empirical mean and variance (divided by ``n``) of the block scores."""
    total = _check_counts(counts, values)
    mean = sum(n * a for n, a in zip(counts, values, strict=True)) / total
    variance = sum(n * (a - mean) ** 2 for n, a in zip(counts, values, strict=True)) / total
    return mean, variance


@dataclass(frozen=True)
class Estimate:
    """How much better NEW looks after ``blocks`` blocks, with 95% intervals (normal
    approximation: the mean plus or minus ``1.96 sqrt(variance / blocks)``, carried over to
    Elo and nElo through the same monotone maps, as fastchess reports them)."""

    blocks: int
    score: float
    """Mean block score; 1/2 means no difference."""
    score_low: float
    score_high: float
    variance: float
    """Variance of one block's score."""
    elo: float
    """Logistic Elo of the mean block score (``inf`` when every block scored 1)."""
    elo_low: float
    elo_high: float
    nelo: float | None
    """Normalised Elo; None while every block scored the same."""
    nelo_low: float | None
    nelo_high: float | None

    def to_json(self) -> dict[str, int | float | None]:
        """Plain JSON: an infinite Elo (every block won, or lost) becomes None."""
        return {
            key: _finite_or_none(value) if isinstance(value, float) else value
            for key, value in asdict(self).items()
        }

    def describe(self) -> str:
        nelo = (
            ""
            if self.nelo is None
            else f", nElo {self.nelo:+.1f} +- {_half(self.nelo_low, self.nelo_high):.1f}"
        )
        return (
            f"score {self.score:.4f} [{self.score_low:.4f}, {self.score_high:.4f}], "
            f"Elo {self.elo:+.1f} [{self.elo_low:+.1f}, {self.elo_high:+.1f}]{nelo}"
        )


def _finite_or_none(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _half(low: float | None, high: float | None) -> float:
    return 0.0 if low is None or high is None else (high - low) / 2


def estimate(counts: Sequence[float], values: Sequence[float]) -> Estimate:
    """The score, Elo and nElo estimates of the blocks counted so far."""
    mean, variance = mean_variance(counts, values)
    blocks = round(sum(counts))
    half = Z95 * math.sqrt(variance / blocks)
    low, high = max(0.0, mean - half), min(1.0, mean + half)
    nelo = nelo_low = nelo_high = None
    if variance > 0:
        nelo = score_to_nelo(mean, variance)
        nelo_low = score_to_nelo(low, variance)
        nelo_high = score_to_nelo(high, variance)
    return Estimate(
        blocks=blocks,
        score=mean,
        score_low=low,
        score_high=high,
        variance=variance,
        elo=score_to_elo(mean),
        elo_low=score_to_elo(low),
        elo_high=score_to_elo(high),
        nelo=nelo,
        nelo_low=nelo_low,
        nelo_high=nelo_high,
    )


# -- the sequential test ------------------------------------------------------------------------


@dataclass(frozen=True)
class Status:
    """The test after its latest block."""

    blocks: int
    llr: float
    lower: float
    upper: float
    verdict: Verdict
    finished: bool
    """A verdict was reached, or the cap on blocks with none."""

    def to_json(self) -> dict[str, int | float | str | bool]:
        return {
            "blocks": self.blocks,
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "verdict": self.verdict.value,
            "finished": self.finished,
        }

    def describe(self) -> str:
        return (
            f"blocks {self.blocks}, LLR {self.llr:+.3f} ({self.lower:+.3f}, {self.upper:+.3f}), "
            f"{self.verdict.value}"
        )


class SequentialTest:
    """A GSPRT fed one finished block at a time, in schedule order.

    The verdict is taken at the first block whose LLR crosses a bound (or, with ``max_blocks``,
    undecided when that many blocks have none); the test is then finished and refuses more
    blocks, so that the verdict never depends on blocks that finished later (or on how many
    workers played them).
    """

    def __init__(
        self,
        seats: int,
        hypotheses: Hypotheses,
        bounds: Bounds,
        max_blocks: int | None = None,
    ) -> None:
        if max_blocks is not None and max_blocks < 1:
            raise ValueError("max_blocks must be at least 1")
        self.seats = seats
        self.hypotheses = hypotheses
        self.bounds = bounds
        self.max_blocks = max_blocks
        self.values = bin_values(seats)
        self.counts = [0] * len(self.values)
        self.status = Status(0, 0.0, bounds.lower, bounds.upper, Verdict.UNDECIDED, False)
        self._optima: tuple[list[float], list[float]] | None = None
        """The H0 and H1 optima of the previous block: where the next fixed point starts."""

    @property
    def blocks(self) -> int:
        return self.status.blocks

    @property
    def verdict(self) -> Verdict:
        return self.status.verdict

    @property
    def finished(self) -> bool:
        return self.status.finished

    def add_bin(self, k: int) -> Status:
        """Count a block of bin ``k`` (see :func:`block_bin`) and return the new status."""
        if self.finished:
            raise ValueError(f"the test is finished ({self.status.describe()})")
        if not 0 <= k < len(self.counts):
            raise ValueError(f"bin {k} is not between 0 and {len(self.counts) - 1}")
        self.counts[k] += 1
        blocks = self.status.blocks + 1
        value, self._optima = _llr_and_optima(
            self.counts, self.values, self.hypotheses, self._optima
        )
        verdict = verdict_of(value, self.bounds)
        capped = self.max_blocks is not None and blocks >= self.max_blocks
        finished = verdict is not Verdict.UNDECIDED or capped
        self.status = Status(blocks, value, self.bounds.lower, self.bounds.upper, verdict, finished)
        return self.status

    def add(self, place_new: int, place_old: int) -> Status:
        """Count a block from NEW's and OLD's places in it (after faults: :func:`seat_place`)."""
        return self.add_bin(block_bin(place_new, place_old, self.seats))

    def estimate(self) -> Estimate | None:
        """The estimate so far (None before the first block)."""
        if not self.status.blocks:
            return None
        return estimate(self.counts, self.values)


def fixed_sample_blocks(bounds: Bounds, t0: float, t1: float) -> float:
    """Blocks a fixed-size test with the same error rates needs, by the normal approximation:
    a one-sided z-test of the mean block score at level ``alpha`` with power ``1 - beta`` between
    two means ``(t1 - t0) sigma`` apart needs ``n = ((z_(1-alpha) + z_(1-beta)) / (t1 - t0))^2``
    blocks (``t`` in units of the block-score standard deviation ``sigma``)."""
    unit = NormalDist()
    z = unit.inv_cdf(1 - bounds.alpha) + unit.inv_cdf(1 - bounds.beta)
    return (z / (t1 - t0)) ** 2
