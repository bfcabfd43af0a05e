"""The reference bot: dispatches each game to a sibling package (take5/, ...) that searches on
the game's rules, carried in the package's ``rules/`` (the starter kit's forward model, as
``arena kit`` writes it: never edited by hand).

Each game package exposes ``choose(observation, legal, match) -> int`` (an index into
``legal``). A match's decisions are seeded from the match id, the seat and the decision's number,
so a match replays the same when every decision gets the same number of samples.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# A copy of bots/arenabot.py sits beside bot.py: in the sandbox a bot sees only its own folder.
sys.path.insert(0, str(HERE))

import arenabot  # noqa: E402

Policy = Callable[[dict[str, Any], list[Any], arenabot.Match], int]
policies: dict[str, Policy] = {}


def first_legal(observation: dict[str, Any], legal: list[Any], match: arenabot.Match) -> int:
    return 0


def policy_for(game: str) -> Policy:
    """The game's search; for a game the manifest does not claim, the first legal action."""
    if game not in policies:
        try:
            policies[game] = importlib.import_module(game).choose
        except ImportError:
            arenabot.log(f"reference: no search for {game}; playing the first legal action")
            policies[game] = first_legal
    return policies[game]


def on_start(match: arenabot.Match) -> None:
    """Import the game's search and rules now, before the first decision's clock runs."""
    policy_for(match.game)


def choose(observation: dict[str, Any], legal: list[Any], match: arenabot.Match) -> int:
    return policy_for(match.game)(observation, legal, match)


if __name__ == "__main__":
    # Import every game's search before answering hello (the start-up limit covers it): at
    # on_start the import would eat into the first decision's clock.
    for package in sorted(HERE.glob("*/__init__.py")):
        policy_for(package.parent.name)
    arenabot.run(choose, name="reference", version="1.0", on_start=on_start)
