"""How much more search could add to the Phase 10 reference bot: its search, run long, against
its own policy, at decisions of real games.

The reference bot plays by its policy alone (no worlds) against 2 bundled heuristics, on the
seeds and seats of ``bench_reference_phase10`` (game k: seed 2000 + k, seat k % 3). At every
``--every``-th of its draw and discard decisions that the search would look at (two or more
candidates), the search runs on that observation with ``--worlds`` worlds, no deadline and no
early stop. Per decision it reports the best alternative's mean paired gain over the policy's
choice (in the playout's value: phases advanced against the others', points, the game's end) and
its z (gain over its standard error). Counted: decisions where an alternative beats the policy by
z > 2 and z > 3, beside how many chance alone gives (each alternative's z is about normal when
it is no better; ``k`` alternatives exceed ``t`` with probability ``1 - Phi(t)^k``).

If few decisions beat chance, a deeper search (more worlds, faster playouts) has little to find:
what the policy misses is not in the choices one step ahead of it. Figures:
benchmarks/REPORT-reference-phase10.md.

Run: python -m benchmarks.diag_reference_phase10 [--worlds 128] [--games 20] [--first 100]
     [--every 2]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.games import get_game  # noqa: E402
from benchmarks.sources import load_source  # noqa: E402

SEATS = 3
NO_DEADLINE = {"decision_ms": 10**9, "bank_ms": 0}


def chance(alternatives: int, z: float) -> float:
    """The probability that one of ``alternatives`` no better than the policy shows ``z``."""
    phi = 0.5 * (1 + math.erf(z / math.sqrt(2)))
    return 1 - phi**alternatives


def searched(
    bot: Any, searcher: Any, state: Any, seat: int, options: dict[str, Any], worlds: int, tag: str
) -> tuple[str, int, float, float] | None:
    """The long search at this decision: (decision, alternatives, the best one's gain, its
    standard error); None where the search would not run (one candidate, or a lay or hit)."""
    observation = state.observation(seat)
    legal = state.legal(seat)
    decision = observation.get("decision")
    if decision not in ("draw", "play") or len(legal) < 2:
        return None
    mine = bot.observed(observation)
    if decision == "play" and searcher.lay_or_hit(observation, legal, mine) is not None:
        return None
    candidates = searcher.candidates(decision, legal, mine)
    if len(candidates) < 2:
        return None
    events = state.events_for(seat, 0)
    budget = bot.Budget(NO_DEADLINE, time.perf_counter())
    kept = bot.MIN_WORLDS
    bot.MIN_WORLDS = worlds + 1  # no early stop: every world is searched
    try:
        scores = searcher.search(
            observation, options, events, candidates, worlds, budget, random.Random(tag)
        )
    finally:
        bot.MIN_WORLDS = kept
    stats = [bot.paired(scores[i], scores[0]) for i in range(1, len(candidates))]
    gain, error = max(stats, key=lambda s: s[0])
    return str(decision), len(stats), gain, error


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--worlds", type=int, default=128)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--first", type=int, default=100)
    parser.add_argument("--every", type=int, default=2, help="search every n-th decision")
    args = parser.parse_args()
    bot = load_source(ROOT / "bots" / "reference" / "phase10", "diag_reference_phase10")
    heuristic = load_source(ROOT / "bots" / "heuristic" / "phase10.py", "diag_heuristic_p10")
    rows: list[tuple[str, int, float, float]] = []
    began = time.process_time()
    for k in range(args.first, args.first + args.games):
        seat = k % SEATS
        state = get_game("phase10").new(2000 + k, SEATS)
        options = dict(state.options)
        searcher = bot.Searcher(f"diag-{k}", seat)
        asked = 0
        while not state.is_over():
            mover = state.to_move()[0]
            legal = state.legal(mover)
            if mover != seat:
                state.apply(mover, legal[heuristic.choose(state.observation(mover), legal)])
                continue
            asked += 1
            if asked % args.every == 0:
                row = searched(bot, searcher, state, seat, options, args.worlds, f"{k}:{asked}")
                if row is not None:
                    rows.append(row)
            observation = state.observation(seat)
            index = searcher.choose(observation, legal, options, NO_DEADLINE, worlds=0)
            state.apply(seat, legal[index])
    seconds = time.process_time() - began
    print(
        f"Phase 10, the reference bot's policy vs 2 heuristics, {args.games} games from "
        f"{args.first}: {len(rows)} decisions searched with {args.worlds} worlds each "
        f"({seconds:.0f} s CPU, {seconds / max(1, len(rows)):.2f} s a decision)"
    )
    for decision in ("draw", "play"):
        mine = [r for r in rows if r[0] == decision]
        if not mine:
            continue
        z = [gain / error if error > 0 else 0.0 for _, _, gain, error in mine]
        line = [f"{decision:>5}: {len(mine)} decisions"]
        for t in (2.0, 3.0):
            seen = sum(1 for v in z if v > t)
            expected = sum(chance(alternatives, t) for _, alternatives, _, _ in mine)
            gains = [r[2] for r, v in zip(mine, z, strict=True) if v > t]
            mean = statistics.mean(gains) if gains else 0.0
            line.append(
                f"z > {t:g}: {seen} (chance alone {expected:.1f}; mean gain {mean:.3f} phases)"
            )
        print("; ".join(line))


if __name__ == "__main__":
    main()
