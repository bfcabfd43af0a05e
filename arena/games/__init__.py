"""The games, by registry name. Each module is pure rules: no I/O, no global state."""

from __future__ import annotations

from arena.games import phase10, take5, ten
from arena.games.base import (
    JSON,
    Action,
    Event,
    GameError,
    GameOverError,
    GameSpec,
    IllegalActionError,
    OptionError,
    OptionSpec,
    Result,
    SeatCountError,
    State,
)

GAMES: dict[str, GameSpec] = {
    take5.SPEC.name: take5.SPEC,
    ten.SPEC.name: ten.SPEC,
    phase10.SPEC.name: phase10.SPEC,
}


def get_game(name: object) -> GameSpec:
    """The game called ``name`` (outside input: any object); raises :class:`GameError` naming the
    known games."""
    spec = GAMES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise GameError(f"unknown game {name!r} (games: {', '.join(sorted(GAMES))})")
    return spec


__all__ = [
    "GAMES",
    "JSON",
    "Action",
    "Event",
    "GameError",
    "GameOverError",
    "GameSpec",
    "IllegalActionError",
    "OptionError",
    "OptionSpec",
    "Result",
    "SeatCountError",
    "State",
    "get_game",
]
