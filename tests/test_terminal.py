"""Bot-controlled text reaches the operator's terminal escaped (issue 13, item 8)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.human import HumanAgent
from arena.runtime.manifest import BotError, load_bot, valid_name
from arena.terminal import printable_name, shown, shown_lines

ESC = "\x1b"
RLO = "\u202e"
NASTY = f"{ESC}[2J{ESC}[H{RLO}evil\u2066\u200b\x9b\x7f"

BOT = """\
import json, sys
NAME = {name!r}
VERSION = {version!r}
CRASH = {crash!r}
sys.stderr.write({stderr!r} + "\\n")
sys.stderr.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({{"name": NAME, "version": VERSION, "author": NAME}}), flush=True)
    elif m["type"] == "act":
        if CRASH:
            sys.stderr.write({stderr!r} + "\\n")
            sys.stderr.flush()
            sys.exit(3)
        print(json.dumps({{"id": m["id"], "index": 0}}), flush=True)
    elif m["type"] == "bye":
        break
"""


def write_bot(where: Path, folder: str, name: str, version: str = "1", crash: bool = False) -> Path:
    path = where / folder
    path.mkdir()
    stderr = f"warning {NASTY}\n{ESC}]0;title{ESC}\\ line two"
    (path / "bot.py").write_text(
        BOT.format(name=name, version=version, crash=crash, stderr=stderr), encoding="utf-8"
    )
    (path / "bot.toml").write_text(
        textwrap.dedent(
            f"""\
            name = "{folder}"
            version = "1"
            command = ["python3", "bot.py"]
            games = ["take5"]
            """
        ),
        encoding="utf-8",
    )
    return path


def assert_clean(out: str) -> None:
    for char in (ESC, RLO, "\u2066", "\u200b", "\x9b", "\x7f"):
        assert char not in out, f"raw {char!r} in the output:\n{out!r}"


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def test_shown_escapes_controls_bidi_and_invisible_characters() -> None:
    assert shown("plain name-1.0 é ü 🂡") == "plain name-1.0 é ü 🂡"
    assert shown(NASTY) == "\\x1b[2J\\x1b[H\\u202eevil\\u2066\\u200b\\x9b\\x7f"
    assert shown("a\nb\tc\r") == "a\\x0ab\\x09c\\x0d"
    assert shown_lines("one\x1b[1m\ntwo") == ["one\\x1b[1m", "two"]
    assert shown(3) == "3"
    assert not printable_name("x\n") and not printable_name(f"a{RLO}b")
    assert printable_name("My Bot 2")


def test_bot_names_must_match_the_whole_pattern() -> None:
    """``re.match`` with ``$`` let a trailing newline through in bot.toml; submit refused it."""
    assert valid_name("abc-1.0")
    assert not valid_name("abc\n")
    assert not valid_name("")
    assert not valid_name(None)


def test_a_manifest_name_or_author_with_controls_is_refused(tmp_path: Path) -> None:
    path = write_bot(tmp_path, "fine", "fine")
    manifest = path / "bot.toml"
    manifest.write_text('name = "x\\n"\ncommand = ["python3", "bot.py"]\ngames = ["take5"]\n')
    with pytest.raises(BotError, match="name must be"):
        load_bot(str(path))
    manifest.write_text(
        'name = "x"\nauthor = "me\\u001b[2J"\ncommand = ["python3", "bot.py"]\ngames = ["take5"]\n'
    )
    with pytest.raises(BotError, match="author must hold no control"):
        load_bot(str(path))
    code, out = invoke("play", "take5", str(path), "builtin:random")
    assert code == 1 and "author must hold no control" in out
    assert_clean(out)


def test_play_shows_a_hello_with_escapes_as_a_fault_escaped(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "nasty", f"nasty{NASTY}")
    code, out = invoke("play", "take5", str(bot), "builtin:random", "--quiet")
    assert code == 0, out
    assert "bad_hello" in out and "no control, format or bidi" in out
    assert "\\x1b[2J" in out and "\\u202e" in out  # what the bot sent, visible
    assert_clean(out)


@pytest.mark.parametrize("name", ["x\n", "x\r", f"x{RLO}", "\u200bx"])
def test_check_refuses_a_hello_name_with_control_characters(tmp_path: Path, name: str) -> None:
    bot = write_bot(tmp_path, "nl", name)
    code, out = invoke("check", str(bot), "--matches", "1")
    assert code == 1, out
    assert "FAIL start-up: bad_hello" in out
    assert "the 'name' in the answer to hello must hold no control" in out
    assert_clean(out)


def test_check_and_play_escape_versions_and_stderr(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "crashy", "crashy", version=f"1{NASTY}", crash=True)
    code, out = invoke("check", str(bot), "--matches", "1")
    assert code == 1, out
    # the hello's version is cleaned where it is read (control characters become U+FFFD)
    assert "version '1\ufffd[2J" in out
    assert "crash" in out and "warning \\x1b[2J" in out
    assert_clean(out)
    code, out = invoke("play", "take5", str(bot), "builtin:random")
    assert code == 0, out
    assert "stderr (end)" in out and "warning \\x1b[2J" in out and "\\x1b]0;title" in out
    assert_clean(out)


def test_human_seat_shows_opponent_names_escaped() -> None:
    lines: list[str] = []
    agent = HumanAgent(read=lambda prompt: "0", write=lines.append)
    agent.receive({"type": "start", "game": "take5", "seat": 0, "players": ["me", f"bot{NASTY}"]})
    agent.act(
        {
            "id": 1,
            "events": [],
            "observation": {"note": NASTY},
            "legal": [{"card": NASTY}],
        }
    )
    out = "\n".join(lines)
    assert "bot\\x1b[2J" in out
    assert_clean(out)
    assert json.dumps(NASTY) in out  # the JSON lines were already escaped, and still are


def test_league_listings_escape_authors_and_fault_reasons(tmp_path: Path) -> None:
    league = tmp_path / "lg"
    code, out = invoke("league", "init", str(league))
    assert code == 0, out
    bot = write_bot(tmp_path, "okbot", "okbot")
    code, out = invoke(
        "submit", str(bot), "--league", str(league), "--no-check", "--author", f"me{NASTY}"
    )
    assert code == 2 and "--author" in out and "control, format or bidi" in out
    assert_clean(out)
    code, out = invoke("submit", str(bot), "--league", str(league), "--no-check")
    assert code == 0, out
    from arena.league.core import League

    with League.open(league) as lg:  # a league written before authors were checked
        (entrant,) = lg.entrants()
        lg.store.db.execute("UPDATE bots SET author = ?", (f"me{NASTY}",))
        lg.store.set_status(entrant.id, "suspended", f"faulted: {NASTY}")
    code, out = invoke("bots", "--league", str(league))
    assert code == 0 and "me\\x1b[2J" in out
    assert_clean(out)
    for args in (("bots", "--league", str(league)), ("league", "status", str(league))):
        code, out = invoke(*args)
        assert code == 0, out
        assert "faulted: \\x1b[2J" in out
        assert_clean(out)
