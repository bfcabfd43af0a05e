"""Every file a submission copies into the league passes the same checks, wherever it comes
from: read through no symbolic link, regular files only, within the size limit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.league.core import HELPER, League, LeagueError
from tests.league.helpers import small_league, write_bot

SECRET = "root:$6$the-secret-hash:19000:0:99999:7:::\n"


def helper_bot(where: Path) -> Path:
    """A bot that imports the helper from its parent folder, as the sample bots do."""
    bot = write_bot(where, "helped")
    (bot / "bot.py").write_text("import arenabot  # from the parent folder\n")
    return bot


def copied(league: Path) -> list[str]:
    return sorted(str(p.relative_to(league / "bots")) for p in (league / "bots").rglob("*"))


def test_the_helper_beside_the_bot_is_copied(tmp_path: Path) -> None:
    bot = helper_bot(tmp_path / "src")
    (tmp_path / "src" / HELPER).write_text("# the helper\n")
    league = small_league(tmp_path / "league", [])
    with League.open(league) as lg:
        done = lg.submit(str(bot), check=False)
    folder = league / done.entrant.source
    assert (folder / HELPER).read_text() == "# the helper\n"


def test_a_helper_linked_to_a_secret_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text(SECRET)
    bot = helper_bot(tmp_path / "src")
    (tmp_path / "src" / HELPER).symlink_to(secret)
    league = small_league(tmp_path / "league", [])
    with League.open(league) as lg, pytest.raises(LeagueError, match="symbolic link"):
        lg.submit(str(bot), check=False)
    with League.open(league) as lg:
        assert lg.entrants() == []
    assert copied(league) == []


def test_a_single_file_bot_that_is_a_link_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "shadow.py"
    secret.write_text(SECRET)
    (tmp_path / "bot.py").symlink_to(secret)
    league = small_league(tmp_path / "league", [])
    with League.open(league) as lg, pytest.raises(LeagueError, match="symbolic link"):
        lg.submit(str(tmp_path / "bot.py"), check=False)
    assert copied(league) == []


def test_links_and_special_files_inside_the_folder_are_refused(tmp_path: Path) -> None:
    league = small_league(tmp_path / "league", [])
    bot = write_bot(tmp_path / "src", "linked")
    (bot / "data").symlink_to("/etc")
    with League.open(league) as lg, pytest.raises(LeagueError, match="symbolic link"):
        lg.submit(str(bot), check=False)
    (bot / "data").unlink()
    os.mkfifo(bot / "pipe")  # reading it would wait forever
    with League.open(league) as lg, pytest.raises(LeagueError, match="not a regular file"):
        lg.submit(str(bot), check=False)
    assert copied(league) == []


def test_the_helper_counts_toward_the_size_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = helper_bot(tmp_path / "src")
    (tmp_path / "src" / HELPER).write_bytes(b"#" * 4096)
    monkeypatch.setattr("arena.league.core.MAX_BOT_BYTES", 2048)
    league = small_league(tmp_path / "league", [])
    with League.open(league) as lg, pytest.raises(LeagueError, match="more than"):
        lg.submit(str(bot), check=False)
