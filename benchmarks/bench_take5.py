"""Take 5 engine speed: complete games per second with in-process random players.

Goes through the public interface (GameSpec.new, to_move, legal, apply, is_over) via
arena.players.play_local, one core, the players kept from game to game as a league keeps its bots.
Prints which build runs the rules (compiled with mypyc, or pure Python: see arena/native.py), and
per seat count the median over several runs, by wall clock and by CPU time of the measuring
process (the latter is steadier on a shared machine). Beside it, measured in the same run and
interleaved run by run (this machine's speed drifts by up to 2x within minutes, so only
side-by-side ratios are stable):

- the plain loop: the same rules as one bare pure-Python function, with no interface, no
  validation and no event log (the "plain standalone loop" of ../shared/MEASUREMENTS.md);
- with the compiled build, the same measurement in a child process running the pure-Python
  sources (ARENA_PURE_PYTHON=1).

Ratios are medians of the run-by-run ratios.

    python -m benchmarks.bench_take5 [--runs 7] [--seconds 0.5] [--seats 2 4 10] [--no-pure]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from arena import native
from arena.games import get_game
from arena.games.take5 import bull_heads
from arena.players import RandomPlayer, play_local

ROOT = Path(__file__).resolve().parents[1]


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


class PureChild:
    """The same measurement in a child process that runs the pure-Python rules."""

    def __init__(self) -> None:
        env = {**os.environ, native.PURE_ENV: "1", "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.bench_take5", "--serve"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdin and self.process.stdout
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        described = json.loads(self.stdout.readline())
        assert described.startswith("rules in pure Python"), described

    def games_per_second(self, seats: int, seconds: float, first_seed: int) -> float:
        self.stdin.write(json.dumps([seats, seconds, first_seed]) + "\n")
        self.stdin.flush()
        cpu: float = json.loads(self.stdout.readline())[1]
        return cpu

    def close(self) -> None:
        self.stdin.close()
        self.process.wait(timeout=30)


def serve() -> None:
    print(json.dumps(native.describe()), flush=True)
    for line in sys.stdin:
        seats, seconds, first_seed = json.loads(line)
        print(json.dumps(games_per_second(seats, seconds, first_seed)), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--seats", type=int, nargs="*", default=[2, 3, 4, 5, 6, 8, 10])
    parser.add_argument("--no-pure", action="store_true", help="skip the pure-Python child")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    child = PureChild() if native.native() and not args.no_pure else None
    print(f"Take 5, random players, {native.describe()}")
    print(f"median of {args.runs} interleaved runs of {args.seconds:.1f} s per figure")
    header = (
        f"{'seats':>5}  {'games/s (wall)':>14}  {'games/s (CPU)':>13}  {'rounds/game':>11}"
        f"  {'plain loop (CPU)':>16}  {'ratio':>5}"
    )
    if child:
        header += f"  {'pure Python (CPU)':>17}  {'compiled/pure':>13}"
    print(header)
    for seats in args.seats:
        runs, plain, pure = [], [], []
        for r in range(args.runs):  # interleaved, so each pair sees the same machine
            runs.append(games_per_second(seats, args.seconds, 1000 * r))
            plain.append(plain_games_per_second(seats, args.seconds, 1000 * r))
            if child:
                pure.append(child.games_per_second(seats, args.seconds, 1000 * r))
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        rounds = statistics.mean(r[2] for r in runs)
        ratio = statistics.median(r[1] / p for r, p in zip(runs, plain, strict=True))
        line = (
            f"{seats:>5}  {wall:>14.0f}  {cpu:>13.0f}  {rounds:>11.2f}"
            f"  {statistics.median(plain):>16.0f}  {ratio:>5.2f}"
        )
        if child:
            speedup = statistics.median(r[1] / p for r, p in zip(runs, pure, strict=True))
            line += f"  {statistics.median(pure):>17.0f}  {speedup:>13.2f}"
        print(line, flush=True)
    if child:
        child.close()


if __name__ == "__main__":
    main()
