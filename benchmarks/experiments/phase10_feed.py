"""What feeding the next seat costs the Phase 10 reference policy, and how well it can be foreseen.

    python benchmarks/experiments/phase10_feed.py OUT FIRST COUNT MODE [ARG ...]

Games FIRST..FIRST+COUNT-1 are those of ``phase10_paired.py`` (seed 2000 + k, seat k % 3, the
policy alone against 2 bundled heuristics, in-process), so the per-game win lists written to OUT
pair game by game with its lists (``paired.py`` compares two). MODE is one of

- ``nofeed``: a cheat on the opponents' side: the seat after the bot, while not down, never takes
  a card the bot discarded (it draws blind instead). Bounds what denying it could be worth.
- ``oracle SLACK``: the bot is told, for each card it could discard, whether the next seat (not
  down) would take it (the heuristic asked with that card on the pile, its true hand); when the
  policy's card would be taken, it discards instead the first card in the policy's order that
  would not, among those that lack at most SLACK more cards for its phase (first key of
  ``Hand.keeps``). Bounds what foreseeing the take could be worth.
- ``predict PARTICLES MISFIT``: no change of play; at each of those discards, every card's chance
  of being taken by the next seat as the bot could foresee it: from its hand dealt uniformly from
  the unseen cards, and from the particle filter's guesses (:mod:`infer`, with PARTICLES guesses
  and the MISFIT weight). Prints the Brier score and the area under the ROC curve of each against
  what the heuristic did take (OUT gets the rows: taken, uniform, read).
- ``deny PARTICLES MISFIT ABOVE BELOW``: as ``oracle 0``, but foreseen by the filter: when the
  policy's card is taken with a chance above ABOVE, the first card of equal need whose chance is
  below BELOW is discarded instead.
"""

from __future__ import annotations

import bisect
import json
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena.games import get_game
from arena.games.base import State
from benchmarks.bench_reference_phase10 import GAME, ROOT, SEATS
from benchmarks.sources import load_source

MODES = ("nofeed", "oracle", "predict", "deny")


def takes(heuristic: ModuleType, state: State, seat: int, card: str) -> bool:
    """Whether the heuristic at ``seat`` would take ``card`` from the pile, holding its hand."""
    observation = state.observation(seat)
    observation["discard_top"] = card
    observation["decision"] = "draw"
    legal: list[Any] = ["take", "draw"]
    return bool(legal[heuristic.choose_draw(observation, legal)] == "take")


def wants(model: ModuleType, phase: int, hand: list[str], top: str) -> bool:
    """The heuristic's take rule (not down, the top not a Wild) on a guessed hand."""
    cards = model.in_order(hand)
    before = model._progress(phase, cards) + 0.05
    return any(
        model._progress(phase, (*(c for c in cards if c != drop), top)) > before
        for drop in dict.fromkeys(cards)
    )


class Feed:
    """One run: the bot's package, the heuristic, the mode and its arguments."""

    def __init__(self, mode: str, args: list[str]) -> None:
        self.search = load_source(
            ROOT / "bots" / "reference" / "phase10", "bench_reference_phase10"
        )
        self.infer = sys.modules["bench_reference_phase10.infer"]
        self.model = sys.modules["bench_reference_phase10.model"]
        self.heuristic = load_source(ROOT / "bots" / "heuristic" / "phase10.py", "bench_heur_p10")
        self.mode = mode
        self.args = [float(a) for a in args]
        self.particles = int(self.args[0]) if mode in ("predict", "deny") else 0
        if self.particles:
            setattr(self.infer, "MISFIT", self.args[1])  # noqa: B010
        self.rows: list[tuple[int, float, float]] = []
        self.switched = 0

    def play(self, k: int) -> int:
        seat = k % SEATS
        state = get_game(GAME).new(2000 + k, SEATS)
        options = dict(state.options)
        searcher = self.search.Searcher(f"policy-{k}", seat)
        reader = self.infer.Reader(seat, random.Random(k), self.particles or 1)
        rng = random.Random(k)
        seen: list[dict[str, Any]] = []
        cursor = 0
        fed_by = None
        told = {"decision_ms": 1000, "bank_ms": 0}
        while not state.is_over():
            mover = state.to_move()[0]
            legal = state.legal(mover)
            observation = state.observation(mover)
            if mover != seat:
                action = legal[self.heuristic.choose(observation, legal)]
                if (
                    self.mode == "nofeed"
                    and action == "take"
                    and "draw" in legal
                    and fed_by == seat
                    and observation["laid"][mover] is None
                ):
                    action = "draw"
            else:
                seen += state.events_for(seat, cursor)
                cursor = len(state.log)
                action = legal[searcher.choose(observation, legal, options, told, worlds=0)]
                after = state._next_seat(seat)  # type: ignore[attr-defined]
                if self.deniable(action, observation, after):
                    reader.update(seen)
                    action = self.discard(state, observation, legal, action, after, reader, rng)
            if isinstance(action, dict) and "discard" in action:
                fed_by = mover
            state.apply(mover, action)
        return int(state.result().ranks[seat] == 1)

    def deniable(self, action: Any, observation: dict[str, Any], after: int) -> bool:
        return (
            self.mode != "nofeed"
            and isinstance(action, dict)
            and action.get("discard") not in (None, "S")
            and observation["laid"][after] is None
            and not observation["skip_waiting"][after]
            and observation["phase"][after] is not None
        )

    def discard(
        self,
        state: State,
        observation: dict[str, Any],
        legal: list[Any],
        action: dict[str, Any],
        after: int,
        reader: Any,
        rng: random.Random,
    ) -> Any:
        keep = self.search.observed(observation).keeps()
        need = keep[action["discard"]][0]
        order = [c for c in sorted(keep, key=keep.__getitem__) if c != "W"]
        if self.mode == "oracle":
            if not takes(self.heuristic, state, after, action["discard"]):
                return action
            for card in order:
                if keep[card][0] > need + self.args[0]:
                    break
                if {"discard": card} in legal and not takes(self.heuristic, state, after, card):
                    self.switched += 1
                    return {"discard": card}
            return action
        if not reader.ready or after not in reader.guesses:
            return action
        known = reader.known[after]
        phase = observation["phase"][after]
        guesses = [known + g for g in reader.guesses[after]]
        weights: list[float] = reader.weights[after]
        total: float = sum(weights)

        def read(card: str) -> float:
            hits = (
                w
                for g, w in zip(guesses, weights, strict=True)
                if wants(self.model, phase, g, card)
            )
            return float(sum(hits)) / total

        if self.mode == "predict":
            pool = reader.hidden_list()
            size = observation["hand_sizes"][after] - len(known)
            uniform = [known + rng.sample(pool, size) for _ in range(32)]
            for card in order:
                odds = sum(wants(self.model, phase, h, card) for h in uniform) / len(uniform)
                truth = int(takes(self.heuristic, state, after, card))
                self.rows.append((truth, odds, read(card)))
            return action
        above, below = self.args[2], self.args[3]
        if read(action["discard"]) <= above:
            return action
        for card in order:
            if keep[card][0] > need:
                break
            if {"discard": card} in legal and read(card) < below:
                self.switched += 1
                return {"discard": card}
        return action


def auc(rows: list[tuple[int, float, float]], column: int) -> float:
    """The chance that a card taken was given a higher chance than a card not taken."""
    low = sorted(r[column] for r in rows if not r[0])
    high = [r[column] for r in rows if r[0]]
    if not low or not high:
        return float("nan")
    ranked = 0.0
    for p in high:
        below, upto = bisect.bisect_left(low, p), bisect.bisect_right(low, p)
        ranked += below + 0.5 * (upto - below)
    return ranked / (len(low) * len(high))


def brier(rows: list[tuple[int, float, float]], column: int) -> float:
    return sum((r[column] - r[0]) ** 2 for r in rows) / len(rows)


def main() -> None:
    out, first, count, mode = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    if mode not in MODES:
        raise SystemExit(f"MODE is one of {', '.join(MODES)}")
    feed = Feed(mode, sys.argv[5:])
    wins = []
    for k in range(first, first + count):
        wins.append(feed.play(k))
        out.write_text(json.dumps(feed.rows if mode == "predict" else wins))
    print(out, mode, sys.argv[5:], f"wins {sum(wins)}/{len(wins)}", f"switched {feed.switched}")
    if mode == "predict" and feed.rows:
        rate = sum(r[0] for r in feed.rows) / len(feed.rows)
        flat = sum((rate - r[0]) ** 2 for r in feed.rows) / len(feed.rows)
        print(f"{len(feed.rows)} cards, {rate:.3f} taken; Brier: the rate alone {flat:.4f},")
        print(f"  uniform {brier(feed.rows, 1):.4f} (AUC {auc(feed.rows, 1):.3f}),")
        print(f"  read {brier(feed.rows, 2):.4f} (AUC {auc(feed.rows, 2):.3f})")


if __name__ == "__main__":
    main()
