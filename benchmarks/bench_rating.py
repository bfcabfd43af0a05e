"""Rating speed: the ``trueskill`` library vs arena.league.ffa, and the parent's CPU per match.

Part 1, per table size (2, 4, 6, 10 players): the median microseconds per free-for-all update
through ``trueskill.TrueSkill.rate`` (Rating objects in and out, as rating.py did before ffa)
and through :func:`arena.league.ffa.rate` (floats in and out), on the same tables (random
ratings, some ties) under the league's environment, with the ratio; both results are checked
equal first.

Part 2: a Take 5 league of in-process bots (builtin:random and builtin:first, four entrants) on
2 workers, played to ``--matches``, once rating through the library and once through ffa. The
parent's CPU per match is ``resource.getrusage(RUSAGE_SELF)`` (user + system, every thread of the
parent; the workers are child processes, not counted) around ``run_league``; the rating's share
is the main thread's CPU time (``time.thread_time``) inside ``LeagueRatings.rate_table``. Issue 15
asks for at most 0.1 ms per match.

``--chunk N`` plays the league in chunks of N matches (default: the league's, ``schedule.chunk``):
the parent's costs per chunk (the executor's round trip, the commit) are shared by N matches.

    python -m benchmarks.bench_rating [--calls 2000] [--repeats 7] [--matches 2000] [--chunk N]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import trueskill

from arena import native
from arena.games.base import competition_ranks
from arena.league import ffa, rating
from arena.league.config import Schedule, default_config
from arena.league.core import League
from arena.league.store import Outcome
from arena.run.local import run_league

SIZES = (2, 4, 6, 10)
Table = tuple[list[tuple[float, float]], list[int]]


def tables(players: int, count: int, seed: int) -> list[Table]:
    """``count`` tables of ``players``: league-like ratings, places 1..n with some ties."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        ratings = [(rng.uniform(10.0, 40.0), rng.uniform(0.8, 25.0 / 3)) for _ in range(players)]
        places = [rng.randint(1, players) for _ in range(players)]
        out.append((ratings, [r - 1 for r in competition_ranks(places)]))
    return out


def by_library(env: trueskill.TrueSkill, table: Table) -> list[tuple[float, float]]:
    """rating.py's call before ffa: Rating objects in, ``env.rate``, floats out."""
    ratings, ranks = table
    groups = [(env.create_rating(mu, sigma),) for mu, sigma in ratings]
    return [(float(r.mu), float(r.sigma)) for (r,) in env.rate(groups, ranks=ranks)]


def by_ffa(env: trueskill.TrueSkill, table: Table) -> list[tuple[float, float]]:
    return ffa.rate(env, *table)


def median_us(
    rate: Callable[[trueskill.TrueSkill, Table], object],
    env: trueskill.TrueSkill,
    work: Sequence[Table],
    repeats: int,
) -> float:
    """The median over ``repeats`` passes of the mean microseconds per call over ``work``."""
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        for table in work:
            rate(env, table)
        times.append((time.perf_counter() - began) / len(work) * 1e6)
    return statistics.median(times)


def bench_updates(calls: int, repeats: int) -> dict[int, float]:
    """Prints the table; returns the ratio library / ffa per table size."""
    env = rating_env()
    ratios = {}
    print(f"{'players':>7} {'library us':>11} {'ffa us':>8} {'ratio':>6}")
    for n in SIZES:
        work = tables(n, calls, seed=n)
        assert all(by_ffa(env, t) == by_library(env, t) for t in work[:200])
        slow = median_us(by_library, env, work[: max(50, calls // 10)], repeats)
        fast = median_us(by_ffa, env, work, repeats)
        ratios[n] = slow / fast
        print(f"{n:>7} {slow:>11.1f} {fast:>8.1f} {ratios[n]:>6.1f}", flush=True)
    return ratios


def rating_env() -> trueskill.TrueSkill:
    return default_config().rating.environment()


@dataclass
class RatingClock:
    """CPU seconds of the calling thread spent in ``LeagueRatings.rate_table``."""

    seconds: float = 0.0


@contextmanager
def instrumented(use_ffa: bool) -> Iterator[RatingClock]:
    """rate_table timed, and rating through ffa (or through the library, as before ffa)."""
    clock = RatingClock()
    original = rating.LeagueRatings.rate_table
    fast = ffa.rate

    def timed(self: rating.LeagueRatings, game: str, outcomes: Sequence[Outcome]) -> None:
        began = time.thread_time()
        original(self, game, outcomes)
        clock.seconds += time.thread_time() - began

    def library(
        env: trueskill.TrueSkill,
        ratings: Sequence[tuple[float, float]],
        ranks: Sequence[int],
        min_delta: float = ffa.DELTA,
    ) -> list[tuple[float, float]]:
        return by_library(env, (list(ratings), list(ranks)))

    rating.LeagueRatings.rate_table = timed  # type: ignore[method-assign]
    if not use_ffa:
        ffa.rate = library
    try:
        yield clock
    finally:
        rating.LeagueRatings.rate_table = original  # type: ignore[method-assign]
        ffa.rate = fast


def parent_cpu(
    matches: int, chunk: int | None, use_ffa: bool, folder: Path
) -> tuple[int, float, float]:
    """(matches played, parent CPU ms per match, rating CPU ms per match) of one league."""
    config = default_config(seed=5)
    config = replace(
        config,
        games=tuple(g for g in config.games if g.name == "take5"),
        schedule=replace(Schedule(), max_matches=matches, chunk=chunk or Schedule().chunk),
    )
    League.init(folder, config)
    with League.open(folder) as lg:
        for i, bot in enumerate(["builtin:random", "builtin:first"] * 2):
            lg.submit(bot, name=f"{bot.removeprefix('builtin:')}{i}", check=False)
        with instrumented(use_ffa) as clock:
            before = resource.getrusage(resource.RUSAGE_SELF)
            report = run_league(lg, 2, progress=None)
            after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    played = max(report.played, 1)
    return report.played, cpu / played * 1e3, clock.seconds / played * 1e3


def bench_parent(matches: int, chunk: int | None) -> tuple[float, float]:
    """Prints the table; returns the parent's and the rating's ms per match with ffa."""
    print(
        f"\nparent CPU per match, Take 5 league of in-process bots, 2 workers, {matches} "
        f"matches in chunks of {chunk or Schedule().chunk}"
    )
    print(f"{'rating by':>9} {'matches':>8} {'parent ms':>10} {'rating ms':>10} {'share':>6}")
    with tempfile.TemporaryDirectory(prefix="bench-rating-") as tmp:
        for use_ffa in (False, True):
            name = "ffa" if use_ffa else "library"
            played, parent, rated = parent_cpu(matches, chunk, use_ffa, Path(tmp) / name)
            print(
                f"{name:>9} {played:>8} {parent:>10.3f} {rated:>10.3f} {rated / parent:>6.0%}",
                flush=True,
            )
    print("target (issue 15): parent ms per match <= 0.1")
    return parent, rated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="ffa calls per pass and size")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--matches", type=int, default=2000, help="0: skip the league part")
    parser.add_argument("--chunk", type=int, default=None, help="matches per chunk")
    args = parser.parse_args()
    print(native.describe())
    compiled = getattr(ffa, "__file__", "").endswith((".so", ".pyd"))
    print(f"arena.league.ffa: {'compiled' if compiled else 'pure Python'}")
    ratios = bench_updates(args.calls, args.repeats)
    summary = f"summary: ffa {ratios[4]:.1f}x the library's speed for 4 players"
    if args.matches:
        parent, rated = bench_parent(args.matches, args.chunk)
        summary += f"; parent CPU per match {parent:.3f} ms, rating {rated:.3f} ms of it"
    print(summary)


if __name__ == "__main__":
    main()
