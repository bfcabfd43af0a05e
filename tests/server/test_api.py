"""The server's API and pages through Starlette's TestClient: every endpoint, and bad input
(malformed archives, oversize uploads, traversal, wrong tokens, CSRF) answered with a clear 4xx,
never a 500. The league here is synthetic (tests/site/leagues.py) and no runner plays: the
queue is read back directly."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.league.core import League
from arena.server.accounts import Accounts
from arena.server.jobs import Jobs, adopt, commit_upload, staging_path, uploads_dir, write_meta
from arena.site import build_site
from tests.server.conftest import CHEAP, PASSWORD, People, bot_archive, client_for, sign_in, tar_of
from tests.site.leagues import HOSTILE_NAME, HOSTILE_STDERR, make_league


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = make_league(tmp_path_factory.mktemp("api") / "league", batches=2, tables=1)
    with League.open(folder) as lg:
        build_site(lg, folder / "site")
    return folder


@pytest.fixture(scope="module")
def people(league: Path) -> People:
    return People(league)


@pytest.fixture
def client(league: Path) -> TestClient:
    with client_for(league) as c:
        yield c  # type: ignore[misc]


def error_of(answer: Any, status: int) -> str:
    """The JSON error of a refusal, after checking its status."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    message = answer.json()["error"]
    assert isinstance(message, str) and message and "Traceback" not in message
    return message


# -- reading ------------------------------------------------------------------------------------


def test_index_standings_and_bots(client: TestClient) -> None:
    assert "GET /api/v1/standings" in client.get("/api/v1").json()["endpoints"]
    standings = client.get("/api/v1/standings").json()
    assert set(standings["games"]) == {"ten", "take5", "phase10"}
    assert standings["overall"] and standings["matches_played"] > 0
    assert "league" not in standings  # no server path
    take5 = client.get("/api/v1/standings/take5").json()
    assert take5["game"] == "take5" and take5["ratings"]
    error_of(client.get("/api/v1/standings/chess"), 404)
    bots = client.get("/api/v1/bots").json()["bots"]
    assert {b["name"] for b in bots} == {"alpha", HOSTILE_NAME, "gamma"}
    alpha = client.get("/api/v1/bots/alpha").json()
    assert alpha["versions"][0]["name"] == "alpha" and alpha["ratings"]["take5"]
    error_of(client.get("/api/v1/bots/nobody"), 404)
    error_of(client.get("/api/v1/nothing-here"), 404)


def test_matches_paged_and_filtered(client: TestClient) -> None:
    first = client.get("/api/v1/matches?limit=2").json()
    assert len(first["matches"]) == 2 and first["total"] > 2
    second = client.get("/api/v1/matches?limit=2&offset=2").json()
    assert {m["match_id"] for m in first["matches"]}.isdisjoint(
        m["match_id"] for m in second["matches"]
    )
    take5 = client.get("/api/v1/matches?game=take5&limit=200").json()["matches"]
    assert take5 and all(m["game"] == "take5" for m in take5)
    bot = take5[0]["bots"][0]["id"]
    of_bot = client.get(f"/api/v1/matches?bot={bot}&limit=200").json()["matches"]
    assert of_bot and all(bot in [b["id"] for b in m["bots"]] for m in of_bot)
    for bad in ("limit=0", "limit=1000", "limit=x", "offset=-1", "game=chess", "bot=x"):
        error_of(client.get(f"/api/v1/matches?{bad}"), 400)


def faulted_match(client: TestClient) -> dict[str, Any]:
    rows = client.get("/api/v1/matches?limit=200").json()["matches"]
    return next(m for m in rows if m["faults"])


def test_match_record_hides_stderr_but_from_the_owner(
    client: TestClient, people: People, league: Path
) -> None:
    row = faulted_match(client)
    record = client.get(row["record"]).json()
    assert record["match_id"] == row["match_id"] and record["actions"]
    assert record["faults"] and all(f["stderr_tail"] == "" for f in record["faults"])
    admin_view = client.get(row["record"], headers=people.auth("root")).json()
    assert admin_view["faults"][0]["stderr_tail"] == HOSTILE_STDERR
    bob_view = client.get(row["record"], headers=people.auth("bob")).json()
    assert bob_view["faults"][0]["stderr_tail"] == ""
    error_of(client.get("/api/v1/matches/nope"), 404)
    error_of(client.get("/api/v1/matches/" + "x" * 300), 400)


# -- who is asking ------------------------------------------------------------------------------


def test_tokens(client: TestClient, people: People) -> None:
    error_of(client.get("/api/v1/me"), 401)
    error_of(client.get("/api/v1/me", headers={"Authorization": "Bearer nope"}), 401)
    error_of(client.get("/api/v1/me", headers={"Authorization": "Basic YTpi"}), 401)
    error_of(client.get("/api/v1/me", headers={"Authorization": "Bearer "}), 401)
    me = client.get("/api/v1/me", headers=people.auth("alice")).json()
    assert me == {"name": "alice", "admin": False, "bots": me["bots"]}


def test_sign_in_session_and_csrf(league: Path, people: People) -> None:
    with client_for(league) as c:
        assert c.get("/account/").headers["location"] == "/account/signin"
        c.get("/account/signin")
        csrf = c.cookies.get("arena_csrf")
        assert csrf
        # No CSRF field, or a wrong one: refused.
        no = c.post("/account/signin", data={"name": "alice", "password": PASSWORD})
        assert no.status_code == 403 and "CSRF" in no.text
        wrong = c.post(
            "/account/signin", data={"csrf": "a" * 48, "name": "alice", "password": PASSWORD}
        )
        assert wrong.status_code == 403
        bad = c.post("/account/signin", data={"csrf": csrf, "name": "alice", "password": "nope"})
        assert bad.status_code == 401 and "wrong name or password" in bad.text
        ok = c.post("/account/signin", data={"csrf": csrf, "name": "alice", "password": PASSWORD})
        assert ok.status_code == 303
        cookie = ok.headers["set-cookie"].lower()
        assert "arena_session=" in cookie and "httponly" in cookie and "samesite=lax" in cookie
        assert c.get("/api/v1/me").json()["name"] == "alice"
        page = c.get("/account/")
        assert page.status_code == 200 and "alice" in page.text
        # A session's API write needs the CSRF header; a token's does not.
        body = {"url": "https://example.org/hook", "events": ["validation"]}
        error_of(c.post("/api/v1/webhooks", json=body), 403)
        made = c.post("/api/v1/webhooks", json=body, headers={"X-CSRF-Token": csrf})
        assert made.status_code == 201
        out = c.post("/account/signout", data={"csrf": csrf})
        assert out.status_code == 303
        error_of(c.get("/api/v1/me"), 401)


def test_sign_in_rate_limit(league: Path, people: People) -> None:
    with client_for(league, signins_per_5min=3) as c:
        c.get("/account/signin")
        csrf = c.cookies.get("arena_csrf")
        codes = [
            c.post(
                "/account/signin", data={"csrf": csrf, "name": "bob", "password": "x"}
            ).status_code
            for _ in range(5)
        ]
        assert codes[:3] == [401, 401, 401] and codes[3:] == [429, 429]


def test_signup_token_sets_password(league: Path) -> None:
    with Accounts.open(league, hasher=CHEAP) as accounts:
        token = accounts.add_user("carol")
    with client_for(league) as c:
        c.get("/account/signup")
        csrf = c.cookies.get("arena_csrf")
        differ = {"csrf": csrf, "token": token, "password": "abcdefgh1", "again": "abcdefgh2"}
        assert c.post("/account/signup", data=differ).status_code == 400
        bad = {"csrf": csrf, "token": "nope", "password": "abcdefgh1", "again": "abcdefgh1"}
        assert c.post("/account/signup", data=bad).status_code == 400
        good = {"csrf": csrf, "token": token, "password": "abcdefgh1", "again": "abcdefgh1"}
        assert c.post("/account/signup", data=good).status_code == 303
        assert c.get("/api/v1/me").json()["name"] == "carol"
        assert c.post("/account/signup", data=good).status_code == 400  # used once


# -- uploads ------------------------------------------------------------------------------------


def test_upload_queues_a_validation(
    client: TestClient, people: People, league: Path, tmp_path: Path
) -> None:
    data = bot_archive(tmp_path, "alice-bot")
    answer = client.post(
        "/api/v1/bots",
        content=data,
        headers={**people.auth("alice"), "Content-Type": "application/gzip"},
    )
    assert answer.status_code == 201, answer.text
    made = answer.json()
    assert made["bot"] == "alice-bot" and made["status"] == "pending"
    status = client.get(made["url"], headers=people.auth("alice")).json()
    assert status["status"] == "pending" and status["bot"] == "alice-bot"
    error_of(client.get(made["url"], headers=people.auth("bob")), 404)
    assert client.get(made["url"], headers=people.auth("root")).status_code == 200
    listed = client.get("/api/v1/validations", headers=people.auth("alice")).json()
    assert made["validation"] in [v["id"] for v in listed["validations"]]
    # The upload is in place, complete, with its record.
    with Jobs(league) as jobs:
        v = jobs.validation(made["validation"])
        assert v is not None and (league / v.folder / "bot.toml").is_file()
    assert not [p for p in uploads_dir(league).iterdir() if p.name.startswith(".staging")]
    # The name is alice's now: bob may not upload a bot of that name.
    error_of(
        client.post(
            "/api/v1/bots",
            content=bot_archive(tmp_path, "alice-bot", body="print('mine')\n"),
            headers=people.auth("bob"),
        ),
        403,
    )
    # Nor take a name the league knows by another author.
    error_of(
        client.post(
            "/api/v1/bots", content=bot_archive(tmp_path, "alpha"), headers=people.auth("bob")
        ),
        403,
    )


def test_upload_as_a_form(league: Path, people: People, tmp_path: Path) -> None:
    with client_for(league) as c:
        sign_in(c, "alice")
        c.get("/account/upload")
        csrf = c.cookies.get("arena_csrf")
        files = {"file": ("bot.tar.gz", bot_archive(tmp_path, "alice-form"), "application/gzip")}
        no_csrf = c.post("/account/upload", files=files)
        assert no_csrf.status_code == 403
        answer = c.post("/account/upload", files=files, data={"csrf": csrf})
        assert answer.status_code == 303
        page = c.get(answer.headers["location"])
        assert page.status_code == 200 and "alice-form" in page.text
        assert 'http-equiv="refresh"' in page.text  # it reloads while pending
        # The same as a multipart API call with a token.
        api = c.post(
            "/api/v1/bots",
            files={
                "file": (
                    "b.zip",
                    zip_of(
                        {
                            "bot.toml": b'name = "alice-zip"\ncommand = ["python3", "bot.py"]\ngames = ["take5"]\n',
                            "bot.py": b"",
                        }
                    ),
                    "application/zip",
                )
            },
            headers=people.auth("alice"),
        )
        assert api.status_code == 201, api.text


def zip_of(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"", 400, "empty"),
        (b"not an archive at all", 400, ""),
        (b"\x1f\x8b\x08\x00garbage", 400, ""),
        (tar_of({"../evil/bot.toml": b'name = "x"'}), 400, ""),
        (tar_of({"/etc/bot.toml": b'name = "x"'}), 400, ""),
        (tar_of({"readme.txt": b"no manifest"}), 400, "bot"),
        (zip_of({"bot.toml": b"name = [broken"}), 400, ""),
        (zip_of({"bot.toml": b'name = "bad name!"\ncommand = ["x"]\n'}), 400, ""),
    ],
)
def test_bad_archives_are_400(
    client: TestClient, people: People, league: Path, body: bytes, status: int, words: str
) -> None:
    message = error_of(
        client.post("/api/v1/bots", content=body, headers=people.auth("alice")), status
    )
    assert words in message
    assert str(league) not in message  # no server path
    assert not [p for p in uploads_dir(league).iterdir() if p.name.startswith(".staging")]


def test_oversize_and_wrong_type(league: Path, people: People, tmp_path: Path) -> None:
    from arena.server.archive import Limits

    with client_for(league, limits=Limits(max_upload=1000)) as c:
        big = bot_archive(tmp_path, "alice-big") + b"\0" * 2000
        error_of(c.post("/api/v1/bots", content=big, headers=people.auth("alice")), 413)

        # A body streamed without a Content-Length is counted too.
        def chunks() -> Any:
            yield b"\0" * 800
            yield b"\0" * 800

        error_of(c.post("/api/v1/bots", content=chunks(), headers=people.auth("alice")), 413)
    with client_for(league) as c:
        error_of(
            c.post(
                "/api/v1/bots",
                content=b"{}",
                headers={**people.auth("alice"), "Content-Type": "application/json"},
            ),
            415,
        )
        error_of(c.post("/api/v1/bots", content=b"x"), 401)


def test_upload_rate_limit(league: Path, people: People) -> None:
    with client_for(league, uploads_per_hour=2) as c:
        codes = [
            c.post("/api/v1/bots", content=b"junk", headers=people.auth("bob")).status_code
            for _ in range(3)
        ]
        assert codes == [400, 400, 429]


def test_killed_upload_is_complete_or_absent(league: Path) -> None:
    """A staging folder (killed mid-upload) is removed at start-up; a renamed upload whose
    record was never written (killed between the two) is queued."""
    half = staging_path(league, "half")
    (half / "bot").mkdir(parents=True)
    (half / "bot" / "bot.toml").write_text('name = "half"')
    whole = staging_path(league, "whole")
    (whole / "bot").mkdir(parents=True)
    (whole / "bot" / "bot.toml").write_text('name = "whole"')
    write_meta(whole, "alice", "whole", whole / "bot")
    commit_upload(league, whole, "whole")
    removed, adopted = adopt(league)
    assert (removed, adopted) == (1, 1)
    assert not half.exists()
    with Jobs(league) as jobs:
        queued = [v for v in jobs.validations() if v.upload == "whole"]
        assert len(queued) == 1 and queued[0].bot == "whole" and queued[0].status == "pending"
    assert adopt(league) == (0, 0)  # nothing twice


# -- withdrawals, scrimmages, webhooks ------------------------------------------------------------


def test_withdraw_only_own_bots(client: TestClient, people: People, league: Path) -> None:
    with Accounts.open(league, hasher=CHEAP) as accounts:
        alice = accounts.user("alice")
        assert alice is not None
        if accounts.owner_of("gamma") is None:
            # The operator hands gamma over to alice (an admin's claim of an unowned name).
            accounts.claim("gamma", alice)
    error_of(client.delete("/api/v1/bots/gamma", headers=people.auth("bob")), 403)
    error_of(client.delete("/api/v1/bots/nobody", headers=people.auth("alice")), 404)
    error_of(client.delete("/api/v1/bots/gamma"), 401)
    answer = client.delete("/api/v1/bots/gamma", headers=people.auth("alice"))
    assert answer.status_code == 202
    with Jobs(league) as jobs:
        action = jobs.action(answer.json()["action"])
        assert action is not None and action.bot == "gamma" and action.status == "pending"
        jobs.finish_action(action.id, True, "test")  # not played here


def test_scrimmage_requests_checked(client: TestClient, people: People, league: Path) -> None:
    post = lambda body, who="alice": client.post(  # noqa: E731
        "/api/v1/scrimmages", json=body, headers=people.auth(who)
    )
    error_of(post({"bot": "gamma"}), 400)
    error_of(post({"bot": "gamma", "opponents": "alpha"}), 400)
    error_of(post({"bot": "alpha", "opponents": ["gamma"]}), 403)  # not alice's
    error_of(post({"bot": "gamma", "opponents": ["alpha"], "matches": 0}), 400)
    error_of(post({"bot": "gamma", "opponents": ["alpha"], "matches": 10**6}), 400)
    error_of(post({"bot": "gamma", "opponents": ["nobody"]}), 400)
    error_of(post({"bot": "gamma", "opponents": ["alpha"], "game": "chess"}), 400)
    error_of(
        client.post("/api/v1/scrimmages", content=b"{not json", headers=people.auth("alice")), 400
    )
    error_of(client.get("/api/v1/scrimmages/999", headers=people.auth("alice")), 404)
    error_of(client.get("/api/v1/scrimmages/x", headers=people.auth("alice")), 404)


def test_webhooks_api(client: TestClient, people: People) -> None:
    auth = people.auth("bob")
    error_of(client.post("/api/v1/webhooks", json={"url": "ftp://x"}, headers=auth), 400)
    error_of(
        client.post("/api/v1/webhooks", json={"url": "http://x", "events": ["boom"]}, headers=auth),
        400,
    )
    made = client.post("/api/v1/webhooks", json={"url": "http://127.0.0.1:9/h"}, headers=auth)
    assert made.status_code == 201
    hook = made.json()["id"]
    listed = client.get("/api/v1/webhooks", headers=auth).json()["webhooks"]
    assert [h["id"] for h in listed] == [hook]
    error_of(client.delete(f"/api/v1/webhooks/{hook}", headers=people.auth("alice")), 404)
    assert client.delete(f"/api/v1/webhooks/{hook}", headers=auth).status_code == 204
    assert client.get("/api/v1/webhooks", headers=auth).json()["webhooks"] == []


# -- pages and safety -----------------------------------------------------------------------------


def test_site_pages_served_without_stderr(client: TestClient, league: Path) -> None:
    index = client.get("/index.html")
    assert index.status_code == 200 and 'href="/account/"' in index.text
    assert client.get("/").headers["location"] == "/index.html"
    row = faulted_match(client)
    page = client.get(row["page"])
    assert page.status_code == 200
    assert "alert(5)" not in page.text and "Traceback..." not in page.text
    assert client.get(row["page"][: -len(".html")] + ".json").text.count("alert(5)") == 0
    assert client.get("/static/site.css").status_code == 200
    for bad in ("/../league.toml", "/%2e%2e/league.toml", "/..%2fleague.toml", "/nope.html"):
        assert client.get(bad).status_code == 404, bad


def test_security_headers(client: TestClient) -> None:
    for path in ("/index.html", "/api/v1/standings", "/account/signin", "/nope"):
        headers = client.get(path).headers
        assert "default-src 'self'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "same-origin"


def test_errors_are_not_traces(league: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.server import api

    def broken(request: Any) -> Any:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(api.Server, "summary", lambda self: broken(None))
    with client_for(league) as c:
        answer = c.get("/api/v1/standings")
        assert answer.status_code == 500
        assert "secret" not in answer.text and "Traceback" not in answer.text
        assert json.loads(answer.text) == {"error": "internal error (logged on the server)"}
        assert c.get("/api/v1/bots", params={"x": "\0"}).status_code == 500


def test_match_page_on_demand(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A match page the site did not render is rendered from the store when the site offers
    it (the site's match_page), its stderr blanked; a missing match stays a 404."""
    from arena.site import build

    asked: list[bool] = []

    def page(league: League, match_id: str, stderr: bool = True) -> str:
        asked.append(stderr)
        if match_id != "abc123":
            raise KeyError(match_id)
        return f'<nav></nav><pre class="stderr">secret</pre><p>{match_id}</p>'

    monkeypatch.setattr(build, "match_page", page, raising=False)
    answer = client.get("/matches/m/abc123.html")
    assert answer.status_code == 200 and "<p>abc123</p>" in answer.text
    assert asked == [False]  # rendered without stderr, and blanked again should one slip in
    assert "secret" not in answer.text
    assert client.get("/matches/m/zzz.html").status_code == 404
    assert client.get("/matches/m/../../league.toml").status_code == 404


def test_standings_counts_are_current_beside_a_written_summary(
    client: TestClient, league: Path
) -> None:
    """The runner's summary file is read for the ratings, but the match counts are current:
    a summary written before more matches were planned must not show more played than
    planned."""
    from arena.server.context import SUMMARY_FILE

    now = client.get("/api/v1/standings").json()
    stale = {**now, "matches_played": 0, "matches_planned": 0}
    (league / SUMMARY_FILE).write_text(json.dumps(stale))
    try:
        answer = client.get("/api/v1/standings").json()
    finally:
        (league / SUMMARY_FILE).unlink()
    assert answer["matches_played"] == now["matches_played"] > 0
    assert answer["matches_planned"] == now["matches_planned"] >= answer["matches_played"]
