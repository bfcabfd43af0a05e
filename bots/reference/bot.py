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


def policy_for(game: str) -> Policy:
    if game not in policies:
        policies[game] = importlib.import_module(game).choose
    return policies[game]


def choose(observation: dict[str, Any], legal: list[Any], match: arenabot.Match) -> int:
    return policy_for(match.game)(observation, legal, match)


if __name__ == "__main__":
    policy_for("take5")  # import the rules before the first decision's clock runs
    arenabot.run(choose, name="reference", version="1.0")
