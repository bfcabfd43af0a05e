"""Outside input reaches the rules as any object, and both builds refuse it with the same error.

Options, seeds and seat counts (league files, the command line, replays), game names, and the
seats and actions of a replay or a bot are typed ``object`` where the rules take them, and checked
there: a bad one is the game's typed error (:class:`GameError` and its kinds), never a TypeError
that only the compiled build (mypyc checks argument types) would raise. Each case below runs in
this process, and all of them again under each build in a subprocess, where the compiled and the
pure build must answer with the same exception type and message.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from arena import native
from arena.games import (
    GAMES,
    GameError,
    IllegalActionError,
    OptionError,
    SeatCountError,
    State,
    get_game,
)
from arena.players import RandomPlayer, play_local
from arena.replay import Replay

ROOT = Path(__file__).resolve().parents[2]

BAD_SEATS: list[object] = [None, "0", 1.5, True, [0], {"a": 1}, float("nan"), -1, 99, 10**30]
BAD_ACTIONS: list[object] = [None, "x", 1.5, True, [0], {"a": 1}, {}, float("nan"), 10**30, -1]
BAD_OPTION_VALUES: list[object] = [[1], {"a": 1}, 1.5, b"x"]

Case = tuple[str, Callable[[], object], type[GameError]]


def apply_to_a_copy(state: State, seat: object, action: object) -> None:
    state.clone().apply(seat, action)


def cases() -> list[Case]:
    """(id, a call with bad input, the error it must raise)."""
    out: list[Case] = []
    for name in (123, None, ["take5"], b"take5", "Take5"):
        out.append((f"get_game({name!r})", partial(get_game, name), GameError))
    for game, spec in sorted(GAMES.items()):
        seats = spec.min_seats + 1
        for options in ("x", [("a", 1)], 5, {1: 2}, {"nope": 1}):
            out.append(
                (f"{game} options {options!r}", partial(spec.new, 1, seats, options), OptionError)
            )
        for option in spec.options:
            for value in BAD_OPTION_VALUES:
                call = partial(option.validate, value)
                out.append((f"{game} option {option.name}={value!r}", call, OptionError))
        for seed in ("1", 1.0, None, True, -1):
            out.append((f"{game} seed {seed!r}", partial(spec.new, seed, seats), GameError))
        for count in ("2", 2.0, None, True, 0, 99):
            out.append((f"{game} seats {count!r}", partial(spec.new, 1, count), SeatCountError))
        out.append((f"{game} check_seats('2')", partial(spec.check_seats, "2"), SeatCountError))
        state = spec.new(1, seats)
        mover = state.to_move()[0]
        good = state.legal(mover)[0]
        for seat in BAD_SEATS:
            call = partial(apply_to_a_copy, state, seat, good)
            out.append((f"{game} apply by seat {seat!r}", call, IllegalActionError))
        for action in BAD_ACTIONS:
            call = partial(apply_to_a_copy, state, mover, action)
            out.append((f"{game} apply {action!r}", call, IllegalActionError))
        replay = Replay(game, seats, 1, {}, ((mover, good), ("0", good)))
        out.append((f"{game} replay with seat '0'", replay.play, IllegalActionError))
        players = [RandomPlayer(seat) for seat in range(seats)]
        for seed in ("1", None):
            call = partial(play_local, spec, seed, players)
            out.append((f"{game} play_local seed {seed!r}", call, GameError))
        call = partial(play_local, spec, 1, players, [1])
        out.append((f"{game} play_local options [1]", call, OptionError))
    return out


def outcome(call: Callable[[], object]) -> list[str]:
    """What the call raised, as [type name, message], or ["no error"]."""
    try:
        call()
    except Exception as exc:
        return [type(exc).__name__, str(exc)]
    return ["no error"]


def outcomes() -> dict[str, object]:
    """Every case's outcome under this process's rules build (printed by a build's subprocess)."""
    return {
        "build": native.describe(),
        "outcomes": {case_id: outcome(call) for case_id, call, _ in cases()},
    }


@pytest.mark.parametrize(("case_id", "call", "error"), cases(), ids=[c[0] for c in cases()])
def test_bad_input_is_the_games_typed_error(
    case_id: str, call: Callable[[], object], error: type[GameError]
) -> None:
    with pytest.raises(error) as raised:
        call()
    assert raised.type is error, raised.value


def outcomes_under(environ: dict[str, str]) -> dict[str, object]:
    code = "import json; from tests.games.test_outside_input import outcomes; "
    code += "print(json.dumps(outcomes()))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_both_builds_refuse_bad_input_with_the_same_error() -> None:
    compiled_env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    why = native.why_pure(environ=compiled_env)
    if why is not None:
        pytest.skip(f"the compiled rules are not built here: {why}")
    compiled = outcomes_under(compiled_env)
    pure = outcomes_under({**compiled_env, native.PURE_ENV: "1"})
    assert compiled["build"] == "rules compiled with mypyc"
    assert pure["build"] == f"rules in pure Python: {native.PURE_ENV} is set"
    assert compiled["outcomes"] == pure["outcomes"]


def test_the_pure_build_refuses_bad_input_alike_in_a_process_of_its_own() -> None:
    """The subprocess runner itself works (and agrees with this process) on any machine."""
    pure = outcomes_under({**os.environ, native.PURE_ENV: "1"})
    mine = outcomes()["outcomes"] if not native.native() else None
    assert isinstance(pure["outcomes"], dict) and len(pure["outcomes"]) == len(cases())
    assert all(result[0] != "no error" for result in pure["outcomes"].values())
    if mine is not None:
        assert pure["outcomes"] == mine
