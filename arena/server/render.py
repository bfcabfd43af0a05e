"""The server's site render, as a process of its own: ``python -m arena.server.render L SITE``.

The runner starts it (:class:`arena.server.runner.Renderer`) when the league changed, at most
every few seconds, and goes on feeding its workers meanwhile: rendering match pages costs about
as much CPU as playing quick matches, and done in the driver's thread it stalled the league for
as long. It runs at a lower priority (nice 10), so that the league's workers come first; it
reads the league without writing it. With ``--summary`` it first writes the league's summary
for the web (:func:`arena.server.context.write_summary`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from arena.league.core import League
from arena.server.context import write_summary
from arena.site.build import MatchPages, build_site

NICE = 10


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arena.server.render")
    parser.add_argument("folder", type=Path)
    parser.add_argument("site", type=Path)
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    with contextlib.suppress(OSError):
        os.nice(NICE)
    with League.open(args.folder, read_only=True) as league:
        if args.summary:
            write_summary(league)
        # Only the recent matches' pages are rendered ahead; the server renders any other when
        # it is asked for. No page shows a stderr tail: that is for the bot's author only.
        build_site(league, args.site, matches=MatchPages.RECENT, link_all=True, stderr=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
