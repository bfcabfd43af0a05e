"""Webhook delivery: the events the runner leaves in the outbox, POSTed as JSON to the URLs
their users registered (:meth:`arena.server.accounts.Accounts.add_webhook`).

A thread of the web process takes the due events every second and POSTs each to each matching
hook with a short timeout; a failure (refused, timed out, an answer other than 2xx) is logged
and the event tried again later, up to :data:`MAX_ATTEMPTS` times. Nothing a receiver does can
stop the server or the league. Redirects are not followed.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.server.accounts import Accounts, Webhook
from arena.server.jobs import Event, Jobs

MAX_ATTEMPTS = 3
TIMEOUT = 5.0
INTERVAL = 1.0

logger = logging.getLogger("arena.server")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


OPENER = urllib.request.build_opener(_NoRedirect)


def post_json(url: str, payload: dict[str, Any], timeout: float = TIMEOUT) -> str:
    """POST ``payload``; "" on a 2xx answer, else what went wrong."""
    body = json.dumps(payload).encode()
    try:
        request = urllib.request.Request(
            url,
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "User-Agent": "arena-webhook/1"},
        )
        with OPENER.open(request, timeout=timeout) as answer:
            status = int(answer.status)
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        return f"{type(exc).__name__}: {exc}"
    return "" if 200 <= status < 300 else f"HTTP {status}"


def hooks_for(accounts: Accounts, event: Event) -> list[Webhook]:
    """The hooks an event goes to: its user's (for a settled rating, the bot's owner's)."""
    name = event.user
    bot = event.payload.get("bot")
    if event.event == "settled" and isinstance(bot, str):
        name = accounts.owner_of(bot) or name
    user = accounts.user(name)
    if user is None:
        return []
    return [h for h in accounts.webhooks(user) if event.event in h.events]


def deliver_due(
    jobs: Jobs, accounts: Accounts, post: Callable[[str, dict[str, Any]], str] = post_json
) -> int:
    """Deliver every due event once; how many events were tried."""
    events = jobs.due_events(MAX_ATTEMPTS)
    for event in events:
        errors = []
        for hook in hooks_for(accounts, event):
            error = post(hook.url, event.payload)
            if error:
                logger.warning("webhook %s (%s) failed: %s", hook.id, event.event, error)
                errors.append(error)
        jobs.event_tried(event.id, "; ".join(errors))
    return len(events)


class Deliverer(threading.Thread):
    """The delivery thread of the web process."""

    def __init__(self, folder: Path, interval: float = INTERVAL) -> None:
        super().__init__(name="arena-webhooks", daemon=True)
        self.folder = folder
        self.interval = interval
        self.stopping = threading.Event()

    def run(self) -> None:
        with Jobs(self.folder) as jobs, Accounts.open(self.folder) as accounts:
            while not self.stopping.wait(self.interval):
                try:
                    deliver_due(jobs, accounts)
                except Exception:
                    logger.exception("webhook delivery failed")

    def stop(self) -> None:
        self.stopping.set()
