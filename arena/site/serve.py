"""``arena serve``: the site over HTTP on this machine, re-rendered when the league changes.

A plain :class:`http.server.ThreadingHTTPServer` serves the output folder; a watcher thread
looks at the league every few seconds (results stored, batches rated, entrants and their status)
and brings the site up to date when anything changed. Pages are replaced atomically, so a
reader never sees half a page.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from arena.league.core import League
from arena.site.build import build_site


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
    ) -> None:
        super().__init__(name="arena-site-watcher", daemon=True)
        self.opener = opener
        self.out = out
        self.interval = interval
        self.log = log
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
                report = build_site(league, self.out)
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


def make_server(out: Path, host: str, port: int) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(QuietHandler, directory=str(out))
    return http.server.ThreadingHTTPServer((host, port), handler)


def serve_site(
    opener: Callable[[], League],
    out: Path,
    host: str,
    port: int,
    interval: float,
    log: TextIO | None,
) -> None:
    """Serve ``out`` until interrupted, re-rendering it when the league changes."""
    watcher = Watcher(opener, out, interval, log)
    watcher.check()
    server = make_server(out, host, port)
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
