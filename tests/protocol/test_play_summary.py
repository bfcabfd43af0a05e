"""``arena play --games N``: seats rotate across games, and a summary per bot ends the run."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.cli.play import seating


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_each_game_moves_every_bot_one_seat_on() -> None:
    assert seating(3, 0) == [0, 1, 2]
    assert seating(3, 1) == [2, 0, 1]  # bot 0 now in seat 1
    assert seating(3, 4) == seating(3, 1)
    for shift in range(6):
        assert sorted(seating(4, shift)) == [0, 1, 2, 3]


def seats_of(out: str) -> list[list[str]]:
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return [[seat["name"] for seat in record["seats"]] for record in records]


def test_seats_rotate_unless_fixed() -> None:
    args = ("play", "take5", "builtin:first", "builtin:random", "--games", "3", "--json")
    code, out = run(*args, "--option", "max_rounds=1")
    assert code == 0, out
    assert seats_of(out) == [["first", "random"], ["random", "first"], ["first", "random"]]
    code, out = run(*args, "--option", "max_rounds=1", "--fixed-seats")
    assert code == 0, out
    assert seats_of(out) == [["first", "random"]] * 3


def test_the_summary_adds_up_the_games() -> None:
    code, out = run(
        "play",
        "take5",
        "builtin:first",
        "builtin:random",
        "builtin:random",
        "--games",
        "4",
        "--json",
        "--option",
        "max_rounds=2",
    )
    assert code == 0, out
    records = [json.loads(line) for line in out.splitlines()]
    code, text = run(
        "play",
        "take5",
        "builtin:first",
        "builtin:random",
        "builtin:random",
        "--games",
        "4",
        "--quiet",
        "--option",
        "max_rounds=2",
    )
    assert code == 0, text
    summary = text[text.index("== summary of 4 games") :].splitlines()[2:]
    rows = {line.rsplit(None, 4)[0].strip(): line.rsplit(None, 4)[1:] for line in summary}
    assert set(rows) == {"first", "random #2", "random #3"}
    # the first bot's figures from the records: it sits in seat k mod 3 of game k
    places = [r["ranks"][seating(3, k).index(0)] for k, r in enumerate(records)]
    scores = [r["result"]["scores"][seating(3, k).index(0)] for k, r in enumerate(records)]
    wins, mean_place, mean_score, faults = rows["first"]
    assert int(wins) == places.count(1)
    assert float(mean_place) == round(sum(places) / 4, 2)
    assert float(mean_score) == round(sum(scores) / 4, 2)
    assert int(faults) == 0


def test_one_game_prints_no_summary() -> None:
    code, out = run("play", "take5", "builtin:first", "builtin:random", "--quiet")
    assert code == 0 and "summary" not in out, out


def test_show_stderr_prints_each_line_after_the_bot_and_keeps_a_log(tmp_path: Path) -> None:
    bots = Path(__file__).resolve().parents[1] / "bots"
    logs = tmp_path / "logs"
    code, out = run(
        "play",
        "take5",
        "builtin:first",
        str(bots / "crash.py"),
        "--quiet",
        "--show-stderr",
        "--logs",
        str(logs),
        "--decision-time",
        "0.5",
    )
    assert code == 0, out
    assert "[crash] RuntimeError: boom: the test bot crashes here" in out
    assert f"stderr of each bot process: {logs}" in out
    assert "boom: the test bot crashes here" in (logs / "crash.0.stderr").read_text()


def test_without_show_stderr_the_log_is_kept_quietly(tmp_path: Path) -> None:
    bots = Path(__file__).resolve().parents[1] / "bots"
    code, out = run(
        "play",
        "take5",
        "builtin:first",
        str(bots / "crash.py"),
        "--quiet",
        "--logs",
        str(tmp_path),
        "--decision-time",
        "0.5",
    )
    assert code == 0, out
    assert "[crash]" not in out
    assert "boom" in (tmp_path / "crash.0.stderr").read_text()
