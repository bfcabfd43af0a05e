"""The site in a real headless Chromium: follow links, step through a replay of every game,
switch the point of view, and no console errors. Screenshots go to test-output/screenshots/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.games import GAMES
from arena.league.core import League
from arena.site import build_site
from tests.site.cdp import CHROMIUM, Browser
from tests.site.leagues import HOSTILE_NAME, make_league

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
    assert browser.evaluate("document.getElementById('viewer').dataset.ready") == "true"
    no_errors(browser)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_replay_of_every_game(site: Path, browser: Browser, game: str) -> None:
    browser.viewport(1280, 900)
    browser.goto((site / "matches" / f"game-{game}" / "index.html").as_uri())
    browser.click("table.matches a[href*='matches/m/']")
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
    assert browser.evaluate("document.querySelector('pre.rules').textContent.length") > 200
    browser.screenshot(SHOTS / f"game-{game}.png")
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
