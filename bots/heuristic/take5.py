"""Take 5 policy: play the card with the smallest expected penalty; take the cheapest row.

For each card: if it is lower than every row it takes the cheapest row; if it would be the
sixth card it takes its row; otherwise the risk is that enough unseen cards between the row's
end and ours are played this trick to fill the row first. Each unseen card is played by some
opponent this trick with probability about (opponents / unseen), so the number landing before
ours is roughly Poisson. Assumes the standard deck (1-104) and right-end placement only.
"""

from __future__ import annotations

import math
from typing import Any

ROW_LIMIT = 5


def heads(card: int) -> int:
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


def poisson_at_least(k: int, mean: float) -> float:
    if k <= 0:
        return 1.0
    term = total = math.exp(-mean)
    for i in range(1, k):
        term *= mean / i
        total += term
    return max(0.0, 1.0 - total)


def card_cost(card: int, observation: dict[str, Any]) -> float:
    rows: list[list[int]] = observation["rows"]
    hand: list[int] = observation["hand"]
    seats = len(observation["totals"])
    below = [(row[-1], i) for i, row in enumerate(rows) if row[-1] < card]
    if not below:
        cheapest = min(sum(heads(c) for c in row) for row in rows)
        return cheapest + 0.5
    end, index = max(below)
    row = rows[index]
    row_heads = sum(heads(c) for c in row)
    if len(row) >= ROW_LIMIT:
        return float(row_heads)
    known = set(hand)
    for r in rows:
        known.update(r)
    for taken in observation["taken"]:
        known.update(taken)
    unseen = max(1, 104 - len(known))
    between = sum(1 for c in range(end + 1, card) if c not in known)
    mean = between * (seats - 1) / unseen
    slots = ROW_LIMIT - len(row)
    danger = poisson_at_least(slots, mean) * (row_heads + slots)
    return danger + 0.001 * (card - end)


def choose(observation: dict[str, Any], legal: list[Any]) -> int:
    if observation.get("decision") == "row":
        rows = observation["rows"]
        costs = [(sum(heads(c) for c in rows[r]), len(rows[r]), i) for i, r in enumerate(legal)]
        return min(costs)[2]
    costs = [(card_cost(card, observation), i) for i, card in enumerate(legal)]
    return min(costs)[1]
