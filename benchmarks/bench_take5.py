"""Take 5 engine speed: complete games per second with in-process random players.

Goes through the public interface (GameSpec.new, to_move, legal, apply, is_over) via
arena.players.play_local, one core. Prints the median over several runs per seat count, by wall
clock and by CPU time of this process (the latter is steadier on a shared machine).

    python -m benchmarks.bench_take5 [--runs 7] [--seconds 1.0]
"""

from __future__ import annotations

import argparse
import statistics
import time

from arena.games import get_game
from arena.players import RandomPlayer, play_local


def games_per_second(seats: int, seconds: float, first_seed: int) -> tuple[float, float, float]:
    """(games/s wall, games/s CPU, mean rounds) over at least ``seconds`` of play."""
    spec = get_game("take5")
    games = rounds = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall0 < seconds:
        seed = first_seed + games
        players = [RandomPlayer(seed * 16 + s) for s in range(seats)]
        state = play_local(spec, seed, players).state
        rounds += state.result().details["rounds"]
        games += 1
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return games / wall, games / cpu, rounds / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--seats", type=int, nargs="*", default=[2, 3, 4, 5, 6, 8, 10])
    args = parser.parse_args()
    print(f"Take 5, random players, median of {args.runs} runs of {args.seconds:.1f} s")
    print(f"{'seats':>5}  {'games/s (wall)':>14}  {'games/s (CPU)':>13}  {'rounds/game':>11}")
    for seats in args.seats:
        runs = [games_per_second(seats, args.seconds, 1000 * r) for r in range(args.runs)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        rounds = statistics.mean(r[2] for r in runs)
        print(f"{seats:>5}  {wall:>14.0f}  {cpu:>13.0f}  {rounds:>11.2f}")


if __name__ == "__main__":
    main()
