"""The JSON API, ``/api/v1`` (documented in SERVER.md).

Anonymous clients read: standings, bots, versions, matches (paged) and match records (stderr
tails only for their bot's owner and admins). Authors (``Authorization: Bearer TOKEN``, or a
browser session plus the ``X-CSRF-Token`` header on writes) submit bots, follow validations,
withdraw their bots, ask for scrimmages and register webhooks. Every refusal is a JSON
``{"error": "..."}`` with a 4xx status.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.games import GAMES
from arena.server import scrimmage as scrim_mod
from arena.server.accounts import AccountError, User
from arena.server.context import Server
from arena.server.errors import Refused
from arena.server.security import CSRF_HEADER, SESSION_COOKIE, csrf_ok
from arena.server.uploads import UploadError, archive_of, stage
from arena.site.pages import match_path

MAX_PAGE = 200


def authenticate(server: Server, request: Request) -> tuple[User | None, str]:
    """(the user, how: "token" or "session"), or (None, "") for an anonymous request. A
    wrong token is refused, not taken as anonymous."""
    header = request.headers.get("authorization")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refused(401, "use Authorization: Bearer <API token>")
        user = server.accounts().user_for_token(token.strip())
        if user is None:
            raise Refused(401, "unknown or revoked API token")
        return user, "token"
    session = request.cookies.get(SESSION_COOKIE)
    if session:
        user = server.accounts().user_for_session(session)
        if user is not None:
            return user, "session"
    return None, ""


def require_user(server: Server, request: Request, write: bool = False) -> User:
    """The signed-in user; a session's write must carry the CSRF header."""
    user, via = authenticate(server, request)
    if user is None:
        raise Refused(401, "sign in, or send an API token (Authorization: Bearer <token>)")
    if write and via == "session" and not csrf_ok(request, request.headers.get(CSRF_HEADER)):
        raise Refused(403, "a missing or wrong CSRF token (X-CSRF-Token header)")
    return user


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        raise Refused(400, f"{name} must be an integer") from None
    if not low <= value <= high:
        raise Refused(400, f"{name} must be between {low} and {high}")
    return value


async def json_body(request: Request) -> dict[str, Any]:
    body = await request.body()
    if len(body) > 64 * 1024:
        raise Refused(413, "the request body is too large")
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        raise Refused(400, "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise Refused(400, "the body must be a JSON object")
    return data


# -- reading ----------------------------------------------------------------------------------


def index(request: Request) -> JSONResponse:
    return JSONResponse(
        {
            "api": "arena/v1",
            "docs": "SERVER.md",
            "endpoints": [
                "GET /api/v1/standings",
                "GET /api/v1/standings/{game}",
                "GET /api/v1/bots",
                "GET /api/v1/bots/{name}",
                "GET /api/v1/matches?offset=&limit=&bot=&game=",
                "GET /api/v1/matches/{match_id}",
                "GET /api/v1/me",
                "POST /api/v1/bots",
                "DELETE /api/v1/bots/{name}",
                "GET /api/v1/validations",
                "GET /api/v1/validations/{id}",
                "POST /api/v1/scrimmages",
                "GET /api/v1/scrimmages",
                "GET /api/v1/scrimmages/{id}",
                "GET /api/v1/webhooks",
                "POST /api/v1/webhooks",
                "DELETE /api/v1/webhooks/{id}",
            ],
        }
    )


def standings(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    data = server.summary()
    data.pop("entrants", None)
    return JSONResponse(data)


def game_standings(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    game = request.path_params["game"]
    games = server.summary()["games"]
    if game not in games:
        raise Refused(404, f"the league has no game {game!r} (it has {', '.join(games)})")
    return JSONResponse({"game": game, **games[game]})


def bot_list(server: Server) -> list[dict[str, Any]]:
    by_name: dict[str, dict[str, Any]] = {}
    for e in server.summary()["entrants"]:
        entry = by_name.setdefault(
            e["name"], {"name": e["name"], "author": e["author"], "versions": []}
        )
        entry["author"] = e["author"]
        entry["versions"].append(e)
    for entry in by_name.values():
        live = [v for v in entry["versions"] if v["status"] in ("active", "suspended")]
        entry["current"] = (live or entry["versions"])[-1]["id"]
    return list(by_name.values())


def bots(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    return JSONResponse({"bots": bot_list(server)})


def bot(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    name = request.path_params["name"]
    found = next((b for b in bot_list(server) if b["name"] == name), None)
    if found is None:
        raise Refused(404, f"no bot called {name!r}")
    ids = {v["id"] for v in found["versions"]}
    ratings: dict[str, list[dict[str, Any]]] = {}
    for game, table in server.summary()["games"].items():
        ratings[game] = [r for r in table["ratings"] if r["id"] in ids]
    return JSONResponse({**found, "owner": server.accounts().owner_of(name), "ratings": ratings})


def matches(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    league = server.league()
    offset = int_param(request, "offset", 0, 0, 10**9)
    limit = int_param(request, "limit", 50, 1, MAX_PAGE)
    bot_id = request.query_params.get("bot")
    game = request.query_params.get("game")
    if game is not None and game not in {g.name for g in league.config.games}:
        raise Refused(400, f"the league has no game {game!r}")
    bot_filter = None
    if bot_id is not None:
        bot_filter = int_param(request, "bot", 0, 0, 2**62)
    names = {e.id: e.name for e in league.entrants()}
    rows = league.store.result_page(offset, limit, bot_filter, game)
    return JSONResponse(
        {
            "offset": offset,
            "limit": limit,
            "total": league.store.played_count() if bot_filter is None and game is None else None,
            "matches": [
                {
                    "match_id": m,
                    "game": g,
                    "bots": [{"id": b, "name": names.get(b, "?")} for b in bots_],
                    "ranks": list(ranks),
                    "faults": faults,
                    "finished_at": at,
                    "record": f"/api/v1/matches/{m}",
                    "page": "/" + match_path(m),
                }
                for m, g, bots_, ranks, faults, at in rows
            ],
        }
    )


def match_record(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    league = server.league()
    match_id = request.path_params["match_id"]
    if len(match_id) > 200:
        raise Refused(400, "a match id is at most 200 characters")
    record = league.store.record_of(match_id)
    if record is None:
        raise Refused(404, f"no stored match {match_id!r}")
    user, _ = authenticate(server, request)
    names = {e.id: e.name for e in league.entrants()}
    seats = record["schedule"]["bots"]
    for fault in record.get("faults", []):
        owner_bot = names.get(seats[fault["seat"]], "")
        if not server.may_see_private(user, owner_bot):
            fault["stderr_tail"] = ""
    record["bot_names"] = [names.get(b, "?") for b in seats]
    return JSONResponse(record)


def me(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    user = require_user(server, request)
    return JSONResponse(
        {"name": user.name, "admin": user.admin, "bots": server.accounts().bots_of(user)}
    )


# -- authors ------------------------------------------------------------------------------------


async def submit(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    user = await run_in_threadpool(require_user, server, request, True)
    data, _fields = await receive_upload(server, request, user)
    staged = await run_in_threadpool(do_stage, server, data, user)
    return JSONResponse(
        {
            "validation": staged.validation,
            "bot": staged.bot,
            "status": "pending",
            "url": f"/api/v1/validations/{staged.validation}",
        },
        status_code=201,
    )


async def receive_upload(
    server: Server, request: Request, user: User
) -> tuple[bytes, dict[str, str]]:
    """The archive of an upload, within the size and rate limits."""
    if not server.upload_limit.allow(user.name):
        raise Refused(429, "too many uploads: try again later")
    try:
        return await archive_of(request, server.settings.limits.max_upload)
    except UploadError as exc:
        raise Refused(exc.status, exc.message) from None


def do_stage(server: Server, data: bytes, user: User) -> Any:
    try:
        return stage(
            server.folder,
            data,
            user,
            server.accounts(),
            server.jobs(),
            server.league(),
            server.settings.limits,
        )
    except UploadError as exc:
        raise Refused(exc.status, exc.message) from None


def withdraw(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    user = require_user(server, request, write=True)
    action = request_withdrawal(server, user, request.path_params["name"])
    return JSONResponse({"action": action, "status": "pending"}, status_code=202)


def request_withdrawal(server: Server, user: User, name: str) -> int:
    live = [e for e in server.league().entrants() if e.name == name and e.status.live]
    if not live:
        raise Refused(404, f"no live bot called {name!r}")
    if not server.accounts().may_change(name, user):
        raise Refused(403, f"{name!r} is another author's bot: you may not withdraw it")
    return server.jobs().add_action("withdraw", user.name, name)


def validations(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    user = require_user(server, request)
    mine = server.jobs().validations(user=user.name)
    return JSONResponse({"validations": [v.public(private=True) for v in mine]})


def validation(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    user = require_user(server, request)
    found = server.jobs().validation(path_int(request, "id"))
    if found is None or not (user.admin or found.user == user.name):
        raise Refused(404, "no such validation of yours")
    return JSONResponse(found.public(private=True))


def path_int(request: Request, name: str) -> int:
    text = str(request.path_params[name])
    if not text.isdigit() or len(text) > 18:
        raise Refused(404, "not found")
    return int(text)


# -- scrimmages ---------------------------------------------------------------------------------


def check_scrimmage(server: Server, user: User, data: dict[str, Any]) -> tuple[str, list[str], int]:
    """(game, bots by seat with the author's first, matches) of a scrimmage request."""
    league = server.league()
    mine, opponents, count = data.get("bot"), data.get("opponents"), data.get("matches", 10)
    if not isinstance(mine, str) or not isinstance(opponents, list) or not opponents:
        raise Refused(400, 'give "bot" (yours) and "opponents" (a list of bot names)')
    if not all(isinstance(o, str) for o in opponents):
        raise Refused(400, "opponents are bot names")
    cap = server.settings.max_scrimmage_matches
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= cap:
        raise Refused(400, f"matches must be an integer from 1 to {cap}")
    if not server.accounts().may_change(mine, user):
        raise Refused(403, f"{mine!r} is not your bot")
    live = {e.name: e for e in league.entrants() if e.status.live}
    names = [mine, *opponents]
    missing = [n for n in names if n not in live]
    if missing:
        raise Refused(400, f"no live bot called {missing[0]!r}")
    common = [g for g in live[mine].games if all(g in live[n].games for n in names)]
    game = data.get("game", common[0] if len(common) == 1 else None)
    if not isinstance(game, str) or game not in common:
        raise Refused(400, f'choose "game" among the games all of them play: {", ".join(common)}')
    spec = GAMES[game]
    if not spec.min_seats <= len(names) <= spec.max_seats:
        raise Refused(
            400, f"{game} seats {spec.min_seats} to {spec.max_seats} bots, not {len(names)}"
        )
    return game, names, count


def request_scrimmage(server: Server, user: User, data: dict[str, Any]) -> int:
    game, names, count = check_scrimmage(server, user, data)
    queue = server.jobs()
    open_ = [s for s in queue.scrimmages(user=user.name) if s.status in ("pending", "running")]
    if len(open_) >= 3:
        raise Refused(429, "you have 3 scrimmages waiting: wait for one to finish")
    if not server.scrimmage_limit.allow(user.name):
        raise Refused(429, "too many scrimmages this hour: try again later")
    return queue.add_scrimmage(user.name, game, names, count)


async def new_scrimmage(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    user = await run_in_threadpool(require_user, server, request, True)
    data = await json_body(request)
    sid = await run_in_threadpool(request_scrimmage, server, user, data)
    return JSONResponse(
        {"scrimmage": sid, "status": "pending", "url": f"/api/v1/scrimmages/{sid}"},
        status_code=201,
    )


def scrimmage_view(server: Server, user: User, sid: int) -> dict[str, Any]:
    found = server.jobs().scrimmage(sid)
    if found is None or not (user.admin or found.user == user.name):
        raise Refused(404, "no such scrimmage of yours")
    folder = scrim_mod.scrimmage_folder(server.folder, sid)
    rows = scrim_mod.results(folder, found.bots) if found.status == "done" else []
    for row in rows:
        row["replay"] = f"/scrimmages/{sid}/site/{match_path(row['match_id'])}"
    return {**found.public(), "results": rows, "summary": scrim_mod.summary(rows, found.bots)}


def scrimmages(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    user = require_user(server, request)
    mine = server.jobs().scrimmages(user=user.name)
    return JSONResponse({"scrimmages": [s.public() for s in mine]})


def scrimmage(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    user = require_user(server, request)
    return JSONResponse(scrimmage_view(server, user, path_int(request, "id")))


# -- webhooks -----------------------------------------------------------------------------------


def webhooks(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    user = require_user(server, request)
    hooks = server.accounts().webhooks(user)
    return JSONResponse(
        {"webhooks": [{"id": h.id, "url": h.url, "events": sorted(h.events)} for h in hooks]}
    )


def add_webhook(server: Server, user: User, data: dict[str, Any]) -> int:
    url, events = data.get("url"), data.get("events", ["validation", "settled"])
    if not isinstance(url, str) or not isinstance(events, list):
        raise Refused(400, 'give "url" and "events" (a list of "validation", "settled")')
    if not events or not all(e in ("validation", "settled") for e in events):
        raise Refused(400, 'events are "validation" and "settled"')
    try:
        return server.accounts().add_webhook(user, url, frozenset(events))
    except AccountError as exc:
        raise Refused(400, str(exc)) from None


async def new_webhook(request: Request) -> JSONResponse:
    server: Server = request.app.state.server
    user = await run_in_threadpool(require_user, server, request, True)
    data = await json_body(request)
    hook = await run_in_threadpool(add_webhook, server, user, data)
    return JSONResponse({"id": hook}, status_code=201)


def remove_webhook(request: Request) -> Response:
    server: Server = request.app.state.server
    user = require_user(server, request, write=True)
    hook = path_int(request, "id")
    if hook not in {h.id for h in server.accounts().webhooks(user)}:
        raise Refused(404, "no such webhook of yours")
    server.accounts().remove_webhook(user, hook)
    return Response(status_code=204)


def inline(endpoint: Callable[[Request], Response]) -> Callable[[Request], Awaitable[Response]]:
    """Run a quick read (a few SQLite reads, no waiting: WAL readers never block) on the event
    loop itself, sparing the hop to the thread pool: most of a small request's cost."""

    async def run(request: Request) -> Response:
        return endpoint(request)

    run.__name__ = endpoint.__name__
    return run


def not_found(request: Request) -> JSONResponse:
    raise Refused(404, f"no API endpoint {request.url.path}")


ROUTES = [
    Route("/api/v1", inline(index)),
    Route("/api/v1/", inline(index)),
    Route("/api/v1/standings", inline(standings)),
    Route("/api/v1/standings/{game}", inline(game_standings)),
    Route("/api/v1/bots", inline(bots), methods=["GET"]),
    Route("/api/v1/bots", submit, methods=["POST"]),
    Route("/api/v1/bots/{name}", inline(bot), methods=["GET"]),
    Route("/api/v1/bots/{name}", withdraw, methods=["DELETE"]),
    Route("/api/v1/matches", inline(matches)),
    Route("/api/v1/matches/{match_id}", inline(match_record)),
    Route("/api/v1/me", me),
    Route("/api/v1/validations", validations),
    Route("/api/v1/validations/{id}", validation),
    Route("/api/v1/scrimmages", scrimmages, methods=["GET"]),
    Route("/api/v1/scrimmages", new_scrimmage, methods=["POST"]),
    Route("/api/v1/scrimmages/{id}", scrimmage),
    Route("/api/v1/webhooks", webhooks, methods=["GET"]),
    Route("/api/v1/webhooks", new_webhook, methods=["POST"]),
    Route("/api/v1/webhooks/{id}", remove_webhook, methods=["DELETE"]),
    Route("/api/{rest:path}", not_found, methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
]
