"""The site's page data, escaping, replay encoding, incremental rendering and commands."""

from __future__ import annotations

import contextlib
import html.parser
import json
import os
import re
import shutil
import sqlite3
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from arena.cli import main
from arena.games import GAMES
from arena.league.core import League
from arena.league.rating import rate_by_batches
from arena.league.store import Planned
from arena.players import RandomPlayer, play_local
from arena.site import build, build_site
from arena.site.build import TEMPLATES
from arena.site.cache import SiteCache
from arena.site.frames import build_viewer, decode, diff, embed_json, patch, unpack
from arena.site.pages import bot_path, chart, match_path
from arena.site.serve import Watcher, make_server
from arena.site.tables import drawing
from tests.site.leagues import (
    HOSTILE_AUTHOR,
    HOSTILE_HELLO,
    HOSTILE_LABEL,
    HOSTILE_NAME,
    HOSTILE_NOTE,
    HOSTILE_REASON,
    HOSTILE_STDERR,
    make_league,
    record_of,
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("site")
    folder = make_league(root / "league")
    with League.open(folder) as league:
        build_site(league, root / "site")
    return folder, root / "site"


def pages(site: Path) -> Iterator[Path]:
    yield from sorted(site.rglob("*.html"))


class Tags(html.parser.HTMLParser):
    """Every start tag with its attributes, and the text of each script element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


# -- escaping ------------------------------------------------------------------------------


def test_no_page_carries_markup_a_bot_author_wrote(built: tuple[Path, Path]) -> None:
    _, site = built
    checked = 0
    for page in pages(site):
        text = page.read_text("utf-8")
        parser = Tags()
        parser.feed(text)
        for tag, attrs in parser.tags:
            assert tag not in ("img", "b", "iframe", "object"), (page, tag)
            assert not any(name.startswith("on") for name in attrs), (page, tag, attrs)
            if tag == "script":
                assert attrs.get("src") or attrs.get("type") == "application/json", page
        for raw in (HOSTILE_NAME, HOSTILE_AUTHOR, HOSTILE_LABEL, HOSTILE_NOTE, HOSTILE_STDERR):
            assert raw not in text, (page, raw)
        checked += 1
    assert checked > 20


def test_hostile_strings_are_shown_as_text(built: tuple[Path, Path]) -> None:
    _, site = built
    index = (site / "index.html").read_text("utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in index
    bots = [p.read_text("utf-8") for p in (site / "bots").glob("*.html")]
    assert any("&lt;img src=x onerror=&#34;alert(2)&#34;&gt;" in b for b in bots)
    assert any(HOSTILE_REASON.replace("<", "&lt;").replace(">", "&gt;") in b for b in bots)
    stderr = HOSTILE_STDERR.replace("<", "&lt;").replace(">", "&gt;")
    assert any(stderr in b for b in bots)
    matches = [p.read_text("utf-8") for p in (site / "matches" / "m").glob("*.html")]
    assert any(HOSTILE_HELLO.replace("<", "&lt;").replace(">", "&gt;") in m for m in matches)


def test_replay_data_survives_the_script_block(built: tuple[Path, Path]) -> None:
    _, site = built
    found = 0
    for page in (site / "matches" / "m").glob("*.html"):
        parser = Tags()
        parser.feed(page.read_text("utf-8"))
        blocks = [s for s in parser.scripts if s.strip()]
        assert len(blocks) == 1
        data = unpack(blocks[0])
        if "record" in data:  # replayed in the browser by the game's model
            found += any(note == HOSTILE_NOTE for _step, _seat, note in data["record"]["debug"])
        else:
            found += any(n["note"] == HOSTILE_NOTE for n in data["notes"])
    assert found > 0


def test_embed_json_has_no_angle_bracket_and_round_trips() -> None:
    value = {"note": "</script><!--<script>", "n": [1, "<"]}
    text = embed_json(value)
    assert "<" not in text
    assert json.loads(text) == value


def test_page_files_come_from_ids() -> None:
    assert bot_path(7) == "bots/7.html"
    assert match_path("ab12-x_9") == "matches/m/ab12-x_9.html"
    unsafe = match_path("../../etc/passwd")
    assert unsafe.startswith("matches/m/x") and ".." not in unsafe and unsafe.count("/") == 2


def test_every_entrant_has_a_page_named_by_id(built: tuple[Path, Path]) -> None:
    folder, site = built
    with League.open(folder) as league:
        ids = {e.id for e in league.entrants()}
    assert {int(p.stem) for p in (site / "bots").glob("*.html")} == ids


# -- page data -----------------------------------------------------------------------------


def test_tallies_match_the_stored_results(built: tuple[Path, Path]) -> None:
    folder, site = built
    with League.open(folder) as league, SiteCache.open(site) as cache:
        outcomes = league.store.outcomes()
        perf = cache.perf()
        assert cache.match_count() == len(outcomes)
    twice = 0
    for (game, bot), p in perf.items():
        mine = [
            [r for b, r in zip(o.bots, o.ranks, strict=True) if b == bot]
            for o in outcomes
            if o.game == game and bot in o.bots
        ]
        twice += sum(1 for places in mine if len(places) > 1)
        assert p.matches == len(mine)
        assert p.wins == sum(1 for places in mine if min(places) == 1)
        assert p.place_sum == pytest.approx(sum(sum(x) / len(x) for x in mine))
    assert twice > 0


def test_history_ends_at_the_league_ratings(built: tuple[Path, Path]) -> None:
    folder, site = built
    with League.open(folder) as league, SiteCache.open(site) as cache:
        ratings = league.load_ratings()
        scratch = rate_by_batches(league.env, league.store.outcomes())
        for game, known in ratings.ratings.items():
            for bot, rating in known.items():
                last = cache.history(bot)[game][-1]
                assert last[1:] == pytest.approx((rating.mu, rating.sigma))
                assert scratch.ratings[game][bot].mu == pytest.approx(rating.mu)


def test_index_lists_every_game_and_the_solo_table(built: tuple[Path, Path]) -> None:
    _, site = built
    index = (site / "index.html").read_text("utf-8")
    for spec in GAMES.values():
        assert spec.title.replace("!", "!") in index
    if any(spec.min_seats == 1 for spec in GAMES.values()):
        assert "Solo score table" in index
    assert "suspended" in index
    assert "last stored a result" in index


def test_chart_coordinates() -> None:
    empty = chart("Take 5", [])
    assert empty.points == 0 and empty.mu_line == ""
    c = chart("Take 5", [(0, 25.0, 8.0), (1, 27.0, 7.0), (4, 30.0, 5.0)])
    assert c.points == 3
    assert len(c.mu_line.split()) == 3
    xs = [float(p.split(",")[0]) for p in c.mu_line.split()]
    assert xs == sorted(xs)
    assert c.y_ticks and c.x_ticks


# -- replay encoding -----------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values, json_values)
def test_patch_of_diff_gives_the_new_value(before: Any, after: Any) -> None:
    changes = diff(before, after)
    assert patch(before, changes) == after
    assert diff(after, after) == []


@pytest.mark.parametrize("game", sorted(GAMES))
def test_decoded_frames_are_the_views_of_every_step(game: str) -> None:
    spec = GAMES[game]
    seats = min(3, spec.max_seats)
    options = {"take5": {"max_rounds": 1}, "phase10": {"max_hands": 1, "max_turns": 6}}.get(
        game, {}
    )
    played = play_local(spec, 11, [RandomPlayer(f"11:{s}") for s in range(seats)], options)
    replay = played.replay
    record = record_of(
        "x",
        game,
        replay.seed,
        dict(replay.options),
        list(range(seats)),
        [f"p{s}" for s in range(seats)],
        replay.actions,
        played.state.result().to_json(),
    )
    viewer = build_viewer(record, [f"p{s}" for s in range(seats)])
    assert viewer.data is not None and viewer.error == ""
    omni, per_seat = decode(viewer.data)
    draw = drawing(game).table
    states = replay.states()
    assert len(omni) == len(states) == viewer.steps
    for i, state in enumerate(states):
        assert omni[i] == draw(state.snapshot(), seats, None)
        for s in range(seats):
            assert per_seat[s][i] == draw(state.observation(s), seats, s)
    assert len(viewer.data["events"]) == len(states)


def test_a_record_that_does_not_replay_gets_a_page_without_a_viewer() -> None:
    record = record_of(
        "x", "take5", 1, {}, [0, 1], ["a", "b"], [(0, 999)], {"scores": [0, 0], "ranks": [1, 1]}
    )
    viewer = build_viewer(record, ["a", "b"])
    assert viewer.data is not None
    assert "step 0" in viewer.error
    bad_game = dict(record, game="no-such-game")
    assert build_viewer(bad_game, ["a", "b"]).data is None


# -- incremental rendering -----------------------------------------------------------------


def add_batch(folder: Path, batch: int, count: int) -> list[str]:
    """Store ``count`` more Take 5 matches as batch ``batch`` and rate it."""
    with League.open(folder) as league:
        store = league.store
        bots = [e.id for e in league.entrants()][:2]
        planned, records = [], []
        for k in range(count):
            played = play_local(
                GAMES["take5"],
                100 * batch + k,
                [RandomPlayer(k), RandomPlayer(k + 1)],
                {"max_rounds": 1},
            )
            match_id = f"new{batch}x{k}"
            planned.append(
                Planned(
                    match_id,
                    batch,
                    k,
                    "take5",
                    k,
                    0,
                    100 * batch + k,
                    played.replay.options,
                    tuple(bots),
                )
            )
            records.append(
                record_of(
                    match_id,
                    "take5",
                    100 * batch + k,
                    dict(played.replay.options),
                    bots,
                    ["alpha", "x"],
                    played.replay.actions,
                    played.state.result().to_json(),
                )
            )
        with store.transaction():
            store.add_batch(batch, "uniform", batch, planned)
        for plan, record in zip(planned, records, strict=True):
            store.record_match(record, plan.bots)
        ratings = league.load_ratings()
        ratings.rate_batch(store.outcomes(batch))
        with store.transaction():
            store.save_ratings(ratings.rows())
            store.set_meta("rated_batches", str(batch + 1))
    return [r["match_id"] for r in records]


def test_a_rebuild_renders_only_the_new_matches(tmp_path: Path) -> None:
    folder = make_league(tmp_path / "league", games=["take5"], batches=2, tables=2, twice=False)
    site = tmp_path / "site"
    with League.open(folder) as league:
        first = build_site(league, site)
    assert first.full and first.new_matches == 4
    old = {p: p.stat().st_mtime_ns for p in (site / "matches" / "m").glob("*.html")}
    os.utime(site / "index.html", ns=(0, 0))
    with League.open(folder) as league:
        again = build_site(league, site)
    assert not again.full and again.new_matches == 0
    new_ids = add_batch(folder, 2, 3)
    with League.open(folder) as league:
        third = build_site(league, site)
    assert third.new_matches == 3 and third.rated_batches == 3
    assert {p: p.stat().st_mtime_ns for p in old} == old
    for match_id in new_ids:
        assert (site / match_path(match_id)).is_file()
    assert (site / "index.html").stat().st_mtime_ns > 0
    with SiteCache.open(site) as cache:
        assert cache.match_count() == 7
        assert cache.list_size("game", "take5") == 7
        assert max(b for b, _, _ in cache.history(1)["take5"]) == 2
    listing = (site / "matches" / "all" / "index.html").read_text("utf-8")
    assert all(m in listing for m in new_ids)
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
        (latest,) = db.execute("SELECT MAX(finished_at) FROM results").fetchone()
    assert f'datetime="{latest}"' in (site / "index.html").read_text("utf-8")


def test_a_list_read_from_any_position_is_the_rest_of_the_whole_list(
    built: tuple[Path, Path],
) -> None:
    _, site = built
    with SiteCache.open(site) as cache:
        for kind, key in [("all", None), ("faults", None), ("game", "take5"), ("bot", 1)]:
            whole = list(cache.list_rows(kind, key, 0))
            assert cache.list_size(kind, key) == len(whole) > 0, kind
            for offset in range(len(whole) + 2):
                assert list(cache.list_rows(kind, key, offset)) == whole[offset:]
        every = list(cache.list_rows("all", None, 0))
        wanted = [r.match_id for r in every] + ["no such match"]
        assert cache.games_of(wanted) == {r.match_id: r.game for r in every}


def test_a_different_league_in_the_same_folder_starts_over(tmp_path: Path) -> None:
    site = tmp_path / "site"
    one = make_league(tmp_path / "one", games=["take5"], batches=1, tables=1, twice=False)
    two = make_league(tmp_path / "two", games=["take5"], batches=1, tables=2, seed=9, twice=False)
    with League.open(one) as league:
        build_site(league, site)
    with League.open(two) as league:
        report = build_site(league, site)
    assert report.full and report.new_matches == 2
    with SiteCache.open(site) as cache:
        assert cache.match_count() == 2


# -- commands and serving ------------------------------------------------------------------


def test_leaderboard_command(tmp_path: Path) -> None:
    folder = make_league(tmp_path / "league", games=["take5"], batches=1, tables=1, twice=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["leaderboard", str(folder), "--out", str(out), "--quiet", "--workers", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "1 new matches, 1 match pages (recent)" in result.output
    assert len(list((out / "matches" / "m").glob("*.html"))) == 1
    assert (out / "index.html").is_file() and (out / "static" / "viewer.js").is_file()
    missing = CliRunner().invoke(main, ["leaderboard", str(tmp_path / "nope"), "--out", str(out)])
    assert missing.exit_code != 0


def test_serve_rebuilds_when_results_arrive(tmp_path: Path) -> None:
    folder = make_league(tmp_path / "league", games=["take5"], batches=1, tables=1, twice=False)
    out = tmp_path / "out"
    with League.open(folder) as league:
        build_site(league, out)
    watcher = Watcher(lambda: League.open(folder), out, 60.0, None)
    assert watcher.check() is True
    assert watcher.check() is False
    add_batch(folder, 1, 2)
    assert watcher.check() is True and watcher.builds == 1
    server = make_server(out, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=10) as reply:
            body = reply.read().decode()
        assert "Leaderboard" in body
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_a_changed_template_renders_every_page_again(tmp_path: Path) -> None:
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES, templates)
    folder = make_league(tmp_path / "league", games=["take5"], batches=1, tables=1, twice=False)
    with League.open(folder) as league:
        assert build_site(league, tmp_path / "site", templates=templates).full
        assert not build_site(league, tmp_path / "site", templates=templates).full
        footer = templates / "base.html"
        footer.write_text(footer.read_text("utf-8").replace("Rendered by", "Drawn by"), "utf-8")
        again = build_site(league, tmp_path / "site", templates=templates)
    assert again.full and again.new_matches == 1
    page = next((tmp_path / "site" / "matches" / "m").glob("*.html")).read_text("utf-8")
    assert "Drawn by" in page


def test_match_lists_are_paged_and_only_new_pages_are_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.site.build.PAGE_SIZE", 2)
    folder = make_league(tmp_path / "league", games=["take5"], batches=2, tables=2, twice=False)
    site = tmp_path / "site"
    with League.open(folder) as league:
        build_site(league, site)
    lists = site / "matches" / "all"
    assert sorted(p.name for p in lists.glob("page-*.html")) == ["page-1.html", "page-2.html"]
    first_page = (lists / "page-1.html").stat().st_mtime_ns
    add_batch(folder, 2, 3)
    with League.open(folder) as league:
        build_site(league, site)
    assert sorted(p.name for p in lists.glob("page-*.html")) == [
        "page-1.html",
        "page-2.html",
        "page-3.html",
        "page-4.html",
    ]
    assert (lists / "page-1.html").stat().st_mtime_ns == first_page
    with SiteCache.open(site) as cache:
        everything = [r.match_id for r in cache.list_rows("all", None, 0)]
    assert len(everything) == 7
    for page in range(4):
        text = (lists / f"page-{page + 1}.html").read_text("utf-8")
        for i, match_id in enumerate(everything):
            assert (match_path(match_id) in text) == (i // 2 == page), (page, match_id)
    assert match_path(everything[-1]) in (lists / "index.html").read_text("utf-8")


def test_a_site_without_stderr_shows_no_tail_anywhere(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    """A server's public pages go without the bots' stderr (it is for their authors): no page,
    record or viewer data (packed or not) holds a tail, though the league has them."""
    folder, with_stderr = built
    marker = "Traceback..."

    def tails(site: Path) -> int:
        found = 0
        for path in site.rglob("*"):
            if path.suffix not in (".html", ".json"):
                continue
            text = path.read_text("utf-8")
            found += marker in text
            if path.suffix == ".html" and "/m/" in path.as_posix():
                parser = Tags()
                parser.feed(text)
                found += sum(marker in json.dumps(unpack(b)) for b in parser.scripts if b.strip())
        return found

    assert tails(with_stderr) > 0
    out = tmp_path / "site"
    with League.open(folder) as league:
        build_site(league, out, stderr=False)
        some = next(iter(league.store.stored_results())).match_id
        assert marker not in build.match_page(league, some, stderr=False)
        assert marker.encode() not in build.match_record(league, some, stderr=False)
    assert tails(out) == 0
    # The same folder built again with stderr shown is rendered anew, not left without.
    with League.open(folder) as league:
        build_site(league, out)
    assert tails(out) > 0


def test_compiled_templates_are_kept_and_a_cache_that_cannot_be_written_is_skipped(
    tmp_path: Path,
) -> None:
    kept = build.TemplateCache(str(tmp_path))
    env = build.environment()
    env.bytecode_cache = kept
    assert "Rules" in env.get_template("rules_index.html").render(
        root="", path="rules/index.html", games=[], title="Rules", specs=[]
    )
    cached = {p: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    assert len(cached) == 2 and all(p.name.startswith("arena-site-") for p in cached)
    again = build.environment()
    again.bytecode_cache = build.TemplateCache(str(tmp_path))
    compiled = []
    again.compile = lambda *a, **k: compiled.append(a)  # type: ignore[method-assign]
    again.get_template("rules_index.html")
    assert compiled == [] and {p: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == cached
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("x")
    env = build.environment()
    env.bytecode_cache = build.TemplateCache(str(blocked))
    assert "Rules" in env.get_template("rules_index.html").render(
        root="", path="rules/index.html", games=[], title="Rules", specs=[]
    )


def test_match_pages_rendered_by_worker_processes_are_the_ones_rendered_here(
    tmp_path: Path,
) -> None:
    folder = make_league(tmp_path / "league", games=["take5", "ten"], batches=2, tables=2)
    with League.open(folder) as league:
        here = build_site(league, tmp_path / "here", workers=1)
        there = build_site(league, tmp_path / "there", workers=2)
    assert here.match_pages == there.match_pages >= build.POOL_FROM

    def pages(site: Path) -> dict[str, bytes]:
        return {
            str(p.relative_to(site)): p.read_bytes()
            for p in (site / "matches" / "m").rglob("*")
            if p.is_file()
        }

    assert pages(tmp_path / "here") == pages(tmp_path / "there") != {}


def test_recent_match_pages_rendered_by_workers_are_linked_as_the_ones_rendered_here(
    tmp_path: Path,
) -> None:
    folder = make_league(tmp_path / "league", games=["take5", "ten"], batches=2, tables=2)
    with League.open(folder) as league:
        here = build_site(league, tmp_path / "here", matches=build.MatchPages.RECENT)
        there = build_site(league, tmp_path / "there", workers=2, matches=build.MatchPages.RECENT)
    assert here.match_pages == there.match_pages >= build.POOL_FROM
    for name in ("index.html", "matches/all/index.html", "games/take5.html"):
        assert (tmp_path / "here" / name).read_text("utf-8") == (
            tmp_path / "there" / name
        ).read_text("utf-8"), name
    index = (tmp_path / "there" / "index.html").read_text("utf-8")
    linked = re.findall(r'href="(matches/m/[^"]+\.html)"', index)
    assert linked and all((tmp_path / "there" / m).is_file() for m in linked)
    with League.open(folder) as league:  # a page still being rendered is linked already
        site = build.Site(league, tmp_path / "empty")
        assert not site.linked("m-x")
        site.pending.add("m-x")
        assert site.linked("m-x")
