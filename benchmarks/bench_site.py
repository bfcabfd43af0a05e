"""Leaderboard rendering: match pages per game, and full and incremental builds of a league.

Games are really played by in-process random players at each game's default options (a pool
per game, reused under new match ids and seatings), so every match page replays a real game.

1. Match pages, per game: each pool game's page rendered once (written with its record, as a
   build does): steps, page size and render time (CPU time of this process: the machine may
   be shared), median and max; then the longest Phase 10 game of ``--longest`` seeds at six
   seats, the issue's "longest Phase 10 game", and where its page's CPU goes (the replay
   alone, the viewer's data, packing it; benchmarks/REPORT-pages.md). A game with a model
   (arena.site.frames.MODELS) is measured both ways side by side: its page carrying the record
   for the browser to replay, and carrying the frames the Python viewer built ("(frames)").
2. Per league size, a league stored through the league's own API (entrants, batches, records,
   ratings) over the games in turn, and for it:

   * setup: storing the matches and rating them batch by batch (not the site);
   * full: the first build (the match pages ``--matches`` asks for, the rating history from
     scratch, every summary page), its seconds per match, the site's size on disk and the
     process's peak memory;
   * no change: a rebuild with nothing new;
   * +N new: a rebuild after N more matches in a new, rated batch;
   * copied: the league and the site copied elsewhere, built again: pages re-rendered (0 when
     the cache survives the copy).

    python -m benchmarks.bench_site [--sizes 1000 100000] [--new 100] [--matches recent]
        [--games take5 ten phase10] [--bots 8] [--pool 8] [--longest 10] [--workers 1]
        [--keep DIR] [--skip-pages] [--skip-leagues]

Runs against whatever ``arena`` is on the path (``PYTHONPATH=/path/to/other/checkout`` measures
another version; a version without ``--matches`` renders every page).
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import random
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

import arena.site.build as site_build
import arena.site.frames as frames_module
from arena.games import GAMES
from arena.league.config import GameConfig, default_config
from arena.league.core import League
from arena.league.rating import LeagueRatings
from arena.league.store import BatchMode, PackedRecord, Planned, StoredMatch, pack_record
from arena.players import RandomPlayer, play_local
from arena.replay import Replay
from arena.site import build_site
from arena.site.build import TEMPLATES, Pages
from arena.site.frames import build_viewer, pack
from arena.site.pages import BotRef, match_path
from tests.site.leagues import record_of

BATCH = 1000
SEATS = {"take5": 4, "ten": 4, "phase10": 4}

Played = tuple[int, dict[str, Any], Any, Any]
"""A pool game: (seed, options, actions, result)."""


def play(game: str, seed: int, seats: int) -> Played:
    spec = GAMES[game]
    options = spec.validate_options({})
    players = [RandomPlayer(seed * 8 + s) for s in range(seats)]
    played = play_local(spec, seed, players, options)
    return (seed, options, played.replay.actions, played.state.result().to_json())


def game_pool(game: str, size: int) -> list[Played]:
    return [play(game, seed, SEATS[game]) for seed in range(size)]


def stored(game: str, match_id: str, played: Played, bots: list[int]) -> StoredMatch:
    seed, options, actions, result = played
    names = [f"bot{b}" for b in bots]
    record = record_of(match_id, game, seed, options, bots, names, actions, result)
    return StoredMatch(1, match_id, 0, 0, game, tuple(bots), "2026-01-01T00:00:00", record)


def render_page(out: Path, game: str, played: Played, pages: Pages) -> tuple[int, int, int]:
    """(steps, page bytes, render microseconds) of one game's match page, written as a build does."""
    seats = len(played[3]["ranks"])
    m = stored(game, f"{game}{played[0]}s{seats}", played, list(range(seats)))
    began = time.process_time()
    pages.match_page(m)
    ms = 1000 * (time.process_time() - began)
    return len(played[2]), (out / match_path(m.match_id)).stat().st_size, int(ms * 1000)


def page_figures(games: list[str], pool: dict[str, list[Played]], longest: int) -> None:
    out = Path(tempfile.mkdtemp(prefix="bench-pages-"))
    try:
        bots = {b: BotRef(b, f"bot{b}", "", "", "v", "active", "") for b in range(6)}
        pages = Pages(out, TEMPLATES, bots, games)
        print(
            f"{'game':>16}  {'seats':>5}  {'pages':>5}  {'steps med':>9}  {'steps max':>9}"
            f"  {'KiB med':>8}  {'KiB max':>8}  {'CPU ms med':>10}  {'CPU ms max':>10}"
        )

        def line(label: str, seats: int, figures: list[tuple[int, int, int]]) -> None:
            steps = [f[0] for f in figures]
            size = [f[1] / 1024 for f in figures]
            ms = [f[2] / 1000 for f in figures]
            print(
                f"{label:>16}  {seats:>5}  {len(figures):>5}  {statistics.median(steps):>9.0f}"
                f"  {max(steps):>9}  {statistics.median(size):>8.1f}  {max(size):>8.1f}"
                f"  {statistics.median(ms):>10.1f}  {max(ms):>10.1f}",
                flush=True,
            )

        for game in games:
            for how in ways(game):
                with how:
                    figures = [render_page(out, game, p, pages) for p in pool[game]]
                line(f"{game}{how.mark}", SEATS[game], figures)
        if "phase10" in games and longest:
            played = max((play("phase10", seed, 6) for seed in range(longest)), key=steps_of)
            for how in ways("phase10"):
                with how:
                    figures = [render_page(out, "phase10", played, pages) for _ in range(5)]
                line(f"p10 long{how.mark}", 6, figures[1:])  # the first warms the caches
            print(f"  (the longest of {longest} six-seat Phase 10 games: seed {played[0]})")
            breakdown(played)
    finally:
        shutil.rmtree(out, ignore_errors=True)


class Way:
    """How a match page carries its replay: the record, which the game's model replays in the
    browser (``mark`` ""), or the frames the Python viewer builds (``mark`` " (frames)", what
    every page carried before the models, and still does for a game without one)."""

    def __init__(self, frames: bool) -> None:
        self.frames = frames
        self.mark = " (frames)" if frames else ""
        self.saved: Any = None

    def __enter__(self) -> Way:
        names = vars(site_build)
        if self.frames and "record_viewer" in names:
            self.saved = names["record_viewer"]
            names["record_viewer"] = lambda *_args: None
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.saved is not None:
            vars(site_build)["record_viewer"] = self.saved


def ways(game: str) -> list[Way]:
    """Both ways side by side for a game with a model; the frames alone for one without."""
    models: frozenset[str] = getattr(frames_module, "MODELS", frozenset())
    return [Way(False), Way(True)] if game in models else [Way(True)]


def breakdown(played: Played, runs: int = 3) -> None:
    """Where the longest game's page spends its CPU (the least of ``runs`` runs of each part):
    the replay alone (every action applied), the viewer's data (the replay, the tables, the
    events and moves in words) and packing that data for the page."""
    seed, options, actions, result = played
    seats = len(result["ranks"])
    names = [f"bot{s}" for s in range(seats)]
    record = record_of("long", "phase10", seed, options, list(range(seats)), names, actions, result)
    replay = Replay("phase10", seats, seed, options, tuple(actions))

    def least(work: Any) -> tuple[float, Any]:
        best, out = float("inf"), None
        for _ in range(runs):
            began = time.process_time()
            out = work()
            best = min(best, time.process_time() - began)
        return 1000 * best, out

    replay_ms, _ = least(replay.play)
    data_ms, viewer = least(lambda: build_viewer(record, names))
    pack_ms, text = least(lambda: pack(viewer.data))
    print(
        f"  CPU ms: replay alone {replay_ms:.1f}, viewer data {data_ms:.1f} (replay included),"
        f" packing {pack_ms:.1f}; packed data {len(text) / 1024:.1f} KiB"
    )


def steps_of(played: Played) -> int:
    return len(played[2])


PACKED: dict[tuple[str, int], bytes] = {}


def packed_body(game: str, index: int, played: Played) -> bytes:
    """A pool game's record as the store keeps it, packed once and stored under every id it
    is reused with (the body names the pool game's id and seats; the site reads the match's
    own id and bots from the schedule)."""
    if (game, index) in PACKED:
        return PACKED[game, index]
    seed, options, actions, result = played
    seats = list(range(len(result["ranks"])))
    names = [f"bot{s}" for s in seats]
    record = record_of(f"pool-{game}-{index}", game, seed, options, seats, names, actions, result)
    PACKED[game, index] = pack_record(record).body
    return PACKED[game, index]


def add_matches(
    league: League,
    batch: int,
    count: int,
    pool: dict[str, list[Played]],
    games: list[str],
    rng: random.Random,
    ratings: LeagueRatings,
) -> None:
    """Store ``count`` matches as batch ``batch`` (the games in turn) and rate it."""
    store = league.store
    bots = [e.id for e in league.entrants()]
    planned, packed = [], []
    for k in range(count):
        game = games[k % len(games)]
        index = rng.randrange(len(pool[game]))
        seed, options, _, result = pool[game][index]
        seated = rng.sample(bots, len(result["ranks"]))
        match_id = f"b{batch}m{k}"
        planned.append(Planned(match_id, batch, k, game, k, 0, seed, options, tuple(seated)))
        head = {
            "match_id": match_id,
            "ranks": result["ranks"],
            "scores": result["scores"],
            "faults": [],
            "seconds": 0.01,
        }
        body = packed_body(game, index, pool[game][index])
        packed.append(PackedRecord(orjson.dumps(head), body))
    with store.transaction():
        store.add_batch(batch, BatchMode.UNIFORM, batch, planned)
    for plan, record in zip(planned, packed, strict=True):
        store.record_packed(record, plan.bots)
    ratings.rate_batch(store.outcomes(batch))
    with store.transaction():
        store.save_ratings(ratings.rows())
        store.set_meta("rated_batches", str(batch + 1))


def make(
    folder: Path, matches: int, games: list[str], bots: int, pool: dict[str, list[Played]]
) -> tuple[float, random.Random, LeagueRatings, int]:
    config = dataclasses.replace(
        default_config(1, 1),
        games=tuple(GameConfig(g, (SEATS[g],), GAMES[g].validate_options({})) for g in games),
    )
    League.init(folder, config)
    rng = random.Random(1)
    began = time.perf_counter()
    with League.open(folder) as league:
        for b in range(bots):
            league.store.add_entrant(
                f"bot{b}", f"{b:064d}", f"author{b}", "1.0", "builtin:random", games, None
            )
        ratings = LeagueRatings(league.env)
        batch = 0
        while batch * BATCH < matches:
            count = min(BATCH, matches - batch * BATCH)
            add_matches(league, batch, count, pool, games, rng, ratings)
            batch += 1
    return time.perf_counter() - began, rng, ratings, batch


def cpu() -> float:
    """CPU seconds of this process and its finished children (rendering workers)."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def disk_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def build(league: League, out: Path, matches: str, workers: int) -> Any:
    """``build_site`` with the match pages asked for (every one on a version without the
    option)."""
    if "matches" in inspect.signature(build_site).parameters:
        from arena.site.build import MatchPages

        return build_site(league, out, workers=workers, matches=MatchPages(matches))
    return build_site(league, out, workers=workers)


def pages_rendered(report: Any) -> int:
    """Match pages a build rendered (a version without the count: its new matches')."""
    return int(getattr(report, "match_pages", report.new_matches))


def league_figures(args: argparse.Namespace, pool: dict[str, list[Played]]) -> None:
    print(
        f"\nLeague: {', '.join(args.games)} in turn, {args.bots} bots, {BATCH} matches a batch,"
        f" match pages: {args.matches}, {args.workers} worker(s)"
    )
    print(
        f"{'matches':>8}  {'setup s':>8}  {'full s':>8}  {'CPU s':>7}  {'ms/match':>8}"
        f"  {'pages':>7}  {'site MB':>8}  {'peak RSS MB':>11}  {'no change s':>11}"
        f"  {f'+{args.new} new s':>10}  {'CPU s':>6}  {'pages':>5}  {'copied: re-rendered':>19}"
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
            setup, rng, ratings, batch = make(work / "league", size, args.games, args.bots, pool)
            out = work / "site"
            with League.open(work / "league") as league:
                began = cpu()
                full = build(league, out, args.matches, args.workers)
                full_cpu = cpu() - began
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                mb = disk_mb(out)
                same = build(league, out, args.matches, args.workers)
                add_matches(league, batch, args.new, pool, args.games, rng, ratings)
                began = cpu()
                inc = build(league, out, args.matches, args.workers)
                inc_cpu = cpu() - began
            assert inc.new_matches == args.new, inc
            moved = work / "moved"
            shutil.copytree(work / "league", moved / "league")
            shutil.copytree(out, moved / "site")
            with League.open(moved / "league") as league:
                copied = build(league, moved / "site", args.matches, args.workers)
            print(
                f"{size:>8}  {setup:>8.1f}  {full.seconds:>8.1f}  {full_cpu:>7.1f}"
                f"  {1000 * full.seconds / size:>8.2f}  {pages_rendered(full):>7}  {mb:>8.0f}"
                f"  {rss:>11.0f}  {same.seconds:>11.2f}  {inc.seconds:>10.2f}  {inc_cpu:>6.2f}"
                f"  {pages_rendered(inc):>5}  {pages_rendered(copied):>19}",
                flush=True,
            )
        finally:
            if args.keep is None:
                shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 100000])
    parser.add_argument("--new", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--games", nargs="*", default=["take5", "ten", "phase10"])
    parser.add_argument("--matches", choices=["all", "recent", "none"], default="recent")
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--pool", type=int, default=8, help="Games played per game")
    parser.add_argument("--longest", type=int, default=10, help="Seeds searched (0: none)")
    parser.add_argument("--keep", type=Path, default=None, help="Build in this folder and keep it")
    parser.add_argument("--skip-pages", action="store_true")
    parser.add_argument("--skip-leagues", action="store_true")
    args = parser.parse_args()
    pool = {g: game_pool(g, args.pool) for g in args.games}
    print(f"Match pages (random players, default options, {args.pool} games each)")
    if not args.skip_pages:
        page_figures(args.games, pool, args.longest)
    if not args.skip_leagues:
        league_figures(args, pool)


if __name__ == "__main__":
    main()
