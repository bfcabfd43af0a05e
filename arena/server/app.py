"""The arena server's web application (Starlette, served by uvicorn: ``arena server L``).

Routes: the JSON API under ``/api/v1`` (:mod:`arena.server.api`), the author pages under
``/account/`` (:mod:`arena.server.author`), each scrimmage's replays under
``/scrimmages/<id>/site/``, and everything else from the rendered site
(:mod:`arena.server.site`). Every answer carries the security headers; every refusal is a 4xx
with a clear message (JSON on the API, a page elsewhere); an error of the server itself is
logged with its trace and answered with a bare 500, never the trace.

The league itself runs in another process (:mod:`arena.server.runner`), started by the command,
not by the app: the app only reads the league and queues requests, so a test can drive it alone.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

from argon2 import PasswordHasher
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.server import api, author, site
from arena.server.context import Server, Settings
from arena.server.errors import Refused
from arena.server.security import SecurityHeaders, csrf_token, set_csrf
from arena.server.webhooks import Deliverer

logger = logging.getLogger("arena.server")

TITLES = {
    400: "Bad request",
    401: "Sign in first",
    403: "Not allowed",
    404: "Not found",
    405: "Method not allowed",
    409: "Already there",
    413: "Too large",
    415: "Unsupported type",
    429: "Too many requests",
}


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def refusal(request: Request, status: int, message: str, headers: dict[str, str]) -> Response:
    """A refusal as JSON (API) or as a page; a 3xx is a redirect."""
    if 300 <= status < 400 and "location" in headers:
        return RedirectResponse(headers["location"], status_code=status)
    if wants_json(request):
        return JSONResponse({"error": message}, status_code=status, headers=headers)
    server: Server = request.app.state.server
    title = TITLES.get(status, "Refused")
    text = server.templates.get_template("error.html").render(
        title=title,
        message=message,
        user=None,
        csrf=csrf_token(request),
        refresh=None,
        notice=None,
    )
    response = HTMLResponse(text, status_code=status, headers=headers)
    set_csrf(request, response)
    return response


async def on_refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return refusal(request, exc.status, exc.message, exc.headers)


async def on_http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    message = exc.detail if isinstance(exc.detail, str) else TITLES.get(exc.status_code, "error")
    return refusal(request, exc.status_code, message, dict(exc.headers or {}))


async def on_error(request: Request, exc: Exception) -> Response:
    """The server's own failure: logged with its trace, answered without it."""
    logger.error("error in %s %s", request.method, request.url.path, exc_info=exc)
    if wants_json(request):
        return JSONResponse({"error": "internal error (logged on the server)"}, status_code=500)
    return HTMLResponse(
        "<!doctype html><title>Error</title><p>Internal error (logged on the server).",
        status_code=500,
    )


def no_icon(request: Request) -> Response:
    """No icon, and no 404 in every browser's console for it."""
    return Response(status_code=204, headers={"cache-control": "max-age=86400"})


def make_app(
    settings: Settings, webhooks: bool = True, hasher: PasswordHasher | None = None
) -> Starlette:
    """The application for one league; ``webhooks`` starts the delivery thread with it;
    ``hasher`` is for tests that want a cheap password hash."""
    server = Server(settings, hasher)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        deliverer = Deliverer(settings.folder) if webhooks else None
        if deliverer is not None:
            deliverer.start()
        try:
            yield
        finally:
            if deliverer is not None:
                deliverer.stop()
            server.close()

    routes = [
        *api.ROUTES,
        *author.ROUTES,
        Route("/scrimmages/{id}/site/{path:path}", site.scrimmage_file),
        Route("/favicon.ico", no_icon),
        Route("/{path:path}", api.inline(site.site_file)),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers={
            Refused: on_refused,
            HTTPException: on_http,
            Exception: on_error,
        },
        lifespan=lifespan,
    )
    app.state.server = server
    return app
