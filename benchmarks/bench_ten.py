"""Ten: games per second with in-process random players, by seat count.

Run from the repository root: ``python -m benchmarks.bench_ten [--games N] [--runs R]``. Each
figure is the median of R runs of N games, through the public interface (``play_local``).
"""

from __future__ import annotations

import argparse
import statistics
import time

from arena.games import get_game
from arena.players import RandomPlayer, play_local


def games_per_second(seats: int, games: int, first_seed: int) -> tuple[float, float]:
    """(games per second, decisions per second) over ``games`` games from ``first_seed``."""
    spec = get_game("ten")
    decisions = 0
    start = time.perf_counter()
    for seed in range(first_seed, first_seed + games):
        players = [RandomPlayer(f"{seed}:{s}") for s in range(seats)]
        decisions += len(play_local(spec, seed, players).replay.actions)
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100, help="games per run")
    parser.add_argument("--runs", type=int, default=5, help="runs per seat count (median shown)")
    args = parser.parse_args()
    print(f"Ten, random players, median of {args.runs} runs of {args.games} games")
    print(f"{'seats':>5}  {'games/s':>9}  {'decisions/s':>12}")
    for seats in range(1, 6):
        runs = [games_per_second(seats, args.games, k * args.games) for k in range(args.runs)]
        games = statistics.median(r[0] for r in runs)
        decisions = statistics.median(r[1] for r in runs)
        print(f"{seats:>5}  {games:>9.1f}  {decisions:>12.0f}")


if __name__ == "__main__":
    main()
