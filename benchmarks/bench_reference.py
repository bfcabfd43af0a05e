"""The reference bot against the bundled bots: win rates with 95% intervals, and its time per
decision.

Take 5, 4 seats, the full game to 66: the reference bot (bots/reference, a real process through
the arena's match loop and bot pool, default time limits) against 3 random bots and against 3
bundled heuristics, its seat rotated game by game. Targets (issue 17): >= 95% wins against 3
random, >= 50% against 3 heuristics (25% is parity), at <= 30 ms per decision on 2 cores.

A win is place 1 (a shared first place counts). The interval is Wilson's. The time per decision
is the arena's own measure (from sending ``act`` to the answer, the pipe included), as the
match records it: medians and 95th percentiles over every decision of the reference seat. The
heuristic for comparison is measured the same way, as its own seat. The search's own CPU time
per decision (what the 30 ms target is about, apart from the pipe and the machine's load) is
taken in-process over a few more games per opponent (``--cpu-games``): the bot's Take 5 search
called directly, ``time.process_time`` around each decision, mean and 95th percentile.

Two versions of the search are best compared on the same games, in-process and paired:
``benchmarks/eval_reference_take5.py`` (and benchmarks/REPORT-reference-take5.md for the last
figures and their commands).

Run: python -m benchmarks.bench_reference [--games 200] [--random-games 300] [--cpu-games 20]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.match import MatchRecord, MatchSpec, Table  # noqa: E402
from arena.runtime.manifest import BotSpec, load_bot  # noqa: E402
from arena.runtime.pool import BotPool  # noqa: E402

SEATS = 4
Z95 = 1.96


def wilson(wins: int, games: int) -> tuple[float, float]:
    """The 95% Wilson interval of a win rate."""
    if not games:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + Z95**2 / games
    centre = (p + Z95**2 / (2 * games)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / games + Z95**2 / (4 * games**2)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else math.nan


def run_match_timed(spec: MatchSpec, pool: BotPool) -> tuple[MatchRecord, list[list[float]]]:
    """``arena.match.run_match``, line for line, keeping each seat's time per decision (the
    record keeps only their count, total and maximum)."""
    began = time.monotonic()
    table = Table(spec, pool)
    table.start()
    while not table.state.is_over():
        table.decide()
    return table.finish(began), [list(seat.times) for seat in table.seats]


def play(hero: BotSpec, opponent: BotSpec, games: int, tag: str) -> tuple[int, list[float], float]:
    """(wins, the hero's seconds per decision, wall seconds) over ``games`` Take 5 games."""
    wins = 0
    times: list[float] = []
    began = time.perf_counter()
    with BotPool() as pool:
        for k in range(games):
            seat = k % SEATS
            seating = [opponent] * (SEATS - 1)
            seating.insert(seat, hero)
            spec = MatchSpec(f"{tag}-{k}", "take5", 1000 + k, tuple(seating))
            record, seat_times = run_match_timed(spec, pool)
            if record.faults:
                print(f"  game {k}: faults {record.faults}", file=sys.stderr)
            wins += record.ranks[seat] == 1
            times += seat_times[seat]
    return wins, times, time.perf_counter() - began


def cpu_per_decision(opponent: str, games: int) -> tuple[list[float], int]:
    """The reference search's CPU seconds per decision, in-process, over ``games`` Take 5 games
    against 3 ``opponent`` players (``random`` or ``heuristic``), its seat rotated; and its
    wins there (the games of :func:`benchmarks.eval_reference_take5.play`)."""
    from benchmarks.eval_reference_take5 import play  # it imports this module's helpers

    results = play(ROOT / "bots" / "reference" / "take5", opponent, 0, games)
    times = [t for r in results for t in r["times"]]  # type: ignore[attr-defined]
    return times, sum(bool(r["won"]) for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per setting")
    parser.add_argument(
        "--random-games",
        type=int,
        default=None,
        help="games against 3 random (default: --games; the 95%% target wants >= 300)",
    )
    parser.add_argument(
        "--cpu-games", type=int, default=20, help="in-process games per opponent for CPU time"
    )
    args = parser.parse_args()
    reference = load_bot(str(ROOT / "bots" / "reference"))
    heuristic = load_bot(str(ROOT / "bots" / "heuristic"))
    random_bot = load_bot(str(ROOT / "bots" / "random"))
    rows = []
    for hero, opponent, target in (
        (reference, random_bot, 0.95),
        (reference, heuristic, 0.50),
        (heuristic, heuristic, 0.25),
    ):
        games = args.random_games if opponent is random_bot and args.random_games else args.games
        wins, times, wall = play(hero, opponent, games, f"{hero.name}-{opponent.name}")
        low, high = wilson(wins, games)
        rows.append(
            f"{hero.name:<10} vs 3 {opponent.name:<10} {wins:>4}/{games:<4} "
            f"{wins / games:6.1%}  [{low:.1%}, {high:.1%}]  target {target:.0%}  "
            f"ms/decision median {statistics.median(times) * 1e3:6.1f}  "
            f"p95 {percentile(times, 0.95) * 1e3:6.1f}  ({wall:.0f} s)"
        )
        print(rows[-1], flush=True)
    for kind in ("random", "heuristic") if args.cpu_games else ():
        cpu, won = cpu_per_decision(kind, args.cpu_games)
        rows.append(
            f"reference  vs 3 {kind:<10} in-process CPU ms/decision "
            f"mean {statistics.mean(cpu) * 1e3:5.1f}  p95 {percentile(cpu, 0.95) * 1e3:5.1f}  "
            f"over {len(cpu)} decisions ({won}/{args.cpu_games} won)"
        )
        print(rows[-1], flush=True)
    print()
    print("Take 5, 4 seats, to 66, seats rotated; win = place 1; 95% Wilson intervals.")
    print("Decision time: the arena's measure per decision of the hero's seat (pipe included).")


if __name__ == "__main__":
    main()
