"""__NAME__: a __TITLE__ bot made from the arena's starter kit.

bot.py       this file: the policy, yours to change
arenabot.py  the protocol (hello, start, act, end, bye), done for you
rules/       the game's rules as the arena plays them, generated from the arena's own source
             (do not edit; regenerate with `arena kit`): a forward model to think with
bot.toml     the manifest

Check it with `arena check .`, play it with `arena play __GAME__ . bots/heuristic builtin:random`.
"""

from __future__ import annotations

import random
from typing import Any

import arenabot
import rules  # noqa: F401  # the forward model: see choose

rng = random.Random(0)


def on_start(match: arenabot.Match) -> None:
    """A match begins: seed the generator from harmless facts (the game's seed is never sent)."""
    global rng
    rng = random.Random(f"{match.id}:{match.seat}")


def choose(observation: dict[str, Any], legal: list[Any], match: arenabot.Match) -> int:
    """The index in ``legal`` of the action to play.

    REPLACE THIS: it plays a random legal action. To look ahead, sample a world consistent with
    what this seat saw and play it forward with the rules:

        world = rules.sample_world(observation, match.options, rng, match.events)
        world.apply(match.seat, legal[i])
        while not world.is_over():
            seat = world.to_move()[0]
            world.apply(seat, rng.choice(world.legal(seat)))
        world.result().ranks[match.seat]   # 1 is best

    ``world.clone()`` copies a position; ``world.observation(seat)`` is what ``seat`` would see.
    """
    return rng.randrange(len(legal))


if __name__ == "__main__":
    arenabot.run(choose, name="__NAME__", version="0.1", on_start=on_start)
