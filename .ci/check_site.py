"""CI: a rendered leaderboard site is whole: its pages exist and every local link resolves.

Usage: python .ci/check_site.py SITE_DIR [--bots N]

Checks that index.html, the standings and one page per game exist; that every page links the
stylesheet and tables.js, match pages with a replay link viewer.js; that every local href/src of
every page names a file that exists (so the css/js were copied beside the pages); that the game
pages show the rules documents (seeds/*.md), not "The rules file is not available"; and, with
--bots, that the site has that many bot pages (the demo's entrants). Exits 1 with the problems.
"""

from __future__ import annotations

import argparse
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

GAMES = ("take5", "ten", "phase10")


class Links(HTMLParser):
    """The href and src attributes of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("href", "src") and value:
                self.links.append(value)


def local(link: str) -> str | None:
    """The path part of a link to a file of the site, or None for external and in-page links."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    return unquote(parts.path)


def check(site: Path, bots: int | None) -> list[str]:
    problems: list[str] = []
    pages = sorted(site.rglob("*.html"))
    if not (site / "index.html").is_file():
        problems.append(f"{site}/index.html is missing")
    for name in ("site.css", "tables.js", "viewer.js"):
        if not (site / "static" / name).is_file():
            problems.append(f"{site}/static/{name} is missing")
    seen_viewer = False
    for page in pages:
        text = page.read_text("utf-8")
        parser = Links()
        parser.feed(text)
        targets = {p for p in map(local, parser.links) if p is not None}
        rel = page.relative_to(site)
        if not any(t.endswith("static/site.css") for t in targets):
            problems.append(f"{rel} does not link static/site.css")
        if not any(t.endswith("static/tables.js") for t in targets):
            problems.append(f"{rel} does not load static/tables.js")
        seen_viewer |= any(t.endswith("static/viewer.js") for t in targets)
        for target in sorted(targets):
            if target.startswith("/"):
                problems.append(f"{rel} links {target}: absolute, breaks from file://")
            elif not (page.parent / target).resolve().exists():
                problems.append(f"{rel} links {target}, which does not exist")
    if not seen_viewer:
        problems.append("no match page loads static/viewer.js")
    for game in GAMES:
        page = site / "games" / f"{game}.html"
        text = page.read_text("utf-8") if page.is_file() else ""
        if "The rules as implemented" not in text:
            problems.append(f"games/{game}.html is missing or does not show the rules")
        if "The rules file is not available" in text:
            problems.append(f"games/{game}.html lacks its rules document (seeds/ not packaged?)")
    if bots is not None:
        found = len(list((site / "bots").glob("*.html")))
        if found != bots:
            problems.append(f"{found} bot pages, expected {bots} (the demo's entrants)")
    if len(pages) < 10:
        problems.append(f"only {len(pages)} pages")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--bots", type=int, default=None)
    args = parser.parse_args()
    problems = check(args.site, args.bots)
    pages = len(list(args.site.rglob("*.html")))
    for problem in problems[:50]:
        print(f"check_site: {problem}", file=sys.stderr)
    if problems:
        print(f"check_site: {args.site}: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_site: {args.site}: {pages} pages, every link resolves, css/js/rules present")
    return 0


if __name__ == "__main__":
    sys.exit(main())
