"""League throughput: matches per second with 1 and 2 workers on the same league.

Each run builds a fresh league (same seed and config, so the same matches) of the bundled bots
-- bots/random, bots/heuristic, bots/js-random (if node is installed), builtin:random and
builtin:first -- over every game of the registry at four seats, and plays it to its budget
(``--bots builtin``: only the in-process built-ins, so that all the work is in the workers).
Runs with 1 and 2 workers alternate, so that both see the same machine load; the ratio of the
medians is the figure to read. Also prints how many bot processes each league started
(persistent bots: one per process bot per worker, plus restarts after faults).

    python -m benchmarks.bench_league [--matches 400] [--repeats 3] [--fresh]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import multiprocess

from arena.league.config import Schedule, config_text, default_config
from arena.league.core import League
from arena.run.local import run_league

ROOT = Path(__file__).resolve().parents[1]
BOTS = {
    "bundled": [
        "bots/random",
        "bots/heuristic",
        "bots/js-random",
        "builtin:random",
        "builtin:first",
    ],
    # In-process players only: all the work is in the worker, none in bot processes.
    "builtin": ["builtin:random", "builtin:first"],
}


def build(folder: Path, matches: int, fresh: bool, bots: str, games: list[str] | None) -> Path:
    config = default_config(seed=5)
    if games:
        config = replace(config, games=tuple(g for g in config.games if g.name in games))
    config = replace(
        config, schedule=replace(Schedule(), max_matches=matches, fresh_processes=fresh)
    )
    League.init(folder, config)
    assert config_text(config)
    with League.open(folder) as lg:
        for bot in BOTS[bots]:
            if bot == "bots/js-random" and shutil.which("node") is None:
                continue
            lg.submit(bot if bot.startswith("builtin:") else str(ROOT / bot), check=False)
    return folder


def burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def machine_speedup(n: int = 2_000_000, tasks: int = 8) -> float:
    """A control: the speed-up of 2 processes over 1 on pure CPU work, measured now.

    The machine is shared: when other jobs hold a core, no league can scale either, and the
    league's ratio is to be read against this one.
    """
    began = time.perf_counter()
    for _ in range(tasks):
        burn(n)
    serial = time.perf_counter() - began
    with multiprocess.get_context("fork").Pool(2) as pool:
        began = time.perf_counter()
        pool.map(burn, [n] * tasks, chunksize=1)
        parallel = time.perf_counter() - began
    return serial / parallel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fresh", action="store_true", help="fresh bot processes per match")
    parser.add_argument("--bots", choices=sorted(BOTS), default="bundled")
    parser.add_argument("--games", nargs="*", default=None, help="default: every game")
    args = parser.parse_args()
    rates: dict[int, list[float]] = {1: [], 2: []}
    started: dict[int, list[int]] = {1: [], 2: []}
    controls = []
    with tempfile.TemporaryDirectory(prefix="bench-league-") as tmp:
        for repeat in range(args.repeats):
            controls.append(machine_speedup())
            print(f"control: pure-CPU speed-up of 2 processes now: {controls[-1]:.2f}", flush=True)
            for workers in (1, 2):
                folder = build(
                    Path(tmp) / f"l{repeat}-{workers}",
                    args.matches,
                    args.fresh,
                    args.bots,
                    args.games,
                )
                with League.open(folder) as lg:
                    report = run_league(lg, workers, progress=None)
                rates[workers].append(report.rate)
                started[workers].append(report.processes_started)
                print(
                    f"workers {workers}: {report.played} matches in {report.seconds:.2f}s = "
                    f"{report.rate:.1f}/s, {report.processes_started} bot processes started",
                    flush=True,
                )
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    print(
        f"median matches/s: 1 worker {one:.1f}, 2 workers {two:.1f}; "
        f"ratio {two / one:.2f} (target >= 1.8)"
    )
    print(f"control (pure CPU, 2 processes vs 1), median: {statistics.median(controls):.2f}")
    print(f"bot processes started per league: 1 worker {started[1]}, 2 workers {started[2]}")


if __name__ == "__main__":
    main()
