"""TrueSkill for free-for-all tables on plain floats: the ``trueskill`` package's own update, fast.

Every table the league rates is a free-for-all: one player per team, weight 1, ranks with ties
(competition ranks). ``trueskill.TrueSkill.rate`` handles any teams through a generic factor graph
of Python objects (a ``Gaussian`` per message, a dict of messages per variable), which costs about
0.7 ms for four players and 2.7 ms for ten. :func:`rate` is the same algorithm specialised to that
shape: the same factor graph (prior, likelihood, team sum, team difference, truncation), the same
message schedule (the library's ``run_schedule``: down once, then sweeps along the differences up
to ten times until a truncation moves by at most ``min_delta``, then up to the ratings), the same
``v``/``w`` functions for a win and a draw, the same draw margin and the library's own ``cdf``,
``pdf`` and ``ppf`` (its ``backend=None``), each operation in the library's order, on floats held
in lists. So its results are the library's bit for bit (tests/league/test_ffa.py checks it against
the library on random tables), and where the library raises (a ``FloatingPointError`` when a
winner is rated far below a loser) so does :func:`rate`, with the same error.

What it does not cover -- teams, partial-play weights, another backend, a dynamic draw
probability, a subclass of ``TrueSkill`` -- :func:`rate` hands to the library (:func:`covers`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import trueskill
from trueskill import backends

DELTA: Final = 0.0001
"""The library's default ``min_delta``: the sweeps stop when no truncation moves more than this."""
SWEEPS: Final = 10
"""The library's cap on the sweeps of ``run_schedule``."""

_SQRT2: Final = 1 * math.sqrt(2)
"""``sigma * math.sqrt(2)`` of the library's ``cdf`` with ``sigma=1``."""
_PDF_SCALE: Final = 1 / math.sqrt(2 * math.pi) * abs(1)
"""The constant factor of the library's ``pdf`` with ``sigma=1``, in its order."""
_INF: Final = math.inf
_FLOATING_POINT_ERROR: Final = 'Cannot calculate correctly, set backend to "mpmath"'
"""What the library's ``w`` functions raise with (its message for ``backend=None``)."""
_EXACT_INT: Final = 2**26
"""An int setting converts to float exactly, and so does its square, below this."""


def covers(env: trueskill.TrueSkill) -> bool:
    """Whether :func:`rate` computes ``env``'s update itself (else it calls ``env.rate``)."""
    return (
        type(env) is trueskill.TrueSkill
        and env.cdf is backends.cdf
        and env.pdf is backends.pdf
        and env.ppf is backends.ppf
        and _plain(env.beta)
        and _plain(env.tau)
        and _plain(env.draw_probability)
    )


def _plain(value: Any) -> bool:
    """A float, or an int the library's arithmetic would treat exactly as that float."""
    if type(value) is float:
        return True
    return type(value) is int and abs(value) < _EXACT_INT


def rate(
    env: trueskill.TrueSkill,
    ratings: Sequence[tuple[float, float]],
    ranks: Sequence[int],
    min_delta: float = DELTA,
) -> list[tuple[float, float]]:
    """The new ``(mu, sigma)`` of each player of a free-for-all table, in the order given.

    ``ratings`` are ``(mu, sigma)`` pairs, ``ranks`` the places (lower is better, equal ranks
    tie). The result is ``[(r.mu, r.sigma) for (r,) in env.rate([(env.create_rating(mu,
    sigma),) for mu, sigma in ratings], ranks, min_delta=min_delta)]``, bit for bit.
    """
    if len(ratings) != len(ranks):
        raise ValueError("Wrong ranks")
    if not covers(env) or not 0 < min_delta <= 1:
        groups = [(env.create_rating(mu, sigma),) for mu, sigma in ratings]
        rated = env.rate(groups, ranks=list(ranks), min_delta=min_delta)
        return [(float(r.mu), float(r.sigma)) for (r,) in rated]
    if len(ratings) < 2:
        raise ValueError("Need multiple rating groups")
    order = sorted(range(len(ranks)), key=ranks.__getitem__)
    margin = draw_margin(float(env.draw_probability), float(env.beta))
    table = Table(
        [float(ratings[i][0]) for i in order],
        [float(ratings[i][1]) for i in order],
        [ranks[i] for i in order],
        float(env.beta),
        float(env.tau),
        margin,
    )
    table.run(min_delta)
    out = [(0.0, 0.0)] * len(order)
    for k, i in enumerate(order):
        out[i] = table.result(k)
    return out


def draw_margin(draw_probability: float, beta: float) -> float:
    """The library's ``calc_draw_margin`` for two players (``size=2``), with its own ``ppf``.

    Remembered per (draw probability, beta): the ``ppf`` costs about a tenth of an update.
    """
    key = (draw_probability, beta)
    margin = _MARGINS.get(key)
    if margin is None:
        margin = float(backends.ppf((draw_probability + 1) / 2.0) * math.sqrt(2) * beta)
        if len(_MARGINS) >= _MARGINS_KEPT:
            _MARGINS.clear()
        _MARGINS[key] = margin
    return margin


_MARGINS: Final[dict[tuple[float, float], float]] = {}
_MARGINS_KEPT: Final = 64


class Table:
    """The factor graph of one free-for-all table, players in rank order, as lists of floats.

    Variables (the library's names): per player ``k`` a rating ``R``, a performance ``P`` and a
    team performance ``T``; per neighbouring pair ``j`` (players ``j`` and ``j + 1``) a
    difference ``D``. A variable's value and each message it holds are a Gaussian in the
    library's (precision ``pi``, precision-adjusted mean ``tau``) form, kept as two floats.
    Messages start at 0, as the library's ``Gaussian()`` does.
    """

    def __init__(
        self,
        mus: list[float],
        sigmas: list[float],
        ranks: list[int],
        beta: float,
        tau: float,
        margin: float,
    ) -> None:
        n = len(mus)
        self.n = n
        self.variance = beta**2
        """The likelihood factor's variance, ``beta ** 2``."""
        self.margin = margin
        self.ties = [ranks[j] == ranks[j + 1] for j in range(n - 1)]
        """Whether players ``j`` and ``j + 1`` tie (the draw ``v``/``w``), per difference."""
        # The rating variables after the prior factor's down message.
        self.r_pi = [0.0] * n
        self.r_tau = [0.0] * n
        for k in range(n):
            self.r_pi[k], self.r_tau[k] = _prior(mus[k], sigmas[k], tau)
        # Performance: its value and the likelihood factor's message to it.
        self.p_pi = [0.0] * n
        self.p_tau = [0.0] * n
        self.p_like_pi = [0.0] * n
        self.p_like_tau = [0.0] * n
        # Team performance: its value, the team-sum factor's message, and the messages of the
        # difference factors where it is the left term (``left``, from D[k]) and the right term
        # (``right``, from D[k - 1]).
        self.t_pi = [0.0] * n
        self.t_tau = [0.0] * n
        self.t_sum_pi = [0.0] * n
        self.t_sum_tau = [0.0] * n
        self.t_left_pi = [0.0] * n
        self.t_left_tau = [0.0] * n
        self.t_right_pi = [0.0] * n
        self.t_right_tau = [0.0] * n
        # Difference: its value, the difference factor's message and the truncation's.
        self.d_pi = [0.0] * (n - 1)
        self.d_tau = [0.0] * (n - 1)
        self.d_sum_pi = [0.0] * (n - 1)
        self.d_sum_tau = [0.0] * (n - 1)
        self.d_trunc_pi = [0.0] * (n - 1)
        self.d_trunc_tau = [0.0] * (n - 1)

    def run(self, min_delta: float) -> None:
        """The library's ``run_schedule``."""
        n = self.n
        for k in range(n):
            self.perf_down(k)
        for k in range(n):
            self.team_down(k)
        last = n - 2
        for _ in range(SWEEPS):
            delta = 0.0
            if last == 0:
                self.diff_down(0)
                delta = self.trunc_up(0)
            else:
                for j in range(last):
                    self.diff_down(j)
                    moved = self.trunc_up(j)
                    if moved > delta:
                        delta = moved
                    self.diff_up_right(j)
                for j in range(last, 0, -1):
                    self.diff_down(j)
                    moved = self.trunc_up(j)
                    if moved > delta:
                        delta = moved
                    self.diff_up_left(j)
            if delta <= min_delta:
                break
        self.diff_up_left(0)
        self.diff_up_right(last)
        for k in range(n):
            self.team_up(k)
        for k in range(n):
            self.perf_up(k)

    def perf_down(self, k: int) -> None:
        """LikelihoodFactor.down: from the rating to the performance."""
        msg_pi = self.r_pi[k] - 0.0
        msg_tau = self.r_tau[k] - 0.0
        a = 1.0 / (1.0 + self.variance * msg_pi)
        new_pi = a * msg_pi
        new_tau = a * msg_tau
        self.p_pi[k] = (self.p_pi[k] - self.p_like_pi[k]) + new_pi
        self.p_tau[k] = (self.p_tau[k] - self.p_like_tau[k]) + new_tau
        self.p_like_pi[k] = new_pi
        self.p_like_tau[k] = new_tau

    def team_down(self, k: int) -> None:
        """SumFactor.down of a one-player team: from the performance to the team performance."""
        new_pi, new_tau = _sum1(self.p_pi[k] - 0.0, self.p_tau[k] - 0.0)
        self.t_pi[k] = (self.t_pi[k] - self.t_sum_pi[k]) + new_pi
        self.t_tau[k] = (self.t_tau[k] - self.t_sum_tau[k]) + new_tau
        self.t_sum_pi[k] = new_pi
        self.t_sum_tau[k] = new_tau

    def diff_down(self, j: int) -> None:
        """SumFactor.down of D[j] = T[j] - T[j + 1]."""
        new_pi, new_tau = _sum2(
            self.t_pi[j] - self.t_left_pi[j],
            self.t_tau[j] - self.t_left_tau[j],
            self.t_pi[j + 1] - self.t_right_pi[j + 1],
            self.t_tau[j + 1] - self.t_right_tau[j + 1],
            -1.0,
        )
        self.d_pi[j] = (self.d_pi[j] - self.d_sum_pi[j]) + new_pi
        self.d_tau[j] = (self.d_tau[j] - self.d_sum_tau[j]) + new_tau
        self.d_sum_pi[j] = new_pi
        self.d_sum_tau[j] = new_tau

    def diff_up_left(self, j: int) -> None:
        """SumFactor.up(0) of D[j]: to T[j] = D[j] + T[j + 1]."""
        new_pi, new_tau = _sum2(
            self.d_pi[j] - self.d_sum_pi[j],
            self.d_tau[j] - self.d_sum_tau[j],
            self.t_pi[j + 1] - self.t_right_pi[j + 1],
            self.t_tau[j + 1] - self.t_right_tau[j + 1],
            1.0,
        )
        self.t_pi[j] = (self.t_pi[j] - self.t_left_pi[j]) + new_pi
        self.t_tau[j] = (self.t_tau[j] - self.t_left_tau[j]) + new_tau
        self.t_left_pi[j] = new_pi
        self.t_left_tau[j] = new_tau

    def diff_up_right(self, j: int) -> None:
        """SumFactor.up(1) of D[j]: to T[j + 1] = T[j] - D[j]."""
        new_pi, new_tau = _sum2(
            self.t_pi[j] - self.t_left_pi[j],
            self.t_tau[j] - self.t_left_tau[j],
            self.d_pi[j] - self.d_sum_pi[j],
            self.d_tau[j] - self.d_sum_tau[j],
            -1.0,
        )
        k = j + 1
        self.t_pi[k] = (self.t_pi[k] - self.t_right_pi[k]) + new_pi
        self.t_tau[k] = (self.t_tau[k] - self.t_right_tau[k]) + new_tau
        self.t_right_pi[k] = new_pi
        self.t_right_tau[k] = new_tau

    def trunc_up(self, j: int) -> float:
        """TruncateFactor.up of D[j]; returns how far D[j] moved (the library's ``delta``)."""
        val_pi = self.d_pi[j]
        val_tau = self.d_tau[j]
        old_pi = self.d_trunc_pi[j]
        old_tau = self.d_trunc_tau[j]
        div_pi = val_pi - old_pi
        div_tau = val_tau - old_tau
        sqrt_pi = math.sqrt(div_pi)
        diff = div_tau / sqrt_pi
        margin = self.margin * sqrt_pi
        if self.ties[j]:
            v, w = _vw_draw(diff, margin)
        else:
            v, w = _vw_win(diff, margin)
        denom = 1.0 - w
        pi = div_pi / denom
        tau = (div_tau + sqrt_pi * v) / denom
        self.d_trunc_pi[j] = (pi + old_pi) - val_pi
        self.d_trunc_tau[j] = (tau + old_tau) - val_tau
        self.d_pi[j] = pi
        self.d_tau[j] = tau
        pi_delta = abs(val_pi - pi)
        if pi_delta == _INF:
            return 0.0
        tau_delta = abs(val_tau - tau)
        root = math.sqrt(pi_delta)
        return root if root > tau_delta else tau_delta

    def team_up(self, k: int) -> None:
        """SumFactor.up(0) of a one-player team: from the team performance to the performance."""
        new_pi, new_tau = _sum1(self.t_pi[k] - self.t_sum_pi[k], self.t_tau[k] - self.t_sum_tau[k])
        self.p_pi[k] = (self.p_pi[k] - 0.0) + new_pi
        self.p_tau[k] = (self.p_tau[k] - 0.0) + new_tau

    def perf_up(self, k: int) -> None:
        """LikelihoodFactor.up: from the performance to the rating."""
        msg_pi = self.p_pi[k] - self.p_like_pi[k]
        msg_tau = self.p_tau[k] - self.p_like_tau[k]
        a = 1.0 / (1.0 + self.variance * msg_pi)
        self.r_pi[k] = (self.r_pi[k] - 0.0) + a * msg_pi
        self.r_tau[k] = (self.r_tau[k] - 0.0) + a * msg_tau

    def result(self, k: int) -> tuple[float, float]:
        """Player ``k``'s new (mu, sigma): ``Rating(var.mu, var.sigma)``'s, as the library's."""
        return _round_trip(_mu(self.r_pi[k], self.r_tau[k]), _sigma(self.r_pi[k]))


def _mu(pi: float, tau: float) -> float:
    """``Gaussian.mu``: ``pi and tau / pi``."""
    return tau / pi if pi else pi


def _sigma(pi: float) -> float:
    """``Gaussian.sigma``."""
    return math.sqrt(1 / pi) if pi else _INF


def _gaussian(mu: float, sigma: float) -> tuple[float, float]:
    """``Gaussian(mu, sigma)`` as (pi, tau)."""
    if sigma == 0:
        raise ValueError("sigma**2 should be greater than 0")
    pi = sigma**-2
    return pi, pi * mu


def _round_trip(mu: float, sigma: float) -> tuple[float, float]:
    """The (mu, sigma) that ``Rating(mu, sigma)`` reads back."""
    pi, tau = _gaussian(mu, sigma)
    return _mu(pi, tau), _sigma(pi)


def _prior(mu: float, sigma: float, dynamic: float) -> tuple[float, float]:
    """PriorFactor.down of ``Rating(mu, sigma)``: the rating variable's value, (pi, tau)."""
    val_mu, val_sigma = _round_trip(mu, sigma)
    return _gaussian(val_mu, math.sqrt(val_sigma**2 + dynamic**2))


def _sum1(div_pi: float, div_tau: float) -> tuple[float, float]:
    """SumFactor.update with one term, coefficient 1: the message (pi, tau)."""
    mu = 0.0 + _mu(div_pi, div_tau)
    pi_inv = _INF if div_pi == 0 else 0.0 + 1 / div_pi
    pi = 1.0 / pi_inv
    return pi, pi * mu


def _sum2(
    a_pi: float, a_tau: float, b_pi: float, b_tau: float, b_coeff: float
) -> tuple[float, float]:
    """SumFactor.update with two terms, coefficients 1 and ``b_coeff`` (+1 or -1).

    Each term is the value divided by its message (``val / msg``) as (pi, tau).
    """
    mu = 0.0 + _mu(a_pi, a_tau)
    mu += b_coeff * _mu(b_pi, b_tau)
    pi_inv = _INF if a_pi == 0 else 0.0 + 1 / a_pi
    if pi_inv != _INF:
        pi_inv = _INF if b_pi == 0 else pi_inv + 1 / b_pi
    pi = 1.0 / pi_inv
    return pi, pi * mu


def _erfc(x: float) -> float:
    """The library's ``erfc`` (its fallback backend), operation for operation."""
    z = abs(x)
    t = 1.0 / (1.0 + z / 2.0)
    r = t * math.exp(
        -z * z
        - 1.26551223
        + t
        * (
            1.00002368
            + t
            * (
                0.37409196
                + t
                * (
                    0.09678418
                    + t
                    * (
                        -0.18628806
                        + t
                        * (
                            0.27886807
                            + t
                            * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))
                        )
                    )
                )
            )
        )
    )
    return 2.0 - r if x < 0 else r


def _cdf(x: float) -> float:
    """The library's ``cdf(x)`` (mu 0, sigma 1)."""
    return 0.5 * _erfc(-x / _SQRT2)


def _pdf(x: float) -> float:
    """The library's ``pdf(x)`` (mu 0, sigma 1)."""
    return _PDF_SCALE * math.exp(-(x**2 / 2))


def _vw_win(diff: float, margin: float) -> tuple[float, float]:
    """The library's ``v_win`` and ``w_win``."""
    x = diff - margin
    denom = _cdf(x)
    v = _pdf(x) / denom if denom else -x
    w = v * (v + x)
    if 0 < w < 1:
        return v, w
    raise FloatingPointError(_FLOATING_POINT_ERROR)


def _vw_draw(diff: float, margin: float) -> tuple[float, float]:
    """The library's ``v_draw`` and ``w_draw``."""
    abs_diff = abs(diff)
    a = margin - abs_diff
    b = -margin - abs_diff
    denom = _cdf(a) - _cdf(b)
    if not denom:
        raise FloatingPointError(_FLOATING_POINT_ERROR)
    v = (_pdf(b) - _pdf(a)) / denom
    w = v**2 + (a * _pdf(a) - b * _pdf(b)) / denom
    return (-v if diff < 0 else v), w
