"""The league runner with real bot processes, driven round by round in this process: uploads
validated (a good bot entered, a crashing one refused with its faults, hints and stderr tail),
webhooks delivered, the league played and re-rendered, a scrimmage played apart from the
ratings with its replays, a withdrawal; then the audit passes on the league and the scrimmage."""

from __future__ import annotations

import dataclasses
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from arena.league.audit import audit
from arena.league.config import GameConfig, Schedule, default_config
from arena.league.core import League
from arena.league.store import EntrantStatus
from arena.server import scrimmage
from arena.server.accounts import Accounts
from arena.server.jobs import Jobs
from arena.server.runner import Options, Runner
from arena.server.scrimmage import scrimmage_folder
from arena.server.webhooks import deliver_due
from tests.server.conftest import CHEAP, People, bot_archive, client_for, sign_in

pytestmark = pytest.mark.slow

CRASHER = """import sys
print("bob-bot starting; about to fail", file=sys.stderr, flush=True)
raise SystemExit("no protocol here")
"""


def small_league(folder: Path, matches: int = 18, stop_rules: bool = True) -> Path:
    """A Take 5 league of two built-in bots (quick matches); without ``stop_rules`` it plays
    its whole budget."""
    schedule = dataclasses.replace(Schedule(), max_matches=matches)
    if not stop_rules:
        schedule = dataclasses.replace(schedule, stop_sigma=0.0, stop_separated=0)
    config = dataclasses.replace(
        default_config(3, 1),
        games=(GameConfig("take5", (3,), {"max_rounds": 1}),),
        schedule=schedule,
    )
    League.init(folder, config)
    with League.open(folder) as lg:
        lg.submit("builtin:random", name="rand-a", check=False)
        lg.submit("builtin:first", name="first-b", check=False)
    return folder


class Catcher(http.server.BaseHTTPRequestHandler):
    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        Catcher.received.append(json.loads(self.rfile.read(length)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def hook_url() -> Iterator[str]:
    Catcher.received = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Catcher)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    server.shutdown()
    server.server_close()


def test_rounds_end_to_end(tmp_path: Path, hook_url: str) -> None:
    folder = small_league(tmp_path / "league")
    people = People(folder)
    client = client_for(folder)
    client.__enter__()  # the app's start-up; its shut-down (below) closes its handles
    alice, bob = people.auth("alice"), people.auth("bob")
    assert client.post("/api/v1/webhooks", json={"url": hook_url}, headers=alice).status_code == 201
    good = client.post("/api/v1/bots", content=bot_archive(tmp_path, "alice-bot"), headers=alice)
    bad = client.post(
        "/api/v1/bots", content=bot_archive(tmp_path, "bob-bot", body=CRASHER), headers=bob
    )
    assert good.status_code == bad.status_code == 201

    opts = Options(folder, folder / "site", workers=1, settled_sigma=100.0, more=0)
    stop = threading.Event()
    with League.open(folder) as league, Jobs(folder) as jobs:
        runner = Runner(league, jobs, opts, stop)
        played = runner.round()
        assert played > 0
        runner.flush()  # the site's render runs as a process of its own

        passed = client.get(good.json()["url"], headers=alice).json()
        assert passed["status"] == "passed" and passed["entrant"], passed
        failed = client.get(bad.json()["url"], headers=bob).json()
        assert failed["status"] == "failed"
        assert failed["faults"] and failed["hints"]
        assert "about to fail" in failed["stderr_tail"]
        assert "bob-bot" not in {e.name for e in league.entrants()}
        assert list((folder / "uploads").iterdir()) == []  # both ended: their uploads removed

        # The webhooks: alice hears of her validation and of her settled rating; bob has none.
        with Accounts.open(folder, hasher=CHEAP) as accounts:
            assert deliver_due(jobs, accounts) >= 2
        events = {(e["event"], e.get("bot")) for e in Catcher.received}
        assert ("validation", "alice-bot") in events and ("settled", "alice-bot") in events
        assert all(e.get("bot") != "bob-bot" for e in Catcher.received)

        # The league is on the site and in the standings.
        standings = client.get("/api/v1/standings/take5").json()
        assert "alice-bot" in [r["name"] for r in standings["ratings"]]
        assert "alice-bot" in client.get("/index.html").text
        league_matches = league.store.played_count()

        # A scrimmage: played between rounds, apart from the league.
        asked = client.post(
            "/api/v1/scrimmages",
            json={"bot": "alice-bot", "opponents": ["rand-a", "first-b"], "matches": 3},
            headers=alice,
        )
        assert asked.status_code == 201, asked.text
        runner.round()
        view = client.get(asked.json()["url"], headers=alice).json()
        assert view["status"] == "done", view
        assert len(view["results"]) == 3
        assert {s["bot"] for s in view["summary"]} == {"alice-bot", "rand-a", "first-b"}
        assert league.store.played_count() == league_matches  # the ratings never saw it
        assert client.get(asked.json()["url"], headers=bob).status_code == 404
        sign_in(client, "alice")
        replay = client.get(view["results"][0]["replay"])
        assert replay.status_code == 200 and 'id="viewer"' in replay.text
        with client_for(folder) as other:
            sign_in(other, "bob")
            assert other.get(view["results"][0]["replay"]).status_code == 404
        page = client.get(f"/account/scrimmages/{view['id']}")
        assert page.status_code == 200 and "replay" in page.text

        # Withdrawal: taken by the next round.
        assert client.delete("/api/v1/bots/alice-bot", headers=alice).status_code == 202
        runner.round()
        runner.flush()
        mine = [e for e in league.entrants() if e.name == "alice-bot"]
        assert mine and all(e.status is EntrantStatus.WITHDRAWN for e in mine)

        # My bots page: versions, ratings, recent matches.
        page = client.get("/account/")
        assert page.status_code == 200 and "alice-bot" in page.text and "withdrawn" in page.text

    client.__exit__(None, None, None)
    with League.open(folder, read_only=True) as lg:
        report = audit(lg)
        assert report.problems == [], report.problems
    with League.open(scrimmage_folder(folder, view["id"]), read_only=True) as lg:
        report = audit(lg, scrimmage.placement(lg))
        assert report.problems == [], report.problems
