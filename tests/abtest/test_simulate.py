"""The simulation behind the A/B test's benchmark (arena.abtest.simulate)."""

from __future__ import annotations

import math

import pytest

from arena.abtest.simulate import (
    BlockOutcome,
    NoisyPolicy,
    Pool,
    Rates,
    mean_of,
    merged,
    nelo_of,
    play_block,
    play_blocks,
    run_tests,
    symmetrised,
    t_value,
    tilt_to,
    tilted,
)
from arena.abtest.sprt import Bounds, Hypotheses, bin_values, nelo_to_t
from arena.games import get_game
from arena.players import play_local

POOL = [3, 9, 20, 41, 30, 12, 5]  # a skewed pool over the bins of 4 seats
VALUES = bin_values(4)


def test_symmetrised_pool_has_mean_one_half_exactly() -> None:
    p = symmetrised(POOL)
    assert sum(p) == pytest.approx(1)
    assert mean_of(p, VALUES) == pytest.approx(0.5, abs=1e-15)
    assert p == pytest.approx(p[::-1])
    assert nelo_of(p, VALUES) == pytest.approx(0, abs=1e-12)


def test_tilting_reaches_the_target_exactly() -> None:
    p = [n / sum(POOL) for n in POOL]
    assert tilted(p, VALUES, 0.0) == pytest.approx(p)
    to_mean = tilt_to(p, VALUES, 0.53, mean_of)
    assert mean_of(to_mean, VALUES) == pytest.approx(0.53, abs=1e-9)
    t1 = nelo_to_t(50)
    to_t = tilt_to(p, VALUES, t1, t_value)
    assert t_value(to_t, VALUES) == pytest.approx(t1, abs=1e-9)
    # a tilt keeps the support and the ratios between neighbours up to the factor e^(theta/6)
    ratios = [to_t[k] / p[k] for k in range(len(p))]
    steps = [ratios[k + 1] / ratios[k] for k in range(len(p) - 1)]
    assert steps == pytest.approx([steps[0]] * len(steps))
    with pytest.raises(ValueError):
        tilt_to(p, VALUES, 1.5, mean_of)


def test_resampled_tests_on_a_known_distribution() -> None:
    """Every block won outright, score [0.5, 0.6]: each test accepts H1 after exactly 17 blocks
    (17 ln 1.2 is the first multiple past ln 19)."""
    certain = [0, 0, 0, 0, 0, 0, 1.0]
    hypotheses, bounds = Hypotheses.score(0.5, 0.6), Bounds(0.05, 0.05)
    rates = run_tests(certain, 4, hypotheses, bounds, tests=5)
    assert rates == Rates(5, 0, 5, 0, 17.0)
    ties = [0, 0, 0, 1.0, 0, 0, 0]
    capped = run_tests(ties, 4, Hypotheses.score(0.5, 0.501), bounds, tests=3, max_blocks=4)
    assert capped == Rates(3, 0, 0, 3, 4.0)
    assert merged([rates, capped]) == Rates(8, 0, 5, 3, (5 * 17 + 3 * 4) / 8)


def test_resampled_tests_are_reproducible_in_chunks() -> None:
    hypotheses, bounds = Hypotheses.nelo(0, 60), Bounds(0.05, 0.05)
    p = symmetrised(POOL)
    whole = run_tests(p, 4, hypotheses, bounds, tests=6, seed="x")
    parts = [
        run_tests(p, 4, hypotheses, bounds, tests=2, seed="x", first=first) for first in (0, 2, 4)
    ]
    assert merged(parts).h1 == whole.h1 and merged(parts).h0 == whole.h0
    assert merged(parts).mean_blocks == pytest.approx(whole.mean_blocks)


@pytest.mark.parametrize(
    ("game", "seats"), [("take5", 3), ("take5", 6), ("ten", 4), ("phase10", 2)]
)
def test_identical_deterministic_players_tie_every_block(game: str, seats: int) -> None:
    """The same deal, the same noiseless player in the tested seat, the same opponents: both
    games are the same game, so the block is a tie (the duplicate mechanism, checked exactly)."""
    greedy = NoisyPolicy(game, 0.0)
    for seat in range(min(seats, 2)):
        block = play_block(game, seats, 11 + seat, seat, greedy, greedy, NoisyPolicy(game, 0.3))
        assert block.place_new == block.place_old
        assert block.bin == seats - 1


def test_coupled_noise_replays_the_same_game() -> None:
    """NEW and OLD with the same noise and the same seed play the same game when coupled."""
    noisy = NoisyPolicy("take5", 0.4)
    blocks = play_blocks("take5", 4, noisy, noisy, noisy, 0, 4, seed=5, coupled=True)
    assert all(b.bin == 3 for b in blocks)
    assert [b.seat for b in blocks] == [0, 1, 2, 3]


def test_a_block_is_two_replays_of_one_deal() -> None:
    """The places of a block are those of play_local on the same seed, seat by seat."""
    new, old, opponent = (
        NoisyPolicy("take5", 0.0),
        NoisyPolicy("take5", 1.0),
        NoisyPolicy("take5", 0.1),
    )
    block = play_block("take5", 3, 42, 1, new, old, opponent)
    spec = get_game("take5")
    for tested, tag, place in ((new, "new", block.place_new), (old, "old", block.place_old)):
        players = [
            tested.player(f"42:{tag}") if s == 1 else opponent.player(f"42:{s}") for s in range(3)
        ]
        assert play_local(spec, 42, players).state.result().ranks[1] == place
    assert block.c_new == (3 - block.place_new) / 2


def test_pool_variances() -> None:
    """Per match: paired 2 Var(d) = Var(c)(1 - rho) when both games have variance Var(c)."""
    new, old = NoisyPolicy("take5", 0.0), NoisyPolicy("take5", 0.0)
    blocks = (
        BlockOutcome(3, 0, 1, 1),
        BlockOutcome(3, 1, 3, 3),
        BlockOutcome(3, 2, 1, 3),
        BlockOutcome(3, 0, 3, 1),
    )
    pool = Pool("take5", 3, new, old, blocks)
    assert pool.counts() == [1, 0, 2, 0, 1]
    # c_new = (1, 0, 1, 0), c_old = (1, 0, 0, 1): Var 1/4 each; d = (1/2, 1/2, 1, 0): Var 1/8
    assert pool.unpaired_variance() == pytest.approx(0.25)
    assert pool.paired_variance() == pytest.approx(0.25)


def test_noisy_policy_is_checked() -> None:
    with pytest.raises(ValueError):
        NoisyPolicy("take5", 1.5)
    with pytest.raises(ValueError):
        NoisyPolicy("chess", 0.1)
    assert math.isclose(NoisyPolicy("ten", 0.25).eps, 0.25)
