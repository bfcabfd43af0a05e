"""Render a league's site into a folder, incrementally.

:func:`build_site` renders the match pages of the results stored since the last build (the
cache's watermark), extends the rating history by the batches rated since, and rebuilds the
summary pages: the index, the bot pages, the game pages, and of each match list only the pages
the new matches landed on.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import hashlib
import itertools
import multiprocessing
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import orjson
from jinja2.bccache import Bucket
from markupsafe import Markup

from arena import resources
from arena.games import GAMES, JSON
from arena.league.config import Resubmit
from arena.league.core import League
from arena.league.rating import LeagueRatings, Standing, overall
from arena.league.store import Entrant, EntrantStatus, StoredMatch, StoreReader
from arena.site.cache import CACHE_FILE, VERSION, MatchList, MatchRow, SiteCache, Tally
from arena.site.frames import MODELS, Viewer, build_viewer, embed_json, pack, record_viewer
from arena.site.pages import (
    TREND_BATCHES,
    BotRef,
    GameTable,
    MatchLine,
    Opponent,
    bot_path,
    chart,
    game_path,
    game_tables,
    game_title,
    head_to_head,
    match_lines,
    match_path,
    overall_rows,
    phases_of,
    record_path,
    refs,
    rules_html,
    rules_path,
    rules_text,
    search_row,
    slug,
    unknown_bot,
    usage_rows,
)

TEMPLATES = resources.templates()
"""Packaged with the wheel, or the repository's templates/ in a checkout (arena/resources.py)."""
SEEDS = resources.seeds()
STATIC = ("site.css", "viewer.js", "bzip2.js", "tables.js", "search.js")
MODEL_SCRIPTS = ("rng.js", "replay.js")
"""What every game's model needs (``static/models/``), beside the models of :data:`MODELS`."""
PAGE_SIZE = 100
SEARCH_CHUNK = 1000
"""Matches to a file of the search index (matches/search/chunk-K.js): a build rewrites only
the chunks new matches landed in."""
CHUNK = 500
RECENT = 20
POOL_FROM = 4
"""Fewer match pages than this to render are rendered in the building process, whatever the
number of workers."""


class MatchPages(enum.StrEnum):
    """Which match pages a build renders (the site's other pages are always brought up to
    date). A page not rendered is shown in the lists without a link; ``arena serve`` renders
    any match page when it is asked for."""

    ALL = "all"
    """Every match's page (a long Phase 10 game takes a few hundred milliseconds)."""
    RECENT = "recent"
    """The pages of the matches the front pages list: the latest of the league, of each game
    and of each bot (:data:`RECENT` of each)."""
    NONE = "none"
    """No match page."""


@dataclass(frozen=True)
class BuildReport:
    new_matches: int
    pages: int
    rated_batches: int
    seconds: float
    full: bool
    match_pages: int = 0
    """Match pages rendered (all of the new matches', or some: :class:`MatchPages`)."""


class TemplateCache(jinja2.FileSystemBytecodeCache):
    """The compiled templates kept between runs, in jinja2's own per-user folder (created
    private, refused if another user owns it), as ``arena-site-*.cache`` keyed by each
    template's name and source: compiling the site's templates costs every build a quarter of
    a second. A cache that cannot be written is skipped, never an error of the build."""

    def __init__(self, directory: str | None = None) -> None:
        super().__init__(directory, "arena-site-%s.cache")

    def load_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def template_cache() -> jinja2.BytecodeCache | None:
    """:class:`TemplateCache`, or none where jinja2's folder cannot be had (no writable
    temporary folder, or one owned by another user)."""
    try:
        return TemplateCache()
    except (OSError, RuntimeError):
        return None


def environment(templates: Path = TEMPLATES) -> jinja2.Environment:
    """The site's jinja2 environment: autoescaped, and loud about anything undefined."""
    env = jinja2.Environment(
        bytecode_cache=template_cache(),
        loader=jinja2.FileSystemLoader(templates),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["num"] = lambda v, d=2: "–" if v is None else f"{v:.{d}f}"
    env.filters["signed"] = lambda v, d=2: "–" if v is None else f"{v:+.{d}f}"
    env.filters["pct"] = lambda v: f"{100 * v:.1f}%"
    env.filters["json_script"] = lambda v: Markup(embed_json(v))
    env.filters["replay_script"] = lambda v: Markup(pack(v))
    env.filters["zip_seats"] = lambda ranks: sorted((r, s) for s, r in enumerate(ranks))
    env.globals.update(
        bot_path=bot_path,
        match_path=match_path,
        record_path=record_path,
        rules_path=rules_path,
        game_path=game_path,
        game_title=game_title,
        trend_batches=TREND_BATCHES,
    )
    return env


@functools.lru_cache(maxsize=4)
def shared_environment(templates: Path) -> jinja2.Environment:
    """One :func:`environment` per templates folder in a process, so its compiled templates
    are reused by every page (a server renders match pages one at a time)."""
    return environment(templates)


def fingerprint(league: League, templates: Path) -> str:
    """What the cache is valid for: the league, its rating settings, the templates and the
    site's own code (a changed template or drawing means every page must be rendered again)."""
    r = league.config.rating
    carry = league.config.entrants.resubmit
    digest = hashlib.sha256()
    code = Path(__file__).resolve().parent
    files = [(templates, p) for p in sorted(templates.rglob("*"))]
    files += [(code, p) for p in sorted(code.glob("*.py"))]
    for base, path in files:
        if path.is_file():
            digest.update(path.relative_to(base).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return (
        f"{VERSION}|{league_identity(league)}|{r.mu}|{r.sigma}|{r.beta}|{r.tau}"
        f"|{r.draw_probability}|{carry}|{digest.hexdigest()[:16]}"
    )


def league_identity(league: League) -> str:
    """What tells this league from another, wherever its folder is: its seed, its first
    entrant and its first stored result (a league copied or moved keeps its site's cache, a
    different league rendered into the same folder starts over). Before the first result the
    site has no match pages to lose."""
    first = league.entrants()[:1]
    entrant = [(e.id, e.name, e.version, e.submitted_at) for e in first]
    data = [league.config.seed, entrant, league.store.first_result()]
    return hashlib.sha256(orjson.dumps(data)).hexdigest()[:16]


class Pages:
    """Writes pages from the templates; also what a worker process needs for match pages."""

    def __init__(
        self,
        out: Path,
        templates: Path,
        bots: dict[int, BotRef],
        games: list[str],
        stderr: bool = True,
    ) -> None:
        self.out = out
        self.templates = templates
        self.env = shared_environment(templates)
        self.bots = bots
        self.games = games
        self.stderr = stderr
        """Whether pages show the bots' stderr tails (a server shows them to their authors
        only, so its public pages go without)."""
        self.pages = 0

    def shown(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` as the pages show it: without stderr tails unless they are shown."""
        return record if self.stderr else without_stderr(record)

    def render(self, path: str, template: str, **context: Any) -> str:
        """The page at ``path`` (relative to the site's root, which its links climb to)."""
        depth = path.count("/")
        return self.env.get_template(template).render(
            root="../" * depth, path=path, games=self.games, **context
        )

    def write(self, path: str, template: str, **context: Any) -> None:
        self.write_html(path, self.render(path, template, **context))

    def write_html(self, path: str, html: str) -> None:
        target = self.out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        partial.write_text(html, encoding="utf-8")
        os.replace(partial, target)
        self.pages += 1

    def copy_static(self) -> None:
        folder = self.out / "static"
        folder.mkdir(parents=True, exist_ok=True)
        for name in STATIC:
            shutil.copyfile(self.templates / "static" / name, folder / name)
        (folder / "models").mkdir(exist_ok=True)
        for name in (*MODEL_SCRIPTS, *(f"{game}.js" for game in sorted(MODELS))):
            shutil.copyfile(self.templates / "static" / "models" / name, folder / "models" / name)

    # -- match pages ----------------------------------------------------------------------

    def names(self, bots: Sequence[int]) -> list[str]:
        return [self.bots.get(b, unknown_bot(b)).name for b in bots]

    def match_page(self, m: StoredMatch) -> None:
        """Write the match's page and its record beside it (the same JSON, which the page of a
        game with a model also carries)."""
        record = self.shown(m.record)
        text = orjson.dumps(record)
        viewer = self.viewer(m, record, text)
        html = self.render_match(m, record, viewer)
        if not viewer.carries_record:
            self.write_record(m, text)
        self.write_html(match_path(m.match_id), html)

    def viewer(self, m: StoredMatch, record: dict[str, Any], text: bytes) -> Viewer:
        """The replay the page embeds: the record itself (``text``, its JSON) for a game with
        a model, which the page then also offers for download (no file beside it: 2.4 GB of
        the 100,000-match league's site), else the frames the Python viewer builds."""
        names = self.names(m.bots)
        return record_viewer(record, names, text) or build_viewer(record, names)

    def render_match(self, m: StoredMatch, record: dict[str, Any], viewer: Viewer) -> str:
        """The HTML of the match's page (its links relative to :func:`match_path`), given the
        record as the page shows it and the replay it embeds."""
        seats = []
        faulted = {f["seat"]: f for f in record.get("faults", [])}
        scores = record.get("result", {}).get("scores", [])
        for seat, bot in enumerate(m.bots):
            info = record["seats"][seat] if seat < len(record["seats"]) else {}
            seats.append(
                {
                    "seat": seat,
                    "bot": self.bots.get(bot, unknown_bot(bot)),
                    "said": str(info.get("said", "")),
                    "version": str(info.get("version", "")),
                    "rank": record["ranks"][seat],
                    "score": scores[seat] if seat < len(scores) else "",
                    "fault": faulted.get(seat),
                    "decisions": (record.get("decisions") or [{}] * len(m.bots))[seat],
                }
            )
        return self.render(
            match_path(m.match_id),
            "match.html",
            match=m,
            record=record,
            seats=seats,
            viewer=viewer,
            phases=phases_of(record),
            title=f"{game_title(m.game)} match {m.match_id}",
        )

    def write_record(self, m: StoredMatch, text: bytes) -> None:
        """The match's stored record as a file beside its page, for download (a file rather
        than a data link in the page: records of long games run to hundreds of kilobytes, and
        a data link would make every page carry its record twice, once for the viewer)."""
        target = self.out / record_path(m.match_id)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        partial.write_bytes(text)
        os.replace(partial, target)


def without_stderr(record: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``record`` with the stderr tail of every fault blanked."""
    faults = [{**f, "stderr_tail": ""} for f in record.get("faults", [])]
    return {**record, "faults": faults} if "faults" in record else record


_worker: Pages | None = None
_store: Path | None = None


def _start_worker(
    out: Path,
    templates: Path,
    bots: dict[int, BotRef],
    games: list[str],
    stderr: bool,
    store: Path,
) -> None:
    global _worker, _store
    _worker = Pages(out, templates, bots, games, stderr)
    _store = store


def _render_matches(chunk: Sequence[StoredMatch]) -> int:
    assert _worker is not None
    for m in chunk:
        _worker.match_page(m)
    return len(chunk)


def _render_stored(ids: Sequence[str]) -> int:
    """Render these matches' pages from the store (read here, not decoded by the building
    process and sent over); how many had a result."""
    assert _worker is not None and _store is not None
    with StoreReader.open(_store) as reader:
        found = [m for m in map(reader.result, ids) if m is not None]
    return _render_matches(found)


class Site(Pages):
    """One build of one league's site into ``out``."""

    def __init__(
        self,
        league: League,
        out: Path,
        templates: Path = TEMPLATES,
        workers: int = 1,
        link_all: bool = False,
        stderr: bool = True,
    ) -> None:
        self.league = league
        self.entrants: list[Entrant] = league.entrants()
        games = [g.name for g in league.config.games]
        super().__init__(out, templates, refs(self.entrants), games, stderr)
        self.workers = workers
        self.link_all = link_all
        self.match_pages = 0
        self.rendering: list[tuple[Future[int], bool]] = []
        """Match pages the workers are rendering while this process writes the others."""
        self.pending: set[str] = set()
        """The matches whose pages are among :attr:`rendering`."""

    def linked(self, match_id: str) -> bool:
        """Whether a list may link to the match's page: it is on disk or being rendered (or,
        for a site a server renders on demand, always)."""
        return (
            self.link_all or match_id in self.pending or (self.out / match_path(match_id)).is_file()
        )

    def lines(self, rows: Sequence[MatchRow]) -> list[MatchLine]:
        return match_lines(rows, self.bots, self.linked)

    def game_recent(self, cache: SiteCache, game: str) -> list[MatchRow]:
        """The latest matches of ``game``, oldest first."""
        size = cache.list_size(MatchList.GAME, game)
        return cache.list_page(MatchList.GAME, game, max(0, size - RECENT), RECENT)

    def front_matches(self, cache: SiteCache, reader: StoreReader) -> list[str]:
        """The matches the front pages list (:attr:`MatchPages.RECENT`): the latest ones and
        the bots' latest faults."""
        rows = cache.recent(RECENT)
        for game in self.games:
            rows += self.game_recent(cache, game)
        for bot in self.bots:
            rows += cache.recent(RECENT, bot)
        ids = [r.match_id for r in sorted({r.seq: r for r in rows}.values(), key=seq)]
        faults = [f.match_id for bot in self.bots for f in reader.faults_of(bot)]
        return list(dict.fromkeys(ids + faults))

    def missing(self, ids: Iterable[str]) -> list[str]:
        """The matches of ``ids`` with no page on disk."""
        return [i for i in ids if not (self.out / match_path(i)).is_file()]

    def render_missing(
        self,
        ids: Sequence[str],
        reader: StoreReader,
        progress: Callable[[int], None] | None,
        pool: Executor | None,
    ) -> int:
        """Render the pages of the matches ``ids`` (how many are asked for). With ``pool``,
        the last :data:`CHUNK` of them may still be rendering on return (:meth:`finish`); up to
        :data:`CHUNK` ids go to the workers as they are, and each reads its records."""
        if pool is not None and len(ids) <= CHUNK:  # the workers read the records themselves
            size = self.task_size(len(ids))
            for start in range(0, len(ids), size):
                part = list(ids[start : start + size])
                self.rendering.append((pool.submit(_render_stored, part), True))
                self.pending.update(part)
            return len(ids)
        count = 0
        chunk: list[StoredMatch] = []
        for match_id in ids:
            m = reader.result(match_id)
            if m is None:
                continue
            chunk.append(m)
            count += 1
            if len(chunk) >= CHUNK:
                self.render_matches(chunk, pool)
                self.finish()
                chunk = []
                if progress:
                    progress(count)
        if chunk:
            self.render_matches(chunk, pool)
        return count

    @contextlib.contextmanager
    def pool(self, pages: int | None = None) -> Iterator[Executor | None]:
        """Processes rendering match pages (none: in this one, also when fewer than
        :data:`POOL_FROM` ``pages`` are to be rendered: starting them would cost more), shut
        down on leaving, once what they were given is rendered (:meth:`finish`)."""
        if self.workers <= 1 or (pages is not None and pages < POOL_FROM):
            yield None
            return
        pool = ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_start_worker,
            initargs=(
                self.out,
                self.templates,
                self.bots,
                self.games,
                self.stderr,
                self.league.store.path,
            ),
        )
        try:
            yield pool
            self.finish()
        finally:
            pool.shutdown(cancel_futures=True)

    def render_matches(self, chunk: Sequence[StoredMatch], pool: Executor | None) -> None:
        """Render these matches' pages here, or hand them to ``pool`` in even shares (the
        pages are counted, and a worker's error raised, by :meth:`finish`)."""
        self.match_pages += len(chunk)
        if pool is None:
            for m in chunk:
                self.match_page(m)
            return
        # The longest games first: a long Phase 10 game's page costs many short ones', and
        # started last it would keep one worker busy after the others are done.
        ordered = sorted(chunk, key=lambda m: -len(m.record.get("actions", ())))
        size = self.task_size(len(chunk))
        for start in range(0, len(ordered), size):
            part = ordered[start : start + size]
            self.rendering.append((pool.submit(_render_matches, part), False))
            self.pending.update(m.match_id for m in part)

    def task_size(self, pages: int) -> int:
        """Pages a worker task takes: one when few (a long Phase 10 page costs many short
        ones', so small shares keep the workers ending together), at most 8 when many."""
        return max(1, min(8, pages // (16 * self.workers)))

    def finish(self) -> None:
        """Wait for the pages handed to the workers."""
        for future, count_at_finish in self.rendering:
            pages = future.result()
            self.pages += pages
            self.match_pages += pages if count_at_finish else 0
        self.rendering.clear()
        self.pending.clear()

    def ingest(
        self,
        cache: SiteCache,
        reader: StoreReader,
        progress: Callable[[int], None] | None,
        render: bool = True,
    ) -> int:
        """Take in every result stored since the last build (and, with ``render``, render
        their match pages)."""
        watermark = int(cache.get("store_row", "0"))
        count = 0
        chunk: list[StoredMatch] = []

        def flush() -> None:
            if render:  # the pages first: a match is remembered once its page is written
                self.render_matches(chunk, pool)
                self.finish()
            tally = Tally.empty()
            with cache.transaction():
                for m in chunk:
                    if cache.has_match(m.match_id):
                        continue
                    faulted = sorted({int(f["seat"]) for f in m.record.get("faults", [])})
                    ranks = m.record["ranks"]
                    scores = m.record.get("result", {}).get("scores", [])
                    cache.add_match(
                        m.match_id,
                        m.row,
                        m.batch,
                        m.game,
                        m.bots,
                        ranks,
                        scores,
                        faulted,
                        m.finished_at,
                        [str(f.get("status", "")) for f in m.record.get("faults", [])],
                        phases_of(m.record),
                    )
                    tally.add(m.game, m.batch, m.bots, ranks, scores, faulted)
                    tally.add_usage(m.game, m.bots, m.record.get("usage"))
                cache.add_tally(tally)
                cache.saw_finished(m.finished_at for m in chunk)
                cache.put("store_row", str(chunk[-1].row))
            chunk.clear()

        with self.pool() if render else contextlib.nullcontext() as pool:
            for m in reader.results_after(watermark, actions=render):
                chunk.append(m)
                count += 1
                if len(chunk) >= CHUNK:
                    flush()
                    if progress:
                        progress(count)
            if chunk:
                flush()
        return count

    # -- rating history -------------------------------------------------------------------

    def advance_history(self, cache: SiteCache) -> int:
        """Rate the batches the league has rated since the last build; remember each change."""
        league = self.league
        ratings = LeagueRatings(
            league.env,
            {e.id: e.previous for e in self.entrants},
            league.config.entrants.resubmit == Resubmit.CARRY,
        )
        done = int(cache.get("rated_batches", "0"))
        if done:
            ratings.load(tuple(r) for r in orjson.loads(cache.get("ratings", "[]")))
        target = league.rated_batches()
        if target <= done:
            return done
        before = {
            (g, b): (r.mu, r.sigma)
            for g, known in ratings.ratings.items()
            for b, r in known.items()
        }
        for batch in range(done, target):
            ratings.rate_batch(league.store.outcomes(batch))
            rows = []
            for game, known in ratings.ratings.items():
                for bot, r in known.items():
                    now = (float(r.mu), float(r.sigma))
                    if before.get((game, bot)) != now:
                        rows.append((game, bot, batch, *now))
                        before[(game, bot)] = now
            with cache.transaction():
                cache.add_history(rows)
                if batch == target - 1 or batch % 50 == 49:
                    cache.put("ratings", orjson.dumps(ratings.rows()).decode())
                    cache.put("rated_batches", str(batch + 1))
        return target

    # -- summary pages --------------------------------------------------------------------

    def standings(self) -> dict[str, list[Standing]]:
        ratings = self.league.load_ratings()
        return {g: ratings.standings(g) for g in self.games}

    def summary_pages(
        self, cache: SiteCache, reader: StoreReader, sizes_before: Mapping[tuple[str, str], int]
    ) -> None:
        rated = self.league.rated_batches()
        standings = self.standings()
        hib = {g.name: g.higher_is_better for g in self.league.config.games}
        tables = game_tables(cache, self.games, standings, self.bots, rated, hib)
        perf = cache.perf()
        multi = {
            g: s
            for g, s in standings.items()
            if any(max(c.seats) > 1 for c in self.league.config.games if c.name == g)
        }
        rating = self.league.config.rating
        newcomer = rating.mu - 3 * rating.sigma
        ranking = overall_rows(overall(multi, newcomer), self.bots, perf)
        last = cache.last_finished()
        played = cache.match_count()
        planned = self.league.store.planned_matches()
        recent = self.lines(cache.recent(RECENT))
        suspended = [b for b in self.bots.values() if b.status == EntrantStatus.SUSPENDED]
        self.write(
            "index.html",
            "index.html",
            title="Leaderboard",
            overall=ranking,
            tables=tables,
            last_run=last,
            played=played,
            planned=planned,
            rated=rated,
            recent=recent,
            suspended=suspended,
            league_name=self.league.folder.name,
        )
        for table in tables:
            self.game_page(table, cache)
            self.rules_page(table.game)
        self.write(
            "rules/index.html",
            "rules_index.html",
            title="Rules",
            specs=[(g, GAMES.get(g)) for g in self.games],
        )
        for entrant in self.entrants:
            self.bot_page(entrant, tables, cache, reader)
        self.search_index(cache, sizes_before)
        self.list_pages(cache, sizes_before)

    def game_page(self, table: GameTable, cache: SiteCache) -> None:
        spec = GAMES.get(table.game)
        conf = self.league.config.game(table.game)
        self.write(
            game_path(table.game),
            "game.html",
            title=table.title,
            table=table,
            spec=spec,
            seats=list(conf.seats),
            options=dict(conf.options),
            has_rules=bool(rules_text(table.game, SEEDS)),
            matrix=head_to_head(
                cache.game_pairs(table.game), [r.bot.id for r in table.rows], self.bots
            ),
            recent=self.lines(self.game_recent(cache, table.game)[::-1]),
            list_path=f"matches/{list_slug(MatchList.GAME, table.game)}/index.html",
        )

    def rules_page(self, game: str) -> None:
        """The game's rules from seeds/*.md, as HTML."""
        spec = GAMES.get(game)
        text = rules_text(game, SEEDS)
        self.write(
            rules_path(game),
            "rules.html",
            title=f"{game_title(game)} rules",
            game=game,
            spec=spec,
            rules=rules_html(text) if text else None,
        )

    def search_index(self, cache: SiteCache, sizes_before: Mapping[tuple[str, str], int]) -> None:
        """The index the search on the matches page loads: the bots (rewritten each build, as
        names and statuses change) and every match, in chunks of :data:`SEARCH_CHUNK`, of
        which only those new matches landed in are written again."""
        folder = self.out / "matches" / "search"
        folder.mkdir(parents=True, exist_ok=True)
        bots = {str(b.id): [b.name, b.shown_version if b.twin else ""] for b in self.bots.values()}
        titles = [game_title(g) for g in self.games]
        write_script(
            folder / "bots.js",
            "arenaSearchBots",
            {"bots": bots, "games": self.games, "titles": titles},
        )
        size = cache.list_size(MatchList.ALL, None)
        first = sizes_before.get((MatchList.ALL, "None"), 0) // SEARCH_CHUNK
        rows = cache.list_rows(MatchList.ALL, None, first * SEARCH_CHUNK)
        for chunk in range(first, -(-size // SEARCH_CHUNK)):
            part = [search_row(r, self.games) for r in itertools.islice(rows, SEARCH_CHUNK)]
            write_script(folder / f"chunk-{chunk}.js", "arenaSearchChunk", [chunk, part])

    def bot_page(
        self, entrant: Entrant, tables: Sequence[GameTable], cache: SiteCache, reader: StoreReader
    ) -> None:
        bot = self.bots[entrant.id]
        ratings = [(t, row) for t in tables for row in t.rows if row.bot.id == bot.id]
        solos = [(t, row) for t in tables for row in t.solo if row.bot.id == bot.id]
        history = cache.history(bot.id)
        charts = [chart(game_title(g), h) for g, h in sorted(history.items())]
        opponents = [
            Opponent(game, self.bots.get(opp, unknown_bot(opp)), a, b, t)
            for game, opp, a, b, t in cache.pairs(bot.id)
        ]
        versions = [BotRef.of(e) for e in self.entrants if e.name == entrant.name]
        self.write(
            bot_path(bot.id),
            "bot.html",
            title=bot.name,
            bot=bot,
            entrant=entrant,
            ratings=ratings,
            solos=solos,
            charts=charts,
            opponents=opponents,
            recent=self.lines(cache.recent(RECENT, bot.id)),
            faults=[
                f if self.stderr else dataclasses.replace(f, stderr_tail="")
                for f in reader.faults_of(bot.id)
            ],
            linked=self.linked,
            fault_kinds=reader.fault_kinds(bot.id),
            usage=usage_rows(cache.usage(bot.id)),
            versions=versions,
            list_path=f"matches/{list_slug(MatchList.BOT, bot.id)}/index.html",
        )

    def lists(self) -> list[tuple[MatchList, str | int | None, str]]:
        """Every match list: (kind, key, heading)."""
        out: list[tuple[MatchList, str | int | None, str]] = [
            (MatchList.ALL, None, "All matches"),
            (MatchList.FAULTS, None, "Matches with a fault"),
        ]
        out += [(MatchList.GAME, g, f"{game_title(g)} matches") for g in self.games]
        out += [(MatchList.BOT, b.id, f"Matches of {b.name}") for b in self.bots.values()]
        return out

    def list_sizes(self, cache: SiteCache) -> dict[tuple[str, str], int]:
        return {(kind, str(key)): cache.list_size(kind, key) for kind, key, _ in self.lists()}

    def list_pages(self, cache: SiteCache, sizes_before: Mapping[tuple[str, str], int]) -> None:
        """Every match list's pages that new matches landed on (oldest first on disk, newest
        first on a page), and each list's index (its newest page)."""
        directory = []
        for kind, key, heading in self.lists():
            size = cache.list_size(kind, key)
            folder = f"matches/{list_slug(kind, key)}"
            pages = max(1, -(-size // PAGE_SIZE))
            first = min(sizes_before.get((kind, str(key)), 0) // PAGE_SIZE, pages - 1)
            rows = cache.list_rows(kind, key, first * PAGE_SIZE)
            table = Markup("")
            for page in range(first, pages):
                table = self.list_table(folder, list(itertools.islice(rows, PAGE_SIZE)))
                self.write_list_page(table, heading, folder, page, pages, False)
            self.write_list_page(table, heading, folder, pages - 1, pages, True)
            directory.append((heading, f"{folder}/index.html", size, kind))
        total = cache.list_size(MatchList.ALL, None)
        self.write(
            "matches/index.html",
            "lists.html",
            title="Matches",
            directory=directory,
            chunks=-(-total // SEARCH_CHUNK),
            chunk_size=SEARCH_CHUNK,
            total=total,
        )

    def list_table(self, folder: str, rows: Sequence[MatchRow]) -> Markup:
        """The table of a list page's matches, newest first (a list's newest page and its
        index show the same table: rendered once for both)."""
        if not rows:
            return Markup("")
        lines = self.lines(rows[::-1])
        return Markup(self.render(f"{folder}/index.html", "match_table.html", lines=lines))

    def write_list_page(
        self,
        table: Markup,
        heading: str,
        folder: str,
        page: int,
        pages: int,
        is_index: bool,
    ) -> None:
        self.write(
            f"{folder}/index.html" if is_index else f"{folder}/page-{page + 1}.html",
            "matches.html",
            title=heading,
            heading=heading,
            table=table,
            page=page + 1,
            pages=pages,
            folder=folder,
            is_index=is_index,
        )


def seq(row: MatchRow) -> int:
    return row.seq


def write_script(path: Path, call: str, value: JSON) -> None:
    """A script that hands ``value`` to ``window[call]``: the search index is loaded with
    script elements, which work from a folder opened straight from disk (file://), where
    fetching JSON does not."""
    text = f"window.{call}({embed_json(value)});\n"
    partial = path.with_name(path.name + ".part")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def list_slug(kind: MatchList, key: str | int | None) -> str:
    if kind in (MatchList.ALL, MatchList.FAULTS):
        return kind.value
    return f"{kind}-{slug(str(key))}"


def match_page(
    league: League, match_id: str, templates: Path = TEMPLATES, stderr: bool = True
) -> str:
    """The HTML of one match's page, rendered from the league's store on demand: the same page
    :func:`build_site` writes at ``matches/m/ID.html`` (:func:`~arena.site.pages.match_path`),
    its links relative to that place (``../../static/viewer.js``). Raises :class:`KeyError`
    for a match with no stored result."""
    m = league.store.result(match_id)
    if m is None:
        raise KeyError(match_id)
    games = [g.name for g in league.config.games]
    pages = Pages(Path("."), templates, refs(league.entrants()), games, stderr)
    record = pages.shown(m.record)
    return pages.render_match(m, record, pages.viewer(m, record, orjson.dumps(record)))


def match_record(league: League, match_id: str, stderr: bool = True) -> bytes:
    """One match's stored record as JSON, the file the page offers for download
    (``matches/m/ID.json``, :func:`~arena.site.pages.record_path`). Raises :class:`KeyError`
    for a match with no stored result."""
    m = league.store.result(match_id)
    if m is None:
        raise KeyError(match_id)
    return orjson.dumps(m.record if stderr else without_stderr(m.record))


def build_site(
    league: League,
    out: Path,
    *,
    full: bool = False,
    templates: Path = TEMPLATES,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    matches: MatchPages = MatchPages.ALL,
    link_all: bool = False,
    stderr: bool = True,
) -> BuildReport:
    """Render (or bring up to date) the site of ``league`` in ``out``; the match pages that
    ``matches`` asks for are rendered by ``workers`` processes (1: in this one). Lists link
    the match pages on disk, or with ``link_all`` every one (a server renders the others when
    asked: :func:`match_page`). ``stderr`` False: no page shows a bot's stderr (a server
    shows it to the bot's author only)."""
    began = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    site = Site(league, out, templates, workers, link_all, stderr)
    with SiteCache.open(out) as cache, StoreReader.open(league.store.path) as reader:
        stamp = fingerprint(league, templates)
        shows = "stderr" if stderr else "no stderr"
        stale = (
            cache.get("fingerprint") != stamp
            or int(cache.get("store_row", "0")) > reader.last_row()
            or cache.get("shows", shows) != shows
        )
        if full or stale:
            cache.reset()
            shutil.rmtree(out / "matches", ignore_errors=True)
            cache.put("fingerprint", stamp)
        cache.put("shows", shows)
        site.copy_static()
        before = MatchPages(cache.get("match_pages", MatchPages.ALL))
        links = "all" if link_all else "rendered"
        if before != matches or cache.get("links", links) != links:
            # Other pages than the new matches' may be rendered now, or links shown: every
            # list page is written again.
            sizes_before: Mapping[tuple[str, str], int] = {}
        else:
            sizes_before = site.list_sizes(cache)
        new = site.ingest(cache, reader, progress, render=matches == MatchPages.ALL)
        todo: list[str] = []
        if matches == MatchPages.ALL and before != MatchPages.ALL:
            todo = site.missing(r.match_id for r in cache.list_rows(MatchList.ALL, None, 0))
        elif matches == MatchPages.RECENT:
            todo = site.missing(site.front_matches(cache, reader))
            games = cache.games_of(todo)  # long games first, to end the workers together
            todo.sort(key=lambda i: games.get(i) != "phase10")
        # The summary pages are written while the workers render the last match pages.
        with site.pool(len(todo)) as pool:
            site.render_missing(todo, reader, progress if todo else None, pool)
            rated = site.advance_history(cache)
            site.summary_pages(cache, reader, sizes_before)
        cache.put("match_pages", matches.value)
        cache.put("links", links)
    return BuildReport(
        new, site.pages, rated, time.monotonic() - began, full or stale, site.match_pages
    )


__all__ = [
    "CACHE_FILE",
    "BuildReport",
    "MatchPages",
    "MatchRow",
    "build_site",
    "environment",
    "match_page",
    "match_record",
]
