"""The command line, through click's CliRunner."""

from __future__ import annotations

import json

from click.testing import CliRunner

from arena.cli import main


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_help_lists_the_commands() -> None:
    code, out = run("--help")
    assert code == 0
    assert "games" in out and "play" in out


def test_games_lists_seat_ranges_and_options() -> None:
    code, out = run("games")
    assert code == 0
    assert "take5: Take 5 (6 nimmt!), 2-10 seats" in out
    assert "end_score (int 1.., default 66)" in out


def test_play_prints_an_account_and_the_final_table() -> None:
    code, out = run("play", "take5", "--seats", "4", "--seed", "7")
    assert code == 0, out
    assert "Round 1: rows start with" in out
    assert "Game over" in out
    table = out.splitlines()[-5:]
    assert table[0].split() == ["place", "seat", "player", "score"]
    assert sorted(line.split()[1] for line in table[1:]) == ["0", "1", "2", "3"]


def test_play_is_reproducible_and_json_is_a_replay() -> None:
    first = run("play", "take5", "--seats", "3", "--seed", "5", "--games", "2", "--json")
    second = run("play", "take5", "--seats", "3", "--seed", "5", "--games", "2", "--json")
    assert first == second and first[0] == 0
    records = [json.loads(line) for line in first[1].splitlines()]
    assert [r["seed"] for r in records] == [5, 6]
    assert all(r["game"] == "take5" and len(r["result"]["ranks"]) == 3 for r in records)


def test_play_options_are_applied_and_checked() -> None:
    code, out = run(
        "play",
        "take5",
        "--seats",
        "2",
        "--option",
        "max_rounds=1",
        "--quiet",
        "--option",
        "end_score=500",
    )
    assert code == 0, out
    assert "Game over (round cap reached)" not in out  # --quiet prints only the table
    code, out = run("play", "take5", "--option", "end_score=zero")
    assert code != 0 and "whole number" in out
    code, out = run("play", "take5", "--option", "nonsense")
    assert code != 0 and "NAME=VALUE" in out


def test_unknown_games_and_bad_seat_counts_are_clear_errors() -> None:
    code, out = run("play", "chess")
    assert code == 1 and "unknown game 'chess'" in out
    code, out = run("play", "take5", "--seats", "11")
    assert code == 2 and "--seats" in out and "2 to 10 seats" in out  # a usage error
