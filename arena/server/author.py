"""The author pages under ``/account/``: sign in and out, set a password with a sign-up token,
my bots (versions, status, ratings, recent matches, faults with their stderr tails), upload,
validation progress, withdrawal, scrimmages, webhooks and API tokens.

Plain HTML forms, no script: every form carries the CSRF value (:mod:`arena.server.security`)
and every POST checks it; pages that wait (a validation, a scrimmage) reload themselves.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.server import api
from arena.server.accounts import AccountError, User
from arena.server.context import Server
from arena.server.errors import Refused
from arena.server.security import (
    CSRF_FIELD,
    SESSION_COOKIE,
    client_address,
    csrf_ok,
    csrf_token,
    set_csrf,
)
from arena.server.uploads import UploadError, read_body
from arena.site.pages import match_path

SESSION_DAYS = 14
SMALL_FORM = 64 * 1024


def server_of(request: Request) -> Server:
    server: Server = request.app.state.server
    return server


def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Render an author page (the CSRF value and the signed-in user in its context)."""
    server = server_of(request)
    context.setdefault("user", None)
    context.setdefault("refresh", None)
    context.setdefault("notice", None)
    context.setdefault("message", None)
    text = server.templates.get_template(template).render(csrf=csrf_token(request), **context)
    response = HTMLResponse(text, status_code=status)
    response.headers["cache-control"] = "no-store"
    set_csrf(request, response)
    return response


def session_user(request: Request) -> User | None:
    session = request.cookies.get(SESSION_COOKIE)
    if not session:
        return None
    return server_of(request).accounts().user_for_session(session)


def signed_in(request: Request) -> User:
    """The signed-in user, or a redirect to the sign-in page."""
    user = session_user(request)
    if user is None:
        raise Refused(303, "sign in first", {"location": "/account/signin"})
    return user


def see_other(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


async def small_form(request: Request) -> dict[str, list[str]]:
    """A form of short fields (urlencoded or multipart without files), at most 64 KiB."""
    try:
        body = await read_body(request, SMALL_FORM)
    except UploadError as exc:
        raise Refused(exc.status, exc.message) from None
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    fields: dict[str, list[str]] = {}
    if kind == "multipart/form-data":

        async def once() -> Any:
            yield body
            yield b""

        parser = MultiPartParser(request.headers, once(), max_files=0, max_fields=50)
        try:
            form = await parser.parse()
        except MultiPartException as exc:
            raise Refused(400, f"a malformed form: {exc.message}") from None
        for key, value in form.multi_items():
            if isinstance(value, str):
                fields.setdefault(key, []).append(value)
        return fields
    try:
        pairs = urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        raise Refused(400, "a form that is not UTF-8") from None
    for key, value in pairs:
        fields.setdefault(key, []).append(value)
    return fields


def one(fields: dict[str, list[str]], name: str) -> str:
    return (fields.get(name) or [""])[0]


def check_csrf(request: Request, fields: dict[str, list[str]]) -> None:
    if not csrf_ok(request, one(fields, CSRF_FIELD)):
        raise Refused(403, "this form expired or came from another site (CSRF): reload and retry")


def start_session(request: Request, user: User, to: str) -> Response:
    session = server_of(request).accounts().new_session(user)
    response = see_other(to)
    response.set_cookie(
        SESSION_COOKIE,
        session,
        max_age=SESSION_DAYS * 86400,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


# -- signing in and out -----------------------------------------------------------------------


def signin_form(request: Request) -> Response:
    if session_user(request) is not None:
        return see_other("/account/")
    return page(request, "signin.html", title="Sign in", name="")


async def signin(request: Request) -> Response:
    fields = await small_form(request)
    check_csrf(request, fields)
    name, password = one(fields, "name")[:64], one(fields, "password")[:1024]
    server = server_of(request)
    address = client_address(request)
    if not server.signin_by_address.allow(address) or not server.signin_by_name.allow(name):
        raise Refused(429, "too many sign-in attempts: wait a few minutes")
    user = await run_in_threadpool(server.accounts().check_password, name, password)
    if user is None:
        return page(
            request,
            "signin.html",
            401,
            title="Sign in",
            name=name,
            message="wrong name or password",
        )
    return start_session(request, user, "/account/")


async def signout(request: Request) -> Response:
    fields = await small_form(request)
    check_csrf(request, fields)
    session = request.cookies.get(SESSION_COOKIE)
    if session:
        await run_in_threadpool(server_of(request).accounts().end_session, session)
    response = see_other("/index.html")
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


def signup_form(request: Request) -> Response:
    return page(request, "signup.html", title="Set your password")


async def signup(request: Request) -> Response:
    fields = await small_form(request)
    check_csrf(request, fields)
    server = server_of(request)
    if not server.signin_by_address.allow(client_address(request)):
        raise Refused(429, "too many attempts: wait a few minutes")
    password = one(fields, "password")[:1024]
    if password != one(fields, "again")[:1024]:
        return page(
            request,
            "signup.html",
            400,
            title="Set your password",
            message="the two passwords differ",
        )
    try:
        user = await run_in_threadpool(
            server.accounts().redeem_signup, one(fields, "token").strip()[:200], password
        )
    except AccountError as exc:
        return page(request, "signup.html", 400, title="Set your password", message=str(exc))
    return start_session(request, user, "/account/")


# -- my bots ----------------------------------------------------------------------------------


def bot_view(server: Server, name: str) -> dict[str, Any]:
    """One of the user's bots: its versions with their ratings, recent matches and faults."""
    league = server.league()
    summary = server.summary()
    versions = [dict(e) for e in summary["entrants"] if e["name"] == name]
    names = {e["id"]: e["name"] for e in summary["entrants"]}
    for v in versions:
        v["ratings"] = [
            {"game": game, **r}
            for game, table in summary["games"].items()
            for r in table["ratings"]
            if r["id"] == v["id"]
        ]
    recent = []
    faults = []
    for v in reversed(versions):
        for m, game, bots, ranks, count, _ in league.store.result_page(0, 10, v["id"]):
            seats = ", ".join(
                f"{names.get(b, '?')} #{r + 1}" for b, r in zip(bots, ranks, strict=True)
            )
            recent.append(
                {
                    "match_id": m,
                    "game": game,
                    "seats": seats,
                    "faults": count,
                    "page": match_path(m),
                }
            )
        for f in league.store.faults_of(v["id"], 10):
            faults.append({**f.__dict__, "page": match_path(f.match_id)})
    return {
        "name": name,
        "versions": versions,
        "live": any(v["status"] in ("active", "suspended") for v in versions),
        "recent": recent[:10],
        "faults": faults[:10],
    }


def account(request: Request) -> Response:
    user = signed_in(request)
    server = server_of(request)
    names = server.accounts().bots_of(user)
    bots = [bot_view(server, n) for n in names]
    vals = [v.public(True) for v in server.jobs().validations(user=user.name)[:20]]
    return page(
        request, "account.html", title="My bots", user=user, bots=bots, validations=vals, token=None
    )


async def new_token(request: Request) -> Response:
    fields = await small_form(request)
    check_csrf(request, fields)
    user = await run_in_threadpool(signed_in, request)
    server = server_of(request)

    def make() -> Response:
        token = server.accounts().new_token(user, "browser")
        names = server.accounts().bots_of(user)
        bots = [bot_view(server, n) for n in names]
        vals = [v.public(True) for v in server.jobs().validations(user=user.name)[:20]]
        return page(
            request,
            "account.html",
            title="My bots",
            user=user,
            bots=bots,
            validations=vals,
            token=token,
        )

    return await run_in_threadpool(make)


async def withdraw(request: Request) -> Response:
    fields = await small_form(request)
    check_csrf(request, fields)
    user = await run_in_threadpool(signed_in, request)
    await run_in_threadpool(
        api.request_withdrawal, server_of(request), user, request.path_params["name"]
    )
    return see_other("/account/")


# -- uploads and validations ------------------------------------------------------------------


def upload_form(request: Request) -> Response:
    user = signed_in(request)
    limit = server_of(request).settings.limits.max_upload
    return page(
        request, "upload.html", title="Upload a bot", user=user, max_mb=round(limit / 2**20, 1)
    )


async def upload(request: Request) -> Response:
    server = server_of(request)
    user = await run_in_threadpool(signed_in, request)
    data, fields = await api.receive_upload(server, request, user)
    if not csrf_ok(request, fields.get(CSRF_FIELD)):
        raise Refused(403, "this form expired or came from another site (CSRF): reload and retry")
    try:
        staged = await run_in_threadpool(api.do_stage, server, data, user)
    except Refused as exc:
        return page(
            request,
            "upload.html",
            exc.status,
            title="Upload a bot",
            user=user,
            max_mb=round(server.settings.limits.max_upload / 2**20, 1),
            message=exc.message,
        )
    return see_other(f"/account/validations/{staged.validation}")


def validation(request: Request) -> Response:
    user = signed_in(request)
    found = server_of(request).jobs().validation(api.path_int(request, "id"))
    if found is None or not (user.admin or found.user == user.name):
        raise Refused(404, "no such validation of yours")
    view = found.public(private=True)
    return page(
        request,
        "validation.html",
        title=f"Validation {found.id}",
        user=user,
        v=view,
        ended=found.ended,
        refresh=None if found.ended else 2,
    )


# -- scrimmages -------------------------------------------------------------------------------


def scrimmage_page(request: Request, user: User, status: int = 200, message: str = "") -> Response:
    server = server_of(request)
    live = sorted({e.name for e in server.league().entrants() if e.status.live})
    mine = [b for b in server.accounts().bots_of(user) if b in live]
    return page(
        request,
        "scrimmages.html",
        status,
        title="Scrimmages",
        user=user,
        mine=mine,
        live=live,
        games=[g.name for g in server.league().config.games],
        max_matches=server.settings.max_scrimmage_matches,
        scrimmages=[s.public() for s in server.jobs().scrimmages(user=user.name)],
        message=message or None,
    )


def scrimmages(request: Request) -> Response:
    return scrimmage_page(request, signed_in(request))


async def new_scrimmage(request: Request) -> Response:
    fields = await small_form(request)
    check_csrf(request, fields)
    server = server_of(request)
    user = await run_in_threadpool(signed_in, request)
    count = one(fields, "matches")
    data = {
        "bot": one(fields, "bot"),
        "opponents": fields.get("opponents", []),
        "game": one(fields, "game"),
        "matches": int(count) if count.isdigit() and len(count) < 6 else -1,
    }
    try:
        sid = await run_in_threadpool(api.request_scrimmage, server, user, data)
    except Refused as exc:
        return await run_in_threadpool(scrimmage_page, request, user, exc.status, exc.message)
    return see_other(f"/account/scrimmages/{sid}")


def scrimmage(request: Request) -> Response:
    user = signed_in(request)
    view = api.scrimmage_view(server_of(request), user, api.path_int(request, "id"))
    waiting = view["status"] in ("pending", "running")
    return page(
        request,
        "scrimmage.html",
        title=f"Scrimmage {view['id']}",
        user=user,
        s=view,
        refresh=3 if waiting else None,
    )


# -- webhooks ---------------------------------------------------------------------------------


def webhook_page(request: Request, user: User, status: int = 200, message: str = "") -> Response:
    server = server_of(request)
    return page(
        request,
        "webhooks.html",
        status,
        title="Webhooks",
        user=user,
        hooks=server.accounts().webhooks(user),
        settled=server.settings.settled_sigma,
        message=message or None,
    )


def webhooks(request: Request) -> Response:
    return webhook_page(request, signed_in(request))


async def new_webhook(request: Request) -> Response:
    fields = await small_form(request)
    check_csrf(request, fields)
    server = server_of(request)
    user = await run_in_threadpool(signed_in, request)
    data = {"url": one(fields, "url"), "events": fields.get("events", [])}
    try:
        await run_in_threadpool(api.add_webhook, server, user, data)
    except Refused as exc:
        return await run_in_threadpool(webhook_page, request, user, exc.status, exc.message)
    return see_other("/account/webhooks")


async def remove_webhook(request: Request) -> Response:
    fields = await small_form(request)
    check_csrf(request, fields)
    server = server_of(request)
    user = await run_in_threadpool(signed_in, request)
    hook = api.path_int(request, "id")

    def remove() -> None:
        if hook in {h.id for h in server.accounts().webhooks(user)}:
            server.accounts().remove_webhook(user, hook)

    await run_in_threadpool(remove)
    return see_other("/account/webhooks")


def home(request: Request) -> Response:
    return see_other("/account/")


ROUTES = [
    Route("/account", home),
    Route("/account/", account),
    Route("/account/signin", signin_form, methods=["GET"]),
    Route("/account/signin", signin, methods=["POST"]),
    Route("/account/signout", signout, methods=["POST"]),
    Route("/account/signup", signup_form, methods=["GET"]),
    Route("/account/signup", signup, methods=["POST"]),
    Route("/account/token", new_token, methods=["POST"]),
    Route("/account/upload", upload_form, methods=["GET"]),
    Route("/account/upload", upload, methods=["POST"]),
    Route("/account/validations/{id}", validation),
    Route("/account/bots/{name}/withdraw", withdraw, methods=["POST"]),
    Route("/account/scrimmages", scrimmages, methods=["GET"]),
    Route("/account/scrimmages", new_scrimmage, methods=["POST"]),
    Route("/account/scrimmages/{id}", scrimmage),
    Route("/account/webhooks", webhooks, methods=["GET"]),
    Route("/account/webhooks", new_webhook, methods=["POST"]),
    Route("/account/webhooks/{id}/delete", remove_webhook, methods=["POST"]),
]
