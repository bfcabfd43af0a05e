"""The author pages through Starlette's TestClient: signed-out redirects, the forms (webhooks,
scrimmages, withdrawal, tokens) with their CSRF checks and their errors shown on the page, and
a batch of hostile requests answered with a 4xx page, never a 500."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.league.core import League
from arena.server.accounts import Accounts
from arena.server.jobs import Jobs
from arena.site import build_site
from tests.server.conftest import CHEAP, People, client_for, sign_in
from tests.site.leagues import HOSTILE_NAME, make_league


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = make_league(tmp_path_factory.mktemp("pages") / "league", batches=2, tables=1)
    with League.open(folder) as lg:
        build_site(lg, folder / "site")
    People(folder)
    with Accounts.open(folder, hasher=CHEAP) as accounts:
        alice = accounts.user("alice")
        assert alice is not None
        accounts.claim("gamma", alice)
        accounts.claim(HOSTILE_NAME, alice)
    return folder


@pytest.fixture
def alice(league: Path) -> TestClient:
    with client_for(league) as c:
        sign_in(c, "alice")
        yield c  # type: ignore[misc]


def csrf(c: TestClient) -> str:
    value = c.cookies.get("arena_csrf")
    assert value
    return value


def test_signed_out_pages_redirect(league: Path) -> None:
    with client_for(league) as c:
        for path in (
            "/account/",
            "/account/upload",
            "/account/scrimmages",
            "/account/webhooks",
            "/account/validations/1",
            "/account/scrimmages/1",
            "/scrimmages/1/site/x",
        ):
            answer = c.get(path)
            assert answer.status_code == 303 and answer.headers["location"] == "/account/signin"


def test_my_bots_page_escapes_and_shows_stderr_to_the_owner(alice: TestClient) -> None:
    page = alice.get("/account/")
    assert page.status_code == 200
    assert "<script>alert(1)</script>" not in page.text  # the hostile name, escaped
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "alert(5)" in page.text and "<script>alert(5)" not in page.text  # its stderr, as text


def test_webhook_forms(alice: TestClient) -> None:
    alice.get("/account/webhooks")
    bad = alice.post(
        "/account/webhooks",
        data={"csrf": csrf(alice), "url": "javascript:alert(1)", "events": "validation"},
    )
    assert bad.status_code == 400 and 'id="error"' in bad.text
    forged = alice.post("/account/webhooks", data={"url": "https://hooks.example.net/a"})
    assert forged.status_code == 403
    made = alice.post(
        "/account/webhooks",
        data={"csrf": csrf(alice), "url": "https://hooks.example.net/a", "events": "settled"},
    )
    assert made.status_code == 303
    page = alice.get("/account/webhooks")
    assert "https://hooks.example.net/a" in page.text
    hook = page.text.split("/account/webhooks/")[1].split("/")[0]
    assert (
        alice.post(f"/account/webhooks/{hook}/delete", data={"csrf": csrf(alice)}).status_code
        == 303
    )
    assert "https://hooks.example.net/a" not in alice.get("/account/webhooks").text


def test_scrimmage_form_errors_and_request(alice: TestClient, league: Path) -> None:
    page = alice.get("/account/scrimmages")
    assert page.status_code == 200 and 'name="opponents"' in page.text
    none = alice.post(
        "/account/scrimmages", data={"csrf": csrf(alice), "bot": "gamma", "matches": "2"}
    )
    assert none.status_code == 400 and 'id="error"' in none.text
    ok = alice.post(
        "/account/scrimmages",
        data={
            "csrf": csrf(alice),
            "bot": "gamma",
            "opponents": "alpha",
            "game": "take5",
            "matches": "2",
        },
    )
    assert ok.status_code == 303
    shown = alice.get(ok.headers["location"])
    assert shown.status_code == 200 and 'id="status"' in shown.text
    assert 'http-equiv="refresh"' in shown.text
    with Jobs(league) as jobs:
        for s in jobs.scrimmages(user="alice"):
            jobs.set_scrimmage(s.id, "failed", "not played in this test")


def test_withdraw_and_token_forms(alice: TestClient, league: Path) -> None:
    alice.get("/account/")
    forged = alice.post("/account/bots/gamma/withdraw", data={})
    assert forged.status_code == 403
    assert alice.post("/account/bots/alpha/withdraw", data={"csrf": csrf(alice)}).status_code == 403
    assert alice.post("/account/bots/gamma/withdraw", data={"csrf": csrf(alice)}).status_code == 303
    with Jobs(league) as jobs:
        pending = jobs.pending_actions()
        assert [a.bot for a in pending] == ["gamma"]
        for a in pending:
            jobs.finish_action(a.id, True, "test")
    token = alice.post("/account/token", data={"csrf": csrf(alice)})
    assert token.status_code == 200 and 'id="new-token"' in token.text
    value = token.text.split('id="new-token"')[1].split("<code>")[1].split("</code>")[0]
    assert alice.get("/api/v1/me", headers={"Authorization": f"Bearer {value}"}).status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/account/validations/99999", None),
        ("GET", "/account/validations/abc", None),
        ("GET", "/account/validations/" + "9" * 40, None),
        ("GET", "/account/scrimmages/-1", None),
        ("GET", "/scrimmages/99/site/index.html", None),
        ("GET", "/scrimmages/x/site/../../server.db", None),
        ("GET", "/%00", None),
        ("GET", "/" + "a/" * 600, None),
        ("PUT", "/account/upload", b"x"),
        ("POST", "/index.html", b"x"),
        ("POST", "/account/signin", b"\xff\xfe=\xff"),
        ("POST", "/account/signin", b"a" * 100_000),
        ("POST", "/account/upload", b"--x\r\nbroken multipart"),
        ("DELETE", "/api/v1/webhooks/abc", None),
        ("POST", "/api/v1/scrimmages", b"[1, 2]"),
        ("POST", "/api/v1/webhooks", b'"just a string"'),
    ],
)
def test_hostile_requests_are_4xx(
    alice: TestClient, method: str, path: str, body: bytes | None
) -> None:
    headers = {"Content-Type": "multipart/form-data; boundary=x"} if "upload" in path else {}
    answer = alice.request(method, path, content=body, headers=headers)
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:200])
    assert "Traceback" not in answer.text
