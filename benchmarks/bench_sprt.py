"""The A/B test's statistics checked by simulation: error rates, test length, variance.

For each seat count, two pools of real duplicate blocks are played once with in-process noisy
greedy players (:mod:`arena.abtest.simulate`): identical players (NEW = OLD = ``--eps``), and a
stronger against a weaker one (``--eps-new`` against ``--eps-old``); the opponents are
``--eps`` players. Each pool's empirical distribution over the block-score bins is then a known
truth:

- H0 exactly: the identical pool, symmetrised (mean 1/2, nElo 0);
- H1 exactly at the bound: the strength pool, exponentially tilted to the H1 nElo (or score).

From each, ``--tests`` sequential tests resample blocks until a verdict and count how they end:

- false-positive rate: H1 accepted under H0 (goal: alpha +- 1.5 points);
- power: H1 accepted under H1 (goal: at least 1 - beta - 1.5 points);
- mean blocks to a verdict against the fixed-size test with the same alpha and beta, from the
  normal approximation: a one-sided z-test of the mean block score needs
  ``n = ((z_(1-alpha) + z_(1-beta)) / (t1 - t0))^2`` blocks, with ``t`` the hypotheses in units
  of the block-score standard deviation (goal: at most 0.6x);
- variance per match of the duplicate design (``2 Var(d)``) against the same games unpaired
  (one game's normalised place: ``(Var(c_new) + Var(c_old)) / 2``), in three pools: the
  identical players, and the stronger against the weaker player with a shared noise seed (two
  versions of a bot that differ in some decisions: this pool is the one tilted to H1) and with
  noise of their own (half the blocks, for the variance only), and a small change: the greedy
  player against itself with ``--eps-small`` noise on a shared seed, at a table of noiseless
  greedy players (half the blocks: two versions that differ in about 2% of their decisions).

Then a real case, blocks played as a test plays them: the greedy player against the random one
(expected: H1 within a few dozen blocks), per game, and a noisy player against itself.

    python -m benchmarks.bench_sprt [--seats 3 4 6] [--pool 2000] [--tests 1000] [--workers 2]
        [--scale nelo|score] [--h1 50] [--alpha 0.05 --beta 0.05] [--real take5 ten phase10]
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from arena import native
from arena.abtest.simulate import (
    BlockOutcome,
    NoisyPolicy,
    Pool,
    Rates,
    mean_of,
    merged,
    moments,
    nelo_of,
    play_block,
    play_blocks,
    run_tests,
    symmetrised,
    t_value,
    tilt_to,
)
from arena.abtest.sprt import (
    Bounds,
    Hypotheses,
    Scale,
    SequentialTest,
    bin_values,
    fixed_sample_blocks,
    nelo_to_t,
)
from arena.games import get_game


@dataclass(frozen=True)
class Row:
    seats: int
    pool_nelo: float
    h0: Rates
    h1: Rates
    fixed: float
    pools: tuple[tuple[str, Pool], ...]
    """The pools played, by a label: their variances per match are reported."""


def chunks(total: int, parts: int) -> list[tuple[int, int]]:
    """(first, count) pieces of ``range(total)``, about equal."""
    size = math.ceil(total / parts)
    return [(first, min(size, total - first)) for first in range(0, total, size)]


def play_pool(
    executor: ProcessPoolExecutor,
    workers: int,
    game: str,
    seats: int,
    new: NoisyPolicy,
    old: NoisyPolicy,
    opponent: NoisyPolicy,
    blocks: int,
    seed: int,
    coupled: bool = False,
) -> Pool:
    futures = [
        executor.submit(
            play_blocks, game, seats, new, old, opponent, first, count, seed, None, coupled
        )
        for first, count in chunks(blocks, workers * 4)
    ]
    played: list[BlockOutcome] = [b for f in futures for b in f.result()]
    return Pool(game, seats, new, old, tuple(played), coupled)


def series(
    executor: ProcessPoolExecutor,
    workers: int,
    p: Sequence[float],
    seats: int,
    hypotheses: Hypotheses,
    bounds: Bounds,
    tests: int,
    seed: str,
    max_blocks: int,
) -> Rates:
    futures = [
        executor.submit(
            run_tests, list(p), seats, hypotheses, bounds, count, seed, max_blocks, first
        )
        for first, count in chunks(tests, workers * 4)
    ]
    return merged([f.result() for f in futures])


def gain(pool: Pool) -> float:
    """Unpaired over paired variance per match (infinite when every block was a tie)."""
    paired = pool.paired_variance()
    return pool.unpaired_variance() / paired if paired > 0 else math.inf


def hypotheses_of(args: argparse.Namespace) -> Hypotheses:
    if args.scale == "nelo":
        return Hypotheses.nelo(args.h0, args.h1)
    return Hypotheses.score(args.h0, args.h1)


def measure(args: argparse.Namespace, executor: ProcessPoolExecutor, seats: int) -> Row:
    hypotheses = hypotheses_of(args)
    bounds = Bounds(args.alpha, args.beta)
    values = bin_values(seats)
    same = NoisyPolicy(args.game, args.eps)
    strong, weak = NoisyPolicy(args.game, args.eps_new), NoisyPolicy(args.game, args.eps_old)
    identical = play_pool(
        executor, args.workers, args.game, seats, same, same, same, args.pool, args.seed
    )
    stronger = play_pool(
        executor, args.workers, args.game, seats, strong, weak, same, args.pool, args.seed + 1, True
    )
    apart = play_pool(
        executor, args.workers, args.game, seats, strong, weak, same, args.pool // 2, args.seed + 2
    )
    exact = NoisyPolicy(args.game, 0.0)
    small = play_pool(
        executor,
        args.workers,
        args.game,
        seats,
        exact,
        NoisyPolicy(args.game, args.eps_small),
        exact,
        args.pool // 2,
        args.seed + 3,
        True,
    )
    truth0 = symmetrised(identical.counts())
    pool1 = [c / len(stronger.blocks) for c in stronger.counts()]
    if hypotheses.scale is Scale.NELO:
        t0, t1 = hypotheses.t_values()
        truth1 = tilt_to(pool1, values, t1, t_value)
    else:
        s0, s1 = hypotheses.scores()
        truth1 = tilt_to(pool1, values, s1, mean_of)
        sigma = moments(truth0, values)[1]
        t0, t1 = (s0 - 0.5) / sigma, (s1 - 0.5) / sigma
    fixed = fixed_sample_blocks(bounds, t0, t1)
    cap = int(args.cap * fixed)
    h0 = series(
        executor, args.workers, truth0, seats, hypotheses, bounds, args.tests, f"h0:{seats}", cap
    )
    h1 = series(
        executor, args.workers, truth1, seats, hypotheses, bounds, args.tests, f"h1:{seats}", cap
    )
    return Row(
        seats,
        nelo_of(pool1, values),
        h0,
        h1,
        fixed,
        (
            (f"identical eps {args.eps}, own noise", identical),
            (f"eps {args.eps_new} vs {args.eps_old}, shared noise seed", stronger),
            (f"eps {args.eps_new} vs {args.eps_old}, own noise", apart),
            (f"small change: eps 0 vs {args.eps_small}, shared seed, opponents eps 0", small),
        ),
    )


def real_test(
    game: str, seats: int, new: NoisyPolicy, old: NoisyPolicy, args: argparse.Namespace
) -> tuple[SequentialTest, float]:
    """A sequential test on blocks played one by one, as ``arena abtest`` would play them."""
    test = SequentialTest(seats, hypotheses_of(args), Bounds(args.alpha, args.beta), args.real_cap)
    began = time.perf_counter()
    block = 0
    while not test.finished:
        seed = args.seed * 1_000_000 + 500_000 + block
        played = play_block(game, seats, seed, block % seats, new, old, NoisyPolicy(game, args.eps))
        test.add(played.place_new, played.place_old)
        block += 1
    return test, time.perf_counter() - began


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="take5", help="the game the pools are played in")
    parser.add_argument("--seats", type=int, nargs="+", default=[3, 4, 6])
    parser.add_argument("--pool", type=int, default=2000, help="blocks per pool")
    parser.add_argument("--tests", type=int, default=1000, help="tests per hypothesis")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scale", choices=["nelo", "score"], default="nelo")
    parser.add_argument("--h0", type=float, default=None, help="default 0 nElo, 0.5 score")
    parser.add_argument("--h1", type=float, default=None, help="default 50 nElo, 0.53 score")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--eps", type=float, default=0.05, help="noise of identical players")
    parser.add_argument("--eps-new", type=float, default=0.0)
    parser.add_argument("--eps-old", type=float, default=0.1)
    parser.add_argument(
        "--eps-small", type=float, default=0.02, help="noise of the small-change variance pool"
    )
    parser.add_argument(
        "--cap", type=float, default=20.0, help="stop a test undecided at this many fixed sizes"
    )
    parser.add_argument("--real", nargs="*", default=["take5", "ten", "phase10"])
    parser.add_argument("--real-seats", type=int, default=4)
    parser.add_argument("--real-cap", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.h0 is None:
        args.h0 = 0.0 if args.scale == "nelo" else 0.5
    if args.h1 is None:
        args.h1 = 50.0 if args.scale == "nelo" else 0.53
    hypotheses = hypotheses_of(args)
    bounds = Bounds(args.alpha, args.beta)
    print(native.describe())
    print(
        f"game {args.game}; hypotheses {hypotheses.describe()}; alpha {args.alpha}, beta "
        f"{args.beta}: LLR bounds ({bounds.lower:.3f}, {bounds.upper:.3f}); pools of {args.pool} "
        f"blocks; {args.tests} tests per hypothesis; identical players eps {args.eps}, stronger "
        f"eps {args.eps_new} vs weaker eps {args.eps_old}, opponents eps {args.eps}"
    )
    if args.scale == "nelo":
        t0, t1 = nelo_to_t(args.h0), nelo_to_t(args.h1)
        print(f"per-block t-values ({t0:.4f}, {t1:.4f})")
    began = time.perf_counter()
    rows = []
    with ProcessPoolExecutor(max_workers=args.workers) as executor:
        for seats in args.seats:
            row = measure(args, executor, seats)
            rows.append(row)
            print(f"  seats {seats} done at {time.perf_counter() - began:.0f}s", flush=True)
    print()
    print(
        f"{'seats':>5} {'pool nElo':>9} {'FPR %':>6} {'undec':>5} {'blocks H0':>9} "
        f"{'power %':>7} {'undec':>5} {'blocks H1':>9} {'fixed n':>7} {'H0/fix':>6} {'H1/fix':>6}"
    )
    for r in rows:
        print(
            f"{r.seats:>5} {r.pool_nelo:>9.1f} {100 * r.h0.h1_rate:>6.2f} {r.h0.undecided:>5} "
            f"{r.h0.mean_blocks:>9.1f} {100 * r.h1.h1_rate:>7.2f} {r.h1.undecided:>5} "
            f"{r.h1.mean_blocks:>9.1f} {r.fixed:>7.1f} {r.h0.mean_blocks / r.fixed:>6.3f} "
            f"{r.h1.mean_blocks / r.fixed:>6.3f}"
        )
    print(
        "pool nElo: of the stronger-weaker pool before tilting; FPR: H1 accepted under H0; "
        "power: H1 accepted under H1; undec: tests stopped undecided at the cap; blocks: mean "
        "blocks to the end of a test; fixed n: blocks of the fixed-size test"
    )
    print()
    print(f"{'seats':>5} {'var/match paired':>16} {'unpaired':>8} {'ratio':>6}  pool")
    for r in rows:
        for label, pool in r.pools:
            paired, unpaired = pool.paired_variance(), pool.unpaired_variance()
            print(
                f"{r.seats:>5} {paired:>16.4f} {unpaired:>8.4f} {gain(pool):>6.2f}  "
                f"{label} ({len(pool.blocks)} blocks)"
            )
    print(
        "paired: 2 Var(d) of duplicate blocks; unpaired: Var(c) of the same games without the "
        "pairing; ratio: how many times fewer matches the pairing needs for the same precision"
    )
    sims = time.perf_counter() - began
    print()
    for game in args.real:
        seats = min(args.real_seats, get_game(game).max_seats)
        test, seconds = real_test(game, seats, NoisyPolicy(game, 0.0), NoisyPolicy(game, 1.0), args)
        estimate = test.estimate()
        print(
            f"real: {game} {seats} seats, greedy vs random: {test.verdict.value} after "
            f"{test.blocks} blocks ({2 * test.blocks} matches, {seconds:.1f}s); "
            f"{estimate.describe() if estimate else ''}"
        )
    if args.real:
        game = args.real[0]
        seats = min(args.real_seats, get_game(game).max_seats)
        same = NoisyPolicy(game, args.eps)
        test, seconds = real_test(game, seats, same, same, args)
        print(
            f"real: {game} {seats} seats, eps {args.eps} against itself: {test.verdict.value} "
            f"after {test.blocks} blocks ({seconds:.1f}s)"
        )
    print()
    fpr = max(r.h0.h1_rate for r in rows)
    power = min(r.h1.h1_rate for r in rows)
    length = max(max(r.h0.mean_blocks, r.h1.mean_blocks) / r.fixed for r in rows)
    ratios = [gain(pool) for r in rows for _, pool in r.pools]
    print(
        f"summary: worst false-positive rate {100 * fpr:.2f}% (goal {100 * args.alpha:g} +- 1.5), "
        f"lowest power {100 * power:.2f}% (goal >= {100 * (1 - args.beta) - 1.5:g}), longest mean "
        f"test {length:.3f}x the fixed size (goal <= 0.6), variance per match unpaired/paired "
        f"{min(ratios):.2f}x to {max(ratios):.2f}x; simulations {sims:.0f}s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
