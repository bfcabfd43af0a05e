"""The leaderboard site: page data, rendering, an incremental cache, and a local server."""

from __future__ import annotations

from arena.site.build import BuildReport, build_site, match_page, match_record

__all__ = ["BuildReport", "build_site", "match_page", "match_record"]
