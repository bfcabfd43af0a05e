"""``arena kit``: writes a bot that passes ``arena check``; bad input is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize("lang", ["python", "js"])
def test_a_kit_from_the_command_line_passes_the_check(tmp_path: Path, lang: str) -> None:
    if lang == "js":
        import shutil

        if shutil.which("node") is None:
            pytest.skip("node is not installed")
    folder = tmp_path / "my-bot"
    code, out = run("kit", "take5", str(folder), "--lang", lang)
    assert code == 0 and (folder / "bot.toml").exists(), out
    code, out = run("check", str(folder), "--matches", "1")
    assert code == 0 and out.rstrip().endswith("PASS"), out


def test_kit_refuses_unknown_games_and_used_folders(tmp_path: Path) -> None:
    code, out = run("kit", "tke5", str(tmp_path / "a"))
    assert code == 1 and "unknown game 'tke5'" in out and "did you mean 'take5'" in out
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "mine.txt").write_text("keep me")
    code, out = run("kit", "take5", str(tmp_path / "used"))
    assert code == 1 and "not an empty folder" in out
    assert (tmp_path / "used" / "mine.txt").read_text() == "keep me"
    code, out = run("kit", "take5", str(tmp_path / "b"), "--lang", "rust")
    assert code == 2 and "rust" in out
