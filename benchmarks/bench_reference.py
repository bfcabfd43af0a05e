"""The reference bot against the bundled bots: win rates with 95% intervals, and its time per
decision.

Take 5, 4 seats, the full game to 66: the reference bot (bots/reference, a real process through
the arena's match loop and bot pool, default time limits) against 3 random bots and against 3
bundled heuristics, its seat rotated game by game. Targets (issue 17): >= 95% wins against 3
random, >= 50% against 3 heuristics (25% is parity), at <= 30 ms per decision on 2 cores.

A win is place 1 (a shared first place counts). The interval is Wilson's. The time per decision
is the arena's own measure (from sending ``act`` to the answer, the pipe included), as the
match records it: medians and 95th percentiles over every decision of the reference seat. The
heuristic for comparison is measured the same way, as its own seat.

Run: python -m benchmarks.bench_reference [--games 100] [--worlds N]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per setting")
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
        wins, times, wall = play(hero, opponent, args.games, f"{hero.name}-{opponent.name}")
        low, high = wilson(wins, args.games)
        rows.append(
            f"{hero.name:<10} vs 3 {opponent.name:<10} {wins:>4}/{args.games:<4} "
            f"{wins / args.games:6.1%}  [{low:.1%}, {high:.1%}]  target {target:.0%}  "
            f"ms/decision median {statistics.median(times) * 1e3:6.1f}  "
            f"p95 {percentile(times, 0.95) * 1e3:6.1f}  ({wall:.0f} s)"
        )
        print(rows[-1], flush=True)
    print()
    print("Take 5, 4 seats, to 66, seats rotated; win = place 1; 95% Wilson intervals.")
    print("Decision time: the arena's measure per decision of the hero's seat (pipe included).")


if __name__ == "__main__":
    main()
