"""Games until the ranking is right: duplicate sets + adaptive scheduling vs uniform.

Six in-process Take 5 players of known strength -- the heuristic policy (bots/heuristic/take5.py)
playing a uniformly random card with probability 0, 0.2, ..., 1.0 -- play simulated leagues
through the league's own scheduler (``plan_batch``, batch k planned from the ratings after batch
k - 2) and rating (``LeagueRatings``), without processes or a store. After every batch the
ranking by conservative rating is compared with the true order; a league's figure is the number
of matches after which the ranking is right and stays right to the end of the budget (the
budget itself if it never settles). Medians and means over several league seeds.

    python -m benchmarks.bench_adaptive [--leagues 10] [--budget 1200] [--seats 4]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.games import Action, State, get_game
from arena.league.config import GameConfig, LeagueConfig, Schedule
from arena.league.rating import LeagueRatings
from arena.league.schedule import plan_batch
from arena.league.store import Outcome
from arena.players import play_local

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bots" / "heuristic"))
import take5 as policy  # type: ignore[import-not-found]  # the bundled bot's policy

NOISE = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
"""Entrant i plays at random with probability NOISE[i - 1]; so 1 is best, 6 worst."""


class NoisyHeuristic:
    def __init__(self, noise: float, seed: str) -> None:
        self.name = f"noise-{noise}"
        self.noise = noise
        self.rng = random.Random(seed)

    def choose(self, state: State, seat: int, legal: list[Action]) -> Action:
        if self.rng.random() < self.noise:
            return legal[int(self.rng.random() * len(legal))]
        return legal[policy.choose(state.observation(seat), legal)]


def simulate(
    config: LeagueConfig, budget: int, by: str = "conservative", noise: tuple[float, ...] = NOISE
) -> tuple[int, bool]:
    """(matches until the ranking is right for good, whether it was right at the end)."""
    spec = get_game("take5")
    env = config.rating.environment()
    ratings = LeagueRatings(env)
    bots = list(range(1, len(noise) + 1))
    plans: dict[int, list[Any]] = {}
    played = 0
    settled_at: int | None = None
    batch = 0
    snapshots: dict[int, dict[str, dict[int, Any]]] = {-1: {}}
    while played < budget:
        basis = batch - 2
        view = snapshots.get(basis) if basis >= 0 else None
        _, matches = plan_batch(config, batch, {"take5": bots}, view, env)
        plans[batch] = matches
        outcomes = []
        for m in matches:
            players = [
                NoisyHeuristic(noise[b - 1], f"{m.match_id}:{s}") for s, b in enumerate(m.bots)
            ]
            result = play_local(spec, m.seed, players, m.options).state.result()
            outcomes.append(
                Outcome(
                    m.match_id,
                    batch,
                    m.ordinal,
                    "take5",
                    m.tab,
                    m.bots,
                    result.ranks,
                    result.scores,
                    0,
                )
            )
        ratings.rate_batch(outcomes)
        snapshots[batch] = {g: dict(r) for g, r in ratings.ratings.items()}
        played += len(matches)
        standings = ratings.standings("take5")
        if by == "mu":
            standings = sorted(standings, key=lambda s: (-s.mu, s.bot))
        order = [s.bot for s in standings]
        right = order == bots
        if right and settled_at is None:
            settled_at = played
        elif not right:
            settled_at = None
        batch += 1
    return (settled_at if settled_at is not None else played), settled_at is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leagues", type=int, default=10)
    parser.add_argument("--budget", type=int, default=1200)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--batch", type=int, default=8, help="min_batch_matches")
    parser.add_argument(
        "--by",
        choices=["conservative", "mu"],
        default="conservative",
        help="rank by the conservative rating (as the league does) or by mu",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=len(NOISE),
        help="how many players, noise spread evenly over 0..0.5 (default: the six above)",
    )
    parser.add_argument("--modes", nargs="*", default=None, help="which modes (default all)")
    args = parser.parse_args()
    noise = (
        NOISE
        if args.players == len(NOISE)
        else tuple(round(0.5 * i / (args.players - 1), 3) for i in range(args.players))
    )
    base = LeagueConfig(
        games=(GameConfig("take5", (args.seats,), get_game("take5").validate_options()),),
        schedule=Schedule(min_batch_matches=args.batch, warmup_batches=2),
    )
    modes = {
        "uniform (single matches)": dict(duplicate=False, adaptive=False),
        "duplicate sets only": dict(duplicate=True, adaptive=False),
        "adaptive only": dict(duplicate=False, adaptive=True),
        "duplicate + adaptive": dict(duplicate=True, adaptive=True),
    }
    print(
        f"{len(noise)} players, noise {noise}, {args.seats} seats, budget {args.budget} "
        f"matches, {args.leagues} leagues per mode, ranked by {args.by}"
    )
    results: dict[str, list[int]] = {}
    for name, overrides in modes.items():
        if args.modes and not any(m in name for m in args.modes):
            continue
        began = time.perf_counter()
        needed = []
        settled = 0
        for seed in range(args.leagues):
            config = replace(base, seed=seed, schedule=replace(base.schedule, **overrides))
            n, ok = simulate(config, args.budget, args.by, noise)
            needed.append(n)
            settled += ok
        results[name] = needed
        print(
            f"{name:<26} matches until right: median {statistics.median(needed):>6.0f}  "
            f"mean {statistics.mean(needed):>7.1f}  settled {settled}/{args.leagues}  "
            f"({time.perf_counter() - began:.0f}s)",
            flush=True,
        )
    if "uniform (single matches)" not in results or "duplicate + adaptive" not in results:
        return
    base_median = statistics.median(results["uniform (single matches)"])
    best = statistics.median(results["duplicate + adaptive"])
    print(f"duplicate + adaptive / uniform (medians): {best / base_median:.2f} (target <= 0.5)")


if __name__ == "__main__":
    main()
