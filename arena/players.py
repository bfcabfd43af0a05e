"""Players that run inside the arena's own process, and a loop that plays a game with them.

Bot processes are driven by the match loop; these in-process players serve ``arena play`` without
bots, the benchmarks, and the tests. Each player's randomness comes from its own seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from mypy_extensions import mypyc_attr

from arena.games import Action, GameSpec, State
from arena.replay import Replay


class Player(Protocol):
    name: str

    def choose(self, state: State, seat: int, legal: list[Action]) -> Action:
        """Pick one of ``legal`` for ``seat``. Players may read only ``state.observation(seat)``."""
        ...


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled; subclasses may be plain Python
class RandomPlayer:
    """Chooses uniformly among the legal actions, from its own seeded generator."""

    def __init__(self, seed: int | str = 0, name: str = "random") -> None:
        self.name = name
        self.rng = random.Random(seed)

    def choose(self, state: State, seat: int, legal: list[Action]) -> Action:
        return legal[int(self.rng.random() * len(legal))]


@mypyc_attr(allow_interpreted_subclasses=True)
class FirstPlayer:
    """Always takes the first legal action (the deterministic fallback for faulted seats)."""

    name = "first"

    def choose(self, state: State, seat: int, legal: list[Action]) -> Action:
        return legal[0]


@dataclass
class LocalGame:
    state: State
    replay: Replay


def play_local(
    spec: GameSpec,
    seed: object,
    players: Sequence[Player],
    options: object = None,
) -> LocalGame:
    """Play one game to the end with in-process players; seat ``i`` is ``players[i]``.

    ``seed`` and ``options`` are checked by :meth:`GameSpec.new` (a :class:`GameError` in either
    build, never the compiled build's TypeError).
    """
    state = spec.new(seed, len(players), options)
    actions: list[tuple[int, Action]] = []
    while not state.is_over():
        for seat in state.to_move():
            action = players[seat].choose(state, seat, state.legal(seat))
            state.apply(seat, action)
            actions.append((seat, action))
    replay = Replay(spec.name, len(players), state.seed, dict(state.options), tuple(actions))
    return LocalGame(state, replay)
