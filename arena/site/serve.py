"""``arena serve``: the site over HTTP on this machine, re-rendered when the league changes.

A plain :class:`http.server.ThreadingHTTPServer` serves the output folder; a watcher thread
looks at the league every few seconds (results stored, batches rated, entrants and their status)
and brings the site up to date when anything changed. A match page (or record) not on disk is
rendered from the league's store when it is asked for, and kept for the next visitor, so the
site of a big league need not render a page nobody opens. Pages are replaced atomically, so a
reader never sees half a page.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
import urllib.parse
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any, TextIO

from arena.league.core import League
from arena.site.build import MatchPages, build_site, match_page, match_record

ON_DEMAND = re.compile(r"^/matches/m/([A-Za-z0-9_-]{1,64})\.(html|json)$")
"""A match page or record as the site names it (arena.site.pages.match_path): what is
rendered when asked for."""


def league_state(league: League) -> tuple[object, ...]:
    """What, when it changes, calls for a new build."""
    return (
        league.store.played_count(),
        league.rated_batches(),
        tuple((e.id, e.status, e.reason) for e in league.entrants()),
    )


class Watcher(threading.Thread):
    def __init__(
        self,
        opener: Callable[[], League],
        out: Path,
        interval: float,
        log: TextIO | None,
        matches: MatchPages = MatchPages.ALL,
    ) -> None:
        super().__init__(name="arena-site-watcher", daemon=True)
        self.opener = opener
        self.out = out
        self.interval = interval
        self.log = log
        self.matches = matches
        self.stopping = threading.Event()
        self.last: tuple[object, ...] | None = None
        self.builds = 0

    def check(self) -> bool:
        """Rebuild if the league changed since the last check; True if it did."""
        with self.opener() as league:
            state = league_state(league)
            if state == self.last:
                return False
            if self.last is not None:
                report = build_site(
                    league, self.out, matches=self.matches, link_all=self.matches != MatchPages.ALL
                )
                self.builds += 1
                if self.log:
                    print(
                        f"re-rendered: {report.new_matches} new matches,"
                        f" {report.pages} pages in {report.seconds:.1f}s",
                        file=self.log,
                        flush=True,
                    )
            self.last = state
            return True

    def run(self) -> None:
        while not self.stopping.wait(self.interval):
            try:
                self.check()
            except Exception as exc:  # keep serving the last good site
                if self.log:
                    print(f"re-render failed: {exc!r}", file=self.log, flush=True)

    def stop(self) -> None:
        self.stopping.set()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class SiteHandler(QuietHandler):
    """The site's files, and the match pages and records not on disk rendered when asked for
    (with ``opener``, which opens the league)."""

    def __init__(
        self, *args: Any, opener: Callable[[], League] | None = None, **kwargs: Any
    ) -> None:
        self.opener = opener  # before the base class handles the request in its __init__
        super().__init__(*args, **kwargs)

    def send_head(self) -> Any:
        if self.opener is not None:
            try:
                self.render_missing(self.opener)
            except Exception as exc:  # the arena's trouble (a league it cannot read): say so
                self.send_error(HTTPStatus.INTERNAL_SERVER_ERROR, f"cannot render: {exc}")
                return None
        return super().send_head()

    def render_missing(self, opener: Callable[[], League]) -> None:
        """Write the asked-for match page or record if it is not on disk (nothing for a match
        the league has no result of: the static handler then says 404)."""
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        found = ON_DEMAND.match(path)
        if found is None:
            return
        target = Path(self.directory) / path.lstrip("/")
        if target.is_file():
            return
        match_id, kind = found.groups()
        with opener() as league:
            try:
                body = (
                    match_page(league, match_id).encode()
                    if kind == "html"
                    else match_record(league, match_id)
                )
            except KeyError:
                return
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{threading.get_ident()}.part")
        partial.write_bytes(body)
        os.replace(partial, target)


def make_server(
    out: Path, host: str, port: int, opener: Callable[[], League] | None = None
) -> http.server.ThreadingHTTPServer:
    """A server of the site in ``out``; with ``opener``, it renders the match pages and
    records not on disk from the league when they are asked for."""
    handler = functools.partial(SiteHandler, directory=str(out), opener=opener)
    return http.server.ThreadingHTTPServer((host, port), handler)


def serve_site(
    opener: Callable[[], League],
    out: Path,
    host: str,
    port: int,
    interval: float,
    log: TextIO | None,
    matches: MatchPages = MatchPages.NONE,
) -> None:
    """Serve ``out`` until interrupted, re-rendering it when the league changes (the match
    pages ``matches`` asks for; any other when it is asked for)."""
    watcher = Watcher(opener, out, interval, log, matches)
    watcher.check()
    server = make_server(out, host, port, opener)
    watcher.start()
    if log:
        print(f"serving http://{host}:{server.server_address[1]}/ (Ctrl-C stops)", file=log)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
        server.server_close()
