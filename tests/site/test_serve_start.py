"""``arena serve`` says what it renders before it starts, and reuses the leaderboard's folder."""

from __future__ import annotations

import socket
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from tests.site.leagues import make_league


def test_serve_reuses_the_leaderboards_site_and_says_so(tmp_path: Path) -> None:
    league = make_league(tmp_path / "lg", games=["take5"], batches=1)
    runner = CliRunner()
    first = runner.invoke(main, ["leaderboard", str(league), "--quiet"])
    assert first.exit_code == 0, first.output
    site = tmp_path / "lg-site"
    assert (site / "index.html").exists()
    with socket.socket() as held:  # the port is taken: serve stops after bringing the site up
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = str(held.getsockname()[1])
        result = runner.invoke(main, ["serve", str(league), "--port", port])
    out = result.output
    assert result.exit_code == 1, out
    assert f"bringing the site in {site} up to date (only what changed" in out
    assert f"site in {site} (" in out and "cannot serve on 127.0.0.1" in out
