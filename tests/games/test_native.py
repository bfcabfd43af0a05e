"""The compiled rules (mypyc) and their pure-Python sources: which one runs, and that they agree.

A fresh install compiles the rules (setup.py); these tests check that the compiled modules are the
ones imported, that an edited source or ``ARENA_PURE_PYTHON=1`` falls back to the sources, and
that both play exactly the same games, events and results.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import random
import runpy
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from arena import native
from arena.games import JSON, Action, Event, GameSpec, IllegalActionError, Result, State
from arena.games.base import competition_ranks
from arena.players import RandomPlayer, play_local

ROOT = Path(__file__).resolve().parents[2]

# Every game, several seat counts and the options that change the flow of play.
CASES: list[tuple[str, int, dict[str, object]]] = [
    ("take5", 2, {}),
    ("take5", 4, {}),
    ("take5", 10, {}),
    ("take5", 5, {"professional": True}),
    ("take5", 3, {"tactics": True, "more_than": True}),
    ("take5", 6, {"max_rounds": 1, "end_score": 10}),
    ("ten", 1, {}),
    ("ten", 3, {}),
    ("ten", 5, {"start_tokens": 2, "token_cap": 4}),
    ("phase10", 2, {"max_turns": 200}),
    ("phase10", 4, {"max_turns": 150, "skip_next": True}),
]

PLAY = """
import hashlib, json, sys
from arena.games import get_game
from arena.players import RandomPlayer, play_local

out = []
for name, seats, options in json.loads(sys.stdin.read()):
    for seed in (3, 11):
        players = [RandomPlayer(seed * 100 + s) for s in range(seats)]
        game = play_local(get_game(name), seed, players, options)
        record = {
            "replay": game.replay.to_json(),
            "result": game.state.result().to_json(),
            "log": game.state.log,
            "snapshot": game.state.snapshot(),
        }
        text = json.dumps(record, sort_keys=True)
        out.append([name, seats, seed, len(game.replay.actions), hashlib.sha256(text.encode()).hexdigest()])
print(json.dumps(out))
"""


def play_in(environ: dict[str, str]) -> list[list[object]]:
    done = subprocess.run(
        [sys.executable, "-c", PLAY],
        input=json.dumps(CASES),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environ,
        timeout=300,
        check=True,
    )
    result: list[list[object]] = json.loads(done.stdout)
    return result


def environment(**extra: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    environ["PYTHONPATH"] = str(ROOT)
    environ.update(extra)
    return environ


def loaded_from(module: str) -> str:
    file = importlib.import_module(module).__file__
    assert file is not None
    return file


def test_setup_compiles_the_one_list_of_native_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """setup.py reads NATIVE_MODULES from arena/native.py: no second list to keep in step."""
    setuptools = pytest.importorskip("setuptools", reason="setup.py needs setuptools")
    monkeypatch.setattr(setuptools, "setup", lambda **kw: None)
    monkeypatch.setenv(native.PURE_ENV, "1")  # no mypyc run: only the module's names are read
    build = runpy.run_path(str(ROOT / "setup.py"), run_name="setup_under_test")
    compiled = [p.removesuffix(".py").replace("/", ".") for p in build["COMPILED"]]
    assert tuple(compiled) == native.NATIVE_MODULES
    assert build["NATIVE"].GROUP == native.GROUP
    assert "arena.games.take5" not in (ROOT / "setup.py").read_text()


def test_importing_the_package_changes_no_import_machinery_but_by_its_one_call() -> None:
    """arena/native.py changes nothing when imported; arena/__init__.py calls load_rules, which
    in the pure build puts one finder first, answering for the rules modules only, and in the
    compiled build adds none."""
    code = (
        "import importlib.util, json, sys; "
        "before = list(sys.meta_path); "
        "spec = importlib.util.spec_from_file_location('lone_native', 'arena/native.py'); "
        "lone = importlib.util.module_from_spec(spec); spec.loader.exec_module(lone); "
        "alone = list(sys.meta_path) == before; "
        "import arena; "
        "added = [f for f in sys.meta_path if f not in before]; "
        "names = ['arena.games.take5', 'arena.players', 'arena.cli.play', 'arena.games', 'json']; "
        "print(json.dumps([alone, [[type(f).__name__, [n for n in names "
        "if f.find_spec(n, None) is not None]] for f in added]]))"
    )
    compiled = native.why_pure(environ=environment()) is None
    for extra in ({"ARENA_PURE_PYTHON": "1"}, {}):
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=environment(**extra),
            timeout=60,
            check=True,
        )
        alone, added = json.loads(done.stdout)
        assert alone
        if compiled and not extra:
            assert added == []
        else:
            assert added == [["SourcesFirst", ["arena.games.take5", "arena.players"]]]


def test_the_players_module_imported_first_comes_from_the_same_build() -> None:
    """``import arena.players`` before any game: found after arena/__init__.py chose the build."""
    code = (
        "import importlib, json, arena.players; from arena import native; "
        "print(json.dumps([importlib.import_module(m).__file__ for m in native.NATIVE_MODULES]))"
    )
    for extra in ({"ARENA_PURE_PYTHON": "1"}, {}):
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=environment(**extra),
            timeout=60,
            check=True,
        )
        suffixes = {Path(f).suffix for f in json.loads(done.stdout)}
        assert len(suffixes) == 1, suffixes  # never some compiled and some pure
        if extra:
            assert suffixes == {".py"}


def test_the_compiled_rules_run_when_they_were_built() -> None:
    if os.environ.get(native.PURE_ENV):
        pytest.skip(f"{native.PURE_ENV} is set")
    if not native.MANIFEST.exists():
        pytest.skip("installed without compiling (no C compiler or mypyc at install time)")
    assert native.native(), f"compiled rules not in use: {native.chosen()}"
    for module in native.NATIVE_MODULES:
        assert loaded_from(module).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def test_pure_python_mode_imports_every_rules_module_from_its_source() -> None:
    code = (
        "import json, arena, importlib; from arena import native; "
        "print(json.dumps([native.describe()] + "
        "[importlib.import_module(m).__file__ for m in native.NATIVE_MODULES]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environment(ARENA_PURE_PYTHON="1"),
        timeout=60,
        check=True,
    )
    described, *files = json.loads(done.stdout)
    assert described == "rules in pure Python: ARENA_PURE_PYTHON is set"
    assert [Path(f).suffix for f in files] == [".py"] * len(native.NATIVE_MODULES)


def fake_build(package: Path) -> None:
    """A package folder as a build leaves it: sources, binaries and the manifest."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    digests = {}
    for module in native.NATIVE_MODULES:
        source = native.source_of(module, package)
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(f"# {module}\n")
        Path(f"{source.with_suffix('')}{suffix}").write_bytes(b"")
        digests[module] = native.digest(source)
    Path(f"{native.source_of(native.SHARED_LIBRARY, package).with_suffix('')}{suffix}").touch()
    (package / "_compiled.json").write_text(json.dumps(digests))


def test_a_fresh_build_is_used_and_each_reason_not_to_is_named(tmp_path: Path) -> None:
    package = tmp_path / "arena"
    assert native.why_pure(package, {}) == (
        "not compiled (no C compiler or mypyc at install time, or ARENA_PURE_PYTHON then)"
    )
    fake_build(package)
    assert native.why_pure(package, {}) is None
    assert native.why_pure(package, {"ARENA_PURE_PYTHON": "1"}) == "ARENA_PURE_PYTHON is set"

    take5 = native.source_of("arena.games.take5", package)
    take5.write_text(take5.read_text() + "# an edited rule\n")
    assert native.why_pure(package, {}) == (
        "take5.py changed since it was compiled (reinstall to recompile)"
    )

    fake_build(package)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    Path(f"{native.source_of('arena.players', package).with_suffix('')}{suffix}").unlink()
    assert native.why_pure(package, {}) == "arena.players was not compiled"

    fake_build(package)
    (package / "_compiled.json").write_text("{not json")
    assert (native.why_pure(package, {}) or "").startswith("unreadable _compiled.json")


def test_compiled_and_pure_rules_play_identical_games() -> None:
    """Every case, two seeds: same actions, events, final position and result in both builds."""
    if not native.native():
        pytest.skip(f"the compiled rules are not in use here: {native.chosen()}")
    compiled = play_in(environment())
    pure = play_in(environment(ARENA_PURE_PYTHON="1"))
    assert len(compiled) == 2 * len(CASES)
    assert compiled == pure


class Countdown(State):
    """A toy game in plain Python: seats take turns saying 1 or 2; who reaches 0 loses."""

    game = "countdown"
    event_fields = {"say": ("seat", "n")}  # noqa: RUF012

    def __init__(self, seed: int, seats: int, options: Mapping[str, JSON]) -> None:
        super().__init__(seed, seats, options)
        self.left = 7 + self.rng.randrange(4)
        self.turn = 0
        self.loser: int | None = None

    def to_move(self) -> list[int]:
        return [] if self.is_over() else [self.turn]

    def legal(self, seat: int) -> list[Action]:
        return [1, 2] if seat == self.turn and not self.is_over() else []

    def observation(self, seat: int) -> dict[str, JSON]:
        return {"left": self.left, "turn": self.turn}

    def apply(self, seat: int, action: Action) -> None:
        if action not in self.legal(seat):
            raise self.illegal(seat, action, "say 1 or 2 on your turn")
        self.left -= action
        self.record(None, "say", seat, action)  # built into a dict when the log is read
        if self.left <= 0:
            self.loser = seat
            self.emit({"type": "lose", "seat": seat})
        self.turn = (self.turn + 1) % self.seats

    def is_over(self) -> bool:
        return self.loser is not None

    def result(self) -> Result:
        scores = tuple(0.0 if s == self.loser else 1.0 for s in range(self.seats))
        return Result(scores, competition_ranks([-x for x in scores]))

    def snapshot(self) -> dict[str, JSON]:
        return {"left": self.left, "turn": self.turn, "loser": self.loser}

    def resample_hidden(self, seat: int, rng: random.Random) -> Countdown:
        return self.clone()

    def position(self) -> str:
        return f"{self.left} left"

    @staticmethod
    def describe(event: Event) -> str:
        return str(event)


class CountingPlayer(RandomPlayer):
    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.asked = 0

    def choose(self, state: State, seat: int, legal: list[Action]) -> Action:
        self.asked += 1
        return super().choose(state, seat, legal)


def test_plain_python_games_and_players_may_extend_the_compiled_classes() -> None:
    spec = GameSpec("countdown", "Countdown", 2, 3, (), Countdown, "a toy", "none.md")
    players = [CountingPlayer(1), CountingPlayer(2)]
    game = play_local(spec, 4, players)
    assert game.state.is_over() and sorted(game.state.result().ranks) == [1, 2]
    said = [(None, {"type": "say", "seat": s, "n": a}) for s, a in game.replay.actions]
    assert game.state.log == [*said, (None, {"type": "lose", "seat": game.state.loser})]
    assert sum(p.asked for p in players) == len(game.replay.actions)
    early = spec.new(4, 2)
    early.apply(0, 2)
    copy = early.clone()  # with its event still recorded, not yet built
    assert copy.snapshot() == early.snapshot()
    assert copy.log == early.log == [(None, {"type": "say", "seat": 0, "n": 2})]
    copy.apply(1, 1)
    assert early.snapshot() == {"left": early.left, "turn": 1, "loser": None}
    assert copy.left == early.left - 1
    with pytest.raises(IllegalActionError, match="say 1 or 2"):
        early.apply(1, 3)
    early.apply(1, 1)
    early.log = []  # a new log drops the recorded events too
    early.apply(0, 1)
    assert early.log == [(None, {"type": "say", "seat": 0, "n": 1})]
    assert len(copy.log) == 2
