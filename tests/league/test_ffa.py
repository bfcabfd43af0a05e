"""arena.league.ffa gives the ``trueskill`` package's results bit for bit, errors included."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import pytest
import trueskill
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.base import competition_ranks
from arena.league import ffa
from arena.league.config import Rating
from arena.league.rating import LeagueRatings
from arena.league.store import Outcome

LEAGUE = Rating()
"""The league's default TrueSkill settings (arena/league/config.py)."""


def library(
    env: trueskill.TrueSkill,
    ratings: Sequence[tuple[float, float]],
    ranks: Sequence[int],
    min_delta: float = ffa.DELTA,
) -> list[tuple[float, float]] | str:
    """What ``trueskill`` computes for a free-for-all table, or the error it raises."""
    groups = [(env.create_rating(mu, sigma),) for mu, sigma in ratings]
    try:
        rated = env.rate(groups, ranks=list(ranks), min_delta=min_delta)
    except (FloatingPointError, ValueError, ZeroDivisionError) as exc:
        return repr(exc)
    return [(float(r.mu), float(r.sigma)) for (r,) in rated]


def fast(
    env: trueskill.TrueSkill,
    ratings: Sequence[tuple[float, float]],
    ranks: Sequence[int],
    min_delta: float = ffa.DELTA,
) -> list[tuple[float, float]] | str:
    try:
        return ffa.rate(env, ratings, ranks, min_delta)
    except (FloatingPointError, ValueError, ZeroDivisionError) as exc:
        return repr(exc)


def assert_same(
    ours: list[tuple[float, float]] | str, theirs: list[tuple[float, float]] | str
) -> None:
    """Equal bit for bit (``float.hex``), NaNs and signed zeros included; or the same error."""
    if isinstance(theirs, str) or isinstance(ours, str):
        assert ours == theirs
        return
    assert [(a.hex(), b.hex()) for a, b in ours] == [(a.hex(), b.hex()) for a, b in theirs]


@st.composite
def tables(
    draw: st.DrawFn, mu: tuple[float, float], sigma: tuple[float, float]
) -> tuple[list[tuple[float, float]], list[int]]:
    """2-10 players with ratings in the given ranges and competition ranks with ties."""
    n = draw(st.integers(2, 10))
    mus = st.floats(*mu, allow_nan=False)
    sigmas = st.floats(*sigma, allow_nan=False)
    ratings = draw(st.lists(st.tuples(mus, sigmas), min_size=n, max_size=n))
    places = draw(st.lists(st.integers(1, n), min_size=n, max_size=n))
    return ratings, [r - 1 for r in competition_ranks(places)]


@settings(max_examples=400, deadline=None)
@given(tables(mu=(-100.0, 150.0), sigma=(0.05, 20.0)))
def test_the_leagues_environment_rates_as_the_library(
    table: tuple[list[tuple[float, float]], list[int]],
) -> None:
    env = LEAGUE.environment()
    assert ffa.covers(env)
    ratings, ranks = table
    assert_same(fast(env, ratings, ranks), library(env, ratings, ranks))


@settings(max_examples=400, deadline=None)
@given(
    tables(mu=(-1e4, 1e4), sigma=(1e-3, 1e3)),
    st.sampled_from([0.5, 1.0, 25.0 / 6, 30.0, 1000.0]),
    st.sampled_from([0.0, 25.0 / 300, 1.0, 50.0]),
    st.sampled_from([0.0, 0.01, 0.1, 0.5, 0.99]),
    st.sampled_from([ffa.DELTA, 1e-12, 0.5, 1.0]),
)
def test_other_settings_and_wide_ratings_rate_as_the_library(
    table: tuple[list[tuple[float, float]], list[int]],
    beta: float,
    tau: float,
    draw_probability: float,
    min_delta: float,
) -> None:
    """Wide ratings also take the library's error paths (a winner rated far below a loser):
    the same ``FloatingPointError`` or ``ValueError`` must come out."""
    settings_ = replace(LEAGUE, beta=beta, tau=tau, draw_probability=draw_probability)
    env = settings_.environment()
    ratings, ranks = table
    assert_same(fast(env, ratings, ranks, min_delta), library(env, ratings, ranks, min_delta))


def test_a_winner_far_below_its_loser_raises_the_librarys_error() -> None:
    env = LEAGUE.environment()
    ratings = [(0.0, 0.1), (1000.0, 0.1)]
    assert library(env, ratings, [0, 1]).startswith("FloatingPointError")  # type: ignore[union-attr]
    with pytest.raises(FloatingPointError, match="mpmath"):
        ffa.rate(env, ratings, [0, 1])


def test_the_maths_is_the_librarys_own() -> None:
    """The inlined cdf, pdf and draw margin are the fallback backend's, bit for bit."""
    for i in range(-4000, 4001):
        x = i / 97.0
        assert ffa._cdf(x) == trueskill.backends.cdf(x)
        assert ffa._pdf(x) == trueskill.backends.pdf(x)
    env = LEAGUE.environment()
    for p in (0.0, 0.1, 0.37, 0.9):
        assert ffa.draw_margin(p, env.beta) == trueskill.calc_draw_margin(p, 2, env)


def test_what_it_does_not_cover_goes_to_the_library() -> None:
    env = LEAGUE.environment()
    cdf, pdf, ppf = trueskill.backends.cdf, trueskill.backends.pdf, trueskill.backends.ppf
    others = [
        trueskill.TrueSkill(backend=(lambda x: cdf(x), pdf, ppf)),  # another cdf
        trueskill.TrueSkill(draw_probability=lambda *_: 0.2),
        trueskill.TrueSkill(beta=2**40),
    ]
    for other in others:
        assert not ffa.covers(other)
    ratings = [(25.0, 8.0), (27.0, 3.0), (20.0, 5.0)]
    for other in [*others, env]:
        assert_same(fast(other, ratings, [1, 0, 1]), library(other, ratings, [1, 0, 1]))
    # a min_delta above 1 changes the library's weights: the library computes it
    assert_same(fast(env, ratings, [1, 0, 1], 3.0), library(env, ratings, [1, 0, 1], 3.0))
    with pytest.raises(ValueError, match="min_delta"):
        ffa.rate(env, ratings, [0, 1, 2], 0.0)


def test_bad_tables_raise_as_the_library_does() -> None:
    env = LEAGUE.environment()
    with pytest.raises(ValueError, match="multiple"):
        ffa.rate(env, [(25.0, 8.0)], [0])
    with pytest.raises(ValueError, match="Wrong ranks"):
        ffa.rate(env, [(25.0, 8.0), (25.0, 8.0)], [0])
    with pytest.raises(ValueError, match="sigma"):
        ffa.rate(env, [(25.0, 0.0), (25.0, 8.0)], [0, 1])


def test_int_settings_rate_as_the_library() -> None:
    """A league.toml may give whole numbers: ints convert exactly, so the results are the same."""
    env = trueskill.TrueSkill(mu=30, sigma=10, beta=5, tau=1, draw_probability=0)
    assert ffa.covers(env)
    ratings = [(env.mu, env.sigma), (31.5, 4.0), (29.0, 7.5), (30, 2)]
    for ranks in ([0, 1, 2, 3], [3, 0, 0, 1], [0, 0, 0, 0]):
        assert_same(fast(env, ratings, ranks), library(env, ratings, ranks))


def test_league_ratings_are_the_librarys() -> None:
    """LeagueRatings.rate_table, now on ffa, stores what the library's ratings gave before."""
    env = LEAGUE.environment()
    ratings = LeagueRatings(env, previous={4: 1}, carry=True)
    expected: dict[int, trueskill.Rating] = {}
    tables = [((1, 2, 3), (1, 2, 2)), ((2, 3, 1), (3, 1, 2)), ((4, 2, 3, 1), (1, 1, 3, 4))]
    for tab, (bots, places) in enumerate(tables):
        outcome = Outcome(
            f"m{tab}", 0, tab, "take5", tab, bots, places, tuple(map(float, places)), 0
        )
        ratings.rate_table("take5", [outcome])
        if 4 in bots and 4 not in expected:
            expected[4] = expected[1]
        order = sorted(bots)
        ranks = [r - 1 for r in competition_ranks([places[bots.index(b)] for b in order])]
        groups = [(expected.get(b, env.create_rating()),) for b in order]
        for b, (new,) in zip(order, env.rate(groups, ranks=ranks), strict=True):
            expected[b] = env.create_rating(float(new.mu), float(new.sigma))
    for bot, rating in expected.items():
        mu, sigma = ratings.exact[("take5", bot)]
        assert (mu.hex(), sigma.hex()) == (float(rating.mu).hex(), float(rating.sigma).hex())
    assert not math.isnan(ratings.exact[("take5", 4)][0])
