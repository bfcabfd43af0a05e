"""Light match pages: packed replay data, the bzip2 decoder the viewer carries, seat tables
drawn from the omniscient one, pages rendered on demand, and a site that survives a copy."""

from __future__ import annotations

import base64
import bz2
import json
import random
import re
import shutil
import subprocess
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.games import GAMES
from arena.league.core import League
from arena.league.store import pack_record, unpack_head
from arena.players import RandomPlayer, play_local
from arena.site import build_site, match_page, match_record
from arena.site.build import TEMPLATES, MatchPages
from arena.site.cache import SiteCache
from arena.site.frames import PACKED_OVER, build_viewer, pack, unintern, unpack
from arena.site.pages import match_path, record_path
from arena.site.serve import make_server
from arena.site.tables import drawing, mask
from tests.site.leagues import HOSTILE_NOTE, make_league, record_of

NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_viewers_bzip2_decoder_reads_what_python_writes(tmp_path: Path) -> None:
    rng = random.Random(5)
    samples = [b"", b"a", b"aaaa", b"aaaaa", b"ab" * 3000, bytes(range(256)) * 4]
    samples += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2000))) for _ in range(8)]
    samples += [bytes(rng.choice(b"ab") for _ in range(rng.randrange(1, 9000))) for _ in range(8)]
    samples += [("é✓" * 500 + "x" * 300).encode(), b"y" * 1_000_000]
    samples += [bytes(rng.randrange(256) for _ in range(150_000))]  # two blocks at level 1
    cases = [
        [base64.b64encode(bz2.compress(s, level)).decode(), s.hex()]
        for s in samples
        for level in (1, 9)
    ]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    script = f"""
        require({json.dumps(str(TEMPLATES / "static" / "bzip2.js"))});
        const cases = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const wrong = cases.filter(([packed, hex]) => Buffer.from(
            globalThis.arenaBunzip2(Uint8Array.from(Buffer.from(packed, "base64")))
        ).toString("hex") !== hex).length;
        console.log(JSON.stringify({{checked: cases.length, wrong}}));
        try {{ globalThis.arenaBunzip2(Uint8Array.from([66, 90, 104, 57, 1, 2, 3])); }}
        catch (e) {{ console.log(JSON.stringify({{damaged: e.message}})); }}
    """
    assert NODE is not None
    run = subprocess.run(
        [NODE, "-e", script, str(tmp_path / "cases.json")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert lines[0] == {"checked": len(cases), "wrong": 0}
    assert lines[1]["damaged"].startswith("bzip2:")


@pytest.mark.parametrize("game", [g for g in sorted(GAMES) if drawing(g).masked_views])
def test_seat_tables_are_the_masked_table_where_the_drawing_says_so(game: str) -> None:
    """The viewer draws these games' seat tables from the omniscient one, without drawing the
    observations: at every step of these games, for every seat, that is what the seat saw."""
    spec = GAMES[game]
    draw = drawing(game).table
    variants = {
        "phase10": [{"max_hands": 3}],
        "take5": [{}, {"tactics": True, "professional": True}, {"more_than": True}],
    }
    for seats in sorted({spec.min_seats, 3, spec.max_seats}):
        for seed, options in enumerate(variants.get(game, [{}, {}])):
            played = play_local(
                spec, seed, [RandomPlayer(f"{seed}:{s}") for s in range(seats)], options
            )
            state = played.replay.new_state()
            for step in range(len(played.replay.actions) + 1):
                if step:
                    state.apply(*played.replay.actions[step - 1])
                table = draw(state.snapshot(), seats, None)
                for s in range(seats):
                    assert draw(state.observation(s), seats, s) == mask(table, s), (seed, step)


def take5_record(rounds: int | None) -> dict[str, object]:
    spec = GAMES["take5"]
    options = spec.validate_options({"max_rounds": rounds})
    played = play_local(spec, 4, [RandomPlayer(f"4:{s}") for s in range(4)], options)
    return record_of(
        "t1",
        "take5",
        4,
        dict(played.replay.options),
        [1, 2, 3, 4],
        ["a", "b", "c", "d"],
        played.replay.actions,
        played.state.result().to_json(),
        debug=[(1, 0, HOSTILE_NOTE)],
    )


def test_small_replay_data_stays_json_and_big_is_packed() -> None:
    small = build_viewer(take5_record(1), ["a", "b", "c", "d"]).data
    big = build_viewer(take5_record(None), ["a", "b", "c", "d"]).data
    assert small is not None and big is not None
    for data in (small, big):
        text = pack(data)
        assert "<" not in text
        assert unpack(text) == json.loads(json.dumps(unintern(data)))
    assert isinstance(json.loads(pack(small)), dict)
    packed = json.loads(pack(big))
    assert isinstance(packed, str) and len(json.dumps(big)) > PACKED_OVER
    assert len(packed) < len(json.dumps(big)) / 5


def test_a_copied_or_moved_league_re_renders_nothing(tmp_path: Path) -> None:
    folder = make_league(tmp_path / "league", games=["take5"], batches=2, tables=2, twice=False)
    site = tmp_path / "site"
    with League.open(folder) as league:
        assert build_site(league, site).new_matches == 4
    copy = shutil.copytree(folder, tmp_path / "elsewhere" / "league-copy")
    stamps = {p: p.stat().st_mtime_ns for p in (site / "matches" / "m").glob("*")}
    with League.open(copy) as league:
        again = build_site(league, site)
    assert not again.full and again.new_matches == 0
    shutil.rmtree(folder)  # moved: only the copy is left
    moved_site = shutil.copytree(site, tmp_path / "elsewhere" / "site-copy")
    with League.open(copy) as league:
        third = build_site(league, moved_site)
    assert not third.full and third.new_matches == 0
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps


def test_a_different_league_with_the_same_folder_name_starts_over(tmp_path: Path) -> None:
    site = tmp_path / "site"
    make_league(tmp_path / "a" / "league", games=["take5"], batches=1, tables=1, twice=False)
    make_league(
        tmp_path / "b" / "league", games=["take5"], batches=1, tables=2, seed=9, twice=False
    )
    with League.open(tmp_path / "a" / "league") as league:
        build_site(league, site)
    shutil.rmtree(tmp_path / "a")
    shutil.move(tmp_path / "b", tmp_path / "a")
    with League.open(tmp_path / "a" / "league") as league:
        report = build_site(league, site)
    assert report.full and report.new_matches == 2


def test_a_match_page_on_demand_is_the_page_the_build_writes(tmp_path: Path) -> None:
    folder = make_league(tmp_path / "league", games=["take5", "phase10"], batches=1, tables=1)
    site = tmp_path / "site"
    with League.open(folder) as league:
        build_site(league, site)
        ids = [m.match_id for m in league.store.results_after(0)]
        assert ids
        for match_id in ids:
            built = (site / match_path(match_id)).read_text("utf-8")
            assert match_page(league, match_id) == built
            block = built.split('id="replay-data">', 1)[1].split("</script>", 1)[0]
            carried = unpack(block)["record"]  # the page carries its record: no file beside it
            assert json.loads(match_record(league, match_id)) == carried
            assert not (site / record_path(match_id)).exists()
        with pytest.raises(KeyError):
            match_page(league, "no-such-match")
        with pytest.raises(KeyError):
            match_record(league, "no-such-match")


def hrefs(page: Path) -> list[str]:
    return re.findall(r'href="([^"#]+)"', page.read_text("utf-8"))


def dead_links(site: Path) -> list[tuple[Path, str]]:
    """Local links of the site's pages that lead to no file."""
    dead = []
    for page in site.rglob("*.html"):
        for href in hrefs(page):
            if "://" not in href and not (page.parent / href).exists():
                dead.append((page, href))
    return dead


def test_recent_renders_the_front_pages_matches_and_links_only_pages_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.site.build.RECENT", 2)
    folder = make_league(tmp_path / "league", games=["take5", "ten"], batches=3, tables=2)
    site = tmp_path / "site"
    with League.open(folder) as league:
        report = build_site(league, site, matches=MatchPages.RECENT)
        everything = [m.match_id for m in league.store.results_after(0)]
    rendered = {p.stem for p in (site / "matches" / "m").glob("*.html")}
    assert report.new_matches == len(everything) > len(rendered) == report.match_pages > 0
    with SiteCache.open(site) as cache:
        assert cache.match_count() == len(everything)
        latest = [r.match_id for r in cache.recent(2)]
    assert set(latest) <= rendered
    assert dead_links(site) == []
    listing = (site / "matches" / "all" / "page-1.html").read_text("utf-8")
    assert "not rendered" in listing
    for match_id in everything:
        assert (match_path(match_id) in listing) == (match_id in rendered)


def test_a_site_without_match_pages_gets_them_all_when_asked(tmp_path: Path) -> None:
    folder = make_league(tmp_path / "league", games=["take5"], batches=2, tables=2, twice=False)
    site = tmp_path / "site"
    with League.open(folder) as league:
        none = build_site(league, site, matches=MatchPages.NONE)
        assert none.match_pages == 0 and not list((site / "matches" / "m").glob("*"))
        assert dead_links(site) == []
        every = build_site(league, site, matches=MatchPages.ALL)
        ids = [m.match_id for m in league.store.results_after(0)]
    assert every.new_matches == 0 and every.match_pages == len(ids) == 4
    listing = (site / "matches" / "all" / "index.html").read_text("utf-8")
    assert "not rendered" not in listing
    assert all(match_path(i) in listing for i in ids)
    assert dead_links(site) == []


def test_serve_renders_a_match_page_when_it_is_asked_for(tmp_path: Path) -> None:
    folder = make_league(tmp_path / "league", games=["take5"], batches=1, tables=2, twice=False)
    site = tmp_path / "site"
    with League.open(folder) as league:
        build_site(league, site, matches=MatchPages.NONE, link_all=True)
        match_id = next(league.store.results_after(0)).match_id
        expected = match_page(league, match_id)
        record = match_record(league, match_id)
    listing = (site / "matches" / "all" / "index.html").read_text("utf-8")
    assert match_path(match_id) in listing and "not rendered" not in listing
    assert not (site / match_path(match_id)).exists()
    server = make_server(site, "127.0.0.1", 0, lambda: League.open(folder, read_only=True))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with urllib.request.urlopen(base + match_path(match_id), timeout=30) as reply:
            assert reply.read().decode() == expected
        assert (site / match_path(match_id)).read_text("utf-8") == expected  # kept
        with urllib.request.urlopen(base + record_path(match_id), timeout=30) as reply:
            assert reply.read() == record
        for missing in ("matches/m/nope.html", "matches/m/x%3Cb%3E.html"):
            with pytest.raises(urllib.error.HTTPError) as error:
                urllib.request.urlopen(base + missing, timeout=30)
            assert error.value.code == 404
            error.value.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_a_record_read_without_its_actions_is_the_rest_of_it() -> None:
    record = take5_record(1)
    record["debug"] = [[1, 0, '],"debug":[], "result": {}}'], [2, 1, HOSTILE_NOTE]]
    rest = {k: v for k, v in record.items() if k != "actions"}
    packed = pack_record(record)
    assert unpack_head(packed.body) == rest
    assert unpack_head(json.dumps(record)) == rest  # a record stored as plain JSON text
    assert unpack_head(json.dumps(record).encode()) == rest
    del record["debug"], rest["debug"]  # no key after the actions to find: decoded whole
    assert unpack_head(pack_record(record).body) == rest


def test_leaderboard_renders_the_match_pages_asked_for(tmp_path: Path) -> None:
    folder = make_league(tmp_path / "league", games=["take5"], batches=1, tables=2, twice=False)
    out = tmp_path / "out"
    runner = CliRunner()
    none = runner.invoke(main, ["leaderboard", str(folder), "--out", str(out), "--matches", "none"])
    assert none.exit_code == 0, none.output
    assert "2 new matches, 0 match pages (none)" in none.output
    assert not list((out / "matches" / "m").glob("*.html"))
    every = runner.invoke(main, ["leaderboard", str(folder), "--out", str(out), "--matches", "all"])
    assert every.exit_code == 0, every.output
    assert "0 new matches, 2 match pages (all)" in every.output
    assert len(list((out / "matches" / "m").glob("*.html"))) == 2
    wrong = runner.invoke(main, ["leaderboard", str(folder), "--matches", "some"])
    assert wrong.exit_code == 2
