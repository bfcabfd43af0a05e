"""Per-game wins of the Phase 10 reference bot's search given more than a seat can see: how much
knowing the other hands (or the draw pile too) would be worth, as a bound on what inferring them
could add.

    python benchmarks/experiments/phase10_oracle.py OUT FIRST COUNT MODE [WORLDS [NAME=VALUE ...]]

MODE is one of
- ``policy-hands``: the policy alone (no search), its observation's ``known`` (the cards each seat
  is known to hold, which its Deny rules read) set to the other seats' whole hands;
- ``search``: the bot as it is (worlds sampled from what the seat saw), WORLDS worlds a decision;
- ``hands``: every world holds the other seats' true hands; the draw pile is shuffled anew in
  each world (nobody knows its order), so the search plays as if opponents' hands were inferred
  perfectly;
- ``hands-draw``, ``hands-play``: ``hands`` at the draw decisions only (take the top or draw),
  or at the discards only; the other searched decisions sample their worlds as the bot does;
- ``hands-card``: ``hands`` at the discards from a hand without a Skip only (which card, not at
  whom a Skip);
- ``deck``: the true position, the draw pile's order included (a cheat no inference reaches: it
  bounds nothing, and shows what the search does with a known future).

Games FIRST..FIRST+COUNT-1 are those of ``bench_reference_phase10.policy_alone`` and
``phase10_paired.py`` (seed 2000 + k, seat k % 3, against 2 bundled heuristics), so the lists pair
game by game with theirs. The bot is given the match's events, as in the arena (its worlds use
them). Each NAME=VALUE sets a constant of the bot's package (``Z_SWITCH=2``: the search
switches from the policy's choice less readily). The list of wins (1 or 0) is written to OUT
after every game.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena.games import get_game
from arena.games.base import State
from benchmarks.bench_reference_phase10 import GAME, ROOT, SEATS
from benchmarks.sources import load_source

MODES = ("policy-hands", "search", "hands", "hands-draw", "hands-play", "hands-card", "deck")


class KeptOrder(random.Random):
    """A generator whose ``shuffle`` leaves the list as it is (``deck``: no world is dealt again)."""

    def shuffle(self, x: Any) -> None:
        return None


def see_through(search: Any, position: dict[str, State], mode: str) -> None:
    """Make the bot's worlds the true position (``position["now"]``): its ``sample_world`` returns
    it (the draw pile shuffled unless ``deck``), and ``evaluate`` deals no hand again; with
    ``hands-draw``, ``hands-play`` or ``hands-card``, only at that kind of decision."""
    game = get_game(GAME)
    evaluate, sample = search.evaluate, search.sample_world
    only = mode.partition("-")[2]
    seeing = [True]

    def sees(observation: Any) -> bool:
        if only == "card":
            return observation["decision"] == "play" and "S" not in observation["hand"]
        return not only or observation["decision"] == only

    def sample_world(observation: Any, options: Any, rng: random.Random, events: Any) -> State:
        seeing[0] = sees(observation)
        if not seeing[0]:
            return sample(observation, options, rng, events)  # type: ignore[no-any-return]
        world = game.from_snapshot(position["now"].snapshot())
        if mode != "deck":
            pile = list(world.draw_pile)  # type: ignore[attr-defined]
            rng.shuffle(pile)
            world.draw_pile[:] = pile  # type: ignore[attr-defined]
        return world

    def known_evaluate(base: Any, known: Any, seat: int, *rest: Any) -> Any:
        if not seeing[0]:
            return evaluate(base, known, seat, *rest)
        every = [list(hand) for hand in base.hands]  # all known: only the draw pile is dealt
        *head, rng, context, _reader = rest
        if mode == "deck":
            rng = KeptOrder(rng.getrandbits(32))
        return evaluate(base, every, seat, *head, rng, context, None)

    namespace = search.Searcher.search.__globals__
    namespace["sample_world"] = sample_world
    namespace["evaluate"] = known_evaluate


def play_games(
    first: int,
    count: int,
    search: Any,
    worlds: int,
    reveal: bool = False,
    position: dict[str, State] | None = None,
    out: Path | None = None,
) -> list[int]:
    """Games ``first``.. ``first + count - 1`` (seed 2000 + k): the bot's package ``search`` at
    seat k % 3, ``worlds`` worlds a searched decision, given the match's events (with ``reveal``,
    its observation's ``known`` holds every other hand whole), against 2 bundled heuristics.
    Each game's win (1 or 0), the list written to ``out`` after every game; ``position["now"]``
    is the game in play."""
    heuristic = load_source(ROOT / "bots" / "heuristic" / "phase10.py", "bench_heuristic_p10")
    told = {"decision_ms": 100_000, "bank_ms": 0}  # the worlds asked for, whatever they take
    wins: list[int] = []
    for k in range(first, first + count):
        seat = k % SEATS
        state = get_game(GAME).new(2000 + k, SEATS)
        if position is not None:
            position["now"] = state
        options = dict(state.options)
        searcher = search.Searcher(f"policy-{k}", seat)
        seen: list[dict[str, Any]] = []
        cursor = 0
        while not state.is_over():
            mover = state.to_move()[0]
            legal = state.legal(mover)
            observation = state.observation(mover)
            if mover != seat:
                state.apply(mover, legal[heuristic.choose(observation, legal)])
                continue
            if reveal:
                hands = state.hands  # type: ignore[attr-defined]
                observation["known"] = [[] if s == seat else list(h) for s, h in enumerate(hands)]
            seen += state.events_for(seat, cursor)
            cursor = len(state.log)
            index = searcher.choose(observation, legal, options, told, seen, worlds)
            state.apply(mover, legal[index])
        wins.append(int(state.result().ranks[seat] == 1))
        if out is not None:
            out.write_text(json.dumps(wins))
    return wins


def main() -> None:
    out, first, count, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    worlds = int(sys.argv[5]) if len(sys.argv) > 5 else 16
    if mode not in MODES:
        raise SystemExit(f"MODE is one of {', '.join(MODES)}")
    search = load_source(ROOT / "bots" / "reference" / "phase10", "bench_reference_phase10")
    for pair in sys.argv[6:]:
        name, value = pair.split("=")
        if not hasattr(search, name):
            raise SystemExit(f"the bot's package has no {name}")
        setattr(search, name, type(getattr(search, name))(float(value)))
    position: dict[str, State] = {}
    if mode.startswith("hands") or mode == "deck":
        see_through(search, position, mode)
    reveal = mode == "policy-hands"
    wins = play_games(first, count, search, 0 if reveal else worlds, reveal, position, Path(out))
    print(out, sum(wins), len(wins))


if __name__ == "__main__":
    main()
