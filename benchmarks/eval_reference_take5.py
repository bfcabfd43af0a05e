"""Paired, seeded, in-process evaluation of a version of the reference bot's Take 5 search.

Take 5, 4 seats, the full game to 66: the search (any copy of ``bots/reference/take5``, e.g. an
older commit's, checked out elsewhere) called directly in one seat, rotated game by game, against
3 random or 3 bundled heuristic players, as ``bench_reference --cpu-games`` does. Game ``k`` is
dealt from seed ``5000 + k`` with the same match id and the same opponents' generators whatever
the version, so two versions are compared on the same games: ``--compare`` reads two result files
and gives each one's win rate with its Wilson 95% interval, the games only one of them won, and
the paired (McNemar) z of the difference. CPU time per decision is ``time.process_time`` around
each call.

Experiments on the same games (benchmarks/REPORT-reference-take5.md, ninth session):
``--worlds N`` and ``--budget N`` set the search's caps (``WORLDS``, ``BUDGET``); ``--told`` tells
the search that every opponent plays at random (its odds all 1); ``--oracle`` gives it the true
hands in every world (not a legal bot: the ceiling of perfect inference).

Run: python -m benchmarks.eval_reference_take5 --games 1000 --out new.json [--bot PATH]
     [--opponent random|heuristic] [--first 0] [--worlds N] [--budget N] [--told] [--oracle]
     python -m benchmarks.eval_reference_take5 --compare old.json new.json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.games import get_game  # noqa: E402
from benchmarks.bench_reference import SEATS, percentile, wilson  # noqa: E402
from benchmarks.sources import load_source  # noqa: E402


class Experiment(NamedTuple):
    worlds: int | None = None
    budget: int | None = None
    told: bool = False
    oracle: bool = False


def true_hands(state: Any, seat: int, row_decision: bool) -> list[list[int]]:
    """Every seat's hand as it was when this trick's cards were chosen (the cards chosen so far
    added back; at a row decision they are on the table already)."""
    snapshot = state.snapshot()
    hands = [sorted(h) for h in snapshot["hands"]]
    if not row_decision:
        for s, card in enumerate(snapshot["chosen"]):
            if card is not None and s != seat:
                hands[s] = sorted([*hands[s], card])
    return hands


def rigged(search: Any, experiment: Experiment) -> list[list[int]]:
    """Patch the loaded search for ``--told`` and ``--oracle``; the oracle's hands go in the
    list returned (set before each decision)."""
    oracle: list[list[int]] = []
    if experiment.told:
        search.Opponents.random_odds = lambda self: [
            0.0 if s == self.seat else 1.0 for s in range(len(self.evidence))
        ]
    if experiment.oracle:
        search.Deals.next = lambda self: [list(h) for h in oracle]
    return oracle


def play(
    bot: Path, opponent: str, first: int, games: int, experiment: Experiment | None = None
) -> list[dict[str, object]]:
    """Per game: its number, whether the search won (place 1) and its CPU seconds per
    decision."""
    search = load_source(bot, f"eval_take5_{abs(hash(str(bot)))}")
    experiment = experiment or Experiment()
    oracle = rigged(search, experiment)
    heuristic = load_source(ROOT / "bots" / "heuristic" / "take5.py", "eval_take5_heuristic")
    told = {"decision_ms": 1000, "bank_ms": 10000}
    results: list[dict[str, object]] = []
    for k in range(first, first + games):
        seat = k % SEATS
        state = get_game("take5").new(5000 + k, SEATS)
        searcher = search.Searcher(f"cpu-{k}", seat)
        draws = [random.Random(f"cpu-{k}:{s}") for s in range(SEATS)]
        times: list[float] = []
        while not state.is_over():
            for mover in state.to_move():
                legal = state.legal(mover)
                observation = state.observation(mover)
                if mover == seat:
                    if experiment.oracle:
                        row = observation.get("decision") == "row"
                        oracle[:] = true_hands(state, seat, row)
                    began = time.process_time()
                    events = state.events_for(seat)
                    index = searcher.choose(
                        observation,
                        legal,
                        state.options,
                        told,
                        worlds=experiment.worlds,
                        events=events,
                        budget=experiment.budget,
                    )
                    times.append(time.process_time() - began)
                elif opponent == "random":
                    index = draws[mover].randrange(len(legal))
                else:
                    index = heuristic.choose(observation, legal)
                state.apply(mover, legal[index])
        result = state.result()
        won = result.ranks[seat] == 1
        results.append({"game": k, "won": won, "times": times})
    return results


def summary(results: list[dict[str, object]]) -> str:
    wins = sum(bool(r["won"]) for r in results)
    games = len(results)
    low, high = wilson(wins, games)
    times = [t for r in results for t in r["times"]]  # type: ignore[attr-defined]
    return (
        f"{wins}/{games} {wins / games:.1%} [{low:.1%}, {high:.1%}]  CPU ms/decision "
        f"mean {statistics.mean(times) * 1e3:.1f} p95 {percentile(times, 0.95) * 1e3:.1f} "
        f"over {len(times)} decisions"
    )


def compare(old: list[dict[str, object]], new: list[dict[str, object]]) -> str:
    """The two versions on the games both played: each one's figures, and the paired z."""
    by_game = {r["game"]: bool(r["won"]) for r in old}
    pairs = [(by_game[r["game"]], bool(r["won"])) for r in new if r["game"] in by_game]
    only_old = sum(a and not b for a, b in pairs)
    only_new = sum(b and not a for a, b in pairs)
    z = (only_new - only_old) / math.sqrt(only_new + only_old) if only_new + only_old else 0.0
    return (
        f"{len(pairs)} paired games: only old won {only_old}, only new won {only_new}, z {z:+.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", type=Path, default=ROOT / "bots" / "reference" / "take5")
    parser.add_argument("--opponent", choices=("random", "heuristic"), default="random")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", type=Path, nargs=2)
    parser.add_argument("--worlds", type=int, help="the search's WORLDS (default: the bot's)")
    parser.add_argument("--budget", type=int, help="the search's BUDGET (default: the bot's)")
    parser.add_argument("--told", action="store_true", help="opponents known to play at random")
    parser.add_argument("--oracle", action="store_true", help="the true hands in every world")
    args = parser.parse_args()
    if args.compare:
        old, new = (json.loads(p.read_text()) for p in args.compare)
        print(f"old {args.compare[0]}: {summary(old)}")
        print(f"new {args.compare[1]}: {summary(new)}")
        print(compare(old, new))
        return
    experiment = Experiment(args.worlds, args.budget, args.told, args.oracle)
    results = play(args.bot, args.opponent, args.first, args.games, experiment)
    if args.out:
        args.out.write_text(json.dumps(results))
    print(summary(results))


if __name__ == "__main__":
    main()
