"""The reference bot in a league of the bundled bots: the check of issue 17.

A fresh league (the default configuration: duplicate sets, TrueSkill, default time limits) of
bots/random, bots/heuristic, bots/reference and builtin:random, in every game of the registry at
3 and 4 seats, played to a match budget on local workers. The reference bot enters only the games
its manifest claims (bots/reference/bot.toml); in each of them the check is that it ranks first
(by the league's conservative rating, mu - 3 sigma) and that this conservative rating is above
every other bot's mean (mu): first, and not by luck of the draw.

It prints the standings as ``arena league status`` does, then one PASS or FAIL line per game the
reference bot searches, and the time the league took.

Run: python -m benchmarks.bench_reference_league [--matches 600] [--workers 2] [--games take5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.cli.league import render_standings  # noqa: E402
from arena.league.config import GameConfig, Schedule, default_config  # noqa: E402
from arena.league.core import League  # noqa: E402
from arena.run.local import run_league  # noqa: E402
from arena.runtime.manifest import load_bot  # noqa: E402

BOTS = ("bots/random", "bots/heuristic", "bots/reference", "builtin:random")
SEATS = (3, 4)
REFERENCE = "reference"


def build(folder: Path, matches: int, workers: int, games: list[str] | None) -> None:
    """A new league in ``folder``: the bundled bots in every game (or ``games``) at 3-4 seats."""
    config = default_config(seed=17, workers=workers)
    chosen = tuple(
        GameConfig(g.name, SEATS, g.options)
        for g in config.games
        if games is None or g.name in games
    )
    config = replace(config, games=chosen, schedule=replace(Schedule(), max_matches=matches))
    League.init(folder, config)
    with League.open(folder) as lg:
        for bot in BOTS:
            lg.submit(bot if bot.startswith("builtin:") else str(ROOT / bot), check=False)


def verdicts(lg: League, searched: tuple[str, ...]) -> list[tuple[bool, str]]:
    """Per game the reference bot searches: (passed, the line that says why)."""
    names = {e.id: e.name for e in lg.entrants()}
    out = []
    for table in lg.standings():
        if table.game not in searched:
            continue
        rated = table.rated
        mine = next((s for s in rated if names[s.bot] == REFERENCE), None)
        others = [s for s in rated if names[s.bot] != REFERENCE]
        if mine is None or not others:
            out.append((False, f"{table.game}: the reference bot is not rated against others"))
            continue
        rival = max(others, key=lambda s: s.mu)
        first = rated[0].bot == mine.bot
        above = mine.conservative > rival.mu
        out.append(
            (
                first and above,
                f"{table.game}: reference {'ranks first' if first else 'is not first'}, "
                f"conservative {mine.conservative:.2f} (mu {mine.mu:.2f}, sigma {mine.sigma:.2f},"
                f" {mine.matches} matches) {'>' if above else '<='} the best other mean: "
                f"{names[rival.bot]} mu {rival.mu:.2f}",
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=600, help="the league's match budget")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", nargs="*", default=None, help="default: every game")
    args = parser.parse_args()
    searched = load_bot(str(ROOT / "bots" / "reference")).games or ()
    with tempfile.TemporaryDirectory(prefix="bench-reference-league-") as tmp:
        folder = Path(tmp) / "league"
        build(folder, args.matches, args.workers, args.games)
        began = time.perf_counter()
        with League.open(folder) as lg:
            report = run_league(lg, args.workers, progress=None)
        took = time.perf_counter() - began
        with League.open(folder) as lg:
            print(render_standings(lg.summary()))
            print()
            results = verdicts(lg, searched)
    for passed, line in results:
        print(f"{'PASS' if passed else 'FAIL'} {line}")
    print(
        f"{report.played} matches in {took:.0f} s with {args.workers} workers; the reference bot"
        f" searches {', '.join(searched)} (bots/reference/bot.toml)"
    )


if __name__ == "__main__":
    main()
