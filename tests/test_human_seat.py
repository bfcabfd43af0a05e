"""The human seat: the position drawn per game, moves in words, one-move decisions taken, and a
real game in a real terminal (tmux)."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena.boards import action_text, board
from arena.games import get_game
from arena.games.take5 import HEADS
from arena.human import HumanAgent

ROOT = Path(__file__).resolve().parents[1]


def position(game: str, steps: int, seed: int = 5) -> tuple[dict[str, object], list[object]]:
    """The observation and legal list of the seat to move after ``steps`` random moves."""
    state = get_game(game).new(seed, 3)
    rng = random.Random(seed)
    for _ in range(steps):
        for seat in state.to_move():
            state.apply(seat, rng.choice(state.legal(seat)))
    seat = state.to_move()[0]
    return state.observation(seat), state.legal(seat)


def test_take5_rows_are_drawn_from_0_with_their_heads() -> None:
    obs, legal = position("take5", 3)
    lines = board("take5", obs)
    rows = obs["rows"]
    assert isinstance(rows, list)
    for index, row in enumerate(rows):
        heads = sum(HEADS[c] for c in row)
        expect = f"  row {index}: {' '.join(map(str, row))}"
        assert any(line.startswith(expect) and f"{heads} heads" in line for line in lines)
    assert lines[-1] == "your hand: " + " ".join(str(c) for c in obs["hand"])  # type: ignore[attr-defined]
    assert [action_text("take5", obs, a) for a in legal] == [f"play card {a}" for a in legal]


def test_take5_row_choice_names_the_row_and_its_heads() -> None:
    obs = {"decision": "row", "seat": 0, "rows": [[5, 55], [10], [20], [30]]}
    assert action_text("take5", obs, 0) == "take row 0: 5 55 (9 heads)"  # 55: 7, 5: 2


@pytest.mark.parametrize("game", ["ten", "phase10"])
def test_every_game_draws_without_falling_back_to_json(game: str) -> None:
    for steps in (0, 5, 30):
        obs, legal = position(game, steps)
        lines = board(game, obs)
        assert not lines[0].startswith("{"), lines
        for action in legal:
            assert not action_text(game, obs, action).startswith(("{", "[")), action


def test_ten_actions_in_words() -> None:
    assert action_text("ten", {}, "take_numbers") == "take numbers"
    assert action_text("ten", {}, {"bid": 1}) == "bid 1"
    assert action_text("phase10", {"discard_top": "R11"}, "take") == (
        "take R11 from the discard pile"
    )


def test_one_move_is_taken_without_asking() -> None:
    lines: list[str] = []

    def never(prompt: str) -> str:
        raise AssertionError("asked")

    agent = HumanAgent(read=never, write=lines.append)
    agent.receive({"type": "start", "game": "take5", "seat": 0, "players": ["me", "bot"]})
    obs, _ = position("take5", 3)
    reply = agent.act({"id": 7, "events": [], "observation": obs, "legal": [obs["hand"][0]]})  # type: ignore[index]
    assert reply == {"id": 7, "index": 0}
    assert any(line.startswith("  only one move: play card") for line in lines)


def tmux(*args: str) -> str:
    return subprocess.run(
        ["tmux", *args], capture_output=True, text=True, check=True, timeout=10
    ).stdout


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_game_in_a_real_terminal() -> None:
    session = f"arena-{uuid.uuid4().hex[:8]}"
    command = (
        f"cd {ROOT} && {sys.executable} -m arena human take5 builtin:first --seed 3 "
        "--option max_rounds=1; echo EXITED $?; sleep 30"
    )
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "50", command)
    try:
        seen = ""
        for _ in range(40):  # each move: wait for the prompt, answer 0
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                seen = tmux("capture-pane", "-p", "-t", session, "-S", "-200")
                if "EXITED" in seen or seen.rstrip().endswith(":"):
                    break
                time.sleep(0.05)
            if "EXITED" in seen:
                break
            tmux("send-keys", "-t", session, "0", "Enter")
            time.sleep(0.1)
        assert "EXITED 0" in seen, seen
        assert "  row 0: " in seen and "your hand: " in seen and "[0] play card " in seen
        assert "Game over" in seen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
