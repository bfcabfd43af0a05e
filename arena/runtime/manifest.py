"""What a bot is: a folder with a ``bot.toml`` manifest, an executable file, or a built-in.

:func:`load_bot` turns what a user writes (``bots/heuristic``, ``./mybot.py``,
``builtin:random``, ``bundled:heuristic`` (a bundled bot, wherever arena is installed), ``human``)
into a :class:`BotSpec` whose command is already resolved to real paths, so starting it costs no shell and no ``PATH`` search. The built-in agents live here too;
they run inside the arena's process and see exactly the messages a bot process would.
"""

from __future__ import annotations

import enum
import os
import random
import re
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena import resources
from arena.games import GAMES, unknown_game
from arena.terminal import printable_name

MANIFEST = "bot.toml"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")
MANIFEST_KEYS = {
    "name": "the bot's name (letters, digits, _ . + -)",
    "command": 'how to start it, run in the bot\'s folder, e.g. ["python3", "bot.py"]',
    "games": 'the games it plays, e.g. ["take5"]',
    "author": "who wrote it",
    "version": "its version, e.g. 1.0",
    "description": "one line about it (optional)",
}
PYTHON_NAMES = re.compile(r"^python(3(\.\d+)?)?$")


def valid_name(name: object) -> bool:
    """A bot name: 1-64 letters, digits, ``_ . + -``, starting with a letter or digit; the whole
    text must match (``$`` alone would let a trailing newline through)."""
    return isinstance(name, str) and NAME_PATTERN.fullmatch(name) is not None


class BotError(ValueError):
    """A bot that cannot be loaded: bad manifest, missing file, unknown built-in."""


class BotKind(enum.Enum):
    PROCESS = "process"
    BUILTIN = "builtin"
    HUMAN = "human"


@dataclass(frozen=True)
class BotSpec:
    """A bot as loaded: how to run it and what it claims to play."""

    name: str
    kind: BotKind
    source: str
    """What the user wrote to name it; also the key under which the pool keeps its processes."""
    command: tuple[str, ...] = ()
    """The resolved argv of a process bot."""
    directory: Path | None = None
    """The bot's folder: its working directory."""
    games: tuple[str, ...] | None = None
    """The games it claims to play; None means any game (built-ins, bare executables)."""
    author: str = ""
    version: str = ""
    description: str = ""

    def plays(self, game: str) -> bool:
        return self.games is None or game in self.games


BUILTINS = ("random", "first")


def load_bot(text: str, base: Path | None = None) -> BotSpec:
    """The bot that ``text`` names; raises :class:`BotError` with a clear message."""
    if text.startswith("builtin:"):
        which = text.removeprefix("builtin:")
        if which not in BUILTINS:
            known = ", ".join(f"builtin:{b}" for b in BUILTINS)
            raise BotError(f"unknown built-in bot {text!r} (built-ins: {known})")
        return BotSpec(which, BotKind.BUILTIN, text, version="builtin")
    if text == "human":
        return BotSpec("human", BotKind.HUMAN, text)
    if text.startswith(resources.BUNDLED_PREFIX):
        try:
            folder = resources.bundled_bot(text.removeprefix(resources.BUNDLED_PREFIX))
        except resources.ResourceMissing as exc:
            raise BotError(str(exc)) from None
        return load_manifest(folder / MANIFEST, source=text)
    path = Path(text) if base is None else base / text
    if path.is_dir():
        return load_manifest(path / MANIFEST, source=text)
    if path.is_file():
        if path.name == MANIFEST:
            return load_manifest(path, source=text)
        return load_executable(path, source=text)
    raise BotError(
        f"no bot at {text!r}: expected a folder with {MANIFEST}, an executable file, "
        f"{', '.join(f'builtin:{b}' for b in BUILTINS)}, "
        f"{', '.join(resources.BUNDLED_PREFIX + b for b in resources.BUNDLED_BOTS)} or human"
    )


def load_manifest(path: Path, source: str | None = None) -> BotSpec:
    """A bot from its ``bot.toml``; every field is checked and named in the error."""
    if not path.is_file():
        raise BotError(f"{path.parent} has no {MANIFEST}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BotError(f"{path}: not valid TOML: {exc}") from None
    return manifest_spec(data, path, source or str(path.parent))


def manifest_spec(data: Mapping[str, Any], path: Path, source: str) -> BotSpec:
    """Check a parsed manifest; ``path`` locates it (and its folder) for messages and commands."""

    def bad(message: str) -> BotError:
        return BotError(f"{path}: {message}")

    unknown = sorted(set(data) - set(MANIFEST_KEYS))
    if unknown:
        expected = "; ".join(f"{k}: {v}" for k, v in MANIFEST_KEYS.items())
        raise bad(f"unknown field(s) {', '.join(unknown)} (fields: {expected})")
    for key in ("name", "command", "games"):
        if key not in data:
            raise bad(f"missing field {key!r}: {MANIFEST_KEYS[key]}")
    name = data["name"]
    if not valid_name(name):
        raise bad(f"name must be 1-64 letters, digits, _ . + - (starting alphanumeric): {name!r}")
    command = data["command"]
    if isinstance(command, str):
        import shlex  # shlex and shutil here: reading a league (league status) needs neither

        try:
            command = shlex.split(command)
        except ValueError as exc:
            raise bad(f"command {command!r} cannot be split into words: {exc}") from None
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(c, str) and c for c in command)
    ):
        raise bad(f"command must be a non-empty string or list of strings: {data['command']!r}")
    games = data["games"]
    if not isinstance(games, list) or not games or not all(isinstance(g, str) and g for g in games):
        raise bad(f'games must be a non-empty list of game names, e.g. ["take5"]: {games!r}')
    for game in games:
        if game not in GAMES:
            raise bad(f"games: {unknown_game(game)}")
    texts = {}
    for key in ("author", "version", "description"):
        value = data.get(key, "")
        if isinstance(value, int | float) and not isinstance(value, bool) and key == "version":
            value = str(value)
        if not isinstance(value, str):
            raise bad(f"{key} must be a string: {value!r}")
        if not printable_name(value):
            raise bad(f"{key} must hold no control, format or bidi characters: {value!r}")
        texts[key] = value
    directory = path.parent.resolve()
    return BotSpec(
        name=name,
        kind=BotKind.PROCESS,
        source=source,
        command=resolve_command(command, directory, path),
        directory=directory,
        games=tuple(dict.fromkeys(games)),
        author=texts["author"],
        version=texts["version"],
        description=texts["description"],
    )


def resolve_command(command: list[str], directory: Path, where: Path) -> tuple[str, ...]:
    """``command`` with its program resolved to a real path.

    ``python``/``python3`` become the arena's own interpreter (no shell shim, no PATH search);
    a program with a slash is relative to the bot's folder; another is looked up on PATH once.
    """
    program, *args = command
    if PYTHON_NAMES.match(program):
        return (sys.executable, *args)
    if "/" in program:
        found = (directory / program).resolve()
        if not found.is_file():
            raise BotError(f"{where}: command {program!r} does not exist in {directory}")
        return (str(found), *args)
    import shutil

    located = shutil.which(program)
    if located is None:
        raise BotError(f"{where}: command {program!r} is not found on PATH")
    return (os.path.realpath(located), *args)


def load_executable(path: Path, source: str) -> BotSpec:
    """A bot that is one file: run it with the interpreter its first line names, if known."""
    path = path.resolve()
    try:
        with path.open("rb") as handle:
            first = handle.readline(200)
    except OSError as exc:
        raise BotError(f"cannot read {path}: {exc}") from None
    shebang = first.decode("utf-8", "replace") if first.startswith(b"#!") else ""
    if path.suffix == ".py" or "python" in shebang:
        command: tuple[str, ...] = (sys.executable, str(path))
    elif path.suffix in (".js", ".mjs") or "node" in shebang:
        import shutil

        node = shutil.which("node")
        if node is None:
            raise BotError(f"{path} needs node, which is not found on PATH")
        command = (os.path.realpath(node), str(path))
    elif os.access(path, os.X_OK):
        command = (str(path),)
    else:
        raise BotError(f"{path} is not executable (chmod +x it, or give it a bot.toml)")
    name = re.sub(r"[^A-Za-z0-9_.+-]", "-", path.stem)[:64] or "bot"
    return BotSpec(name, BotKind.PROCESS, source, command, path.parent, None)


# -- built-in agents -------------------------------------------------------------------------


class RandomAgent:
    """Chooses uniformly from ``legal``; seeded from the match id and seat, never the game seed.

    It reads nothing but ``legal``, and says so with :meth:`pick` (a
    :class:`~arena.runtime.botproc.LegalOnly` agent), so the match loop builds no message for it.
    """

    version = "builtin"

    def __init__(self, name: str = "random") -> None:
        self.name = name
        self.rng = random.Random(0)

    def receive(self, message: Mapping[str, Any]) -> None:
        if message.get("type") == "start":
            self.rng = random.Random(f"{message['match']}:{message['seat']}")

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        return {"id": message["id"], "index": self.pick(message["legal"])}

    def pick(self, legal: Sequence[Any]) -> int:
        return int(self.rng.random() * len(legal))


class FirstAgent:
    """Always the first legal action (a :class:`~arena.runtime.botproc.LegalOnly` agent)."""

    version = "builtin"

    def __init__(self, name: str = "first") -> None:
        self.name = name

    def receive(self, message: Mapping[str, Any]) -> None:
        pass

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        return {"id": message["id"], "index": 0}

    def pick(self, legal: Sequence[Any]) -> int:
        return 0
