"""Known values and properties of the A/B test's statistics (arena.abtest.sprt)."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.abtest.sprt import (
    NELO_PER_T,
    T_ZERO,
    Bounds,
    Hypotheses,
    Scale,
    SequentialTest,
    Verdict,
    bin_count,
    bin_values,
    block_bin,
    block_score,
    elo_to_score,
    estimate,
    fixed_sample_blocks,
    llr,
    log_likelihood,
    mle_mean,
    mle_t_value,
    nelo_to_score,
    nelo_to_t,
    normalised_place,
    score_to_elo,
    score_to_nelo,
    seat_place,
    t_to_nelo,
    verdict_of,
)
from arena.match import demote_faulted

CHESS_PAIRS = (0.0, 0.25, 0.5, 0.75, 1.0)
GAMES = (0.0, 0.5, 1.0)


def pairs(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> list[int]:
    """fastchess' pentanomial counts as bins LL, LD, WL+DD, WD, WW."""
    return [ll, ld, wl + dd, wd, ww]


# -- known values ------------------------------------------------------------------------------


# fastchess' own test suite (app/tests/sprt_test.cpp, Disservin/fastchess), computed by its C++
# GSPRT: Stats(ll, ld, wl, dd, wd, ww) for pairs, Stats(wins, losses, draws) for games; the
# values are given there to 1% (doctest Approx epsilon 0.01).
FASTCHESS_PAIRS = [
    ("normalized", pairs(365, 16618, 36029, 200, 16974, 390), 0, 2, 2.25),
    ("normalized", pairs(127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, 3.01),
    ("normalized", pairs(0, 0, 0, 0, 0, 5550), 0, 5, 111.82),
    ("logistic", pairs(223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, -3.07),
    ("logistic", pairs(871, 26175, 55003, 980, 26678, 821), 0, 2, -4.98),
]
FASTCHESS_GAMES = [  # (wins, losses, draws)
    ("normalized", (36433, 36027, 68692), 0, 2, 0.92),
    ("normalized", (10871, 10650, 20431), -1.75, 0.25, 2.30),
    ("normalized", (4250, 0, 0), 0, 10, 120.56),
    ("logistic", (21404, 21184, 40708), 0.5, 2.5, -1.57),
    ("logistic", (57433, 57030, 106593), 0, 2, -2.59),
]


@pytest.mark.parametrize(("model", "counts", "elo0", "elo1", "expected"), FASTCHESS_PAIRS)
def test_llr_matches_fastchess_for_pairs(
    model: str, counts: list[int], elo0: float, elo1: float, expected: float
) -> None:
    hypotheses = (
        Hypotheses.nelo(elo0, elo1) if model == "normalized" else Hypotheses.elo(elo0, elo1)
    )
    assert llr(counts, CHESS_PAIRS, hypotheses) == pytest.approx(expected, rel=0.01, abs=0.005)


@pytest.mark.parametrize(("model", "wld", "elo0", "elo1", "expected"), FASTCHESS_GAMES)
def test_llr_matches_fastchess_for_single_games(
    model: str, wld: tuple[int, int, int], elo0: float, elo1: float, expected: float
) -> None:
    wins, losses, draws = wld
    if model == "normalized":  # one game per "block": t = nElo / (800 / ln 10), no sqrt(2)
        hypotheses = Hypotheses.nelo(elo0 / math.sqrt(2), elo1 / math.sqrt(2))
    else:
        hypotheses = Hypotheses.elo(elo0, elo1)
    value = llr([losses, draws, wins], GAMES, hypotheses)
    assert value == pytest.approx(expected, rel=0.01, abs=0.005)


def test_llr_of_two_bins_is_the_binomial_ratio() -> None:
    """With values 0 and 1 the mean fixes the distribution: p = (1 - s, s)."""
    n0, n1, s0, s1 = 37, 55, 0.5, 0.58
    expected = n1 * math.log(s1 / s0) + n0 * math.log((1 - s1) / (1 - s0))
    assert llr([n0, n1], (0.0, 1.0), Hypotheses.score(s0, s1)) == pytest.approx(expected, abs=1e-12)


def test_t_value_llr_of_two_bins_is_exact() -> None:
    """On values 0 and 1, (q - 1/2) / sqrt(q (1 - q)) = t gives q = 1/2 + t / (2 sqrt(1 + t^2))."""
    n0, n1 = 40, 61
    hypotheses = Hypotheses.nelo(-10, 30)
    q0, q1 = (0.5 + t / (2 * math.sqrt(1 + t * t)) for t in hypotheses.t_values())
    expected = n1 * math.log(q1 / q0) + n0 * math.log((1 - q1) / (1 - q0))
    assert llr([n0, n1], (0.0, 1.0), hypotheses) == pytest.approx(expected, abs=1e-9)


def test_three_bins_against_a_one_dimensional_search() -> None:
    """Three bins with a mean constraint leave one free parameter: a golden-section search over
    it finds the same maximum as the Lagrange solution."""
    counts, values, s = [7, 3, 12], (0.0, 0.5, 1.0), 0.45

    # p2 free; mean s = 0.5 p1 + p2 and p0 + p1 + p2 = 1 give p1 = 2 (s - p2), p0 = 1 - p1 - p2
    def loglik(p2: float) -> float:
        p1 = 2 * (s - p2)
        return log_likelihood(counts, [1 - p1 - p2, p1, p2])

    lo, hi = max(0.0, 2 * s - 1) + 1e-12, s - 1e-12
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if loglik(a) < loglik(b):
            lo = a
        else:
            hi = b
    p = mle_mean(counts, values, s)
    assert p[2] == pytest.approx((lo + hi) / 2, abs=1e-7)
    assert log_likelihood(counts, p) == pytest.approx(loglik((lo + hi) / 2), abs=1e-10)


def test_an_unobserved_extreme_bin_takes_the_missing_mass() -> None:
    """Every block on the top bin: the best distribution with mean s puts s there and 1 - s on
    the bottom bin (no regularisation), so the LLR is k ln(s1 / s0)."""
    values = bin_values(4)
    counts = [0, 0, 0, 0, 0, 0, 9]
    p = mle_mean(counts, values, 0.6)
    assert p == pytest.approx([0.4, 0, 0, 0, 0, 0, 0.6], abs=1e-12)
    assert llr(counts, values, Hypotheses.score(0.5, 0.6)) == pytest.approx(9 * math.log(1.2))
    bottom = mle_mean([3, 0, 0, 0, 0, 0, 0], values, 0.3)
    assert bottom == pytest.approx([0.7, 0, 0, 0, 0, 0, 0.3], abs=1e-12)


def test_the_constraint_binds_only_when_the_data_disagree() -> None:
    """When the empirical mean already is s, the MLE is the empirical distribution."""
    counts, values = [1, 2, 3, 2, 1], CHESS_PAIRS
    assert mle_mean(counts, values, 0.5) == pytest.approx([c / 9 for c in counts], abs=1e-12)
    assert mle_t_value(counts, values, 0.0) == pytest.approx([c / 9 for c in counts], abs=1e-12)


def test_bounds() -> None:
    bounds = Bounds(0.05, 0.05)
    assert bounds.lower == pytest.approx(-math.log(19))
    assert bounds.upper == pytest.approx(math.log(19))
    skewed = Bounds(0.01, 0.2)
    assert skewed.lower == pytest.approx(math.log(0.2 / 0.99))
    assert skewed.upper == pytest.approx(math.log(0.8 / 0.01))
    assert verdict_of(math.log(19), bounds) is Verdict.H1
    assert verdict_of(-math.log(19), bounds) is Verdict.H0
    assert verdict_of(2.9, bounds) is Verdict.UNDECIDED
    for alpha, beta in ((0, 0.05), (0.05, 1), (0.6, 0.5)):
        with pytest.raises(ValueError):
            Bounds(alpha, beta)


# -- block scores ------------------------------------------------------------------------------


def test_block_scores() -> None:
    assert [bin_count(n) for n in (2, 3, 4, 6, 10)] == [3, 5, 7, 11, 19]
    assert bin_values(3) == (0.0, 0.25, 0.5, 0.75, 1.0)
    assert block_score(1, 2, 2) == 1.0
    assert block_score(2, 1, 2) == 0.0
    assert block_score(2, 2, 2) == 0.5
    assert block_score(1, 4, 4) == 1.0
    assert block_score(2, 3, 4) == pytest.approx(0.5 + (2 / 3 - 1 / 3) / 2)
    assert block_score(3, 3, 4) == 0.5
    assert block_score(6, 1, 6) == 0.0
    assert block_bin(2, 5, 6) == 8
    for seats in range(2, 11):
        for new in range(1, seats + 1):
            for old in range(1, seats + 1):
                c_new, c_old = normalised_place(new, seats), normalised_place(old, seats)
                expected = 0.5 + (c_new - c_old) / 2
                assert block_score(new, old, seats) == pytest.approx(expected)
                assert bin_values(seats)[block_bin(new, old, seats)] == pytest.approx(expected)
    with pytest.raises(ValueError):
        block_bin(0, 1, 3)
    with pytest.raises(ValueError):
        block_bin(1, 4, 3)
    with pytest.raises(ValueError):
        bin_count(1)


def test_ties_share_the_better_place() -> None:
    """Ranks "1, 1, 3, 4": both tied seats have c = 1; a block where NEW ties for first and OLD
    won alone scores 1/2."""
    ranks = (1, 1, 3, 4)
    assert normalised_place(seat_place(ranks, (), 1), 4) == 1.0
    assert block_score(seat_place(ranks, (), 0), 1, 4) == 0.5


def test_a_faulted_seat_is_put_last() -> None:
    ranks = (1, 2, 3, 4)
    assert [seat_place(ranks, {0}, s) for s in range(4)] == [4, 1, 2, 3]
    # two faulted seats share the last places: competition ranks give both the better one, 3
    assert [seat_place(ranks, {0, 1}, s) for s in range(4)] == [3, 3, 1, 2]
    assert [seat_place(ranks, {0, 1}, s) for s in range(4)] == list(demote_faulted(ranks, {0, 1}))
    # NEW won but faulted; OLD came second in the same seat: the block counts against NEW
    assert block_score(seat_place(ranks, {0}, 0), 2, 4) == pytest.approx(0.5 - 2 / 3 / 2)


# -- conversions -------------------------------------------------------------------------------


def test_conversions_known_values() -> None:
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(10 / 11) == pytest.approx(400)
    assert score_to_elo(1.0) == math.inf
    assert score_to_elo(0.0) == -math.inf
    assert pytest.approx(347.43558552260146) == NELO_PER_T
    assert nelo_to_t(NELO_PER_T / math.sqrt(2)) == pytest.approx(1.0)
    # a block score of 0.6 with block variance 0.02: t = 0.1 / sqrt(0.02), nElo = t 347.4 / sqrt 2
    assert score_to_nelo(0.6, 0.02) == pytest.approx(0.1 / math.sqrt(0.04) * NELO_PER_T)
    assert Hypotheses.nelo(0, 5).t_values() == pytest.approx((0.0, 0.02035), abs=1e-5)


@given(st.floats(0.001, 0.999))
def test_score_elo_round_trip(score: float) -> None:
    assert elo_to_score(score_to_elo(score)) == pytest.approx(score, abs=1e-12)


@given(st.floats(-200, 200), st.floats(1e-4, 0.25))
def test_nelo_round_trips(nelo: float, variance: float) -> None:
    assert t_to_nelo(nelo_to_t(nelo)) == pytest.approx(nelo, abs=1e-9)
    assert score_to_nelo(nelo_to_score(nelo, variance), variance) == pytest.approx(nelo, abs=1e-9)


def test_hypotheses_are_checked() -> None:
    with pytest.raises(ValueError):
        Hypotheses.score(0.55, 0.5)
    with pytest.raises(ValueError):
        Hypotheses.score(0.0, 0.5)
    with pytest.raises(ValueError):
        Hypotheses.nelo(0, 500)
    with pytest.raises(ValueError):
        Hypotheses.nelo(0, 5).scores()
    assert Hypotheses.elo(0, 400).scores() == pytest.approx((0.5, 10 / 11))


# -- properties of the MLE and the LLR ---------------------------------------------------------

SEATS = st.sampled_from([2, 3, 4, 6])


@st.composite
def bins(draw: st.DrawFn) -> tuple[int, list[int]]:
    seats = draw(SEATS)
    counts = draw(
        st.lists(st.integers(0, 30), min_size=bin_count(seats), max_size=bin_count(seats))
    )
    if not any(counts):
        counts[draw(st.integers(0, len(counts) - 1))] = 1
    return seats, counts


HYPOTHESES = st.one_of(
    st.tuples(st.floats(0.3, 0.55), st.floats(0.005, 0.2)).map(
        lambda t: Hypotheses.score(t[0], t[0] + t[1])
    ),
    st.tuples(st.floats(-50, 20), st.floats(1, 80)).map(
        lambda t: Hypotheses.nelo(t[0], t[0] + t[1])
    ),
)


NEAR_ZERO = st.one_of(
    st.tuples(st.floats(0.05, 0.9), st.floats(0.001, 0.09)).map(
        lambda t: Hypotheses.score(t[0], t[0] + t[1])
    ),
    st.tuples(st.floats(-50, 0), st.floats(0.5, 60)).map(lambda t: Hypotheses.nelo(t[0], t[1])),
)
"""Hypotheses for the monotonicity property: any score pair, and nElo pairs around 0. For nElo
pairs far from 0 (say H0 +140, H1 +185) it fails: one more block at the very top raises the
standard deviation as well as the mean, and can lower the t-value H1 needs."""


def mean_of(p: list[float], values: tuple[float, ...]) -> float:
    return sum(pk * a for pk, a in zip(p, values, strict=True))


def mean_and_t(p: list[float], values: tuple[float, ...]) -> tuple[float, float]:
    """The mean and the t-value of ``p`` (which must have a spread)."""
    mean = mean_of(p, values)
    sigma = math.sqrt(sum(pk * (a - mean) ** 2 for pk, a in zip(p, values, strict=True)))
    return mean, (mean - 0.5) / sigma


@settings(max_examples=150, deadline=None)
@given(bins(), st.floats(0.02, 0.98))
def test_mean_mle_meets_its_constraint_and_is_a_maximum(
    table: tuple[int, list[int]], score: float
) -> None:
    seats, counts = table
    values = bin_values(seats)
    p = mle_mean(counts, values, score)
    assert sum(p) == pytest.approx(1, abs=1e-9)
    assert min(p) >= 0
    assert mean_of(p, values) == pytest.approx(score, abs=1e-9)  # a point mass may meet it
    best = log_likelihood(counts, p)
    # moving mass along any direction that keeps the sum and the mean cannot do better
    k = len(values)
    for i, j, m in ((0, k - 1, k // 2), (1 % k, k - 1, 0), (0, k // 2, k - 1)):
        if len({i, j, m}) < 3:
            continue
        # direction v with v_i + v_j + v_m = 0 and v_i a_i + v_j a_j + v_m a_m = 0
        a_i, a_j, a_m = values[i], values[j], values[m]
        v = [0.0] * k
        v[i], v[j], v[m] = a_j - a_m, a_m - a_i, a_i - a_j
        for step in (1e-4, -1e-4):
            q = [pk + step * vk for pk, vk in zip(p, v, strict=True)]
            if min(q[n] for n in range(k) if counts[n]) > 0 and min(q) >= 0:
                assert log_likelihood(counts, q) <= best + 1e-9


@settings(max_examples=100, deadline=None)
@given(bins(), st.floats(-60, 100))
def test_t_value_mle_meets_its_constraint(table: tuple[int, list[int]], nelo: float) -> None:
    seats, counts = table
    values = bin_values(seats)
    t = nelo_to_t(nelo)
    p = mle_t_value(counts, values, t)
    assert sum(p) == pytest.approx(1, abs=1e-9)
    assert min(p) >= 0
    mean = mean_of(p, values)
    if abs(t) < T_ZERO:  # solved as the mean alone: a point mass on 1/2 meets it (no t-value)
        assert mean == pytest.approx(0.5, abs=1e-9)
    else:
        assert mean_and_t(p, values)[1] == pytest.approx(t, abs=1e-7)


@settings(max_examples=150, deadline=None)
@given(bins(), NEAR_ZERO)
def test_llr_is_monotone_in_the_evidence(
    table: tuple[int, list[int]], hypotheses: Hypotheses
) -> None:
    """One more block counts more for H1 the higher it scored."""
    seats, counts = table
    values = bin_values(seats)
    after = []
    for k in range(len(values)):
        more = list(counts)
        more[k] += 1
        after.append(llr(more, values, hypotheses))
    assert all(lo <= hi + 1e-9 for lo, hi in itertools.pairwise(after))


@settings(max_examples=100, deadline=None)
@given(bins(), HYPOTHESES, st.integers(2, 5))
def test_llr_scales_with_the_number_of_blocks_and_mirrors(
    table: tuple[int, list[int]], hypotheses: Hypotheses, times: int
) -> None:
    """The MLEs depend only on the empirical distribution, so k times the counts give k times
    the LLR; and mirrored blocks (d -> 1 - d) under mirrored hypotheses give minus the LLR."""
    seats, counts = table
    values = bin_values(seats)
    value = llr(counts, values, hypotheses)
    scaled = llr([times * n for n in counts], values, hypotheses)
    assert scaled == pytest.approx(times * value, rel=1e-7, abs=1e-7)
    if hypotheses.scale is Scale.SCORE:
        mirror = Hypotheses.score(1 - hypotheses.h1, 1 - hypotheses.h0)
    else:
        mirror = Hypotheses.nelo(-hypotheses.h1, -hypotheses.h0)
    assert llr(counts[::-1], values, mirror) == pytest.approx(-value, rel=1e-7, abs=1e-7)


@settings(max_examples=100, deadline=None)
@given(bins(), st.floats(0.3, 0.6), st.floats(0.005, 0.2))
def test_llr_sign_follows_the_empirical_mean(
    table: tuple[int, list[int]], s0: float, width: float
) -> None:
    """The profile likelihood of the mean is concave with its peak at the empirical mean: at or
    beyond s1 the data favour H1, at or below s0 they favour H0."""
    seats, counts = table
    values = bin_values(seats)
    s1 = s0 + width
    mean = sum(n * a for n, a in zip(counts, values, strict=True)) / sum(counts)
    value = llr(counts, values, Hypotheses.score(s0, s1))
    if mean >= s1:
        assert value >= -1e-12
    if mean <= s0:
        assert value <= 1e-12


# -- estimates ---------------------------------------------------------------------------------


def test_estimate() -> None:
    values = bin_values(3)
    counts = [1, 2, 4, 5, 3]
    n = 15
    mean = sum(c * a for c, a in zip(counts, values, strict=True)) / n
    variance = sum(c * (a - mean) ** 2 for c, a in zip(counts, values, strict=True)) / n
    found = estimate(counts, values)
    assert found.blocks == n
    assert found.score == pytest.approx(mean)
    assert found.variance == pytest.approx(variance)
    half = 1.959963984540054 * math.sqrt(variance / n)
    assert (found.score_low, found.score_high) == pytest.approx((mean - half, mean + half))
    assert found.elo == pytest.approx(-400 * math.log10(1 / mean - 1))
    assert found.nelo == pytest.approx((mean - 0.5) / math.sqrt(2 * variance) * NELO_PER_T)
    assert found.elo_low < found.elo < found.elo_high
    assert found.nelo_low is not None and found.nelo_high is not None
    assert found.nelo_low < found.nelo < found.nelo_high
    flat = estimate([0, 0, 4, 0, 0], values)
    assert flat.nelo is None and flat.score == 0.5 and flat.elo == 0
    assert json.loads(json.dumps(found.to_json()))["score"] == pytest.approx(mean)
    won = estimate([0, 0, 0, 0, 3], values)
    assert won.elo == math.inf
    assert won.to_json()["elo"] is None and won.to_json()["blocks"] == 3


def test_fixed_sample_blocks() -> None:
    z = 1.6448536269514722
    assert fixed_sample_blocks(Bounds(0.05, 0.05), 0.0, 0.2) == pytest.approx((2 * z / 0.2) ** 2)


# -- the sequential test -----------------------------------------------------------------------


def test_sequential_test_stops_at_the_first_crossing() -> None:
    """Every block won outright: the LLR after k blocks is k ln(s1 / s0) = k ln 1.2, which first
    reaches ln 19 at k = 17."""
    test = SequentialTest(4, Hypotheses.score(0.5, 0.6), Bounds(0.05, 0.05))
    statuses = [test.add(1, 4) for _ in range(17)]
    assert [s.verdict for s in statuses[:16]] == [Verdict.UNDECIDED] * 16
    assert statuses[15].llr == pytest.approx(16 * math.log(1.2))
    assert statuses[16].verdict is Verdict.H1 and statuses[16].finished
    assert test.blocks == 17 and test.verdict is Verdict.H1
    assert statuses[16].to_json() == {
        "blocks": 17,
        "llr": pytest.approx(17 * math.log(1.2)),
        "lower": pytest.approx(-math.log(19)),
        "upper": pytest.approx(math.log(19)),
        "verdict": "H1",
        "finished": True,
    }
    with pytest.raises(ValueError):
        test.add(1, 4)


def test_sequential_normalised_elo_known_value() -> None:
    """Every block won outright, nElo [0, 40]: H0's best is half the mass on 1 (mean 1/2), H1's
    puts q = 1/2 + t / (2 sqrt(1 + t^2)) there, so the LLR grows by ln(2 q) a block."""
    test = SequentialTest(3, Hypotheses.nelo(0, 40), Bounds(0.05, 0.05))
    t1 = nelo_to_t(40)
    step = math.log(1 + t1 / math.sqrt(1 + t1 * t1))
    blocks = math.ceil(math.log(19) / step)
    for k in range(1, blocks + 1):
        status = test.add(1, 3)
        assert status.llr == pytest.approx(k * step, rel=1e-9)
    assert test.verdict is Verdict.H1 and test.blocks == blocks


def test_sequential_test_agrees_with_llr_and_caps() -> None:
    hypotheses = Hypotheses.nelo(0, 10)
    test = SequentialTest(4, hypotheses, Bounds(0.05, 0.05), max_blocks=12)
    sequence = [3, 4, 2, 3, 5, 1, 3, 6, 0, 3, 4, 2]
    counts = [0] * 7
    for k in sequence:
        counts[k] += 1
        status = test.add_bin(k)
        assert status.llr == pytest.approx(llr(counts, bin_values(4), hypotheses), abs=1e-9)
    assert test.finished and test.verdict is Verdict.UNDECIDED and test.blocks == 12
    with pytest.raises(ValueError):
        test.add_bin(3)
    with pytest.raises(ValueError):
        SequentialTest(4, hypotheses, Bounds(0.05, 0.05)).add_bin(7)


def test_identical_play_accepts_h0() -> None:
    """Every block a tie (two deterministic versions that play alike): the H1 optimum must put
    mass away from 1/2, so the LLR falls every block and H0 is accepted."""
    for hypotheses in (Hypotheses.nelo(0, 5), Hypotheses.score(0.5, 0.52)):
        test = SequentialTest(5, hypotheses, Bounds(0.05, 0.05))
        llrs = []
        while not test.finished:
            llrs.append(test.add(2, 2).llr)
        assert test.verdict is Verdict.H0
        assert all(b < a for a, b in itertools.pairwise(llrs))


def test_the_t_value_mle_converges_where_it_creeps_towards_an_unseen_bin() -> None:
    # Found by the benchmark's 6-seat run: the fixed point needs ~1000 iterations here.
    values = [k / 10 for k in range(11)]
    counts = [0, 0, 0, 0, 3, 5, 2, 0, 0, 0, 0]
    t = 0.20352169168939335
    p = mle_t_value(counts, values, t)
    mean = sum(pk * a for pk, a in zip(p, values, strict=True))
    sd = math.sqrt(sum(pk * (a - mean) ** 2 for pk, a in zip(p, values, strict=True)))
    assert abs(sum(p) - 1) < 1e-12 and abs((mean - 0.5) / sd - t) < 1e-9
    assert p[10] == pytest.approx(0.019924, abs=1e-5)  # the mass on the unseen top bin


def test_the_mean_mle_does_not_stop_at_a_pole() -> None:
    """A Newton step of the root search can land next to the pole of an observed extreme bin,
    where the next step is tiny though the root is far: hypothesis found such a table (the
    first bin unobserved, the last observed once). The optimum is a distribution, not a bin
    with a mass of 1e14."""
    values = bin_values(4)
    counts = [0, 12, 16, 2, 7, 1, 1]
    p = mle_mean(counts, values, 0.5)
    assert sum(p) == pytest.approx(1, abs=1e-9) and max(p) < 1
    assert mean_of(p, values) == pytest.approx(0.5, abs=1e-9)


def test_a_t_value_too_small_for_floats_is_solved_as_zero() -> None:
    # Found by hypothesis: nElo 9.65e-297 (t 3.9e-299) on one draw never converged.
    values = bin_values(2)
    t = nelo_to_t(9.654028953844703e-297)
    assert 0 < t < T_ZERO
    assert mle_t_value([0, 1, 0], values, t) == mle_t_value([0, 1, 0], values, 0.0)
    assert mle_t_value([1, 1, 1], values, 2 * T_ZERO) != mle_t_value([1, 1, 1], values, 0.0)
