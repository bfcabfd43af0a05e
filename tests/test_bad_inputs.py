"""Bad inputs end as one clear line, never a traceback (issue 13, item 10).

Each case is run through the whole command line (click's CliRunner) and must exit with status 1
(an error) or 2 (a usage error), print no traceback, and end with one ``Error:`` line naming the
offending option, key, value or file. The table runs in-process on the current rules build;
``test_the_other_build_agrees`` runs it again in a subprocess on the other build (compiled or
pure Python), when both are present, so the two builds answer bad input alike.
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena import native
from arena.cli import main
from arena.league.store import StoreError, connect_read_only

ROOT = Path(__file__).resolve().parents[1]
OTHER_BUILD = "ARENA_TEST_OTHER_BUILD"

BOT_PY = """\
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"name": "b"}), flush=True)
    elif m["type"] == "act":
        print(json.dumps({"id": m["id"], "index": 0}), flush=True)
    elif m["type"] == "bye":
        break
"""
GOOD_MANIFEST = 'name = "b"\nversion = "1"\ncommand = ["python3", "bot.py"]\ngames = ["take5"]\n'


Setup = Callable[[Path, Path], list[str]]
"""(a folder of the case's own, the shared good league) -> the command line."""


@dataclass(frozen=True)
class Case:
    id: str
    setup: Setup
    names: str
    """What the one error line must name (the option, key, value or file)."""


def args(*words: str) -> Setup:
    """A command line; ``{L}`` is the good league, ``{T}`` the case's own folder."""

    def setup(tmp: Path, league: Path) -> list[str]:
        return [w.replace("{L}", str(league)).replace("{T}", str(tmp)) for w in words]

    return setup


def toml(text: str | bytes, command: str = "status") -> Setup:
    """A league folder whose league.toml is ``text``, and ``arena league status`` on it."""

    def setup(tmp: Path, league: Path) -> list[str]:
        folder = tmp / "lg"
        folder.mkdir()
        data = text.encode() if isinstance(text, str) else text
        (folder / "league.toml").write_bytes(data)
        if command == "check":
            return ["check", str(ROOT / "bots" / "random"), "--league", str(folder)]
        return as_command(command, folder)

    return setup


def manifest(text: str | bytes, command: str = "play") -> Setup:
    """A bot folder whose bot.toml is ``text``, played (or checked, or submitted)."""

    def setup(tmp: Path, league: Path) -> list[str]:
        bot = tmp / "bot"
        bot.mkdir()
        (bot / "bot.py").write_text(BOT_PY)
        (bot / "bot.toml").write_bytes(text.encode() if isinstance(text, str) else text)
        if command == "check":
            return ["check", str(bot)]
        if command == "submit":
            return ["submit", str(bot), "--league", str(league)]
        return ["play", "take5", str(bot), "builtin:random"]

    return setup


def as_command(command: str, folder: Path) -> list[str]:
    """``arena league COMMAND folder``, or the top-level ``bots`` and ``audit``."""
    if command == "bots":
        return ["bots", "--league", str(folder)]
    if command == "audit":
        return ["audit", str(folder)]
    return ["league", command, str(folder)]


def league_file(name: str, content: bytes | None, command: str = "status") -> Setup:
    """A copy of the good league whose file ``name`` is ``content`` (None: a folder)."""

    def setup(tmp: Path, league: Path) -> list[str]:
        folder = tmp / "lg"
        folder.mkdir()
        if name != "league.toml":
            (folder / "league.toml").write_bytes((league / "league.toml").read_bytes())
        target = folder / name
        if content is None:
            target.mkdir()
        else:
            target.write_bytes(content)
        return as_command(command, folder)

    return setup


def newer_db(tmp: Path, league: Path) -> list[str]:
    folder = tmp / "lg"
    folder.mkdir()
    (folder / "league.toml").write_bytes((league / "league.toml").read_bytes())
    db = sqlite3.connect(folder / "league.db")
    db.execute("PRAGMA user_version = 99")
    db.close()
    return ["league", "status", str(folder)]


def small_league(tmp: Path) -> Path:
    folder = tmp / "small"
    folder.mkdir()
    (folder / "league.toml").write_text("[games.take5]\nseats = [2]\n[schedule]\nmax_matches = 2\n")
    for bot in (str(ROOT / "bots" / "random"), "builtin:first"):
        result = CliRunner().invoke(main, ["submit", bot, "--league", str(folder), "--no-check"])
        assert result.exit_code == 0, result.output
    return folder


def bots_gone(tmp: Path, league: Path) -> list[str]:
    """A league whose copied bot files were deleted: ``league run`` cannot start the bot."""
    folder = small_league(tmp)
    shutil.rmtree(folder / "bots")
    return ["league", "run", str(folder), "--quiet", "--workers", "1"]


def bad_scheduler(tmp: Path, league: Path) -> list[str]:
    folder = small_league(tmp)
    return ["league", "run", str(folder), "--quiet", "--scheduler", "not an address"]


def damaged_record(command: str) -> Setup:
    """A league.db with a row that is not valid JSON."""

    def setup(tmp: Path, league: Path) -> list[str]:
        folder = small_league(tmp)
        db = sqlite3.connect(folder / "league.db")
        db.execute("UPDATE bots SET games = 'not json'")
        db.commit()
        db.close()
        return as_command(command, folder)

    return setup


def odd_file_name(name: bytes) -> Setup:
    """A good bot folder holding a file whose name is ``name`` (bytes), submitted."""

    def setup(tmp: Path, league: Path) -> list[str]:
        command = manifest(GOOD_MANIFEST, "submit")(tmp, league)
        with open(os.path.join(os.fsencode(tmp / "bot"), name), "wb") as handle:
            handle.write(b"x")
        return command

    return setup


HELD: list[socket.socket] = []
"""Listening sockets kept open while a case runs (closed by the fixture)."""


def port_taken(tmp: Path, league: Path) -> list[str]:
    """``arena serve`` on a port that a socket of this test already listens on."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    HELD.append(held)
    return ["serve", str(league), "--out", str(tmp / "site"), "--port", str(held.getsockname()[1])]


def a_file(tmp: Path, league: Path) -> Path:
    path = tmp / "plain"
    path.write_text("not a folder\n")
    return path


def under_file(*words: str) -> Setup:
    """A command line where ``{F}`` is a plain file (so ``{F}/x`` cannot be created)."""

    def setup(tmp: Path, league: Path) -> list[str]:
        plain = a_file(tmp, league)
        return [w.replace("{F}", str(plain)) for w in args(*words)(tmp, league)]

    return setup


def not_executable(tmp: Path, league: Path) -> list[str]:
    path = tmp / "bot.bin"
    path.write_text("just text\n")
    path.chmod(0o644)
    return ["play", "take5", str(path), "builtin:random"]


PLAY = ("play", "take5")
TIME = ("--decision-time", "--time-bank", "--startup-time")
BAD_TIMES = ("nan", "inf", "-inf", "-1", "1e400", "abc", "100000")

CASES: list[Case] = [
    # -- arena play: every option -------------------------------------------------------
    Case("play-game", args("play", "nosuchgame"), "nosuchgame"),
    Case("play-seats-0", args(*PLAY, "--seats", "0"), "--seats"),
    Case("play-seats-neg", args(*PLAY, "--seats", "-1"), "--seats"),
    Case("play-seats-big", args(*PLAY, "--seats", "11"), "--seats"),
    Case("play-seats-text", args(*PLAY, "--seats", "four"), "four"),
    Case("play-seats-1", args(*PLAY, "--seats", "1"), "--seats"),
    Case(
        "play-seats-vs-bots",
        args(*PLAY, "builtin:random", "builtin:first", "--seats", "3"),
        "--seats",
    ),
    Case("play-one-bot", args(*PLAY, "builtin:random"), "take5"),
    Case("play-seed-neg", args(*PLAY, "--seed", "-1"), "--seed"),
    Case("play-seed-text", args(*PLAY, "--seed", "x"), "--seed"),
    Case("play-seed-huge", args(*PLAY, "--seed", str(2**64)), "--seed"),
    Case("play-games-0", args(*PLAY, "--games", "0"), "--games"),
    Case("play-option-unknown", args(*PLAY, "--option", "nope=1"), "nope"),
    Case("play-option-type", args(*PLAY, "--option", "end_score=x"), "end_score"),
    Case("play-option-range", args(*PLAY, "--option", "end_score=0"), "end_score"),
    Case("play-option-noeq", args(*PLAY, "--option", "end_score"), "--option"),
    Case("play-option-noname", args(*PLAY, "--option", "=5"), "--option"),
    Case("play-option-bool", args(*PLAY, "--option", "tactics=maybe"), "tactics"),
    *(
        Case(f"play{opt}-{value}", args(*PLAY, opt, value), opt)
        for opt in TIME
        for value in BAD_TIMES
    ),
    Case("play-decision-0", args(*PLAY, "--decision-time", "0"), "--decision-time"),
    Case("play-no-bot", args(*PLAY, "{T}/nobot", "builtin:random"), "nobot"),
    Case("play-builtin", args(*PLAY, "builtin:nope", "builtin:random"), "builtin:nope"),
    Case("play-no-manifest", args(*PLAY, "{T}", "builtin:random"), "bot.toml"),
    Case("play-not-executable", not_executable, "bot.bin"),
    Case("play-json-seats-0", args(*PLAY, "--json", "--seats", "0"), "--seats"),
    # -- bot.toml manifests ------------------------------------------------------------
    Case("bot-toml-syntax", manifest("name = \n"), "bot.toml"),
    Case("bot-toml-utf8", manifest(b'name = "\xff"\n'), "bot.toml"),
    Case("bot-toml-bom", manifest("\ufeff" + GOOD_MANIFEST), "bot.toml"),
    Case("bot-name-missing", manifest('command = ["python3"]\ngames = ["take5"]\n'), "name"),
    Case("bot-name-newline", manifest(GOOD_MANIFEST.replace('"b"', '"b\\n"', 1)), "name"),
    Case("bot-name-escape", manifest(GOOD_MANIFEST.replace('"b"', '"b\\u001b[2J"', 1)), "name"),
    Case("bot-name-int", manifest(GOOD_MANIFEST.replace('"b"', "5", 1)), "name"),
    Case("bot-name-long", manifest(GOOD_MANIFEST.replace('"b"', '"' + "b" * 65 + '"', 1)), "name"),
    Case("bot-name-slash", manifest(GOOD_MANIFEST.replace('"b"', '"../b"', 1)), "name"),
    Case("bot-unknown-field", manifest(GOOD_MANIFEST + "colour = 1\n"), "colour"),
    Case(
        "bot-command-empty",
        manifest(GOOD_MANIFEST.replace('["python3", "bot.py"]', "[]")),
        "command",
    ),
    Case(
        "bot-command-int", manifest(GOOD_MANIFEST.replace('["python3", "bot.py"]', "5")), "command"
    ),
    Case("bot-command-item", manifest(GOOD_MANIFEST.replace('"bot.py"', "5")), "command"),
    Case(
        "bot-command-missing-file",
        manifest(GOOD_MANIFEST.replace('"python3"', '"./nope"')),
        "./nope",
    ),
    Case(
        "bot-command-not-on-path",
        manifest(GOOD_MANIFEST.replace('"python3"', '"no-such-prog-x"')),
        "no-such-prog-x",
    ),
    Case(
        "bot-command-unbalanced",
        manifest(GOOD_MANIFEST.replace('["python3", "bot.py"]', "'python3 \"bot.py'")),
        "bot.toml",
    ),
    Case("bot-games-string", manifest(GOOD_MANIFEST.replace('["take5"]', '"take5"')), "games"),
    Case("bot-games-empty", manifest(GOOD_MANIFEST.replace('["take5"]', "[]")), "games"),
    Case("bot-author-int", manifest(GOOD_MANIFEST + "author = 5\n"), "author"),
    Case("bot-author-escape", manifest(GOOD_MANIFEST + 'author = "x\\u001b[2J"\n'), "author"),
    Case(
        "bot-version-list",
        manifest(GOOD_MANIFEST.replace('version = "1"', "version = [1]")),
        "version",
    ),
    Case(
        "bot-description-bidi",
        manifest(GOOD_MANIFEST + 'description = "a\\u202eb"\n'),
        "description",
    ),
    Case("bot-file-not-utf8", odd_file_name(b"\xff.txt"), "not plain UTF-8"),
    Case("bot-file-newline", odd_file_name(b"a\nb.txt"), "a\\nb.txt"),
    Case("bot-check-syntax", manifest("name = \n", "check"), "bot.toml"),
    Case("bot-submit-syntax", manifest("name = \n", "submit"), "bot.toml"),
    Case(
        "bot-submit-no-game",
        manifest(GOOD_MANIFEST.replace('["take5"]', '["chess"]'), "submit"),
        "chess",
    ),
    # -- arena human and arena check ---------------------------------------------------
    Case("human-no-opponent", args("human", "take5"), "OPPONENTS"),
    Case("human-seat", args("human", "take5", "builtin:random", "--seat", "5"), "--seat"),
    Case("human-seat-neg", args("human", "take5", "builtin:random", "--seat", "-1"), "--seat"),
    Case("human-game", args("human", "nosuchgame", "builtin:random"), "nosuchgame"),
    Case("human-bot", args("human", "take5", "{T}/nobot"), "nobot"),
    Case("human-option", args("human", "take5", "builtin:random", "--option", "x=1"), "x"),
    Case("human-seed", args("human", "take5", "builtin:random", "--seed", "-3"), "--seed"),
    Case("check-no-bot", args("check", "{T}/nobot"), "nobot"),
    Case("check-builtin", args("check", "builtin:nope"), "builtin:nope"),
    Case("check-human", args("check", "human"), "BOT"),
    Case("check-matches", args("check", "builtin:random", "--matches", "0"), "--matches"),
    Case("check-league-missing", args("check", "builtin:random", "--league", "{T}/none"), "none"),
    Case("check-league-file", under_file("check", "builtin:random", "--league", "{F}"), "plain"),
    Case(
        "check-decision-nan",
        args("check", "builtin:random", "--decision-time", "nan"),
        "--decision-time",
    ),
    Case("check-league-toml", toml("seed = -1\n", "check"), "seed"),
    # -- league.toml: every key, wrong types and ranges, unknown keys, bad TOML ---------
    Case("toml-syntax", toml("seed = \n"), "league.toml"),
    Case("toml-duplicate", toml("seed = 1\nseed = 2\n"), "league.toml"),
    Case("toml-utf8", toml(b"seed = 1\n# \xff\xfe\n"), "league.toml"),
    Case("toml-utf16", toml("seed = 1\n".encode("utf-16")), "league.toml"),
    Case("toml-unknown", toml("colour = 1\n"), "colour"),
    Case("toml-seed-neg", toml("seed = -1\n"), "seed"),
    Case("toml-seed-text", toml('seed = "1"\n'), "seed"),
    Case("toml-seed-float", toml("seed = 1.5\n"), "seed"),
    Case("toml-workers-0", toml("workers = 0\n"), "workers"),
    Case("toml-workers-bool", toml("workers = true\n"), "workers"),
    Case("toml-workers-huge", toml("workers = 1000000000\n"), "workers"),
    Case("toml-games-int", toml("games = 5\n"), "games"),
    Case("toml-games-empty", toml("games = {}\n"), "games"),
    Case("toml-game-unknown", toml("[games.chess]\nseats = [2]\n"), "chess"),
    Case("toml-game-int", toml("[games]\ntake5 = 5\n"), "take5"),
    Case("toml-game-key", toml("[games.take5]\ncolour = 1\n"), "colour"),
    Case("toml-seats-text", toml('[games.take5]\nseats = ["4"]\n'), "seats"),
    Case("toml-seats-bool", toml("[games.take5]\nseats = [true]\n"), "seats"),
    Case("toml-seats-float", toml("[games.take5]\nseats = 4.5\n"), "seats"),
    Case("toml-seats-list-float", toml("[games.take5]\nseats = [4.0]\n"), "seats"),
    Case("toml-seats-0", toml("[games.take5]\nseats = [0]\n"), "seats"),
    Case("toml-seats-11", toml("[games.take5]\nseats = [11]\n"), "seats"),
    Case("toml-seats-empty", toml("[games.take5]\nseats = []\n"), "seats"),
    Case("toml-seats-nested", toml("[games.take5]\nseats = [[4]]\n"), "seats"),
    Case("toml-options-int", toml("[games.take5]\noptions = 5\n"), "options"),
    Case("toml-option-unknown", toml("[games.take5]\noptions = { nope = 1 }\n"), "nope"),
    Case("toml-option-type", toml('[games.take5]\noptions = { end_score = "x" }\n'), "end_score"),
    Case("toml-option-range", toml("[games.take5]\noptions = { end_score = -5 }\n"), "end_score"),
    Case("toml-option-nan", toml("[games.take5]\noptions = { end_score = nan }\n"), "end_score"),
    Case(
        "toml-higher",
        toml('[games.ten]\nseats = [1]\nhigher_is_better = "yes"\n'),
        "higher_is_better",
    ),
    Case("toml-schedule-int", toml("schedule = 5\n"), "schedule"),
    Case("toml-schedule-key", toml("[schedule]\nnope = 1\n"), "nope"),
    Case("toml-max-matches-neg", toml("[schedule]\nmax_matches = -1\n"), "max_matches"),
    Case("toml-max-matches-text", toml('[schedule]\nmax_matches = "10"\n'), "max_matches"),
    Case("toml-chunk-0", toml("[schedule]\nchunk = 0\n"), "chunk"),
    Case(
        "toml-rounds-huge", toml("[schedule]\nrounds_per_batch = 100000000\n"), "rounds_per_batch"
    ),
    Case(
        "toml-min-batch-huge",
        toml("[schedule]\nmin_batch_matches = 9000000000000\n"),
        "min_batch_matches",
    ),
    Case("toml-stop-sigma-nan", toml("[schedule]\nstop_sigma = nan\n"), "stop_sigma"),
    Case("toml-stop-sigma-inf", toml("[schedule]\nstop_sigma = inf\n"), "stop_sigma"),
    Case("toml-duplicate-int", toml("[schedule]\nduplicate = 1\n"), "duplicate"),
    Case("toml-entrants-text", toml('entrants = "x"\n'), "entrants"),
    Case("toml-resubmit", toml('[entrants]\nresubmit = "maybe"\n'), "resubmit"),
    Case(
        "toml-fault-rate-nan", toml("[entrants]\nsuspend_fault_rate = nan\n"), "suspend_fault_rate"
    ),
    Case("toml-rating-list", toml("rating = [1]\n"), "rating"),
    Case("toml-sigma-0", toml("[rating]\nsigma = 0\n"), "sigma"),
    Case("toml-mu-inf", toml("[rating]\nmu = inf\n"), "mu"),
    Case("toml-draw-1", toml("[rating]\ndraw_probability = 1\n"), "draw_probability"),
    Case("toml-limits-int", toml("limits = 5\n"), "limits"),
    Case("toml-limits-key", toml("[limits]\nnope = 1\n"), "nope"),
    Case("toml-decision-nan", toml("[limits]\ndecision = nan\n"), "limits.decision"),
    Case("toml-decision-inf", toml("[limits]\ndecision = inf\n"), "limits.decision"),
    Case("toml-decision-neg", toml("[limits]\ndecision = -1\n"), "limits.decision"),
    Case("toml-decision-0", toml("[limits]\ndecision = 0\n"), "limits.decision"),
    Case("toml-bank-text", toml('[limits]\nbank = "10"\n'), "limits.bank"),
    Case("toml-startup-huge", toml("[limits]\nstartup = 1e300\n"), "limits.startup"),
    Case("toml-executor-int", toml("executor = 5\n"), "executor"),
    Case("toml-executor-kind", toml('[executor]\nkind = "cloud"\n'), "kind"),
    Case("toml-executor-bots", toml('[executor]\nbots = "ftp"\n'), "bots"),
    Case("toml-scheduler", toml('[executor]\nscheduler = "my laptop"\n'), "executor.scheduler"),
    Case("toml-executor-chunk", toml("[executor]\nchunk = -1\n"), "chunk"),
    Case("toml-run", toml("[limits]\ndecision = nan\n", "run"), "limits.decision"),
    Case("toml-audit", toml("schedule = 5\n", "audit"), "schedule"),
    # -- league folders and their files ------------------------------------------------
    Case("league-missing", args("league", "status", "{T}/none"), "none"),
    Case("league-is-file", under_file("league", "status", "{F}"), "plain"),
    Case("league-toml-dir", league_file("league.toml", None), "league.toml"),
    Case("league-db-garbage", league_file("league.db", b"this is not sqlite\n" * 100), "league.db"),
    Case("league-db-garbage-bots", league_file("league.db", b"x" * 4096, "bots"), "league.db"),
    Case("league-db-garbage-audit", league_file("league.db", b"x" * 4096, "audit"), "league.db"),
    Case("league-db-garbage-run", league_file("league.db", b"x" * 4096, "run"), "league.db"),
    Case("league-db-garbage-export", league_file("league.db", b"x" * 4096, "export"), "league.db"),
    Case("league-db-empty-file-run", league_file("league.db", b"\0" * 100, "run"), "league.db"),
    Case("league-db-dir", league_file("league.db", None), "league.db"),
    Case("league-db-dir-run", league_file("league.db", None, "run"), "league.db"),
    Case("league-db-newer", newer_db, "league.db"),
    Case("init-under-file", under_file("league", "init", "{F}/x"), "plain"),
    Case("init-existing", args("league", "init", "{L}"), "league.toml"),
    Case("init-seed", args("league", "init", "{T}/x", "--seed", "-1"), "--seed"),
    Case("init-workers", args("league", "init", "{T}/x", "--workers", "0"), "--workers"),
    Case("init-workers-huge", args("league", "init", "{T}/x", "--workers", "100000"), "--workers"),
    Case("init-proc", args("league", "init", "/proc/arena-no/x"), "/proc/arena-no"),
    Case("run-missing", args("league", "run", "{T}/none"), "none"),
    Case("run-workers", args("league", "run", "{L}", "--workers", "0"), "--workers"),
    Case("run-executor", args("league", "run", "{L}", "--executor", "cloud"), "--executor"),
    Case("status-missing", args("league", "status", "{T}/none"), "none"),
    Case(
        "export-missing-folder",
        args("league", "export", "{L}", "-o", "{T}/no/such/out.jsonl"),
        "out.jsonl",
    ),
    Case(
        "export-under-file", under_file("league", "export", "{L}", "-o", "{F}/out.csv"), "out.csv"
    ),
    Case("export-to-dir", args("league", "export", "{L}", "-o", "{T}"), "{T}"),
    Case("export-format", args("league", "export", "{L}", "--format", "xml"), "--format"),
    Case(
        "export-proc",
        args("league", "export", "{L}", "-o", "/proc/arena-out.jsonl"),
        "/proc/arena-out.jsonl",
    ),
    Case("demo-matches", args("league", "demo", "--matches", "0"), "--matches"),
    Case("demo-folder-file", under_file("league", "demo", "--folder", "{F}"), "plain"),
    Case("demo-under-file", under_file("league", "demo", "--folder", "{F}/x"), "plain"),
    # -- submit, bots, withdraw, audit, the site ---------------------------------------
    Case("submit-no-bot", args("submit", "{T}/nobot", "--league", "{L}"), "nobot"),
    Case("submit-no-league", args("submit", "builtin:random", "--league", "{T}/none"), "none"),
    Case("submit-league-option", args("submit", "builtin:random"), "--league"),
    Case("submit-human", args("submit", "human", "--league", "{L}"), "human"),
    Case(
        "submit-name",
        args("submit", "builtin:first", "--league", "{L}", "--name", "bad name!"),
        "bad name!",
    ),
    Case(
        "submit-name-newline",
        args("submit", "builtin:first", "--league", "{L}", "--name", "x\n"),
        "--name",
    ),
    Case(
        "submit-author-escape",
        args("submit", "builtin:first", "--league", "{L}", "--author", "\x1b[2J"),
        "--author",
    ),
    Case(
        "submit-twice",
        args("submit", "builtin:random", "--league", "{L}", "--no-check"),
        "already submitted",
    ),
    Case(
        "submit-name-taken",
        args(
            "submit",
            "builtin:first",
            "--league",
            "{L}",
            "--name",
            "builtin-random",
            "--author",
            "other",
            "--no-check",
        ),
        "builtin-random",
    ),
    Case("bots-missing", args("bots", "--league", "{T}/none"), "none"),
    Case("withdraw-nobody", args("withdraw", "nobody", "--league", "{L}"), "nobody"),
    Case("audit-missing", args("audit", "{T}/none"), "none"),
    Case("audit-limit", args("audit", "{L}", "--limit", "0"), "--limit"),
    Case("leaderboard-missing", args("leaderboard", "{T}/none"), "none"),
    Case("leaderboard-out-file", under_file("leaderboard", "{L}", "--out", "{F}"), "plain"),
    Case(
        "leaderboard-out-under-file", under_file("leaderboard", "{L}", "--out", "{F}/site"), "plain"
    ),
    Case(
        "leaderboard-out-proc",
        args("leaderboard", "{L}", "--out", "/proc/arena-site"),
        "/proc/arena-site",
    ),
    Case("leaderboard-workers", args("leaderboard", "{L}", "--workers", "0"), "--workers"),
    Case("serve-port", args("serve", "{L}", "--port", "70000"), "--port"),
    Case("serve-interval", args("serve", "{L}", "--interval", "nan"), "--interval"),
    Case("serve-missing", args("serve", "{T}/none"), "none"),
    Case("serve-port-taken", port_taken, "127.0.0.1:"),
    Case("unknown-command", args("fly"), "fly"),
    Case("init-empty", args("league", "init", ""), "empty name"),
    Case("status-blank", args("league", "status", " "), "empty name"),
    Case("export-nul", args("league", "export", "{L}", "-o", "{T}/a\x00b"), "NUL"),
    Case(
        "export-dev-full",
        args("league", "export", "{L}", "--format", "csv", "-o", "/dev/full"),
        "/dev/full",
    ),
    Case("leaderboard-dev-full", args("leaderboard", "{L}", "--out", "/dev/full"), "/dev/full"),
    Case("run-bots-gone", bots_gone, "bots/random-"),
    Case("run-scheduler", bad_scheduler, "not an address"),
    Case("status-damaged-db", damaged_record("status"), "damaged record"),
    Case("audit-damaged-db", damaged_record("audit"), "damaged record"),
    Case("bots-damaged-db", damaged_record("bots"), "damaged record"),
]


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("good") / "league"
    for command in (
        ["league", "init", str(folder)],
        ["submit", "builtin:random", "--league", str(folder), "--no-check"],
    ):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 0, result.output
    return folder


def error_line(result: Result) -> str:
    """The one ``Error:`` line the command ended with (and nothing after it)."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines, "no output"
    errors = [line for line in lines if line.startswith("Error: ")]
    assert len(errors) == 1, result.output
    assert lines[-1] == errors[0], f"lines after the error:\n{result.output}"
    return errors[0]


def test_there_are_at_least_a_hundred_cases() -> None:
    assert len(CASES) >= 100
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_bad_input_is_one_clear_line(case: Case, league: Path, tmp_path: Path) -> None:
    command = case.setup(tmp_path, league)
    try:
        result = CliRunner().invoke(main, command)
    finally:
        while HELD:
            HELD.pop().close()
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code in (1, 2), (result.exit_code, result.output)
    line = error_line(result)
    names = case.names.replace("{T}", str(tmp_path))
    assert names in line, f"{names!r} not named in: {line}"
    assert "\x1b" not in result.output and "\u202e" not in result.output


def other_build_env() -> dict[str, str] | None:
    """The environment that runs the other rules build, or None if only one is present."""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if native.native():
        env[native.PURE_ENV] = "1"
        return env
    if native.why_pure(environ=env) is None:
        return env
    return None


@pytest.mark.slow
@pytest.mark.skipif(bool(os.environ.get(OTHER_BUILD)), reason="this is the other build's run")
def test_the_other_build_agrees() -> None:
    """The same table on the other build (compiled if this run is pure Python, and back)."""
    env = other_build_env()
    if env is None:
        pytest.skip("only one rules build is present (compile with setup.py build_ext)")
    env[OTHER_BUILD] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-x",
            __file__,
            "-k",
            "a_bad_input or hundred",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"{len(CASES) + 1} passed" in done.stdout


# -- read-only leagues, a full disk, unreadable stores ----------------------------------


def played_league(tmp_path: Path) -> Path:
    folder = tmp_path / "played"
    toml_text = "[games.take5]\nseats = [2]\n[schedule]\nmax_matches = 4\nmin_batch_matches = 2\n"
    folder.mkdir()
    (folder / "league.toml").write_text(toml_text)
    for command in (
        ["submit", "builtin:random", "--league", str(folder), "--no-check"],
        ["submit", "builtin:first", "--league", str(folder), "--no-check"],
        ["league", "run", str(folder), "--quiet", "--workers", "1"],
    ):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 0, result.output
    return folder


READ_ONLY = (
    ("league", "status", "{L}"),
    ("league", "status", "{L}", "--json"),
    ("bots", "--league", "{L}"),
    ("league", "export", "{L}", "--format", "csv"),
    ("audit", "{L}"),
)


def test_the_read_only_opener_never_writes(tmp_path: Path) -> None:
    """Through the read-only URI: the league's files stay byte for byte (SQLite may leave an
    empty WAL beside them), a write through the connection is refused, and a missing
    database reads as an empty league without being created."""
    folder = played_league(tmp_path)
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    for words in READ_ONLY:
        result = CliRunner().invoke(main, [w.replace("{L}", str(folder)) for w in words])
        assert result.exit_code == 0, result.output
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert {k: v for k, v in after.items() if k in before} == before
    new = set(after) - set(before)
    assert all(k.endswith(("-wal", "-shm")) for k in new), new
    assert all(not after[k] for k in new if k.endswith("-wal"))
    db = connect_read_only(folder / "league.db")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        db.execute("INSERT INTO meta(key, value) VALUES ('x', 'y')")
    db.close()
    empty = connect_read_only(tmp_path / "none.db")
    assert empty.execute("SELECT COUNT(*) FROM bots").fetchone()[0] == 0
    empty.close()
    assert not (tmp_path / "none.db").exists()
    (tmp_path / "other.db").write_bytes(b"x" * 4096)
    with pytest.raises(StoreError, match=r"other\.db: not an SQLite database"):
        connect_read_only(tmp_path / "other.db")


READ_ONLY_SCRIPT = """
set -e
mount --bind {folder} {folder}
mount -o remount,bind,ro {folder}
if touch {folder}/probe 2>/dev/null; then echo WRITABLE; exit 3; fi
for cmd in {commands}; do
  eval "{py} -m arena $cmd" > /dev/null 2> {err}/$$.err || {{ echo "FAILED $cmd"; cat {err}/$$.err; exit 4; }}
done
{py} -m arena league run {folder} --quiet 2> {err}/run.err && exit 5 || true
tail -n 1 {err}/run.err
"""


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="bind-mounts the league read-only: needs root")
def test_read_only_commands_work_on_a_league_that_cannot_be_written(tmp_path: Path) -> None:
    """A real read-only league: bind-mounted read-only in a mount namespace of the test's own
    (as root, chmod would not stop a write). Every read-only command works; ``league run``,
    which must write, ends with one line naming league.db."""
    folder = played_league(tmp_path)
    errors = tmp_path / "errors"
    errors.mkdir()
    commands = " ".join(
        "'" + " ".join(w.replace("{L}", str(folder)) for w in words) + "'" for words in READ_ONLY
    )
    script = READ_ONLY_SCRIPT.format(
        folder=folder, commands=commands, py=sys.executable, err=errors
    )
    try:
        done = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    except OSError:
        pytest.skip("no unshare")
    if done.returncode != 0 and ("mount:" in done.stderr or "unshare:" in done.stderr):
        pytest.skip(f"cannot bind-mount here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("Error: ") and "league.db" in last, done.stdout
    assert "Traceback" not in done.stdout


def test_a_full_disk_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing a file (the export) or the store fails with ENOSPC: one line, exit 1."""
    folder = played_league(tmp_path)
    real_open = Path.open

    def full(self: Path, *a: object, **k: object) -> object:
        if self.name == "out.jsonl":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real_open(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "open", full)
    result = CliRunner().invoke(
        main, ["league", "export", str(folder), "-o", str(tmp_path / "out.jsonl")]
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "out.jsonl" in error_line(result) and "No space left" in error_line(result)
    monkeypatch.undo()

    from arena.league import store

    def disk_full(*a: object, **k: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store.Store, "add_entrant", disk_full)
    result = CliRunner().invoke(
        main, ["submit", "builtin:first", "--league", str(folder), "--name", "f", "--no-check"]
    )
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    line = error_line(result)
    assert "league database" in line and "disk is full" in line and "free some" in line


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tiny tmpfs: needs root")
def test_a_real_full_disk_is_one_line(tmp_path: Path) -> None:
    """``arena league init`` and ``league run`` on a 64 KiB tmpfs (in a mount namespace of the
    test's own, so nothing outside sees it)."""
    script = (
        "set -e; mkdir -p {d}; mount -t tmpfs -o size=64k tmpfs {d}; "
        "head -c 60000 /dev/zero > {d}/filler || true; "
        "cd {root}; {py} -m arena league init {d}/lg; echo rc=$?"
    ).format(d=tmp_path / "small", root=ROOT, py=sys.executable)
    try:
        done = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    except OSError:
        pytest.skip("no unshare")
    if "mount:" in done.stderr or "unshare:" in done.stderr:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode != 0 or "rc=0" not in done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: ") and ("No space left" in last or "disk is full" in last)
    assert "free some disk space" in last, done.stderr
