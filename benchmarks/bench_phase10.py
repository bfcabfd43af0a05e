"""Phase 10 speed and legal-list sizes with in-process random players.

Run from the repository root: ``python benchmarks/bench_phase10.py [--games N] [--runs R]``.
Prints, per seat count, games per second (median of R runs of N games each, through
``arena.players.play_local``), steps per game, and the largest legal list seen over other games
(about half the seats played by the heuristic bot, which lays down sooner, a third of the games
in pick-a-phase).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.games import Action, State, get_game
from arena.players import RandomPlayer, play_local
from benchmarks.sources import load_source


def load_heuristic() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "bots" / "heuristic" / "phase10.py"
    return load_source(path, "phase10_heuristic")


class MeasuringPlayer(RandomPlayer):
    """Records the longest legal list it was offered, by decision; plays at random, or with the
    heuristic bot when given one (heuristic seats lay down sooner, so hits are offered more)."""

    def __init__(
        self, seed: int | str, largest: dict[str, int], bot: ModuleType | None = None
    ) -> None:
        super().__init__(seed)
        self.largest = largest
        self.bot = bot

    def choose(self, state: State, seat: int, legal: list[Action]) -> Action:
        observation = state.observation(seat)
        decision = str(observation["decision"])
        self.largest[decision] = max(self.largest.get(decision, 0), len(legal))
        if self.bot is not None:
            return legal[self.bot.choose(observation, legal)]
        return super().choose(state, seat, legal)


def games_per_second(seats: int, games: int, run: int) -> tuple[float, float]:
    spec = get_game("phase10")
    steps = 0
    start = time.perf_counter()
    for game in range(games):
        seed = run * 100_000 + game
        players = [RandomPlayer(f"{seed}:{s}") for s in range(seats)]
        played = play_local(spec, seed, players)
        steps += len(played.replay.actions)
    elapsed = time.perf_counter() - start
    return games / elapsed, steps / games


def largest_legal(seats: int, games: int) -> dict[str, int]:
    spec = get_game("phase10")
    largest: dict[str, int] = {}
    rng = random.Random(seats)
    bot = load_heuristic()
    for game in range(games):
        options = {"pick_phase": rng.random() < 0.3}
        players = [
            MeasuringPlayer(f"L{game}:{s}", largest, bot if rng.random() < 0.5 else None)
            for s in range(seats)
        ]
        play_local(spec, 900_000 + game, players, options)
    return largest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per timed run")
    parser.add_argument("--runs", type=int, default=3, help="timed runs (the median is shown)")
    parser.add_argument("--legal-games", type=int, default=30, help="games for legal sizes")
    args = parser.parse_args()
    print(f"Phase 10, random players, default options; median of {args.runs} runs")
    print(f"{'seats':>5} {'games/s':>8} {'steps/game':>10}  largest legal list (by decision)")
    overall = 0
    for seats in range(2, 7):
        rates, steps = [], []
        for run in range(args.runs):
            rate, per_game = games_per_second(seats, args.games, run)
            rates.append(rate)
            steps.append(per_game)
        largest = largest_legal(seats, args.legal_games)
        overall = max(overall, *largest.values())
        sizes = ", ".join(f"{k} {v}" for k, v in sorted(largest.items()))
        print(
            f"{seats:>5} {statistics.median(rates):>8.2f} {statistics.median(steps):>10.0f}  {sizes}"
        )
    print(f"largest legal list over all games: {overall}")


if __name__ == "__main__":
    main()
