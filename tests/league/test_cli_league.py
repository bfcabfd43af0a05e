"""The league commands through click's CliRunner, and Ctrl-C on a real run."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.league.helpers import ROOT, bot_processes, descendants, small_league, write_bot


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def make(tmp_path: Path, budget: int = 24) -> Path:
    folder = tmp_path / "lg"
    code, out = run("league", "init", str(folder), "--seed", "3")
    assert code == 0, out
    text = (folder / "league.toml").read_text()
    assert "# Duplicate sets" in text and "seed = 3" in text
    text = text.replace("max_matches = 2000", f"max_matches = {budget}")
    (folder / "league.toml").write_text(text)
    return folder


def test_init_refuses_to_overwrite_a_league(tmp_path: Path) -> None:
    folder = make(tmp_path)
    code, out = run("league", "init", str(folder))
    assert code == 1 and "already has a league.toml" in out


def test_a_league_from_the_command_line(tmp_path: Path) -> None:
    folder = make(tmp_path)
    lg = str(folder)
    code, out = run("submit", str(ROOT / "bots" / "random"), "--league", lg)
    assert code == 0 and "entered random version" in out and "checked in take5" in out, out
    code, out = run("submit", "builtin:first", "--league", lg)
    assert code == 0, out
    code, out = run("submit", "builtin:first", "--league", lg)
    assert code == 1 and "already submitted" in out
    code, out = run("submit", str(write_bot(tmp_path, "nope", "bad_hello")), "--league", lg)
    assert code == 1 and "failed the check" in out
    code, out = run("submit", "builtin:random", "--league", lg, "--name", "<b>")
    assert code == 1 and "bad bot name" in out
    code, out = run("bots", "--league", lg)
    assert code == 0 and "builtin-first" in out and "random" in out
    code, out = run("league", "run", lg, "--quiet")
    assert code == 0 and "played 24 matches" in out, out
    code, out = run("league", "status", lg)
    assert code == 0 and "take5: TrueSkill" in out and "overall" in out and "(finished)" in out
    code, out = run("league", "status", lg, "--json")
    summary = json.loads(out)
    assert summary["matches_played"] == 24
    assert {r["name"] for r in summary["games"]["take5"]["ratings"]} == {"random", "builtin-first"}
    code, out = run("league", "export", lg)
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 24 and all("actions" in r and "schedule" in r for r in lines)
    code, out = run("league", "export", lg, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 24 * 4 and rows[0]["game"] == "take5"
    code, out = run("withdraw", "random", "--league", lg)
    assert code == 0 and "withdrew random" in out
    code, out = run("withdraw", "random", "--league", lg)
    assert code == 1 and "no active entrant" in out
    code, out = run("league", "status", "nowhere-at-all")
    assert code == 1 and "is not a league" in out


def test_a_bad_config_is_named(tmp_path: Path) -> None:
    folder = make(tmp_path)
    (folder / "league.toml").write_text("seed = 1\n[schedule]\nmax_matchez = 3\n")
    code, out = run("league", "status", str(folder))
    assert code == 1 and "max_matchez" in out


@pytest.mark.usefixtures("own_stage")  # bot_processes sees this test's bots only
def test_ctrl_c_stops_workers_and_bots_and_the_next_run_resumes(
    tmp_path: Path, process_bots: None
) -> None:
    folder = small_league(
        tmp_path / "lg",
        [str(ROOT / "bots" / "random"), str(ROOT / "bots" / "heuristic")],
        budget=600,  # enough that the run is still going when Ctrl-C comes, even compiled
    )
    command = [sys.executable, "-m", "arena", "league", "run", str(folder), "--quiet"]
    child = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        text=True,
        # as from a terminal: a shell's background job (CI's steps) starts with SIGINT ignored,
        # which the child would inherit and then never see Ctrl-C
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 20
        # the run's own bots (not a conformance check's, still exiting), so that the run is
        # past its start-up when Ctrl-C comes
        while not set(bot_processes(folder)) & descendants(child.pid):
            assert time.monotonic() < deadline, "the run started no bot in 20 s"
            time.sleep(0.05)
        time.sleep(0.2)
        os.killpg(child.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _, err = child.communicate(timeout=30)
    finally:  # whatever failed above, leave nothing running
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
    assert child.returncode == 1
    assert "run again to resume" in err
    deadline = time.monotonic() + 15  # the bots' pools are closed by workers that are exiting
    while bot_processes(folder) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert bot_processes(folder) == []
    code, out = run("league", "run", str(folder), "--quiet")
    assert code == 0, out
    code, out = run("league", "status", str(folder), "--json")
    summary = json.loads(out)
    assert summary["finished"]
    assert summary["matches_played"] == summary["matches_planned"] > 590


PICKY_BOT = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        print(json.dumps({"name": "picky"}), flush=True)
    elif kind == "start" and (message["seats"] > 4 or message["options"].get("professional")):
        print("this table is beyond me", file=sys.stderr, flush=True)
        sys.exit(3)
    elif kind == "act":
        print(json.dumps({"id": message["id"], "index": 0}), flush=True)
    elif kind == "bye":
        break
"""


def picky_bot(tmp_path: Path) -> Path:
    """A bot that plays Take 5 at up to four seats with default options, and crashes otherwise."""
    folder = tmp_path / "picky"
    folder.mkdir()
    (folder / "bot.py").write_text(PICKY_BOT)
    (folder / "bot.toml").write_text(
        'name = "picky"\ncommand = ["python3", "bot.py"]\ngames = ["take5", "ten"]\n'
    )
    return folder


def league_with_take5(tmp_path: Path, seats: str, options: str = "") -> Path:
    folder = tmp_path / f"lg-{len(list(tmp_path.iterdir()))}"
    code, out = run("league", "init", str(folder))
    assert code == 0, out
    text = (folder / "league.toml").read_text()
    start = text.index("[games.take5]")
    end = text.index("\n[", start + 1)
    table = f"[games.take5]\nseats = {seats}\n" + (
        f"[games.take5.options]\n{options}\n" if options else ""
    )
    text = text[:start] + table + text[end:]
    for game in ("ten", "phase10"):  # the league plays Take 5 only
        start = text.index(f"[games.{game}]")
        end = text.find("\n[", start + 1)
        while end != -1 and text[end + 2 :].startswith(f"games.{game}."):
            end = text.find("\n[", end + 1)
        text = text[:start] + (text[end + 1 :] if end != -1 else "")
    (folder / "league.toml").write_text(text)
    return folder


def test_check_and_submission_use_the_leagues_tables_and_options(tmp_path: Path) -> None:
    bot = str(picky_bot(tmp_path))
    code, out = run("check", bot, "--matches", "1")
    assert code == 0, out
    assert "ok   take5: 1 matches at 3 seats" in out and "ok   ten: 1 matches at 3 seats" in out

    small = league_with_take5(tmp_path, "[2, 4]")
    code, out = run("check", bot, "--matches", "1", "--league", str(small))
    assert code == 0, out
    assert "ok   take5: 2 matches at 2/4 seats" in out
    assert "claims 'ten', which the league does not play; not checked" in out
    code, out = run("submit", bot, "--league", str(small))
    assert code == 0 and "entered picky" in out, out

    large = league_with_take5(tmp_path, "[4, 6]")
    code, out = run("check", bot, "--matches", "1", "--league", str(large))
    assert code == 1, out
    assert "FAIL take5: 2 matches at 4/6 seats" in out and "this table is beyond me" in out
    code, out = run("submit", bot, "--league", str(large))
    assert code == 1, out
    assert "picky failed the check in take5 at 6 seats: crash" in out
    assert "this table is beyond me" in out

    variant = league_with_take5(tmp_path, "[3]", "professional = true")
    code, out = run("check", bot, "--matches", "1", "--league", str(variant))
    assert code == 1 and "FAIL take5: 1 matches at 3 seats (professional=True)" in out, out
    code, out = run("submit", bot, "--league", str(variant))
    assert code == 1, out
    assert "failed the check in take5 at 3 seats (professional=True): crash" in out
    code, out = run("bots", "--league", str(variant))
    assert "picky" not in out


def test_check_with_a_league_that_plays_none_of_the_bots_games(tmp_path: Path) -> None:
    folder = tmp_path / "tenbot"
    folder.mkdir()
    (folder / "bot.py").write_text(PICKY_BOT)
    (folder / "bot.toml").write_text(
        'name = "tenbot"\ncommand = ["python3", "bot.py"]\ngames = ["ten"]\n'
    )
    league = league_with_take5(tmp_path, "[3]")
    code, out = run("check", str(folder), "--league", str(league))
    assert code == 1 and "FAIL it claims none of the games of the league in" in out, out
    code, out = run("check", str(folder), "--league", str(tmp_path / "nowhere"))
    assert code != 0 and "is not a league" in out, out
