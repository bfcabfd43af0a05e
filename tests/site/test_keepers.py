"""The omniscient tables a replay keeps from what each action changed (tables.Keeper) are the
tables drawn from the whole snapshot, at every step of random games of every game."""

from __future__ import annotations

from typing import Any

import pytest

from arena.games import GAMES
from arena.players import RandomPlayer, play_local
from arena.site.frames import patch
from arena.site.tables import DrawnKeeper, Phase10Keeper, drawing

OPTIONS: dict[str, list[dict[str, Any]]] = {
    "take5": [{}, {"max_rounds": 2}],
    "ten": [{}],
    "phase10": [
        {"max_hands": 6},
        {"first_phases": 2, "tiebreak": "lay"},
        {"pick_phase": True, "skip_next": True, "max_hands": 4},
        {"all_advance": True, "final_discard": True, "max_hands": 4},
        {"natural_per_phase": True, "hit_others_same_turn": True, "max_turns": 5},
        {"phases": "even", "first_phases": 1},
    ],
}


def kept_and_drawn(game: str, seats: int, seed: int, options: dict[str, Any]) -> int:
    """Replay a random game, keeping its table and drawing it at every step; the steps."""
    spec = GAMES[game]
    options = spec.validate_options(options)
    players = [RandomPlayer(f"{seed}:{s}") for s in range(seats)]
    replay = play_local(spec, seed, players, options).replay
    draw = drawing(game).table
    state = replay.new_state()
    keeper = drawing(game).keep(state, seats)
    table = keeper.first()
    assert table == draw(state.snapshot(), seats, None)
    for step, (seat, action) in enumerate(replay.actions):
        state.apply(seat, action)
        table = patch(table, keeper.advance(state))
        assert table == draw(state.snapshot(), seats, None), (game, seed, options, step)
    return len(replay.actions)


@pytest.mark.parametrize(
    ("game", "options"), [(g, o) for g in sorted(OPTIONS) for o in OPTIONS[g]]
)
def test_kept_tables_are_the_drawn_tables_at_every_step(game: str, options: dict[str, Any]) -> None:
    spec = GAMES[game]
    steps = 0
    for seats in sorted({spec.min_seats, 3, spec.max_seats}):
        for seed in range(2):
            steps += kept_and_drawn(game, seats, seed, options)
    assert steps > 100


def test_phase10_has_its_own_keeper() -> None:
    state = GAMES["phase10"].new(1, 3, GAMES["phase10"].validate_options({}))
    assert isinstance(drawing("phase10").keep(state, 3), Phase10Keeper)
    state = GAMES["take5"].new(1, 3, GAMES["take5"].validate_options({}))
    assert isinstance(drawing("take5").keep(state, 3), DrawnKeeper)
