"""How much of the other hands the Phase 10 reference bot's reader (``bots/reference/phase10/
infer.py``) places right, against dealing them uniformly from the unseen cards.

    python benchmarks/experiments/phase10_read.py FIRST COUNT [WORLDS [NAME=VALUE ...]]

Plays games FIRST..FIRST+COUNT-1 as ``bench_reference_phase10.policy_alone`` does (seed 2000 + k,
the bot's policy at seat k % 3, against 2 bundled heuristics). At each of the bot's discards it
deals WORLDS worlds from the cards it cannot place, once by the reader and once uniformly, and
counts the other seats' unknown cards dealt to the seat that truly holds them (as a share of
those cards), overall and for seats not yet down. Each NAME=VALUE sets a constant of
``infer.py`` (``PARTICLES=200``). Also prints the reader's time per decision.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena.games import get_game
from benchmarks.bench_reference_phase10 import GAME, ROOT, SEATS
from benchmarks.sources import load_source


def placed(dealt: list[list[str]], truth: list[list[str]], seats: list[int]) -> tuple[int, int]:
    """Cards of ``seats``' true unknown cards dealt to them, and how many there are."""
    right = total = 0
    for s in seats:
        right += sum((Counter(dealt[s]) & Counter(truth[s])).values())
        total += len(truth[s])
    return right, total


def main() -> None:
    first, count = int(sys.argv[1]), int(sys.argv[2])
    worlds = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    bot = load_source(ROOT / "bots" / "reference" / "phase10", "bench_reference_phase10")
    infer = sys.modules[bot.__name__ + ".infer"]
    for pair in sys.argv[4:]:
        name, value = pair.split("=")
        setattr(infer, name, type(getattr(infer, name))(float(value)))
    heuristic = load_source(ROOT / "bots" / "heuristic" / "phase10.py", "bench_heuristic_p10")
    sums = {"read": [0, 0], "uniform": [0, 0], "read-up": [0, 0], "uniform-up": [0, 0]}
    spent, decisions = 0.0, 0
    for k in range(first, first + count):
        seat = k % SEATS
        state: Any = get_game(GAME).new(2000 + k, SEATS)
        reader = infer.Reader(seat, random.Random(k), infer.PARTICLES)
        searcher = bot.Searcher(f"policy-{k}", seat)
        options = dict(state.options)
        rng = random.Random(k)
        cursor = 0
        seen: list[dict[str, Any]] = []
        while not state.is_over():
            mover = state.to_move()[0]
            legal = state.legal(mover)
            observation = state.observation(mover)
            if mover != seat:
                state.apply(mover, legal[heuristic.choose(observation, legal)])
                continue
            seen += state.events_for(seat, cursor)
            cursor = len(state.log)
            if observation["decision"] == "play":
                began = time.perf_counter()
                reader.update(seen)
                spent += time.perf_counter() - began
                decisions += 1
                known = observation["known"]
                truth: list[list[str]] = [[] for _ in range(SEATS)]
                pool: list[str] = list(state.draw_pile)
                for s in range(SEATS):
                    if s != seat:
                        rest = Counter(state.hands[s]) - Counter(known[s])
                        truth[s] = list(rest.elements())
                        pool += truth[s]
                unknown = [len(t) for t in truth]
                others = [s for s in range(SEATS) if s != seat]
                up = [s for s in others if observation["laid"][s] is None]
                for name, source in (("read", reader), ("uniform", None)):
                    for _ in range(worlds):
                        dealt, _ = infer.deal(source, pool, unknown, seat, rng)
                        for key, who in ((name, others), (name + "-up", up)):
                            right, total = placed(dealt, truth, who)
                            sums[key][0] += right
                            sums[key][1] += total
            index = searcher.choose(observation, legal, options, {}, seen, 0)
            state.apply(mover, legal[index])
    for key, (right, total) in sums.items():
        print(f"{key:12} {right / max(1, total):.3f}  ({right}/{total})")
    print(f"reader: {1000 * spent / max(1, decisions):.2f} ms a discard decision ({decisions})")


if __name__ == "__main__":
    main()
