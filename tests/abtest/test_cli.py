"""``arena abtest`` end to end: the three games, resume after kill -9, workers, bad input."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.abtest.folder import Entrants, Settings, block_matches, seating
from arena.abtest.report import write_report
from arena.cli import main
from tests.league.helpers import ROOT, bot_processes, write_bot

RANDOM_BOT = str(ROOT / "bots" / "random")


def abtest(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["abtest", *args])
    return result.exit_code, result.output


def as_json(*args: str) -> dict[str, Any]:
    code, out = abtest(*args, "--json")
    assert code == 0, out
    data: dict[str, Any] = json.loads(out)
    return data


def stored(folder: Path, blocks: int) -> list[tuple[str, int, str]]:
    """The stored results of the first ``blocks`` blocks: (match id, block, ranks)."""
    db = sqlite3.connect(folder / "league.db")
    try:
        rows = db.execute(
            "SELECT s.match_id, s.tab, r.ranks FROM schedule s JOIN results r USING (match_id)"
            " WHERE s.tab < ? ORDER BY s.tab, s.ordinal",
            (blocks,),
        ).fetchall()
    finally:
        db.close()
    return [(str(a), int(b), str(c)) for a, b, c in rows]


@pytest.mark.parametrize(
    ("game", "seats"),
    [("take5", 4), ("ten", 3), pytest.param("phase10", 3, marks=pytest.mark.slow)],
)
def test_a_test_reaches_a_verdict_in_each_game(tmp_path: Path, game: str, seats: int) -> None:
    folder = tmp_path / "t"
    args = ["builtin:first", "builtin:random", "--game", game, "--seats", str(seats)]
    args += ["--nelo0", "-150", "--nelo1", "150", "--max-blocks", "12", "--dir", str(folder)]
    data = as_json(*args)
    assert data["status"]["finished"]
    assert data["verdict"] in ("H0", "H1", "undecided")
    assert 1 <= data["blocks"] <= 12
    assert data["matches"] == 2 * data["blocks"] <= data["matches_played"]
    assert sum(data["counts"]) == data["blocks"] == len(data["llr"])
    assert data["faults"] == {"new": 0, "old": 0}
    assert data["estimate"]["blocks"] == data["blocks"]
    assert (folder / "league.toml").exists() and (folder / "abtest.json").exists()
    # Run again: the folder's test is finished, nothing more is played, the same verdict.
    again = as_json(*args)
    assert again == data
    # The text output names the verdict.
    code, out = abtest(*args)
    assert code == 0 and ("accepted" in out or "undecided" in out)


def test_blocks_pair_the_same_deal_and_seating() -> None:
    settings = Settings(game="take5", seats=4, new="a", old="b", seed=3)
    entrants = Entrants(new=1, old=2, opponents=(5, 6))
    matches = block_matches(settings, entrants, batch=0, first=6, blocks=2)
    assert [m.tab for m in matches] == [6, 6, 7, 7]
    for new, old in (matches[0:2], matches[2:4]):
        assert new.seed == old.seed and new.rotation == old.rotation == new.tab % 4
        seat = new.rotation
        assert new.bots[seat] == 1 and old.bots[seat] == 2
        assert [b for i, b in enumerate(new.bots) if i != seat] == [
            b for i, b in enumerate(old.bots) if i != seat
        ]
    assert matches[0].seed != matches[2].seed
    # The match ids name the block and half, not the batch (so any planning gives the same).
    again = block_matches(settings, entrants, batch=5, first=6, blocks=1)
    assert [m.match_id for m in again] == [m.match_id for m in matches[:2]]
    assert seating(1, 3, (7, 8), 1) == (8, 1, 7)  # the opponents start at the block
    assert seating(2, 3, (7, 8), 1) == (7, 8, 1)


def test_the_same_verdict_with_one_and_two_workers(tmp_path: Path) -> None:
    common = ["builtin:first", "builtin:random", "--game", "take5", "--seats", "4"]
    common += ["--nelo1", "100", "--max-blocks", "80"]
    one = as_json(*common, "--dir", str(tmp_path / "one"), "--workers", "1")
    two = as_json(*common, "--dir", str(tmp_path / "two"), "--workers", "2")
    for key in ("verdict", "status", "estimate", "counts", "llr", "blocks"):
        assert one[key] == two[key]
    assert stored(tmp_path / "one", one["blocks"]) == stored(tmp_path / "two", two["blocks"])


@pytest.mark.slow
@pytest.mark.usefixtures("own_stage")  # bot_processes sees this test's bots only
def test_kill_9_then_resume_gives_the_same_verdict(tmp_path: Path) -> None:
    rng = random.Random(5)
    args = [RANDOM_BOT, RANDOM_BOT, "--game", "take5", "--seats", "3"]
    args += ["--opponents", "builtin:random", "--nelo0", "-10", "--nelo1", "10"]
    args += ["--max-blocks", "500", "--quiet", "--json"]
    whole = as_json(*args, "--dir", str(tmp_path / "whole"))
    killed = tmp_path / "killed"
    command = [sys.executable, "-m", "arena", "abtest", *args, "--dir", str(killed)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kills = 0
    for _ in range(3):
        child = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(0.8, 2.0))
        if child.poll() is not None:
            break
        child.send_signal(signal.SIGKILL)
        child.wait()
        kills += 1
    assert kills >= 1
    done = subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    resumed = json.loads(done.stdout)
    for key in ("verdict", "status", "estimate", "counts", "llr", "blocks"):
        assert resumed[key] == whole[key]
    assert stored(killed, whole["blocks"]) == stored(tmp_path / "whole", whole["blocks"])
    deadline = time.monotonic() + 15
    while bot_processes(killed) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert bot_processes(killed) == []


def test_the_gauntlet_gives_one_verdict_per_opponent(tmp_path: Path) -> None:
    data = as_json(
        "builtin:first",
        "builtin:random",
        "--game",
        "take5",
        "--seats",
        "3",
        "--opponents",
        "builtin:random",
        "--opponents",
        "builtin:first",
        "--gauntlet",
        "--nelo1",
        "150",
        "--max-blocks",
        "10",
        "--dir",
        str(tmp_path / "g"),
    )
    assert [r["opponent"] for r in data["gauntlet"]] == ["builtin:random", "builtin:first"]
    assert all(r["status"]["finished"] for r in data["gauntlet"])
    assert sorted(p.name for p in (tmp_path / "g").iterdir()) == [
        "vs-1-random",
        "vs-2-first",
    ]


def test_a_league_bot_against_its_previous_version(tmp_path: Path) -> None:
    league = tmp_path / "lg"
    src = tmp_path / "src"
    (src / "v1").mkdir(parents=True)
    code, out = CliRunner().invoke(main, ["league", "init", str(league)]).exit_code, ""
    assert code == 0
    for version, body in (("1", "0"), ("2", "len(msg['legal']) - 1")):
        folder = src / f"v{version}"
        folder.mkdir(exist_ok=True)
        (folder / "bot.py").write_text(
            "import json, sys\n"
            "for line in sys.stdin:\n"
            "    msg = json.loads(line)\n"
            "    if msg['type'] == 'hello':\n"
            "        print(json.dumps({'type': 'hello', 'name': 'b', 'version': '1'}), flush=True)\n"
            "    elif msg['type'] == 'act':\n"
            f"        print(json.dumps({{'id': msg['id'], 'index': {body}}}), flush=True)\n"
            "    elif msg['type'] == 'bye':\n"
            "        break\n"
        )
        (folder / "bot.toml").write_text(
            'name = "b"\nauthor = "t"\nversion = "1"\ncommand = ["python3", "bot.py"]\n'
            'games = ["take5"]\n'
        )
        result = CliRunner().invoke(
            main, ["submit", str(folder), "--league", str(league), "--no-check"]
        )
        assert result.exit_code == 0, result.output
    data = as_json(
        "--league",
        str(league),
        "b",
        "--nelo0",
        "-150",
        "--nelo1",
        "150",
        "--max-blocks",
        "6",
        "--dir",
        str(tmp_path / "t"),
    )
    assert data["status"]["finished"] and data["settings"]["game"] == "take5"
    assert data["settings"]["new"] != data["settings"]["old"]
    code, out = abtest("--league", str(league), "nobody", "--dir", str(tmp_path / "u"))
    assert code != 0 and "not an entrant" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["./no-such-bot", "builtin:random", "--game", "take5"], "no-such-bot"),
        (["builtin:first", "builtin:random", "--game", "take5", "--seats", "11"], "out of range"),
        (["builtin:first", "builtin:random", "--game", "ten", "--seats", "1"], "out of range"),
        (["builtin:first", "builtin:random", "--game", "take5", "--alpha", "1.5"], "--alpha"),
        (["builtin:first", "builtin:random", "--game", "take5", "--alpha", "0"], "--alpha"),
        (
            ["builtin:first", "builtin:random", "--game", "take5", "--nelo0", "5", "--nelo1", "5"],
            "must be below",
        ),
        (
            ["builtin:first", "builtin:random", "--game", "take5", "--elo0", "9", "--elo1", "2"],
            "must be below",
        ),
        (
            ["builtin:first", "builtin:random", "--game", "take5", "--elo1", "5", "--score1", ".6"],
            "one pair",
        ),
        (
            ["builtin:first", "builtin:random", "--game", "take5", "--elo1", "inf"],
            "finite",
        ),
        (["builtin:first", "builtin:random", "--game", "take5", "--nelo1", "500"], "within"),
        (["builtin:first", "--game", "take5"], "NEW OLD"),
        (["builtin:first", "builtin:random"], "--game"),
        (["builtin:first", "builtin:random", "--game", "chess"], "unknown game"),
        (["builtin:first", "builtin:random", "--game", "take5", "--gauntlet"], "--opponents"),
    ],
)
def test_bad_input_is_a_clear_error(tmp_path: Path, args: list[str], message: str) -> None:
    code, out = abtest(*args, "--dir", str(tmp_path / "t"))
    assert code != 0
    assert message in out
    assert "Traceback" not in out
    assert not (tmp_path / "t").exists()


def test_a_folder_holding_another_test_is_refused(tmp_path: Path) -> None:
    folder = str(tmp_path / "t")
    base = ["builtin:first", "builtin:random", "--game", "take5", "--max-blocks", "3"]
    assert abtest(*base, "--nelo1", "150", "--dir", folder)[0] == 0
    code, out = abtest(*base, "--nelo1", "100", "--dir", folder)
    assert code != 0 and "another test" in out and "h1" in out


def test_the_report_page_draws_the_llr_and_the_blocks(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    data = as_json(
        "builtin:first",
        "builtin:random",
        "--game",
        "take5",
        "--seats",
        "3",
        "--nelo1",
        "150",
        "--max-blocks",
        "8",
        "--dir",
        str(folder),
    )
    page = (folder / "report.html").read_text()
    assert data["report"] == str(folder / "report.html")
    assert "<polyline" in page and page.count("<rect") == 5  # 5 bins at 3 seats
    assert f"{data['blocks']} blocks" in page


def test_the_report_escapes_what_it_is_given(tmp_path: Path) -> None:
    settings = Settings(game="take5", seats=3, new="<script>x</script>", old="b")
    data = {
        "settings": settings.to_json(),
        "status": {"llr": 0.5, "lower": -2.9, "upper": 2.9, "blocks": 2, "finished": False},
        "estimate": None,
        "verdict": "running",
        "blocks": 2,
        "matches": 4,
        "matches_played": 4,
        "faults": {"new": 0, "old": 1},
        "counts": [0, 1, 1, 0, 0],
        "llr": [0.2, 0.5],
    }
    page = write_report(tmp_path, data, "not finished").read_text()
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_faults_of_new_are_counted_and_lose_the_game(tmp_path: Path) -> None:
    crash = write_bot(tmp_path / "src", "crashy", mode="crash")
    data = as_json(
        str(crash),
        "builtin:first",
        "--game",
        "take5",
        "--seats",
        "3",
        "--nelo0",
        "-150",
        "--nelo1",
        "150",
        "--max-blocks",
        "4",
        "--dir",
        str(tmp_path / "t"),
    )
    assert data["faults"] == {"new": data["blocks"], "old": 0}
    # NEW is ranked last in every block: no block scores above 1/2.
    half = len(data["counts"]) // 2
    assert sum(data["counts"][half + 1 :]) == 0


@pytest.mark.slow
def test_dask_gives_the_verdict_of_local_workers(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    common = ["builtin:first", "builtin:random", "--game", "take5", "--seats", "4"]
    common += ["--nelo1", "100", "--max-blocks", "60"]
    local = as_json(*common, "--dir", str(tmp_path / "local"))
    dask = as_json(*common, "--dir", str(tmp_path / "dask"), "--executor", "dask")
    for key in ("verdict", "status", "counts", "llr", "blocks"):
        assert local[key] == dask[key]


def test_a_bot_that_does_not_play_the_game_is_refused(tmp_path: Path) -> None:
    tens = write_bot(tmp_path / "src", "tens", games=("ten",))
    code, out = abtest(str(tens), "builtin:random", "--game", "take5", "--dir", str(tmp_path / "t"))
    assert code != 0 and "none of the league's games" in out
    assert not (tmp_path / "t").exists() and not (tmp_path / "t.creating").exists()


def test_audit_replays_an_ab_test_folder_and_finds_it_sound(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    args = ["builtin:first", "builtin:random", "--game", "take5", "--seats", "3"]
    code, out = abtest(
        *args,
        "--nelo0",
        "-150",
        "--nelo1",
        "150",
        "--max-blocks",
        "6",
        "--dir",
        str(folder),
        "--workers",
        "1",
        "--quiet",
    )
    assert code == 0, out
    result = CliRunner().invoke(main, ["audit", str(folder)])
    assert result.exit_code == 0, result.output
    assert "an A/B-test folder" in result.output and "all agree" in result.output
    # The blocks' ids, deals and seats are checked against the test's own plan: under another
    # test seed none of them is the test's.
    settings = folder / "abtest.json"
    data = json.loads(settings.read_text())
    data["settings"]["seed"] += 1
    settings.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["audit", str(folder)])
    assert result.exit_code == 1
    assert "the id is not the test's id for block 0 (NEW)" in result.output
    assert "the seed is not the test's seed" in result.output
