"""The reference bot in Ten against the bundled bots: win rates with 95% intervals, and its time
per decision.

Ten, 3 seats, default options: the reference bot (bots/reference, a real process through the
arena's match loop and bot pool) against 2 bundled heuristics and against 2 random bots, its
seat rotated game by game; the heuristic against 2 heuristics for comparison (parity is 33%).
Target (issue 17): >= 55% wins against 2 heuristics, within 1 s per decision.

A win is place 1 (a shared first place counts as a win). The interval is Wilson's
(``bench_reference.wilson``). The time per decision is the arena's own measure (from sending
``act`` to the answer, the pipe included), over every decision of the hero's seat: median and
95th percentile. ``--decision`` sets the arena's time per decision (the bot searches within a
share of it: a shorter one makes it search less).

Run: python -m benchmarks.bench_reference_ten [--games 150] [--random-games 50] [--parity-games N]
[--decision 1.0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.match import MatchSpec  # noqa: E402
from arena.runtime.botproc import RunLimits, TimeLimits  # noqa: E402
from arena.runtime.manifest import BotSpec, load_bot  # noqa: E402
from arena.runtime.pool import BotPool  # noqa: E402
from benchmarks.bench_reference import percentile, run_match_timed, wilson  # noqa: E402

SEATS = 3


def play(
    hero: BotSpec, opponent: BotSpec, games: int, tag: str, limits: RunLimits
) -> tuple[int, list[float], float]:
    """(wins, the hero's seconds per decision, wall seconds) over ``games`` Ten games."""
    wins = 0
    times: list[float] = []
    began = time.perf_counter()
    with BotPool(limits) as pool:
        for k in range(games):
            seat = k % SEATS
            seating = [opponent] * (SEATS - 1)
            seating.insert(seat, hero)
            spec = MatchSpec(f"{tag}-{k}", "ten", 2000 + k, tuple(seating))
            record, seat_times = run_match_timed(spec, pool)
            if record.faults:
                print(f"  game {k}: faults {record.faults}", file=sys.stderr)
            wins += record.ranks[seat] == 1
            times += seat_times[seat]
    return wins, times, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=150, help="games against 2 heuristics")
    parser.add_argument("--random-games", type=int, default=50, help="games against 2 random")
    parser.add_argument(
        "--parity-games", type=int, default=None, help="heuristic vs 2 heuristics (--games)"
    )
    parser.add_argument("--decision", type=float, default=1.0, help="seconds per decision")
    parser.add_argument("--bank", type=float, default=10.0, help="seconds of bank per match")
    args = parser.parse_args()
    limits = RunLimits(time=TimeLimits(decision=args.decision, bank=args.bank))
    reference = load_bot(str(ROOT / "bots" / "reference"))
    heuristic = load_bot(str(ROOT / "bots" / "heuristic"))
    random_bot = load_bot(str(ROOT / "bots" / "random"))
    settings = (
        (reference, heuristic, args.games, "55%"),
        (reference, random_bot, args.random_games, "-"),
        (
            heuristic,
            heuristic,
            args.games if args.parity_games is None else args.parity_games,
            "33%",
        ),
    )
    for hero, opponent, games, target in settings:
        if not games:
            continue
        wins, times, wall = play(hero, opponent, games, f"{hero.name}-{opponent.name}", limits)
        low, high = wilson(wins, games)
        print(
            f"{hero.name:<10} vs 2 {opponent.name:<10} {wins:>4}/{games:<4} "
            f"{wins / games:6.1%}  [{low:.1%}, {high:.1%}]  target {target:>3}  "
            f"ms/decision median {statistics.median(times) * 1e3:6.1f}  "
            f"p95 {percentile(times, 0.95) * 1e3:6.1f}  ({wall:.0f} s)",
            flush=True,
        )
    print()
    print(
        f"Ten, 3 seats, default options, seats rotated; win = place 1; 95% Wilson intervals; "
        f"{args.decision:g} s per decision, {args.bank:g} s bank."
    )
    print("Decision time: the arena's measure per decision of the hero's seat (pipe included).")


if __name__ == "__main__":
    main()
