"""Paired, seeded, in-process evaluation of a version of the reference bot's Take 5 search.

Take 5, 4 seats, the full game to 66: the search (any copy of ``bots/reference/take5``, e.g. an
older commit's, checked out elsewhere) called directly in one seat, rotated game by game, against
3 random or 3 bundled heuristic players, as ``bench_reference --cpu-games`` does. Game ``k`` is
dealt from seed ``5000 + k`` with the same match id and the same opponents' generators whatever
the version, so two versions are compared on the same games: ``--compare`` reads two result files
and gives each one's win rate with its Wilson 95% interval, the games only one of them won, and
the paired (McNemar) z of the difference. CPU time per decision is ``time.process_time`` around
each call.

Run: python -m benchmarks.eval_reference_take5 --games 1000 --out new.json [--bot PATH]
     [--opponent random|heuristic] [--first 0]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.games import get_game  # noqa: E402
from benchmarks.bench_reference import SEATS, load_package, percentile, wilson  # noqa: E402


def play(bot: Path, opponent: str, first: int, games: int) -> list[dict[str, object]]:
    """Per game: its number, whether the search won (place 1) and its CPU seconds per
    decision."""
    search = load_package(bot, f"eval_take5_{abs(hash(str(bot)))}")
    heuristic = load_package(ROOT / "bots" / "heuristic" / "take5.py", "eval_take5_heuristic")
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
                    began = time.process_time()
                    events = state.events_for(seat)
                    index = searcher.choose(observation, legal, state.options, told, events=events)
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
    args = parser.parse_args()
    if args.compare:
        old, new = (json.loads(p.read_text()) for p in args.compare)
        print(f"old {args.compare[0]}: {summary(old)}")
        print(f"new {args.compare[1]}: {summary(new)}")
        print(compare(old, new))
        return
    results = play(args.bot, args.opponent, args.first, args.games)
    if args.out:
        args.out.write_text(json.dumps(results))
    print(summary(results))


if __name__ == "__main__":
    main()
