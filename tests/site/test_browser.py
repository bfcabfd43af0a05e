"""The site in a real headless Chromium: follow links, step through a replay of every game,
switch the point of view, and no console errors. Screenshots go to test-output/screenshots/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.games import GAMES
from arena.league.core import League
from arena.league.store import StoredMatch
from arena.players import RandomPlayer, play_local
from arena.site import build_site
from arena.site.build import TEMPLATES, Pages
from arena.site.frames import MODELS, build_viewer, decode, unintern, unpack
from arena.site.pages import BotRef, match_path
from tests.site.cdp import CHROMIUM, Browser
from tests.site.leagues import HOSTILE_NAME, HOSTILE_NOTE, make_league, record_of

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed"),
]

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    folder = make_league(root / "league", batches=3, tables=2)
    with League.open(folder) as league:
        build_site(league, root / "site")
    return root / "site"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as b:
        b.viewport(1280, 900)
        yield b


def no_errors(browser: Browser) -> None:
    errors, browser.errors[:] = list(browser.errors), []
    assert errors == []


READY = "document.getElementById('viewer').dataset.ready === 'true'"
"""The replay viewer has drawn its first frame (a page carrying its record starts once the
browser has inflated it, after the load event)."""


def wait_until(browser: Browser, condition: str) -> bool:
    """Wait (10 s at most) until the JavaScript ``condition`` holds: for what a page loads
    after its own load event."""
    return bool(
        browser.evaluate(
            "new Promise(done => { const start = Date.now(); (function poll() {"
            f" if ({condition}) done(true); else if (Date.now() - start > 10000) done(false);"
            " else setTimeout(poll, 25); })(); })"
        )
    )


def test_index_bot_and_match_pages(site: Path, browser: Browser) -> None:
    browser.goto((site / "index.html").as_uri())
    assert browser.evaluate("document.title").startswith("Leaderboard")
    # The hostile name is text, and nothing it carries ran.
    assert browser.evaluate("document.querySelectorAll('script:not([src])').length") == 0
    names = browser.evaluate("[...document.querySelectorAll('a.bot')].map(a => a.textContent)")
    assert HOSTILE_NAME in names
    # Sorting a table by a column reverses on the second click.
    first = "document.querySelector('table.standings tbody tr td:nth-child(2)').textContent"
    browser.click("table.standings thead th:nth-child(5) button")
    ascending = browser.evaluate(first)
    browser.click("table.standings thead th:nth-child(5) button")
    assert browser.evaluate(first) != ascending
    browser.screenshot(SHOTS / "index.png")
    browser.click("a.bot")
    assert "/bots/" in browser.evaluate("location.href")
    assert browser.evaluate("document.querySelectorAll('figure.chart svg polyline').length") >= 2
    browser.screenshot(SHOTS / "bot.png")
    browser.click("table.matches a[href*='matches/m/']")
    assert "/matches/m/" in browser.evaluate("location.href")
    assert wait_until(browser, READY)
    no_errors(browser)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_replay_of_every_game(site: Path, browser: Browser, game: str) -> None:
    browser.viewport(1280, 900)
    browser.goto((site / "matches" / f"game-{game}" / "index.html").as_uri())
    browser.click("table.matches a[href*='matches/m/']")
    assert wait_until(browser, READY)
    assert browser.evaluate("document.getElementById('viewer').dataset.game") == game
    label = "document.getElementById('step-label').textContent"
    cards = "document.querySelectorAll('#board .card').length"
    assert browser.evaluate(label).startswith("Step 0 of ")
    assert browser.evaluate(cards) > 0
    for _ in range(5):
        browser.key("ArrowRight", "ArrowRight", 39)
    assert browser.evaluate(label).startswith("Step 5 of ")
    browser.key("ArrowLeft", "ArrowLeft", 37)
    assert browser.evaluate(label).startswith("Step 4 of ")
    browser.click("[data-go=last]")
    last = browser.evaluate(label)
    assert last.split()[1] == last.split()[3]
    browser.key("Home", "Home", 36)
    for _ in range(3):
        browser.key("ArrowRight", "ArrowRight", 39)
    browser.screenshot(SHOTS / f"replay-{game}-all.png")
    # One seat's point of view: its own panel is marked, and what it saw is drawn.
    assert "{" not in browser.evaluate("document.getElementById('move').textContent")
    browser.key("1", "Digit1", 49)
    assert browser.evaluate("document.querySelector('input[name=view]:checked').value") == "0"
    assert browser.evaluate("document.querySelectorAll('#board .seat.me').length") == 1
    assert browser.evaluate(cards) > 0
    browser.screenshot(SHOTS / f"replay-{game}-seat0.png")
    browser.click("input[name=view][value=all]")
    browser.viewport(390, 844, mobile=True)
    browser.screenshot(SHOTS / f"replay-{game}-phone.png")
    no_errors(browser)


def test_debug_notes_and_faults_in_the_replay_are_text(site: Path, browser: Browser) -> None:
    browser.viewport(1280, 900)
    browser.goto((site / "matches" / "faults" / "index.html").as_uri())
    browser.click("table.matches a[href*='matches/m/']")
    assert wait_until(browser, READY)
    browser.key("Home", "Home", 36)
    browser.click("#marks button.mark.note")
    notes = browser.evaluate(
        "[...document.querySelectorAll('#alerts pre')].map(p => p.textContent)"
    )
    assert any("</script><script>alert(3)</script>" in n for n in notes)
    browser.key("ArrowRight", "ArrowRight", 39)
    faults = browser.evaluate("document.querySelectorAll('#alerts .alert.bad').length")
    assert faults >= 1
    assert (
        browser.evaluate(
            "document.querySelectorAll('#board img, #alerts img, #alerts script').length"
        )
        == 0
    )
    browser.screenshot(SHOTS / "replay-fault.png")
    no_errors(browser)


def test_game_page_and_a_filtered_match_list(site: Path, browser: Browser) -> None:
    browser.viewport(1280, 900)
    game = sorted(GAMES)[0]
    browser.goto((site / "games" / f"{game}.html").as_uri())
    assert browser.evaluate("document.querySelectorAll('table.h2h td.h2h-cell').length") > 0
    browser.screenshot(SHOTS / f"game-{game}.png")
    browser.click("a.rules-link")
    assert browser.evaluate("location.href").endswith(f"/rules/{game}.html")
    assert browser.evaluate("document.querySelectorAll('article.rules h2').length") > 2
    assert browser.evaluate("document.querySelectorAll('article.rules table').length") > 0
    browser.screenshot(SHOTS / f"rules-{game}.png")
    browser.viewport(390, 844, mobile=True)
    for name in sorted(GAMES):
        browser.goto((site / "rules" / f"{name}.html").as_uri())
        assert browser.evaluate("document.documentElement.scrollWidth") <= 400, name
    browser.screenshot(SHOTS / "rules-phone.png")
    browser.viewport(1280, 900)
    browser.goto((site / "matches" / "all" / "index.html").as_uri())
    rows = "[...document.querySelectorAll('table.matches tbody tr')].filter(r => !r.hidden).length"
    before = browser.evaluate(rows)
    browser.evaluate(
        "(() => { const i = document.querySelector('input[data-filter]'); i.value = 'gamma';"
        " i.dispatchEvent(new Event('input')); })()"
    )
    after = browser.evaluate(rows)
    assert 0 < after < before
    browser.screenshot(SHOTS / "matches.png")
    browser.viewport(390, 844, mobile=True)
    browser.goto((site / "index.html").as_uri())
    assert browser.evaluate("document.documentElement.scrollWidth") <= 400
    browser.screenshot(SHOTS / "index-phone.png")
    no_errors(browser)


def index_rows(site: Path) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for chunk in sorted((site / "matches" / "search").glob("chunk-*.js")):
        text = chunk.read_text("utf-8")
        rows += json.loads(text[text.index("(") + 1 : text.rindex(")")])[1]
    return rows


def search(browser: Browser, query: str) -> None:
    browser.evaluate(
        "(() => { const i = document.getElementById('search-q');"
        f" i.value = {json.dumps(query)};"
        " document.getElementById('search-form').requestSubmit(); })()"
    )
    assert wait_until(
        browser, "document.getElementById('search-status').textContent.includes('found')"
    )


def test_search_finds_any_match_of_the_league(site: Path, browser: Browser) -> None:
    browser.viewport(1280, 900)
    rows = index_rows(site)
    found = "document.querySelectorAll('#search-results tbody tr').length"
    browser.goto((site / "matches" / "index.html").as_uri() + "#q=gamma")
    assert wait_until(browser, found + " > 0")
    gamma = 3  # the third entrant of make_league
    assert browser.evaluate(found) == sum(gamma in r[4] for r in rows)
    # every word must match: a game and a fault kind
    search(browser, "ten crash")
    expected = [r for r in rows if r[2] == 1 and "crash" in r[8]]
    assert browser.evaluate(found) == len(expected)
    # by match id, and the result links to the match's page
    search(browser, rows[-1][1])
    assert browser.evaluate(found) == 1
    assert browser.evaluate("location.hash") == "#q=" + rows[-1][1]
    browser.screenshot(SHOTS / "search.png")
    browser.click("#search-results tbody a[href*='matches/m/']")
    assert browser.evaluate("location.href").endswith(f"/matches/m/{rows[-1][1]}.html")
    # the hostile name is found, and stays text
    browser.goto((site / "matches" / "index.html").as_uri())
    search(browser, HOSTILE_NAME)
    assert browser.evaluate(found) > 0
    names = browser.evaluate(
        "[...document.querySelectorAll('#search-results a.bot')].map(a => a.textContent)"
    )
    assert HOSTILE_NAME in names
    assert browser.evaluate("document.querySelectorAll('#search-results script').length") == 0
    # paged: four results to a page, the older ones on the next
    browser.evaluate("document.getElementById('search').setAttribute('data-page', '4')")
    search(browser, "batch 1")
    in_batch = sum(r[3] == 1 for r in rows)
    assert in_batch > 4 and browser.evaluate(found) == 4
    browser.click("#search-results button[data-page=next]")
    assert browser.evaluate(found) == min(4, in_batch - 4)
    browser.viewport(390, 844, mobile=True)
    assert browser.evaluate("document.documentElement.scrollWidth") <= 400
    browser.screenshot(SHOTS / "search-phone.png")
    no_errors(browser)


def test_a_link_opens_the_replay_at_a_step_and_seat(site: Path, browser: Browser) -> None:
    browser.viewport(1280, 900)
    page = site / "matches" / "m" / f"{index_rows(site)[0][1]}.html"
    label = "document.getElementById('step-label').textContent"
    checked = "document.querySelector('input[name=view]:checked').value"
    browser.goto(page.as_uri())
    assert wait_until(browser, READY)
    assert browser.evaluate("location.hash") == ""  # opened plainly: the address is left alone
    browser.goto((site / "index.html").as_uri())
    browser.goto(page.as_uri() + "#step=3&seat=1")
    assert wait_until(browser, READY)
    assert browser.evaluate(label).startswith("Step 3 of ")
    assert browser.evaluate(checked) == "1"
    assert browser.evaluate("document.querySelector('#board .seat.me h3').textContent").startswith(
        "seat 1"
    )
    browser.key("ArrowRight", "ArrowRight", 39)
    assert browser.evaluate("location.hash") == "#step=4&seat=1"
    assert browser.evaluate("document.getElementById('permalink').getAttribute('href')") == (
        "#step=4&seat=1"
    )
    browser.click("input[name=view][value=all]")
    assert browser.evaluate("location.hash") == "#step=4&seat=all"
    # a new address on the same page moves the replay; a step past the end is the last one
    browser.evaluate("location.hash = '#step=2&seat=0'")
    assert wait_until(browser, f"{label}.startsWith('Step 2 of ')")
    assert browser.evaluate(checked) == "0"
    browser.goto((site / "index.html").as_uri())  # (a new fragment alone fires no load event)
    browser.goto(page.as_uri() + "#step=99999&seat=nonsense")
    assert wait_until(browser, READY)
    last = browser.evaluate(label)
    assert last.split()[1] == last.split()[3]
    assert browser.evaluate(checked) == "all"
    # the record is a download: the one the page carries, under the match's own name
    link = "document.querySelector('a.record')"
    assert browser.evaluate(f"{link}.getAttribute('download')") == page.with_suffix(".json").name
    assert browser.evaluate(f"{link}.href").startswith("blob:")
    text = browser.evaluate(f"fetch({link}.href).then(r => r.text())")
    assert json.loads(text)["match_id"] == page.stem
    no_errors(browser)


def test_head_to_head_on_a_phone_scrolls_in_its_box(site: Path, browser: Browser) -> None:
    browser.viewport(390, 844, mobile=True)
    browser.goto((site / "games" / "take5.html").as_uri())
    assert browser.evaluate("document.documentElement.scrollWidth") <= 400
    titles = browser.evaluate(
        "[...document.querySelectorAll('table.h2h td.h2h-cell')].map(td => td.title)"
    )
    assert titles and all(" ahead of " in t and " matches (" in t for t in titles)
    browser.screenshot(SHOTS / "h2h-phone.png")
    no_errors(browser)


LONG_GAMES: dict[str, tuple[int, dict[str, Any]]] = {
    "phase10": (3, {"max_hands": 4}),
    "take5": (5, {}),
    "ten": (4, {}),
}
"""Seats and options of the long game played per game (Phase 10's: over 500 steps)."""


def long_game_page(
    root: Path, game: str, monkeypatch: pytest.MonkeyPatch, model: bool
) -> tuple[Path, dict[str, Any]]:
    """A game played to its end by random players, rendered alone, its page carrying the record
    for the game's model to replay (``model``) or the frames the Python viewer built; and the
    viewer data Python built."""
    seats, options = LONG_GAMES[game]
    spec = GAMES[game]
    played = play_local(spec, 3, [RandomPlayer(f"3:{s}") for s in range(seats)], options)
    names = ["alpha", HOSTILE_NAME, "gamma", "delta", "epsilon"][:seats]
    record = record_of(
        "long1",
        game,
        3,
        dict(played.replay.options),
        list(range(1, seats + 1)),
        names,
        played.replay.actions,
        played.state.result().to_json(),
        debug=[(5, 1, HOSTILE_NOTE)],
    )
    bots = {b: BotRef(b, n, "", "", "v", "active", "") for b, n in enumerate(names, 1)}
    if not model:
        monkeypatch.setattr("arena.site.build.record_viewer", lambda *_args: None)
    pages = Pages(root, TEMPLATES, bots, [game])
    pages.copy_static()
    match = StoredMatch(1, "long1", 0, 0, game, tuple(bots), "now", record)
    pages.match_page(match)
    viewer = build_viewer(record, names)
    assert viewer.data is not None
    return root / match_path("long1"), viewer.data


@pytest.mark.parametrize(
    ("game", "model"), [*((g, True) for g in sorted(MODELS)), ("phase10", False)]
)
def test_a_long_game_replays_in_the_browser(
    tmp_path: Path, browser: Browser, monkeypatch: pytest.MonkeyPatch, game: str, model: bool
) -> None:
    """The board, its facts and the move in words at steps through the game, from every point
    of view, are the Python viewer's: replayed from the record by the game's model, or decoded
    from the packed frames (bzip2, base64) for a game without one."""
    page, data = long_game_page(tmp_path, game, monkeypatch, model)
    text = page.read_text("utf-8")
    block = json.loads(text.split('id="replay-data">', 1)[1].split("</script>", 1)[0])
    if model:
        assert set(block) == {"game", "names", "faces", "seed", "record"}
    else:
        assert isinstance(block, str)  # packed: one string
    assert page.with_suffix(".json").exists() is not model  # the record for download
    omni, per_seat = decode(data)
    moves = unintern(data)["moves"]
    steps = len(omni)
    assert steps > (500 if game == "phase10" else 30)
    browser.viewport(1280, 900)
    browser.goto(page.as_uri())
    assert wait_until(browser, READY)
    cards = "document.querySelectorAll('#board .card').length"
    facts = "[...document.querySelectorAll('#board > dl.facts dd')].map(d => d.textContent)"
    label = "document.getElementById('step-label').textContent"
    assert browser.evaluate("document.getElementById('step').max") == str(steps - 1)
    for step in (0, 1, 6, steps // 2, steps - 2, steps - 1, 7, 3):
        for view, tables in (("all", omni), ("0", per_seat[0]), ("2", per_seat[2])):
            browser.evaluate(f"location.hash = '#step={step}&seat={view}'")
            assert wait_until(browser, f"{label}.startsWith('Step {step} of ')")
            table = tables[step]
            lines = [z["lines"] for z in table["zones"]]
            lines += [z["lines"] for p in table["seats"] for z in p["zones"]]
            assert browser.evaluate(cards) == sum(len(line) for ls in lines for line in ls)
            assert browser.evaluate(facts) == [f[1] for f in table["facts"]]
            move = browser.evaluate("document.getElementById('move').textContent")
            if step:
                assert moves[step][1] in move
    browser.evaluate("location.hash = '#step=6&seat=all'")
    assert wait_until(browser, f"{label}.startsWith('Step 6 of ')")
    notes = browser.evaluate(
        "[...document.querySelectorAll('#alerts pre')].map(p => p.textContent)"
    )
    assert HOSTILE_NOTE in notes
    no_errors(browser)


@pytest.mark.parametrize("game", sorted(MODELS))
def test_a_record_that_does_not_replay_says_where_it_stops(
    tmp_path: Path, browser: Browser, monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    """A damaged record (its twelfth action replaced by one no rule allows) replays up to that
    action, and the page says where and why, in the Python viewer's words."""
    page, _data = long_game_page(tmp_path, game, monkeypatch, True)
    text = page.read_text("utf-8")
    record = unpack(text.split('id="replay-data">', 1)[1].split("</script>", 1)[0])["record"]
    record["actions"][11][1] = {"no such": "action"}
    names = ["alpha", HOSTILE_NAME, "gamma", "delta", "epsilon"][: len(record["seats"])]
    bots = {b: BotRef(b, n, "", "", "v", "active", "") for b, n in enumerate(names, 1)}
    pages = Pages(tmp_path, TEMPLATES, bots, [game])
    pages.match_page(StoredMatch(1, "long1", 0, 0, game, tuple(bots), "now", record))
    expected = build_viewer(record, names).error
    assert expected.startswith("the replay stops at step 11: ")
    browser.goto(page.as_uri())
    assert wait_until(browser, READY)
    notice = "document.getElementById('replay-error')"
    assert browser.evaluate(f"{notice}.hidden") is False
    assert browser.evaluate(f"{notice}.textContent") == expected
    assert browser.evaluate("document.getElementById('step').max") == "11"
    record["options"] = {"no such option": 1}
    pages.match_page(StoredMatch(1, "long1", 0, 0, game, tuple(bots), "now", record))
    expected = build_viewer(record, names).error
    assert expected.startswith("this match cannot be replayed: ")
    browser.goto(page.as_uri())
    assert wait_until(browser, "document.getElementById('viewer').dataset.ready === 'error'")
    assert browser.evaluate(f"{notice}.textContent") == expected
    no_errors(browser)
