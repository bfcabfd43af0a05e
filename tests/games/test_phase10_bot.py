"""The heuristic Phase 10 bot (bots/heuristic/phase10.py) against random players."""

from __future__ import annotations

import random
from math import comb

import pytest

from arena.games import Action, State
from arena.games.phase10 import SPEC
from arena.players import RandomPlayer, play_local
from tests.games.test_phase10_golden import load_bot

BOT = load_bot()


class Heuristic:
    """An in-process adapter: the bot sees only the observation and the legal list."""

    name = "heuristic"

    def choose(self, state: State, seat: int, legal: list[Action]) -> Action:
        index = BOT.choose(state.observation(seat), legal)
        assert isinstance(index, int) and 0 <= index < len(legal)
        return legal[index]


def chance_of_at_least(wins: int, games: int, p: float) -> float:
    """P(X >= wins) for X ~ Binomial(games, p)."""
    return sum(comb(games, k) * p**k * (1 - p) ** (games - k) for k in range(wins, games + 1))


def test_bot_returns_a_legal_index_everywhere() -> None:
    rng = random.Random(3)
    for seed in range(3):
        state = SPEC.new(seed, 4, {"max_hands": 3, "pick_phase": seed == 1})
        while not state.is_over():
            seat = state.to_move()[0]
            legal = state.legal(seat)
            index = BOT.choose(state.observation(seat), legal)
            assert 0 <= index < len(legal)
            state.apply(seat, legal[index] if rng.random() < 0.5 else rng.choice(legal))


@pytest.mark.slow
def test_heuristic_beats_random() -> None:
    games, wins = 100, 0
    expected_random = 0.0
    for game in range(games):
        seats = 2 + game % 3
        me = game % seats
        players = [RandomPlayer(f"{game}:{s}") for s in range(seats)]
        players[me] = Heuristic()  # type: ignore[call-overload]
        result = play_local(SPEC, game, players).state.result()
        wins += result.ranks[me] == 1
        expected_random += 1 / seats
    # a seat playing at random would win about a third of these games; 80 is out of reach
    assert wins >= 80, (wins, expected_random)
    assert chance_of_at_least(80, games, 0.5) < 1e-9
