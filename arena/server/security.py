"""The server's guards: security headers, CSRF tokens, rate limits, who is asking.

* **Headers** on every answer (:class:`SecurityHeaders`, a pure ASGI middleware): a Content
  Security Policy of ``default-src 'self'`` (the site's pages load only their own scripts and
  styles; inline ``style`` attributes are allowed for the head-to-head cells), no framing, no
  MIME sniffing, no referrer to other sites.
* **CSRF**: double-submit. Every page with a form sets the ``arena_csrf`` cookie (random,
  HttpOnly, SameSite=Strict) and puts the same value in a hidden field; a POST from a browser
  session must carry both, equal. API clients with a Bearer token need none (a browser never
  sends that header by itself); a session-authenticated API call sends the value in the
  ``X-CSRF-Token`` header.
* **Rate limits**: a sliding window per key (user name or client address), in memory.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import MutableMapping
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSRF_COOKIE = "arena_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
SESSION_COOKIE = "arena_session"

CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


class SecurityHeaders:
    """Adds :data:`HEADERS` to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k not in dict(HEADERS)]
                message["headers"] = headers + list(HEADERS)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def csrf_token(request: Request) -> str:
    """The request's CSRF value: its cookie's, or a new one (set by :func:`set_csrf`)."""
    existing = request.cookies.get(CSRF_COOKIE, "")
    if 20 <= len(existing) <= 100 and existing.isalnum():
        return existing
    token: str = request.state.__dict__.setdefault("new_csrf", secrets.token_hex(24))
    return token


def set_csrf(request: Request, response: Any) -> None:
    """Set the CSRF cookie if this request made a new value."""
    token = request.state.__dict__.get("new_csrf")
    if token:
        response.set_cookie(
            CSRF_COOKIE,
            token,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )


def csrf_ok(request: Request, sent: str | None) -> bool:
    """Whether ``sent`` (the form field or header) matches the request's CSRF cookie."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    return bool(cookie) and bool(sent) and hmac.compare_digest(cookie, sent or "")


def client_address(request: Request) -> str:
    """The client's address (the proxy's client when uvicorn trusts forwarded headers)."""
    return request.client.host if request.client is not None else "?"


class RateLimiter:
    """At most ``count`` events per ``window`` seconds per key (thread-safe, in memory)."""

    def __init__(self, count: int, window: float) -> None:
        self.count = count
        self.window = window
        self.events: MutableMapping[str, deque[float]] = {}
        self.lock = threading.Lock()

    def allow(self, key: str, now: float | None = None) -> bool:
        """Count an event for ``key``; False (not counted) if over the limit."""
        now = time.monotonic() if now is None else now
        with self.lock:
            if len(self.events) > 10_000:
                self.prune(now)
            seen = self.events.setdefault(key, deque())
            while seen and seen[0] <= now - self.window:
                seen.popleft()
            if len(seen) >= self.count:
                return False
            seen.append(now)
            return True

    def prune(self, now: float) -> None:
        for key in [k for k, v in self.events.items() if not v or v[-1] <= now - self.window]:
            del self.events[key]

    def retry_after(self, key: str, now: float | None = None) -> int:
        now = time.monotonic() if now is None else now
        with self.lock:
            seen = self.events.get(key)
            if not seen:
                return 0
            return max(1, int(seen[0] + self.window - now) + 1)
