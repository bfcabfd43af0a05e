"""Take 5: instructions per complete game, counted by valgrind (callgrind), not timed.

This machine's clock speed drifts by up to 2x within minutes, so games per second move with it;
instruction counts do not. Counts, per 4-seat game with random players, (a) through the public
interface with the rules compiled (if they are), (b) the same with the pure-Python sources
(``ARENA_PURE_PYTHON=1``), and (c) the bare loop of bench_take5 (no interface). Each figure is
(count for N games - count for 0 games) / N, so start-up and imports cancel out.

    python -m benchmarks.count_take5 [--games 200] [--seats 4]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from arena import native

ROOT = Path(__file__).resolve().parents[1]

INTERFACE = """
import sys
from arena.games import get_game
from arena.players import RandomPlayer, play_local
seats, games = int(sys.argv[1]), int(sys.argv[2])
players = [RandomPlayer(s) for s in range(seats)]
for seed in range(games):
    play_local(get_game("take5"), seed, players)
"""

BARE = """
import sys
from benchmarks.bench_take5 import plain_game
seats, games = int(sys.argv[1]), int(sys.argv[2])
for seed in range(games):
    plain_game(seed, seats)
"""


def instructions(code: str, seats: int, games: int, pure: bool) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(native.PURE_ENV, None)
    if pure:
        env[native.PURE_ENV] = "1"
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = subprocess.run(
        [*valgrind, sys.executable, "-c", code, str(seats), str(games)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    assert found, done.stderr[-2000:]
    return int(found[1])


def per_game(code: str, seats: int, games: int, pure: bool = False) -> float:
    return (instructions(code, seats, games, pure) - instructions(code, seats, 0, pure)) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("needs valgrind (apt-get install valgrind)")
    print(f"Take 5, {args.seats} seats, random players, {args.games} games; {native.describe()}")
    interface = per_game(INTERFACE, args.seats, args.games)
    bare = per_game(BARE, args.seats, args.games)
    print(f"{'interface, this build':<32} {interface / 1e6:8.3f} M instructions per game")
    if native.native():
        pure = per_game(INTERFACE, args.seats, args.games, pure=True)
        print(f"{'interface, pure Python':<32} {pure / 1e6:8.3f} M instructions per game")
        print(f"{'pure / compiled':<32} {pure / interface:8.2f}")
    print(f"{'bare loop (no interface)':<32} {bare / 1e6:8.3f} M instructions per game")
    print(f"{'interface / bare loop':<32} {interface / bare:8.2f}")


if __name__ == "__main__":
    main()
