"""Game-independent checks that every game's property tests share."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping

from arena.games import JSON, Action, GameSpec, State


def canonical(value: JSON) -> str:
    """JSON text with sorted keys; fails on anything that is not plain JSON data."""
    return json.dumps(value, sort_keys=True, allow_nan=False)


def random_playout(
    spec: GameSpec,
    seed: int,
    seats: int,
    options: Mapping[str, JSON] | None = None,
    *,
    chooser_seed: int = 0,
    each_step: Callable[[State], None] | None = None,
    max_steps: int = 200_000,
) -> tuple[State, list[tuple[int, Action]]]:
    """Play random legal actions to the end, calling ``each_step`` on every position."""
    state = spec.new(seed, seats, options)
    rng = random.Random(chooser_seed)
    actions: list[tuple[int, Action]] = []
    if each_step:
        each_step(state)
    steps = 0
    while not state.is_over():
        movers = state.to_move()
        assert movers, "a game that is not over must have a seat to move"
        seat = movers[rng.randrange(len(movers))]
        legal = state.legal(seat)
        assert legal, f"seat {seat} must decide but has no legal action"
        action = legal[rng.randrange(len(legal))]
        state.apply(seat, action)
        actions.append((seat, action))
        steps += 1
        assert steps < max_steps, "playout did not end"
        if each_step:
            each_step(state)
    return state, actions


def check_interface_data(state: State) -> None:
    """Everything that crosses the interface is plain JSON; legal lists hold no duplicates."""
    canonical(state.snapshot())
    for seat in range(state.seats):
        canonical(state.observation(seat))
        legal = state.legal(seat)
        texts = [canonical(a) for a in legal]
        assert len(texts) == len(set(texts)), f"duplicate legal actions for seat {seat}: {legal}"
    for seat in state.to_move():
        assert state.legal(seat), f"seat {seat} is to move with no legal action"
    for _aud, event in state.log:
        canonical(event)


def check_no_leak(state: State, rng: random.Random) -> None:
    """Each seat's observation and legal list survive a re-deal of what it cannot see."""
    for seat in range(state.seats):
        other = state.resample_hidden(seat, rng)
        assert canonical(other.observation(seat)) == canonical(state.observation(seat)), seat
        assert canonical(other.legal(seat)) == canonical(state.legal(seat)), seat
        assert canonical(other.events_for(seat)) == canonical(state.events_for(seat)), seat
