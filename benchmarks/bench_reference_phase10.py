"""The reference bot in Phase 10 against the bundled bots: win rates with 95% intervals, and its
time per decision.

Phase 10, 3 seats, default options: the reference bot (bots/reference, a real process through
the arena's match loop and bot pool) against 2 bundled heuristics and against 2 random bots, its
seat rotated game by game; the heuristic against 2 heuristics for comparison (parity). Target
(issue 17): >= 55% wins against 2 heuristics (33% is parity), within 1 s per decision.

A win is place 1 (a shared first place counts). The interval is Wilson's. The time per decision
is the arena's own measure (from sending ``act`` to the answer, the pipe included), as the match
records it: medians and 95th percentiles over every decision of the hero's seat, trivial ones
(a single legal action, a lay-down's steps) included. ``--decision-ms`` sets the arena's free
time per decision (the bot's search reads it and stays well inside).

``--policy-games N`` also plays N games in-process (no processes, no clock) with the search
switched off (no worlds), the bot's own playout policy alone against 2 heuristics on the same
seeds and seats: what the search has to improve on (the last measure, 3,000 games: 49.0%
[47.2, 50.8], up from 48.1% [46.3, 49.9] before Deny once down, paired +0.93 points ± 0.75;
48.1% was up from 45.8% [44.1, 47.6] before the policy held back cards the next seat is known
to collect and aimed its Skips at the game's leader too, paired difference +2.3 points ± 1.6;
45.8% was up from 44.1% [42.3, 45.8], +1.8 ± 1.2). Figures and commands:
benchmarks/REPORT-reference-phase10.md.

Run: python -m benchmarks.bench_reference_phase10 [--games 150] [--random-games 50]
     [--decision-ms 250] [--first 0] [--policy-games 0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.games import get_game  # noqa: E402
from arena.match import MatchSpec  # noqa: E402
from arena.runtime.botproc import RunLimits, TimeLimits  # noqa: E402
from arena.runtime.manifest import BotSpec, load_bot  # noqa: E402
from arena.runtime.pool import BotPool  # noqa: E402
from benchmarks.bench_reference import (  # noqa: E402
    percentile,
    run_match_timed,
    wilson,
)
from benchmarks.sources import load_source  # noqa: E402

GAME = "phase10"
SEATS = 3


def play(
    hero: BotSpec, opponent: BotSpec, games: int, tag: str, limits: RunLimits, first: int = 0
) -> tuple[int, list[float], float, int]:
    """(wins, the hero's seconds per decision, wall seconds, games with faults) over ``games``
    Phase 10 games."""
    wins = faulty = 0
    times: list[float] = []
    began = time.perf_counter()
    with BotPool(limits) as pool:
        for k in range(first, first + games):
            seat = k % SEATS
            seating = [opponent] * (SEATS - 1)
            seating.insert(seat, hero)
            spec = MatchSpec(f"{tag}-{k}", GAME, 2000 + k, tuple(seating))
            record, seat_times = run_match_timed(spec, pool)
            if record.faults:
                faulty += 1
                print(f"  game {k}: faults {record.faults}", file=sys.stderr)
            wins += record.ranks[seat] == 1
            times += seat_times[seat]
            if (k + 1 - first) % 10 == 0:
                print(
                    f"  {tag}: {wins}/{k + 1 - first} after {k + 1 - first} games",
                    file=sys.stderr,
                    flush=True,
                )
    return wins, times, time.perf_counter() - began, faulty


def policy_alone(games: int, first: int = 0) -> int:
    """The reference bot's wins with its search switched off (its playout policy alone: no
    worlds) over ``games`` in-process games against 2 heuristics, the seeds and seats as in
    :func:`play`."""
    search = load_source(ROOT / "bots" / "reference" / "phase10", "bench_reference_phase10")
    heuristic = load_source(ROOT / "bots" / "heuristic" / "phase10.py", "bench_heuristic_p10")
    told = {"decision_ms": 1000, "bank_ms": 0}
    wins = 0
    for k in range(first, first + games):
        seat = k % SEATS
        state = get_game(GAME).new(2000 + k, SEATS)
        options = dict(state.options)
        searcher = search.Searcher(f"policy-{k}", seat)
        while not state.is_over():
            mover = state.to_move()[0]
            legal = state.legal(mover)
            observation = state.observation(mover)
            if mover == seat:
                index = searcher.choose(observation, legal, options, told, worlds=0)
            else:
                index = heuristic.choose(observation, legal)
            state.apply(mover, legal[index])
        wins += state.result().ranks[seat] == 1
    return int(wins)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=150, help="games against 2 heuristics")
    parser.add_argument(
        "--random-games",
        type=int,
        default=50,
        help="games against 2 random bots (and of the heuristic against 2 heuristics)",
    )
    parser.add_argument("--decision-ms", type=float, default=250.0, help="free time per decision")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="the first game's number (its seed and seat follow from it): to split a long run "
        "into parts that together play the same games",
    )
    parser.add_argument(
        "--policy-games",
        type=int,
        default=0,
        help="in-process games of the bot's policy alone (no search) against 2 heuristics",
    )
    args = parser.parse_args()
    limits = RunLimits(time=TimeLimits(decision=args.decision_ms / 1000.0))
    reference = load_bot(str(ROOT / "bots" / "reference"))
    heuristic = load_bot(str(ROOT / "bots" / "heuristic"))
    random_bot = load_bot(str(ROOT / "bots" / "random"))
    for hero, opponent, games, target in (
        (reference, heuristic, args.games, "55%"),
        (reference, random_bot, args.random_games, "-"),
        (heuristic, heuristic, args.random_games, "parity 33%"),
    ):
        if not games:
            continue
        tag = f"{hero.name}-{opponent.name}"
        wins, times, wall, faulty = play(hero, opponent, games, tag, limits, args.first)
        low, high = wilson(wins, games)
        print(
            f"{hero.name:<10} vs 2 {opponent.name:<10} {wins:>4}/{games:<4} "
            f"{wins / games:6.1%}  [{low:.1%}, {high:.1%}]  target {target:<10}  "
            f"ms/decision median {statistics.median(times) * 1e3:6.1f}  "
            f"p95 {percentile(times, 0.95) * 1e3:6.1f}  max {max(times) * 1e3:6.1f}  "
            f"faulty games {faulty}  ({wall:.0f} s)",
            flush=True,
        )
    if args.policy_games:
        began = time.perf_counter()
        wins = policy_alone(args.policy_games, args.first)
        low, high = wilson(wins, args.policy_games)
        print(
            f"{'policy':<10} vs 2 {'heuristic':<10} {wins:>4}/{args.policy_games:<4} "
            f"{wins / args.policy_games:6.1%}  [{low:.1%}, {high:.1%}]  in-process, no search  "
            f"({time.perf_counter() - began:.0f} s)",
            flush=True,
        )
    print()
    print(
        f"Phase 10, 3 seats, default options, seats rotated; win = place 1; 95% Wilson "
        f"intervals; {args.decision_ms:.0f} ms free per decision."
    )
    print("Decision time: the arena's measure per decision of the hero's seat (pipe included).")


if __name__ == "__main__":
    main()
