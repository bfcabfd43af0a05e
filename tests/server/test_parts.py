"""The server's small parts: rate limits, stderr redaction of served pages, webhook delivery
that never raises and gives up after a few attempts, and the queue that ends a league run."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from arena.server.accounts import Accounts
from arena.server.jobs import Jobs
from arena.server.security import RateLimiter
from arena.server.site import redact
from arena.server.webhooks import MAX_ATTEMPTS, deliver_due, post_json
from tests.server.conftest import CHEAP


def test_rate_limiter_window() -> None:
    limit = RateLimiter(2, 10.0)
    assert limit.allow("a", 0.0) and limit.allow("a", 1.0)
    assert not limit.allow("a", 2.0)
    assert limit.allow("b", 2.0)  # per key
    assert limit.retry_after("a", 2.0) == 9
    assert limit.allow("a", 10.5)  # the first event left the window


def test_redact_blanks_stderr_in_pages_and_records() -> None:
    page = (
        b'<nav><a href="x">x</a></nav><pre class="stderr">secret &lt;/pre&gt; more</pre>'
        b'<script type="application/json">{"stderr":"a\\"b secret","x":1}</script>'
    )
    out = redact(page, html=True)
    assert b"secret" not in out and b'"x":1' in out and b'href="/account/"' in out
    record = b'{"faults":[{"seat":0,"stderr_tail":"Traceback \\\\ secret\\n"}],"seed":1}'
    assert redact(record, html=False) == b'{"faults":[{"seat":0,"stderr_tail": ""}],"seed":1}'


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_post_json_reports_failures() -> None:
    error = post_json(f"http://127.0.0.1:{dead_port()}/hook", {"a": 1}, timeout=1.0)
    assert error  # refused: reported, not raised
    assert post_json("http://[::1", {}, timeout=1.0)


def test_delivery_retries_then_gives_up(tmp_path: Path) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []

    def failing(url: str, payload: dict[str, Any]) -> str:
        calls.append((url, payload))
        return "HTTP 500"

    with Accounts.open(tmp_path, hasher=CHEAP) as accounts, Jobs(tmp_path) as jobs:
        accounts.add_user("alice", password="password-1")
        alice = accounts.user("alice")
        assert alice is not None
        accounts.add_webhook(alice, "http://example.invalid/h", frozenset({"validation"}))
        jobs.add_event("validation", "alice", {"event": "validation", "bot": "b"})
        jobs.add_event("settled", "alice", {"event": "settled", "bot": "b"})  # not subscribed
        jobs.add_event("validation", "nobody", {"event": "validation"})  # no such user
        for _ in range(MAX_ATTEMPTS + 2):
            deliver_due(jobs, accounts, failing)
        assert len(calls) == MAX_ATTEMPTS  # only the subscribed event, tried 3 times
        assert jobs.due_events(MAX_ATTEMPTS) == []


def test_waiting_queue(tmp_path: Path) -> None:
    with Jobs(tmp_path) as jobs:
        assert not jobs.waiting()
        sid = jobs.add_scrimmage("alice", "take5", ["a", "b"], 2)
        assert jobs.waiting()
        jobs.set_scrimmage(sid, "done")
        assert not jobs.waiting()
        aid = jobs.add_action("withdraw", "alice", "a")
        assert jobs.waiting()
        jobs.finish_action(aid, True, "")
        assert not jobs.waiting()
        assert jobs.mark_settled(1, "take5") and not jobs.mark_settled(1, "take5")
