"""The commands that run bots: play, check, human (through click's CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots"
FAST = ["--decision-time", "0.3", "--time-bank", "0.3"]


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.output


def test_play_without_bots_keeps_the_in_process_random_players() -> None:
    code, out = run("play", "take5", "--seats", "4", "--seed", "7")
    assert code == 0, out
    assert "== Take 5 (6 nimmt!), 4 seats, seed 7" in out and "random-3" in out


def test_play_between_bots_shows_the_account_and_faults_plainly() -> None:
    code, out = run(
        "play", "take5", "builtin:first", str(BOTS / "crash.py"), "builtin:random", *FAST
    )
    assert code == 0, out
    assert "FAULT seat 1 (crash) at step" in out and "crash:" in out
    assert "boom: the test bot crashes here" in out
    assert "(faulted: ranked last)" in out
    assert "Round 1: rows start with" in out


def test_play_json_prints_one_record_per_game() -> None:
    code, out = run(
        "play", "take5", "builtin:first", str(BOTS / "good.py"), "--games", "2", "--json", *FAST
    )
    assert code == 0, out
    records = [json.loads(line) for line in out.splitlines() if not line.startswith("sandbox: ")]
    assert [r["seed"] for r in records] == [0, 1]
    assert all(r["faults"] == [] and r["debug"] for r in records)


def test_play_refuses_bad_bots_and_seat_counts() -> None:
    code, out = run("play", "take5", "builtin:nobody", "builtin:first")
    assert code != 0 and "unknown built-in bot" in out
    code, out = run("play", "take5", "builtin:first")
    assert code != 0 and "2 to 10 seats" in out
    code, out = run("play", "take5", "builtin:first", "builtin:first", "--seats", "3")
    assert code != 0 and "2 bots were given for 3 seats" in out


def test_check_passes_a_good_bot() -> None:
    code, out = run("check", str(BOTS / "manifest_ok"), "--matches", "2")
    assert code == 0, out
    assert "ok   hello: name 'good'" in out
    assert "note its hello says name 'good' but bot.toml says 'manifest-ok'" in out
    assert "ok   take5: 2 matches" in out and out.rstrip().endswith("PASS")


@pytest.mark.parametrize(
    ("bot", "expected"),
    [
        ("illegal.py", "illegal_action"),
        ("garbage.py", "put logs and debugging output on stderr"),
        ("bad_hello.py", "FAIL start-up: bad_hello"),
        ("no_start.py", "giving up at once"),
    ],
)
def test_check_fails_a_faulty_bot_with_a_hint(bot: str, expected: str) -> None:
    code, out = run("check", str(BOTS / bot), "--matches", "1", *FAST)
    assert code == 1, out
    assert expected in out
    assert "hint:" in out


def test_check_refuses_a_missing_bot() -> None:
    code, out = run("check", "no/such/bot")
    assert code != 0 and "no bot at" in out


def test_a_human_takes_a_seat() -> None:
    # Take 5 with 2 seats and one round: 10 card decisions, maybe a few row choices.
    code, out = run(
        "human",
        "take5",
        "builtin:first",
        "--seed",
        "3",
        "--option",
        "max_rounds=1",
        input="x\n" + "0\n" * 30,
    )
    assert code == 0, out
    assert "you are seat 0" in out and "[0]" in out
    assert "please type a number" in out
    assert "Game over" in out and "human" in out


def misnamed_bot(folder: Path, games: str) -> Path:
    folder.chmod(0o755)
    (folder / "bot.py").write_text((BOTS / "manifest_ok" / "bot.py").read_text())
    (folder / "bot.toml").write_text(
        f'name = "elsewhere"\ncommand = ["python3", "bot.py"]\ngames = {games}\n'
    )
    return folder


@pytest.mark.parametrize(
    ("games", "expected"),
    [
        ('["chess"]', "unknown game 'chess' (games: phase10, take5, ten)"),
        ('["take5", "6nimmt"]', "unknown game '6nimmt' (did you mean 'take5'? games:"),
        ('["take5", "Phase10"]', "unknown game 'Phase10' (did you mean 'phase10'? games:"),
        ('["tne"]', "unknown game 'tne' (did you mean 'ten'? games:"),
    ],
)
def test_unknown_game_names_are_refused_with_a_guess(
    tmp_path: Path, games: str, expected: str
) -> None:
    bot = misnamed_bot(tmp_path, games)
    code, out = run("check", str(bot))
    assert code == 1 and expected in out, out
    code, out = run("play", "take5", str(bot), "builtin:first")
    assert code == 1 and expected in out, out


def test_play_guesses_a_mistyped_game() -> None:
    code, out = run("play", "Take5", "builtin:first", "builtin:first")
    assert code != 0 and "unknown game 'Take5' (did you mean 'take5'?" in out, out


def test_play_seats_a_human_given_as_a_bot() -> None:
    code, out = run(
        "play",
        "take5",
        "builtin:first",
        "human",
        "--option",
        "max_rounds=1",
        "--quiet",
        input="0\n" * 30,
    )
    assert code == 0, out
    assert "you are seat 1" in out and "human" in out
