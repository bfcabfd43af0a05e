"""A league's decisions as one hash: to check that a change to how matches are run leaves what a
league decides as it was (issue 15's "same league results").

Plays a league of 16 copies of the bundled random and heuristic bots, grouped by 4 with 4 live
bots per worker, 600 matches over the three games on 2 workers, audits it, and prints the bot
starts and a hash of its fingerprint (schedule, records less their timings, ratings, statuses,
faults: ``tests.league.helpers.fingerprint``). Run it on two builds and compare the hashes:

    python -m benchmarks.same_league /tmp/after
    cd OLD_CHECKOUT && python -m benchmarks.same_league /tmp/before   # run from the checkout
"""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import replace
from pathlib import Path

import arena
from arena.league.config import Executor, Schedule, default_config
from arena.league.core import League
from arena.run.local import run_league
from benchmarks.bench_scale import entrant_folders
from tests.league.helpers import assert_audited, fingerprint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a new folder for the league")
    parser.add_argument("--matches", type=int, default=600)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.folder.exists():
        parser.error(f"{args.folder} exists")
    print(f"arena from {Path(arena.__file__).parent}")
    bots = entrant_folders(args.folder / "bots", 16, ("random", "heuristic"))
    config = default_config(seed=5)
    config = replace(
        config,
        workers=args.workers,
        schedule=replace(Schedule(), max_matches=args.matches, group_size=4, rounds_per_batch=2),
        executor=replace(Executor(), live_bots=4),
    )
    league = args.folder / "league"
    League.init(league, config)
    with League.open(league) as lg:
        for bot in bots:
            lg.submit(str(bot), check=False)
        report = run_league(lg, args.workers, progress=None)
    assert_audited(league)
    text = json.dumps(fingerprint(league), default=str, sort_keys=True)
    print(f"played {report.played}, bot processes started {report.processes_started}, audited")
    print(f"fingerprint {hashlib.sha256(text.encode()).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
