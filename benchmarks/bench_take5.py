"""Take 5 engine speed: complete games per second with in-process random players.

Goes through the public interface (GameSpec.new, to_move, legal, apply, is_over) via
arena.players.play_local, one core. Prints the median over several runs per seat count, by wall
clock and by CPU time of this process (the latter is steadier on a shared machine), and beside it
the reference: a plain standalone loop of the same rules with no interface, no validation and no
event log (the "plain standalone loop" of ../shared/MEASUREMENTS.md), measured in the same run.

    python -m benchmarks.bench_take5 [--runs 7] [--seconds 1.0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from arena.games import get_game
from arena.games.take5 import bull_heads
from arena.players import RandomPlayer, play_local


def games_per_second(seats: int, seconds: float, first_seed: int) -> tuple[float, float, float]:
    """(games/s wall, games/s CPU, mean rounds) over at least ``seconds`` of play."""
    spec = get_game("take5")
    games = rounds = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    players = [RandomPlayer(first_seed * 16 + s) for s in range(seats)]  # kept, as a league does
    while time.perf_counter() - wall0 < seconds:
        state = play_local(spec, first_seed + games, players).state
        rounds += state.result().details["rounds"]
        games += 1
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return games / wall, games / cpu, rounds / games


HEADS = [0] + [bull_heads(c) for c in range(1, 105)]


def plain_game(seed: int, seats: int) -> list[int]:
    """Take 5 to 66 with random players as one bare function: the reference loop."""
    rng = random.Random(seed)
    rand = rng.random
    deck = list(range(1, 105))
    totals = [0] * seats
    while max(totals) < 66:
        cards = rng.sample(deck, 10 * seats + 4)
        hands = [cards[i * 10 : (i + 1) * 10] for i in range(seats)]
        rows = [[c] for c in cards[10 * seats :]]
        for _trick in range(10):
            played = sorted((h.pop(int(rand() * len(h))), s) for s, h in enumerate(hands))
            for card, seat in played:
                best, best_end = -1, 0
                for i in range(4):
                    end = rows[i][-1]
                    if best_end < end < card:
                        best, best_end = i, end
                if best < 0:
                    best = int(rand() * 4)
                    totals[seat] += sum(HEADS[c] for c in rows[best])
                    rows[best] = [card]
                elif len(rows[best]) == 5:
                    totals[seat] += sum(HEADS[c] for c in rows[best])
                    rows[best] = [card]
                else:
                    rows[best].append(card)
    return totals


def plain_games_per_second(seats: int, seconds: float, first_seed: int) -> float:
    games = 0
    cpu0 = time.process_time()
    while time.process_time() - cpu0 < seconds:
        plain_game(first_seed + games, seats)
        games += 1
    return games / (time.process_time() - cpu0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--seats", type=int, nargs="*", default=[2, 3, 4, 5, 6, 8, 10])
    args = parser.parse_args()
    print(f"Take 5, random players, median of {args.runs} runs of {args.seconds:.1f} s")
    print(
        f"{'seats':>5}  {'games/s (wall)':>14}  {'games/s (CPU)':>13}  {'rounds/game':>11}"
        f"  {'plain loop (CPU)':>16}  {'ratio':>5}"
    )
    for seats in args.seats:
        runs, plain = [], []
        for r in range(args.runs):  # interleaved, so both see the same machine
            runs.append(games_per_second(seats, args.seconds, 1000 * r))
            plain.append(plain_games_per_second(seats, args.seconds, 1000 * r))
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        rounds = statistics.mean(r[2] for r in runs)
        ref = statistics.median(plain)
        print(
            f"{seats:>5}  {wall:>14.0f}  {cpu:>13.0f}  {rounds:>11.2f}  {ref:>16.0f}"
            f"  {cpu / ref:>5.2f}"
        )


if __name__ == "__main__":
    main()
