"""Compare per-game win lists of the same games, game by game (from ``phase10_paired.py`` or
``phase10_oracle.py``).

    python benchmarks/experiments/paired.py BASE OTHER

Each side is one or more JSON lists of wins (1 or 0), joined by commas, each ``PATH[:FIRST]``:
FIRST says which game its first entry is (default 0), so lists of different ranges line up
(``base.json`` of games 0..2999 against ``hands_0.json,hands_200.json:200``). Prints each side's
wins over the games both have (with the 95% Wilson interval) and the mean game-by-game
difference, ±1.96 standard errors.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.bench_reference import wilson


def load(side: str) -> dict[int, int]:
    """Game number -> win, from ``PATH[:FIRST]`` joined by commas."""
    games: dict[int, int] = {}
    for part in side.split(","):
        path, _, first = part.partition(":")
        wins = json.loads(Path(path).read_text())
        start = int(first or 0)
        games.update({start + k: int(w) for k, w in enumerate(wins)})
    return games


def difference(base: dict[int, int], other: dict[int, int]) -> tuple[int, float, float]:
    """Games in common, the mean of other - base over them, and 1.96 standard errors of it."""
    games = sorted(base.keys() & other.keys())
    n = len(games)
    diffs = [other[g] - base[g] for g in games]
    mean = sum(diffs) / n if n else 0.0
    if n < 2:
        return n, mean, math.inf
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return n, mean, 1.96 * math.sqrt(var / n)


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    base, other = load(sys.argv[1]), load(sys.argv[2])
    n, mean, half = difference(base, other)
    if not n:
        raise SystemExit("the lists have no game in common")
    for name, wins in (("base ", base), ("other", other)):
        won = sum(wins[g] for g in base.keys() & other.keys())
        low, high = wilson(won, n)
        print(f"{name} {won}/{n}  {won / n:.1%}  [{low:.1%}, {high:.1%}]")
    print(f"other - base, game by game: {mean * 100:+.2f} ± {half * 100:.2f} points (95%)")


if __name__ == "__main__":
    main()
