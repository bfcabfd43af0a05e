"""The author's side of the server's API: send a bot folder, follow its validation.

Used by ``arena submit DIR --server URL --token T [--wait]``. The standard library only
(:mod:`urllib`): an author's machine needs nothing more than arena itself. Redirects are not
followed, so the token never goes to a host the author did not name (a redirect, say from http
to https, is reported with the URL to use instead).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import IO, Any

from arena import __version__
from arena.server.archive import ArchiveError, pack
from arena.terminal import shown, shown_lines

API = "/api/v1"
ENDED = frozenset({"passed", "failed"})
"""The statuses a validation ends in (``passed``: the bot is entered)."""

RETRIES = 5
"""Failed polls in a row (the server restarting, a network hiccup) before --wait gives up."""


class ClientError(Exception):
    """The submission could not be made or followed; the message says why, for the author."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient
        """True when asking again later may work (no answer, or a 5xx)."""


@dataclass(frozen=True)
class Server:
    """An arena server and the author's API token for it."""

    url: str
    """The server's base URL, with no trailing ``/`` (as made by :func:`server`)."""
    token: str
    timeout: float = 60.0
    """Seconds to wait for one answer."""


def server(url: str, token: str, timeout: float = 60.0) -> Server:
    """A :class:`Server` for the URL an author typed (``http(s)://host[:port][/prefix]``)."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ClientError(f"the server's URL starts with http:// or https://, not {url!r}")
    if parts.query or parts.fragment:
        raise ClientError(f"the server's URL is its address only (no ?query or #part): {url!r}")
    token = token.strip()
    if not token:
        raise ClientError("an empty token: give your API token (--token, or $ARENA_TOKEN)")
    return Server(urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/"))), token)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: Message,
        newurl: str,
    ) -> urllib.request.Request | None:
        return None  # the 3xx is then raised as an HTTPError, handled below


_OPENER = urllib.request.build_opener(_NoRedirect)


def _call(
    srv: Server, method: str, path: str, body: bytes | None = None, kind: str = ""
) -> dict[str, Any]:
    """One request to the API; its JSON answer (an object), or :class:`ClientError`."""
    headers = {
        "Authorization": f"Bearer {srv.token}",
        "Accept": "application/json",
        "User-Agent": f"arena/{__version__}",
    }
    if kind:
        headers["Content-Type"] = kind
    request = urllib.request.Request(srv.url + path, body, headers, method=method)
    try:
        with _OPENER.open(request, timeout=srv.timeout) as answer:
            data = answer.read()
    except urllib.error.HTTPError as exc:
        raise ClientError(_refusal(exc), transient=exc.code >= 500) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        raise ClientError(f"cannot reach {srv.url}: {reason}", transient=True) from None
    try:
        value = json.loads(data)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise ClientError(
            f"{srv.url} answered something other than a JSON object: is it an arena server?"
        )
    return value


def _refusal(exc: urllib.error.HTTPError) -> str:
    """What to tell the author about an HTTP error answer."""
    if 300 <= exc.code < 400:
        where = exc.headers.get("Location", "?")
        return f"the server redirects to {where} (HTTP {exc.code}): give that address as --server"
    try:
        text = exc.read(64 * 1024).decode("utf-8", "replace")
    except OSError:
        text = ""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        text = str(value.get("error") or value.get("detail") or value.get("message") or text)
    text = " ".join(text.split())[:500] or exc.reason
    if exc.code == 401:
        return f"the server did not take the token (HTTP 401): {text}"
    return f"HTTP {exc.code}: {text}"


def upload(srv: Server, folder: Path) -> dict[str, Any]:
    """Packs ``folder`` and sends it: the server's answer (``{"validation": id, "bot": name,
    "status": "pending"}``)."""
    try:
        data = pack(folder)
    except ArchiveError as exc:
        raise ClientError(f"cannot pack {folder}: {exc}") from None
    except OSError as exc:
        raise ClientError(f"cannot read {folder}: {exc.strerror or exc}") from None
    answer = _call(srv, "POST", f"{API}/bots", data, "application/gzip")
    if "validation" not in answer:
        raise ClientError(f"the server's answer names no validation: {answer}")
    return answer


def validation(srv: Server, validation_id: object) -> dict[str, Any]:
    """The state of one validation (``{"id", "bot", "status", "faults", "hints",
    "stderr_tail"}``)."""
    quoted = urllib.parse.quote(str(validation_id), safe="")
    return _call(srv, "GET", f"{API}/validations/{quoted}")


def wait(
    srv: Server,
    validation_id: object,
    interval: float = 2.0,
    on_status: Callable[[Mapping[str, Any]], None] = lambda answer: None,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any]:
    """Polls a validation every ``interval`` seconds until it ends; its last state.
    ``on_status`` hears every change of status; up to :data:`RETRIES` failed polls in a row
    without an answer (or with a 5xx) are retried: the server may be restarting."""
    status = None
    failures = 0
    while True:
        try:
            answer = validation(srv, validation_id)
        except ClientError as exc:
            failures += 1
            if not exc.transient or failures >= RETRIES:
                raise
            sleep(interval)
            continue
        failures = 0
        if answer.get("status") != status:
            status = answer.get("status")
            on_status(answer)
        if status in ENDED:
            return answer
        sleep(interval)


def report(answer: Mapping[str, Any]) -> list[str]:
    """The lines that tell the author how a validation ended: its status, then its faults,
    hints and stderr tail (what the bot and the server wrote, shown escaped)."""
    bot = shown(answer.get("bot", "?"))
    status = answer.get("status")
    lines = [
        f"validation {shown(answer.get('id', '?'))}: {shown(status)}"
        + (f": {bot} is entered" if status == "passed" else "")
        + (f": {bot} is not entered" if status == "failed" else "")
    ]
    message = answer.get("message")
    if isinstance(message, str) and message.strip():
        lines.extend(f"  {line}" for line in shown_lines(message))
    for title, key in (("faults", "faults"), ("hints", "hints")):
        items = answer.get(key) or []
        if isinstance(items, list) and items:
            lines.append(f"{title}:")
            lines.extend(f"  - {_item(item)}" for item in items)
    tail = answer.get("stderr_tail")
    if isinstance(tail, str) and tail.strip():
        lines.append("stderr (its last lines):")
        lines.extend(f"  | {line}" for line in shown_lines(tail))
    return lines


def _item(item: object) -> str:
    """A fault or hint: a text, or an object (``where: status: message`` of what it has)."""
    if isinstance(item, Mapping):
        parts = [str(item[k]) for k in ("where", "status", "message") if item.get(k)]
        return shown(": ".join(parts) if parts else json.dumps(item, sort_keys=True))
    return shown(item)


def submit(
    folder: Path,
    url: str,
    token: str,
    follow: bool,
    echo: Callable[[str], None],
    fail: Callable[[str], None] | None = None,
    interval: float = 2.0,
) -> int:
    """``arena submit DIR --server URL --token T [--wait]``: sends the bot, and with ``follow``
    waits for its validation. The exit status: 0 if sent (with ``follow``: if the bot was
    entered), 1 if not; every failure is told through ``fail`` (default: ``echo``), none
    raised."""
    try:
        srv = server(url, token)
        sent = upload(srv, folder)
        echo(
            f"sent {shown(sent.get('bot', folder.name))} to {shown(srv.url)}: validation "
            f"{shown(sent['validation'])} is {shown(sent.get('status', 'pending'))}"
        )
        if not follow:
            echo("(add --wait to follow it until the bot is entered or refused)")
            return 0
        last = wait(
            srv,
            sent["validation"],
            interval,
            lambda answer: (
                None
                if answer.get("status") in ENDED
                else echo(f"validation {shown(sent['validation'])}: {shown(answer.get('status'))}")
            ),
        )
    except ClientError as exc:
        (fail or echo)(f"Error: {shown(str(exc))}")
        return 1
    for line in report(last):
        echo(line)
    return 0 if last.get("status") == "passed" else 1
