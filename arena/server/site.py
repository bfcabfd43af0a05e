"""Serving the rendered site (the runner keeps it up to date, :mod:`arena.server.runner`) and
each scrimmage's own replays.

Files are looked up strictly inside their folder (no ``..``, no link out of it). Pages and
records are served with the stderr tails of bots blanked: in the server they belong to each
bot's author and the operator, who read them on the author pages (the static site of
``arena leaderboard`` still shows them to whoever holds the folder). Each site page gets a link
to the author pages in its navigation.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response

from arena import resources
from arena.server import scrimmage as scrim_mod
from arena.server.context import Server
from arena.server.errors import Refused

STDERR_JSON = re.compile(rb'"(stderr_tail|stderr)"\s*:\s*"(?:[^"\\]|\\.)*"')
STDERR_HTML = re.compile(rb'<pre class="stderr">.*?</pre>', re.DOTALL)
NAV_END = b"</nav>"
NAV_LINK = b'<a href="/account/">Authors</a></nav>'
STATIC = resources.templates() / "static"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
CACHE_BYTES = 64 * 2**20


class FileCache:
    """Served files, redacted, kept while their size and mtime stay the same (the runner
    replaces a page atomically when it re-renders it: a new file, a new mtime)."""

    def __init__(self, limit: int = CACHE_BYTES) -> None:
        self.limit = limit
        self.size = 0
        self.files: dict[Path, tuple[int, int, bytes]] = {}
        self.lock = threading.Lock()

    def get(self, target: Path) -> bytes:
        info = target.stat()
        key = (info.st_mtime_ns, info.st_size)
        with self.lock:
            found = self.files.get(target)
        if found is not None and found[:2] == key:
            return found[2]
        data = target.read_bytes()
        if target.suffix in (".html", ".json", ".js"):
            data = redact(data, target.suffix == ".html")
        with self.lock:
            if self.size + len(data) > self.limit:
                self.files.clear()
                self.size = 0
            old = self.files.pop(target, None)
            self.size += len(data) - (len(old[2]) if old else 0)
            self.files[target] = (*key, data)
        return data


CACHE = FileCache()


def redact(data: bytes, html: bool) -> bytes:
    """``data`` with every stderr tail blanked (and, for a page, the authors' link added)."""
    data = STDERR_JSON.sub(lambda m: b'"' + m.group(1) + b'": ""', data)
    if html:
        data = STDERR_HTML.sub(
            b'<p class="muted">The stderr tail is shown to its author.</p>', data
        )
        data = data.replace(NAV_END, NAV_LINK, 1)
    return data


def resolve(root: Path, path: str) -> Path:
    """The file ``path`` names inside ``root``: 404 for anything outside it or missing."""
    if "\0" in path or len(path) > 1000:
        raise Refused(404, "not found")
    base = root.resolve()
    target = (base / path.lstrip("/")).resolve()
    if target != base and base not in target.parents:
        raise Refused(404, "not found")
    if target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        raise Refused(404, f"no page /{path}" if root.exists() else "the site is being rendered")
    return target


def serve_file(root: Path, path: str) -> Response:
    target = resolve(root, path)
    kind = TYPES.get(target.suffix)
    if kind is None:
        return FileResponse(target)
    return Response(CACHE.get(target), media_type=kind, headers={"cache-control": "no-cache"})


def site_file(request: Request) -> Response:
    server: Server = request.app.state.server
    path = request.path_params.get("path", "")
    if path == "":
        return RedirectResponse("/index.html", status_code=307)
    if path.startswith("static/") and not (server.settings.site / path).is_file():
        # Before the first render (the author pages use the site's style sheet).
        return serve_file(STATIC.parent, path)
    if path == "index.html" and not (server.settings.site / path).is_file():
        return rendering(request)
    try:
        return serve_file(server.settings.site, path)
    except Refused:
        on_demand = match_on_demand(server, path)
        if on_demand is None:
            raise
        return on_demand


def rendering(request: Request) -> Response:
    """The leaderboard before its first render (a large league takes a while): a page that
    says so and reloads itself."""
    from arena.server.author import page

    return page(
        request,
        "error.html",
        title="Leaderboard",
        message="The leaderboard is being rendered; this page reloads until it is there.",
        refresh=5,
    )


MATCH_FILE = re.compile(r"matches/m/([A-Za-z0-9_-]{1,64})\.(html|json)")


def match_on_demand(server: Server, path: str) -> Response | None:
    """A match page or record the site did not render, rendered from the store now, where the
    site offers that (``arena.site.build.match_page`` / ``match_record``: a site that renders
    only the recent matches' pages); None otherwise."""
    from arena.site import build

    found = MATCH_FILE.fullmatch(path)
    if found is None:
        return None
    match_id, suffix = found.groups()
    render = build.match_page if suffix == "html" else build.match_record
    try:
        data = render(server.league(), match_id, stderr=False)
    except KeyError:
        return None
    raw = data.encode() if isinstance(data, str) else bytes(data)
    return Response(redact(raw, suffix == "html"), media_type=TYPES["." + suffix])


def scrimmage_file(request: Request) -> Response:
    """A scrimmage's replay pages: its author's and the admins' only."""
    from arena.server.author import signed_in  # the author pages' sign-in

    server: Server = request.app.state.server
    user = signed_in(request)
    text = str(request.path_params["id"])
    found = server.jobs().scrimmage(int(text)) if text.isdigit() and len(text) < 18 else None
    if found is None or not (user.admin or found.user == user.name):
        raise Refused(404, "no such scrimmage of yours")
    folder = scrim_mod.scrimmage_folder(server.folder, found.id) / scrim_mod.SITE_DIR
    return serve_file(folder, request.path_params.get("path", ""))
