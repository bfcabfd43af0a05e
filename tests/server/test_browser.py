"""The server end to end in headless Chromium, against a real ``arena server`` process: a new
author sets a password with the operator's sign-up token, uploads a bot through the form, watches
its validation, finds it on the live leaderboard after matches, asks for a scrimmage and opens a
replay; a second author can neither withdraw nor replace the first one's bot. No console errors
(a Content Security Policy violation is one)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.accounts import Accounts
from tests.server.conftest import PASSWORD, People, bot_archive
from tests.server.test_kill import free_port, get, server, wait_for
from tests.server.test_runner import small_league
from tests.site.cdp import CHROMIUM, Browser, BrowserError
from tests.site.test_browser import READY, wait_until

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed"),
]

SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"


@pytest.fixture
def browser() -> Iterator[Browser]:
    with Browser() as b:
        b.viewport(1280, 900)
        yield b


def fill(browser: Browser, values: dict[str, str]) -> None:
    for selector, value in values.items():
        browser.evaluate(
            f"document.querySelector({json.dumps(selector)}).value = {json.dumps(value)}"
        )


def submit(browser: Browser, form: str) -> None:
    """Submit a form and wait for the page it leads to."""
    mark = len(browser.events)
    browser.evaluate(f"document.querySelector({json.dumps(form)}).submit()")
    browser.wait_for("Page.loadEventFired", mark)


def text_of(browser: Browser, selector: str) -> str:
    try:
        value = browser.evaluate(
            f"document.querySelector({json.dumps(selector)})?.textContent ?? ''"
        )
    except BrowserError:  # the page was reloading
        return ""
    return str(value)


def wait_text(browser: Browser, selector: str, wanted: set[str], seconds: float = 120) -> str:
    """Wait for a self-reloading page to show one of ``wanted`` in ``selector``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = text_of(browser, selector).strip()
        if text in wanted:
            return text
        time.sleep(0.5)
    raise AssertionError(f"{selector} never showed {wanted}")


def no_errors(browser: Browser) -> None:
    errors, browser.errors[:] = list(browser.errors), []
    assert errors == []


def test_author_from_nothing_to_the_leaderboard(tmp_path: Path, browser: Browser) -> None:
    folder = small_league(tmp_path / "league", matches=30)
    People(folder)  # bob (and alice, root) with passwords
    with Accounts.open(folder) as accounts:
        token = accounts.add_user("dana")
    archive = tmp_path / "dana-bot.tar.gz"
    archive.write_bytes(bot_archive(tmp_path, "dana-bot"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with server(folder, port, more=30):
        wait_for(lambda: bool(get(port, "/api/v1/standings")))
        # Sign up with the operator's token.
        browser.goto(f"{base}/account/signup")
        fill(
            browser,
            {
                "input[name=token]": token,
                "input[name=password]": "dana-secret-1",
                "input[name=again]": "dana-secret-1",
            },
        )
        submit(browser, "#signup")
        assert browser.evaluate("location.pathname") == "/account/"
        assert "dana" in text_of(browser, "h1")
        # Upload through the form.
        browser.goto(f"{base}/account/upload")
        document = browser.send("DOM.getDocument")["root"]["nodeId"]
        node = browser.send(
            "DOM.querySelector", {"nodeId": document, "selector": "input[type=file]"}
        )["nodeId"]
        browser.send("DOM.setFileInputFiles", {"nodeId": node, "files": [str(archive)]})
        submit(browser, "#upload")
        assert "/account/validations/" in browser.evaluate("location.pathname")
        assert wait_text(browser, "#status", {"passed", "failed"}) == "passed"
        browser.screenshot(SHOTS / "server-validation.png")
        no_errors(browser)
        # On the leaderboard after matches (the page is re-rendered as batches are rated).
        deadline = time.monotonic() + 180
        while "dana-bot" not in text_of(browser, "table.standings"):
            assert time.monotonic() < deadline, "dana-bot never reached the leaderboard"
            time.sleep(1.0)
            browser.goto(f"{base}/index.html")
        browser.screenshot(SHOTS / "server-leaderboard.png")
        no_errors(browser)
        # A scrimmage against the two others, with a replay.
        browser.goto(f"{base}/account/scrimmages")
        browser.evaluate(
            "document.querySelectorAll('input[name=opponents]').forEach(c => c.checked ="
            " c.value !== 'dana-bot')"
        )
        fill(browser, {"input[name=matches]": "2"})
        submit(browser, "#scrimmage")
        assert "/account/scrimmages/" in browser.evaluate("location.pathname")
        assert wait_text(browser, "#status", {"done", "failed"}) == "done"
        # The page reloads itself every 2 s until the scrimmage has ended: a reload may land
        # between the click and the replay's page, so wait for the path, clicking again if the
        # reload took the click's place.
        for _ in range(3):
            browser.click("a.replay")
            deadline = time.monotonic() + 5
            while "/site/matches/m/" not in browser.evaluate("location.pathname"):
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            else:
                break
        assert "/site/matches/m/" in browser.evaluate("location.pathname")
        assert wait_until(browser, READY)
        browser.screenshot(SHOTS / "server-scrimmage-replay.png")
        no_errors(browser)
        # A second author cannot touch dana's bot.
        browser.goto(f"{base}/account/")
        submit(browser, "form[action='/account/signout']")
        browser.goto(f"{base}/account/signin")
        fill(browser, {"input[name=name]": "bob", "input[name=password]": PASSWORD})
        submit(browser, "#signin")
        assert "bob" in text_of(browser, "h1")
        status = browser.evaluate(
            "fetch('/account/bots/dana-bot/withdraw', {method: 'POST', body: new URLSearchParams("
            "{csrf: document.querySelector('input[name=csrf]').value})}).then(r => r.status)"
        )
        assert status == 403
        browser.goto(f"{base}/account/upload")
        document = browser.send("DOM.getDocument")["root"]["nodeId"]
        node = browser.send(
            "DOM.querySelector", {"nodeId": document, "selector": "input[type=file]"}
        )["nodeId"]
        browser.send("DOM.setFileInputFiles", {"nodeId": node, "files": [str(archive)]})
        submit(browser, "#upload")
        assert "another author" in text_of(browser, "#error")
        browser.errors[:] = []  # the refused requests' 403 are logged as errors
        live = get(port, "/api/v1/bots/dana-bot")
        assert [v["status"] for v in live["versions"]] == ["active"]
