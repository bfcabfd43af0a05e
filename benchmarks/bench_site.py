"""Leaderboard rendering: full and incremental builds of a synthetic league.

The league is stored through the league's own API (entrants, batches, match records, ratings)
with records of really played Take 5 games (a pool of in-process random games, reused under new
match ids and seatings), so every match page replays a real game. For each size it prints:

* setup: storing the matches and rating them batch by batch as the league does (not the site);
* full: the first build (every match page, the rating history from scratch, every summary page);
* no change: a rebuild with nothing new;
* +N new: a rebuild after N more matches in a new, rated batch;
* the size of the biggest match page.

    python -m benchmarks.bench_site [--sizes 1000 100000] [--new 100] [--workers 1]
        [--rounds 1] [--keep DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.games import GAMES
from arena.league.config import GameConfig, default_config
from arena.league.core import League
from arena.league.rating import LeagueRatings
from arena.league.store import BatchMode, Planned
from arena.players import RandomPlayer, play_local
from arena.site import build_site
from tests.site.leagues import record_of

BOTS = 8
BATCH = 1000
POOL = 64


def game_pool(rounds: int | None, seats: int) -> list[tuple[int, dict[str, Any], Any, Any]]:
    spec = GAMES["take5"]
    options = spec.validate_options({"max_rounds": rounds})
    out = []
    for seed in range(POOL):
        played = play_local(spec, seed, [RandomPlayer(seed * 8 + s) for s in range(seats)], options)
        out.append((seed, options, played.replay.actions, played.state.result().to_json()))
    return out


def add_matches(
    league: League,
    batch: int,
    count: int,
    pool: list[tuple[int, dict[str, Any], Any, Any]],
    rng: random.Random,
    ratings: LeagueRatings,
) -> None:
    """Store ``count`` matches as batch ``batch`` and rate it."""
    store = league.store
    bots = [e.id for e in league.entrants()]
    names = {e.id: e.name for e in league.entrants()}
    planned, records = [], []
    for k in range(count):
        seed, options, actions, result = pool[rng.randrange(len(pool))]
        seated = rng.sample(bots, len(result["ranks"]))
        match_id = f"b{batch}m{k}"
        planned.append(Planned(match_id, batch, k, "take5", k, 0, seed, options, tuple(seated)))
        records.append(
            record_of(
                match_id,
                "take5",
                seed,
                options,
                seated,
                [names[b] for b in seated],
                actions,
                result,
            )
        )
    with store.transaction():
        store.add_batch(batch, BatchMode.UNIFORM, batch, planned)
    for plan, record in zip(planned, records, strict=True):
        store.record_match(record, plan.bots)
    ratings.rate_batch(store.outcomes(batch))
    with store.transaction():
        store.save_ratings(ratings.rows())
        store.set_meta("rated_batches", str(batch + 1))


def make(folder: Path, matches: int, rounds: int | None, seats: int) -> tuple[float, Any]:
    config = dataclasses.replace(
        default_config(1, 1),
        games=(
            GameConfig("take5", (seats,), GAMES["take5"].validate_options({"max_rounds": rounds})),
        ),
    )
    League.init(folder, config)
    pool = game_pool(rounds, seats)
    rng = random.Random(1)
    began = time.perf_counter()
    with League.open(folder) as league:
        for b in range(BOTS):
            league.store.add_entrant(
                f"bot{b}", f"{b:064d}", f"author{b}", "1.0", "builtin:random", ["take5"], None
            )
        ratings = LeagueRatings(league.env)
        batch = 0
        while batch * BATCH < matches:
            add_matches(league, batch, min(BATCH, matches - batch * BATCH), pool, rng, ratings)
            batch += 1
    return time.perf_counter() - began, (pool, rng, ratings, batch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 100000])
    parser.add_argument("--new", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1, help="Take 5 rounds per game (0: to 66)")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--keep", type=Path, default=None, help="Build in this folder and keep it")
    args = parser.parse_args()
    rounds = args.rounds or None
    print(
        f"Take 5, {args.seats} seats, {'full games' if rounds is None else f'{rounds} round(s)'} per match,"
        f" {BOTS} bots, {BATCH} matches a batch, {args.workers} worker(s)"
    )
    print(
        f"{'matches':>8}  {'setup s':>8}  {'full s':>8}  {'per match ms':>12}  {'no change s':>11}"
        f"  {f'+{args.new} new s':>10}  {'pages':>6}  {'biggest match page':>18}"
    )
    for size in args.sizes:
        work = (
            Path(tempfile.mkdtemp(prefix="bench-site-"))
            if args.keep is None
            else args.keep / str(size)
        )
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        try:
            setup, (pool, rng, ratings, batch) = make(work / "league", size, rounds, args.seats)
            out = work / "site"
            with League.open(work / "league") as league:
                full = build_site(league, out, workers=args.workers)
                same = build_site(league, out, workers=args.workers)
                add_matches(league, batch, args.new, pool, rng, ratings)
                inc = build_site(league, out, workers=args.workers)
            assert inc.new_matches == args.new, inc
            biggest = max(p.stat().st_size for p in (out / "matches" / "m").glob("*.html"))
            print(
                f"{size:>8}  {setup:>8.1f}  {full.seconds:>8.1f}  {1000 * full.seconds / size:>12.1f}"
                f"  {same.seconds:>11.2f}  {inc.seconds:>10.2f}  {inc.pages:>6}"
                f"  {biggest / 1024:>15.0f} KB",
                flush=True,
            )
        finally:
            if args.keep is None:
                shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
