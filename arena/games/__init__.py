"""The games, by registry name. Each module is pure rules: no I/O, no global state."""

from __future__ import annotations

import re

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


ALIASES: dict[str, str] = {
    "6nimmt": "take5",
    "sechsnimmt": "take5",
    "takefive": "take5",
    "categorie5": "take5",
    "phaseten": "phase10",
}
"""Other names people give the games (folded: lower case, letters and digits only)."""


def _folded(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def closest_game(name: str) -> str | None:
    """The game a mistyped ``name`` most likely means (``"Phase10"``, ``"6nimmt"``, ``"tke5"``),
    or None when nothing is close."""
    folded = _folded(name)
    for game in GAMES:
        if _folded(game) == folded:
            return game
    if folded in ALIASES:
        return ALIASES[folded]
    import difflib  # only for a name that is not a game

    close = difflib.get_close_matches(folded, [*GAMES, *ALIASES], n=1, cutoff=0.6)
    return ALIASES.get(close[0], close[0]) if close else None


def unknown_game(name: str) -> str:
    """The message for a game name that is not one of :data:`GAMES`, with a did-you-mean."""
    guess = closest_game(name)
    hint = f"did you mean {guess!r}? " if guess is not None else ""
    return f"unknown game {name!r} ({hint}games: {', '.join(sorted(GAMES))})"


def get_game(name: object) -> GameSpec:
    """The game called ``name`` (outside input: any object); raises :class:`GameError` naming the
    known games, with a guess."""
    spec = GAMES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise GameError(
            unknown_game(name)
            if isinstance(name, str)
            else f"unknown game {name!r} (games: {', '.join(sorted(GAMES))})"
        )
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
    "closest_game",
    "get_game",
    "unknown_game",
]
