"""Per-game wins of the Phase 10 reference policy alone, for paired comparisons of its rules.

    python benchmarks/experiments/phase10_paired.py OUT FIRST COUNT [NAME=VALUE ...]

Plays games FIRST..FIRST+COUNT-1 as ``bench_reference_phase10.policy_alone`` does (seed 2000 + k,
seat k % 3, against 2 bundled heuristics), with each NAME of ``fast.py`` set to VALUE, and
writes the list of wins (1 or 0, game by game) to OUT as JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.bench_reference_phase10 import ROOT
from benchmarks.experiments.phase10_oracle import play_games
from benchmarks.sources import load_source


def main() -> None:
    out, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    search = load_source(ROOT / "bots" / "reference" / "phase10", "bench_reference_phase10")
    fast = sys.modules["bench_reference_phase10.fast"]
    for pair in sys.argv[4:]:
        name, value = pair.split("=")
        if not hasattr(fast, name):
            raise SystemExit(f"fast.py has no {name}")
        setattr(fast, name, float(value))
    wins = play_games(first, count, search, worlds=0)
    Path(out).write_text(json.dumps(wins))
    print(out, sum(wins), len(wins))


if __name__ == "__main__":
    main()
