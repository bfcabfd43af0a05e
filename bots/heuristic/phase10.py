"""A heuristic Phase 10 bot: standard library only, no arena imports.

``choose(observation, legal)`` returns an index into ``legal``. The play, in short: lay the phase
down as soon as it is offered, using as many cards as possible; hit every card that fits; take
the discard top only when it brings the phase closer (or is a Wild, or can be hit); discard the
card the phase needs least (Skips first, at the seat furthest ahead), never a Wild if avoidable.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

PHASES: dict[int, tuple[tuple[str, int], ...]] = {
    1: (("set", 3), ("set", 3)),
    2: (("set", 3), ("run", 4)),
    3: (("set", 4), ("run", 4)),
    4: (("run", 7),),
    5: (("run", 8),),
    6: (("run", 9),),
    7: (("set", 4), ("set", 4)),
    8: (("colour", 7),),
    9: (("set", 5), ("set", 2)),
    10: (("set", 5), ("set", 3)),
}


def number(card: str) -> int:
    return int(card[1:]) if len(card) > 1 else 0


def points(card: str) -> int:
    if card == "W":
        return 25
    if card == "S":
        return 15
    return 5 if number(card) <= 9 else 10


def run_present(numbers: set[int], size: int) -> tuple[int, int]:
    """(most distinct numbers in a window of ``size``, the lowest such window's start)."""
    best, start = -1, 1
    for lo in range(1, 14 - size):
        present = sum(1 for v in range(lo, lo + size) if v in numbers)
        if present > best:
            best, start = present, lo
    return best, start


def progress(phase: int, hand: list[str]) -> float:
    """How close ``hand`` is to ``phase``: minus the cards still missing, plus small bonuses."""
    wilds = hand.count("W")
    naturals = [c for c in hand if len(c) > 1]
    needs = PHASES[phase]
    missing = 0
    if needs[0][0] == "colour":
        by_colour = Counter(c[0] for c in naturals)
        best = max(by_colour.values(), default=0)
        missing = max(0, needs[0][1] - best)
        return -max(0, missing - wilds) * 10.0 + best * 0.5
    by_number = Counter(number(c) for c in naturals)
    bonus = 0.0
    sets = sorted((size for kind, size in needs if kind == "set"), reverse=True)
    counts = sorted(by_number.values(), reverse=True)
    used_numbers: set[int] = set()
    for index, size in enumerate(sets):
        have = counts[index] if index < len(counts) else 0
        missing += max(0, size - have)
        bonus += min(have, size)
    top = [n for n, _ in by_number.most_common(len(sets))]
    used_numbers.update(top)
    for kind, size in needs:
        if kind == "run":
            present, _ = run_present(set(by_number) - (used_numbers if sets else set()), size)
            missing += size - present
            bonus += present
    return -max(0, missing - wilds) * 10 + bonus * 0.1


def open_phases(obs: dict[str, Any]) -> list[int]:
    seat = obs["seat"]
    now = obs["phase"][seat]
    if now is not None:
        return [now]
    done = set(obs["completed"][seat])
    return [p for p in obs["sequence"] if p not in done] or [10]


def best_progress(obs: dict[str, Any], hand: list[str]) -> float:
    return max(progress(p, hand) for p in open_phases(obs))


def fits(group: dict[str, Any], card: str) -> bool:
    if card == "S":
        return False
    if card == "W":
        return bool(group["kind"] != "run" or group["lo"] > 1 or group["hi"] < 12)
    if group["kind"] == "set":
        return bool(number(card) == group["n"])
    if group["kind"] == "colour":
        return bool(card[0] == group["c"])
    return number(card) in (int(group["lo"]) - 1, int(group["hi"]) + 1)


def choose_draw(obs: dict[str, Any], legal: list[Any]) -> int:
    if "take" not in legal:
        return legal.index("draw")
    top = obs["discard_top"]
    hand = list(obs["hand"])
    seat = obs["seat"]
    if top == "W":
        return legal.index("take")
    if obs["laid"][seat] is not None:
        useful = any(fits(g, top) for g in obs["table"])
    else:
        before = best_progress(obs, hand)
        after = max(best_progress(obs, [c for c in hand if c != drop] + [top]) for drop in hand)
        useful = after > before + 0.05
    return legal.index("take" if useful or "draw" not in legal else "draw")


def choose_lay(obs: dict[str, Any], legal: list[Any]) -> int:
    hand = list(obs["hand"])
    adds = [i for i, a in enumerate(legal) if isinstance(a, dict) and "add" in a]
    natural = [i for i in adds if legal[i]["add"] != "W"]
    if natural:
        return natural[0]
    if adds:
        return adds[0]
    if "end" in legal:
        return legal.index("end")
    by_number = Counter(number(c) for c in hand if len(c) > 1)
    by_colour = Counter(c[0] for c in hand if len(c) > 1)

    def weight(action: dict[str, Any]) -> float:
        if "set" in action:
            return float(by_number[action["set"]])
        if "colour" in action:
            return float(by_colour[action["colour"]])
        lo = int(action["run"])
        return sum(1 for v in range(lo, lo + 9) if by_number[v]) - lo * 0.01

    return max(range(len(legal)), key=lambda i: weight(legal[i]))


def choose_play(obs: dict[str, Any], legal: list[Any]) -> int:
    lays = [i for i, a in enumerate(legal) if "lay" in a]
    if lays:
        return max(lays, key=lambda i: legal[i]["lay"])
    hits = [i for i, a in enumerate(legal) if "hit" in a]
    if hits:
        natural = [i for i in hits if legal[i]["card"] != "W"]
        return (natural or hits)[0]
    seat = obs["seat"]
    skips = [i for i, a in enumerate(legal) if a["discard"] == "S"]
    if skips:

        def threat(i: int) -> tuple[int, int]:
            target = legal[i].get("target")
            if target is None:
                return (-1, 0)
            return (len(obs["completed"][target]), -obs["hand_sizes"][target])

        return max(skips, key=threat)
    hand = list(obs["hand"])
    discards = [i for i, a in enumerate(legal) if "discard" in a]
    if obs["laid"][seat] is not None:

        def cost(i: int) -> tuple[int, int, int]:
            card = legal[i]["discard"]
            hittable = any(fits(g, card) for g in obs["table"])
            return (1 if card == "W" else 0, 1 if hittable else 0, -points(card))

        return min(discards, key=cost)

    def keep_value(i: int) -> tuple[float, int]:
        card = legal[i]["discard"]
        rest = list(hand)
        rest.remove(card)
        wild = 100.0 if card == "W" else 0.0
        return (wild - best_progress(obs, rest), -points(card))

    return min(discards, key=keep_value)


def choose(observation: dict[str, Any], legal: list[Any]) -> int:
    """The index in ``legal`` of the action to play."""
    decision = observation.get("decision")
    if decision == "draw":
        return choose_draw(observation, legal)
    if decision == "lay":
        return choose_lay(observation, legal)
    if decision == "play":
        return choose_play(observation, legal)
    return 0
