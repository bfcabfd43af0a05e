"""The site's search index, head-to-head matrix, rules pages, record downloads, Phase 10's
phases in the lists and Ten's replay (issue 19, item 11). The browser side (searching, links to
a step) is in test_browser.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from arena.games import GAMES
from arena.games.ten import score_cards
from arena.league.core import League
from arena.league.store import StoredMatch, StoreReader
from arena.players import RandomPlayer, play_local
from arena.site import build_site
from arena.site.cache import SiteCache
from arena.site.frames import MODELS, action_words, build_viewer, decode, unintern, unpack
from arena.site.pages import (
    BotRef,
    head_to_head,
    match_path,
    phases_of,
    record_path,
    rules_html,
    search_row,
)
from arena.site.tables import ten_action, ten_table, ten_words
from tests.site.leagues import HOSTILE_NAME, make_league
from tests.site.test_site import Tags, add_batch


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("features")
    folder = make_league(root / "league")
    with League.open(folder) as league:
        build_site(league, root / "site")
    return folder, root / "site"


def load_script(path: Path, call: str) -> Any:
    text = path.read_text("utf-8")
    prefix = f"window.{call}("
    assert text.startswith(prefix) and text.endswith(");\n")
    return json.loads(text[len(prefix) : -3])


def stored(folder: Path) -> list[StoredMatch]:
    with League.open(folder) as league, StoreReader.open(league.store.path) as reader:
        return list(reader.results_after(0))


def search_rows(site: Path) -> list[list[Any]]:
    rows = []
    for chunk in sorted((site / "matches" / "search").glob("chunk-*.js")):
        k, part = load_script(chunk, "arenaSearchChunk")
        assert chunk.name == f"chunk-{k}.js"
        rows += part
    return rows


# -- search --------------------------------------------------------------------------------


def test_the_search_index_holds_every_match(built: tuple[Path, Path]) -> None:
    folder, site = built
    rows = search_rows(site)
    meta = load_script(site / "matches" / "search" / "bots.js", "arenaSearchBots")
    with SiteCache.open(site) as cache:
        everything = list(cache.list_rows("all", None, 0))
    records = {m.match_id: m.record for m in stored(folder)}
    assert [r[1] for r in rows] == [m.match_id for m in everything]
    for row, match in zip(rows, everything, strict=True):
        record = records[match.match_id]
        assert meta["games"][row[2]] == record["game"]
        assert row[4] == list(match.bots) and row[5] == record["ranks"]
        assert row[8] == [f["status"] for f in record["faults"]]
        assert bool(row[7]) == bool(record["faults"])
        # the page the search links to is the match's page
        stem = row[9] or row[1]
        assert (site / "matches" / "m" / f"{stem}.html").is_file()
    assert any(r[8] == ["crash"] for r in rows)
    # names are data for textContent, and the script file carries no markup
    assert HOSTILE_NAME in [name for name, _ in meta["bots"].values()]
    assert "<" not in (site / "matches" / "search" / "bots.js").read_text("utf-8")
    page = (site / "matches" / "index.html").read_text("utf-8")
    assert 'id="search"' in page and f'data-chunks="{-(-len(rows) // 1000)}"' in page


def test_a_search_row_names_a_hashed_page_and_phases() -> None:
    from arena.site.cache import MatchRow

    row = MatchRow(5, "a b/c", 2, "phase10", (1, 2), (2, 1), (40.0, 12.5), (0,), "", ("crash",))
    out = search_row(row, ["take5", "phase10"])
    assert out[:9] == [5, "a b/c", 1, 2, [1, 2], [2, 1], [40, 12.5], [0], ["crash"]]
    assert match_path("a b/c").endswith(f"/{out[9]}.html")
    with_phases = MatchRow(6, "m6", 0, "phase10", (1, 2), (1, 2), (5, 9), (), "", (), (4, 3))
    assert search_row(with_phases, ["phase10"])[9:] == [0, [4, 3]]


def test_only_the_search_chunks_new_matches_landed_in_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.site.build.SEARCH_CHUNK", 2)
    folder = make_league(tmp_path / "league", games=["take5"], batches=2, tables=2, twice=False)
    site = tmp_path / "site"
    with League.open(folder) as league:
        build_site(league, site)
    search = site / "matches" / "search"
    assert sorted(p.name for p in search.glob("chunk-*.js")) == ["chunk-0.js", "chunk-1.js"]
    first = (search / "chunk-0.js").stat().st_mtime_ns
    new_ids = add_batch(folder, 2, 3)
    with League.open(folder) as league:
        build_site(league, site)
    assert sorted(p.name for p in search.glob("chunk-*.js")) == [
        "chunk-0.js",
        "chunk-1.js",
        "chunk-2.js",
        "chunk-3.js",
    ]
    assert (search / "chunk-0.js").stat().st_mtime_ns == first
    ids = [r[1] for r in search_rows(site)]
    assert len(ids) == 7 and ids[-3:] == new_ids


# -- head to head --------------------------------------------------------------------------


def ref(bot: int) -> BotRef:
    return BotRef(bot, f"b{bot}", "", "", "", "active", "")


def test_head_to_head_matrix_from_the_pairs() -> None:
    pairs = {(1, 2): (3, 1, 0), (2, 1): (1, 3, 0), (1, 3): (0, 0, 2), (3, 1): (0, 0, 2)}
    matrix = head_to_head(pairs, [2, 1], {b: ref(b) for b in (1, 2, 3)})
    assert [b.id for b in matrix.bots] == [2, 1, 3]  # the standings, then the others
    assert matrix.cells[0][0] is None and matrix.cells[0][2] is None  # itself; never met
    cell = matrix.cells[1][0]
    assert cell is not None and (cell.ahead, cell.played, cell.share) == (3, 4, 0.75)
    tied = matrix.cells[1][2]
    assert tied is not None and tied.share == 0.0 and tied.tied == 2
    assert matrix.left_out == 0


def test_head_to_head_shows_the_top_of_the_standings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.site.pages.H2H_MAX", 2)
    pairs = {(a, b): (1, 0, 0) for a in (1, 2, 3) for b in (1, 2, 3) if a != b}
    matrix = head_to_head(pairs, [3, 1, 2], {b: ref(b) for b in (1, 2, 3)})
    assert [b.id for b in matrix.bots] == [3, 1] and matrix.left_out == 1
    assert len(matrix.cells) == 2 and all(len(line) == 2 for line in matrix.cells)


def test_game_page_shows_the_matrix_with_counts(built: tuple[Path, Path]) -> None:
    _, site = built
    with SiteCache.open(site) as cache:
        pairs = cache.game_pairs("take5")
    page = (site / "games" / "take5.html").read_text("utf-8")
    assert 'class="h2h"' in page
    titles = re.findall(r'title="([^"]*) ahead of ([^"]*) in (\d+) of (\d+) matches', page)
    assert len(titles) == len([p for p in pairs.values() if sum(p)])
    counts = sorted((int(a), int(n)) for *_, a, n in titles)
    assert counts == sorted((t[0], sum(t)) for t in pairs.values() if sum(t))
    # the hostile name is escaped inside the title attribute too
    assert "&lt;script&gt;alert(1)&lt;/script&gt; ahead of" in page


# -- rules ---------------------------------------------------------------------------------


def test_rules_pages_are_rendered_markdown_linked_from_game_pages_and_nav(
    built: tuple[Path, Path],
) -> None:
    _, site = built
    for game in GAMES:
        page = (site / "rules" / f"{game}.html").read_text("utf-8")
        parser = Tags()
        parser.feed(page)
        tags = [t for t, _ in parser.tags]
        assert "h2" in tags and "table" in tags and "code" in tags, game
        assert "rules/" + f"{game}.html" in (site / "games" / f"{game}.html").read_text("utf-8")
    index = (site / "index.html").read_text("utf-8")
    assert 'href="rules/index.html"' in index
    listing = (site / "rules" / "index.html").read_text("utf-8")
    assert all(f"{g}.html" in listing for g in GAMES)


def test_rules_markdown_passes_no_raw_html_nor_unsafe_links() -> None:
    html = str(
        rules_html(
            "# T\n\n<script>alert(1)</script>\n\ntext <img src=x onerror=alert(2)>\n\n"
            "[bad](javascript:alert(3)) [good](https://example.org)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
        )
    )
    assert "<script" not in html and "<img" not in html and 'href="javascript' not in html
    assert "&lt;script&gt;" in html and '<a href="https://example.org">' in html
    assert "<table>" in html and "<h1>T</h1>" in html


# -- a match's record, Phase 10's phases ---------------------------------------------------


def test_each_match_page_offers_its_record(built: tuple[Path, Path]) -> None:
    """A page that carries its record (every game with a model) offers that for download, with
    no file beside it (the viewer links the record it inflated; a server answers the link's own
    address from the store); a page of frames has the file beside it."""
    folder, site = built
    for m in stored(folder):
        path = site / record_path(m.match_id)
        page = (site / match_path(m.match_id)).read_text("utf-8")
        name = record_path(m.match_id).rsplit("/", 1)[1]
        block = page.split('id="replay-data">', 1)[1].split("</script>", 1)[0]
        data = unpack(block)
        if m.game in MODELS:  # the viewer gives the link its address: the record inflated
            assert f'<a class="record" id="record-link" download="{name}">' in page
            assert data["record"] == m.record and not path.exists()
        else:
            assert f'href="../../{record_path(m.match_id)}" download="{name}"' in page
            assert orjson.loads(path.read_bytes()) == m.record


def test_phase10_lists_show_the_phases_completed(built: tuple[Path, Path]) -> None:
    folder, site = built
    games = [m for m in stored(folder) if m.game == "phase10"]
    assert games
    listing = (site / "matches" / "game-phase10" / "index.html").read_text("utf-8")
    for m in games:
        phases = m.record["result"]["details"]["phases"]
        assert phases_of(m.record) == phases
        for seat, n in enumerate(phases):
            score = m.record["result"]["scores"][seat]
            assert f"{n} phase{'' if n == 1 else 's'}</span>, {score} pts" in listing
    take5 = (site / "matches" / "game-take5" / "index.html").read_text("utf-8")
    assert "phases completed" not in take5
    assert phases_of({"game": "take5", "result": {"details": {"phases": [1]}}}) == []


# -- Ten's replay --------------------------------------------------------------------------


def ten_played(seats: int = 3) -> Any:
    for seed in range(40):
        played = play_local(GAMES["ten"], seed, [RandomPlayer(seed + i) for i in range(seats)])
        if any(isinstance(a, dict) and "bid" in a for _, a in played.replay.actions):
            return played
    raise AssertionError("no Ten game with a bid in 40 seeds")


def ten_record(played: Any) -> dict[str, Any]:
    seats = len(played.state.result().ranks)
    return {
        "game": "ten",
        "seed": played.replay.seed,
        "options": dict(played.replay.options),
        "seats": [{"name": f"s{i}"} for i in range(seats)],
        "actions": [[s, a] for s, a in played.replay.actions],
    }


def test_ten_replay_shows_the_auction_the_points_and_words() -> None:
    played = ten_played()
    record = ten_record(played)
    viewer = build_viewer(record, ["a", "b", "c"])
    assert viewer.data is not None and not viewer.error
    omni, seats = decode(viewer.data)
    moves = unintern(viewer.data)["moves"][1:]
    assert all("{" not in text for _, text, *_ in moves)
    bids = [i + 1 for i, (_, text, *_) in enumerate(moves) if text.startswith("bids ")]
    assert bids and all(" for " in moves[i - 1][1] for i in bids)
    for frame in bids:
        # the frame before a bid is the auction the bidder saw
        for table in (omni[frame - 1], seats[0][frame - 1]):
            zones = {z["title"]: z for z in table["zones"]}
            assert "Wild up for auction" in zones, frame
    final = omni[-1]
    points = [dict(map(tuple, p["facts"]))["Points"] for p in final["seats"]]
    assert points == [str(s) for s in played.state.result().scores]


def test_ten_words() -> None:
    assert ten_words("R5") == "red 5"
    assert ten_words("B*") == "blue wild"
    assert ten_words("*7") == "wild 7 (any colour)"
    assert ten_words("#") == "the full wild"
    assert ten_words("$3") == "currency 3"
    auction = {"auction": {"wild": "G*", "high_bid": 0, "high_bidder": None, "to_bid": [1]}}
    assert ten_action(auction, {"bid": 2}) == "bids 2 for green wild"
    assert ten_action({}, "take_numbers") == "stops and takes the number cards"
    assert ten_action({}, {"buy": "O4"}) == "buys orange 4"
    assert ten_action({}, {"card": "R1"}) == "pays with red 1"
    assert ten_action({}, {"odd": 1}) == '{"odd":1}'
    assert action_words("ten", {}, {"card": ""}) == '{"card":""}'
    assert action_words("ten", None, "draw") == "draw"
    assert action_words("take5", {"decision": "card"}, 55) == "play card 55"


def test_ten_table_points_follow_the_collected_cards() -> None:
    played = ten_played(2)
    snap = played.state.snapshot()
    table = ten_table(snap, 2, None)
    for s, panel in enumerate(table["seats"]):
        facts = dict(map(tuple, panel["facts"]))
        assert facts["Points"] == str(score_cards(snap["collected"][s]))
