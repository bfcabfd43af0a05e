"""The heuristic bot: dispatches each game to a sibling policy module (take5.py, ten.py, ...).

Each policy module exposes ``choose(observation: dict, legal: list) -> int`` (an index into
``legal``). A game without a policy module is played at random, with a note in the log.
"""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# A copy of bots/arenabot.py sits beside bot.py: in the sandbox a bot sees only its own folder.
sys.path.insert(0, str(HERE))

import arenabot  # noqa: E402

policies: dict[str, Callable[[dict[str, Any], list[Any]], int] | None] = {}
rng = random.Random(0)


def policy_for(game: str) -> Callable[[dict[str, Any], list[Any]], int] | None:
    if game not in policies:
        try:
            policies[game] = importlib.import_module(game).choose
        except ImportError:
            arenabot.log(f"heuristic: no policy module {game}.py; playing {game} at random")
            policies[game] = None
    return policies[game]


def on_start(match: arenabot.Match) -> None:
    global rng
    rng = random.Random(f"{match.id}:{match.seat}")


def choose(observation: dict[str, Any], legal: list[Any], match: arenabot.Match) -> int:
    policy = policy_for(match.game)
    if policy is None:
        return rng.randrange(len(legal))
    return policy(observation, legal)


if __name__ == "__main__":
    arenabot.run(choose, name="heuristic", version="1.0", on_start=on_start)
