"""Bot specs: manifests checked field by field, executables, built-ins."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena.runtime.manifest import BotError, BotKind, load_bot

ROOT = Path(__file__).resolve().parents[2]


def manifest(tmp_path: Path, text: str) -> Path:
    (tmp_path / "bot.toml").write_text(text)
    (tmp_path / "bot.py").write_text("")
    return tmp_path


GOOD = 'name = "b"\ncommand = ["python3", "bot.py"]\ngames = ["take5"]\n'


def test_a_manifest_loads_with_python_resolved_to_the_arenas_interpreter(tmp_path: Path) -> None:
    bot = load_bot(str(manifest(tmp_path, GOOD + 'version = "2"\nauthor = "me"\n')))
    assert bot.kind is BotKind.PROCESS and bot.name == "b" and bot.version == "2"
    assert bot.command == (sys.executable, "bot.py")
    assert bot.directory == tmp_path.resolve() and bot.games == ("take5",)
    assert bot.plays("take5") and not bot.plays("ten")


def test_programs_are_resolved_once_to_real_paths(tmp_path: Path) -> None:
    bot = load_bot(str(manifest(tmp_path, GOOD.replace('"python3"', '"sh"'))))
    assert os.path.isabs(bot.command[0]) and os.path.realpath(bot.command[0]) == bot.command[0]
    bot = load_bot(str(manifest(tmp_path, GOOD.replace('["python3", "bot.py"]', '"./bot.py -v"'))))
    assert bot.command == (str(tmp_path.resolve() / "bot.py"), "-v")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name = ", "not valid TOML"),
        (GOOD + "colour = 1\n", "unknown field(s) colour"),
        ('command = ["x"]\ngames = ["take5"]\n', "missing field 'name'"),
        (GOOD.replace('"b"', '"bad name!"'), "name must be"),
        (GOOD.replace('["python3", "bot.py"]', "[]"), "command must be"),
        (GOOD.replace('["python3", "bot.py"]', "3"), "command must be"),
        (GOOD.replace('["take5"]', '"take5"'), "games must be a non-empty list"),
        (GOOD.replace('["take5"]', "[]"), "games must be a non-empty list"),
        (GOOD + "author = 3\n", "author must be a string"),
        (GOOD.replace('"python3"', '"no-such-program-xyz"'), "not found on PATH"),
        (GOOD.replace('"python3"', '"./missing"'), "does not exist"),
    ],
)
def test_bad_manifests_are_refused_with_a_clear_message(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(BotError, match=r"bot\.toml") as info:
        load_bot(str(manifest(tmp_path, text)))
    assert message in str(info.value)


def test_executables_builtins_and_humans(tmp_path: Path) -> None:
    script = tmp_path / "my bot.py"
    script.write_text("print()")
    bot = load_bot(str(script))
    assert bot.command == (sys.executable, str(script.resolve())) and bot.name == "my-bot"
    assert bot.games is None and bot.plays("anything")
    plain = tmp_path / "plain"
    plain.write_text("data")
    with pytest.raises(BotError, match="not executable"):
        load_bot(str(plain))
    assert load_bot("builtin:random").kind is BotKind.BUILTIN
    assert load_bot("human").kind is BotKind.HUMAN
    with pytest.raises(BotError, match="builtin:first"):
        load_bot("builtin:best")
    with pytest.raises(BotError, match="no bot at"):
        load_bot(str(tmp_path / "nothing"))


@pytest.mark.parametrize("folder", ["random", "heuristic", "js-random"])
def test_the_sample_bots_manifests_load(folder: str) -> None:
    bot = load_bot(str(ROOT / "bots" / folder))
    assert bot.games and "take5" in bot.games and bot.version == "1.0"


def test_the_arena_package_never_imports_from_bots() -> None:
    for path in (ROOT / "arena").rglob("*.py"):
        text = path.read_text()
        assert "import arenabot" not in text and "from bots" not in text, path
