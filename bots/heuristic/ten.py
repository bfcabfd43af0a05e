"""A heuristic player for Ten, standard library only.

``choose(observation, legal)`` returns an index into ``legal``. It reads only the observation:

- drawing: stop when the chance that the next card busts, weighed against what the tableau is
  worth now, is too high; stop with whichever reward is worth more (points the numbers add to
  its runs, or tokens);
- bidding: bid one more than the high bid while the price stays under what the wild adds to its
  score (tokens and bust tokens only, never cards it needs);
- buying: the market card that adds the most points for its price, if any;
- paying: first cards that add nothing to its score, then a bust token when at least 3 is owed,
  then currency tokens, then the card whose loss costs least.
"""

from __future__ import annotations

from typing import Any

COLOURS = ("R", "B", "O", "G")
BUST_LIMIT = 11


def run_points(mask: int, fills: int) -> int:
    best = 0
    for start in range(9):
        gaps = 0
        for stop in range(start, 9):
            if not mask >> stop & 1:
                gaps += 1
                if gaps > fills:
                    break
            best = max(best, stop - start + 1)
    return 10 if best == 9 else best


RUN_POINTS = [[run_points(mask, fills) for fills in range(4)] for mask in range(512)]


def score(cards: list[str]) -> int:
    """Points under the best placement of the wilds: the numbered wilds are split over the
    colours by a programme over subsets, the full wild tried in each colour."""
    masks = dict.fromkeys(COLOURS, 0)
    fills = dict.fromkeys(COLOURS, 0)
    numbered: list[int] = []
    full = 0
    for code in cards:
        if code == "#":
            full = 1
        elif code[0] == "*":
            numbered.append(int(code[1]))
        elif code[0] == "$":
            continue
        elif code[1] == "*":
            fills[code[0]] = min(fills[code[0]] + 1, 2)
        else:
            masks[code[0]] |= 1 << (int(code[1]) - 1)
    if not numbered and not full:
        return sum(RUN_POINTS[masks[c]][fills[c]] for c in COLOURS)
    count = len(numbered)
    bits = [0] * (1 << count)
    for subset in range(1, 1 << count):
        low = subset & -subset
        bits[subset] = bits[subset ^ low] | 1 << (numbered[low.bit_length() - 1] - 1)
    everything = (1 << count) - 1
    best = {(0, 0): 0}
    for colour in COLOURS:
        nxt: dict[tuple[int, int], int] = {}
        for (used, full_used), points in best.items():
            free = everything & ~used
            subset = free
            while True:
                row = RUN_POINTS[masks[colour] | bits[subset]]
                for extra in (0, 1) if full and not full_used else (0,):
                    key = (used | subset, full_used | extra)
                    total = points + row[fills[colour] + extra]
                    if total > nxt.get(key, -1):
                        nxt[key] = total
                if not subset:
                    break
                subset = (subset - 1) & free
        best = nxt
    return max(best.values())


def gain(mine: list[str], extra: list[str]) -> int:
    return score(mine + extra) - score(mine)


def bust_chance(obs: dict[str, Any]) -> float:
    unseen: dict[str, int] = obs["unseen"]
    total = sum(unseen.values())
    if not total:
        return 1.0
    numbers, currency = obs["tableau_numbers"], obs["tableau_currency"]
    busting = 0
    for code, count in unseen.items():
        if code[0] == "$":
            busts = currency + int(code[1]) >= BUST_LIMIT
        else:
            is_number = code[0] in COLOURS and code[1] != "*"
            busts = is_number and numbers + int(code[1]) - currency >= BUST_LIMIT
        busting += count if busts else 0
    return busting / total


def choose_draw(obs: dict[str, Any], legal: list[Any]) -> Any:
    seat = obs["seat"]
    mine = obs["collected"][seat]
    numbers = [c for c in obs["tableau"] if c[0] != "$"]
    room = obs["token_cap"] - obs["currency"][seat]
    number_value = 2.0 * gain(mine, numbers) + 0.3 * len(numbers)
    number_value -= 0.15 * obs["tableau_currency"] * (obs["seats"] - 1)
    currency_value = 0.6 * min(obs["tableau_currency"], room)
    stop = "take_numbers" if number_value >= currency_value else "take_currency"
    if "draw" not in legal:
        return stop
    risk = bust_chance(obs)
    now = max(number_value, currency_value)
    if not obs["tableau"]:
        return "draw"
    if risk * (now + 1.0) > (1 - risk) * 1.2:
        return stop
    return "draw"


def spendable(obs: dict[str, Any]) -> int:
    seat = obs["seat"]
    return int(obs["currency"][seat]) + 3 * int(obs["busts"][seat])


def choose_bid(obs: dict[str, Any], legal: list[Any]) -> Any:
    seat = obs["seat"]
    worth = gain(obs["collected"][seat], [obs["auction"]["wild"]])
    limit = min(2 * worth + 1, spendable(obs)) if worth > 0 else 0
    offer = obs["auction"]["high_bid"] + 1
    if offer <= limit and {"bid": offer} in legal:
        return {"bid": offer}
    return "pass"


def choose_buy(obs: dict[str, Any], legal: list[Any]) -> Any:
    seat = obs["seat"]
    mine = obs["collected"][seat]
    funds = spendable(obs)
    best, best_key = "none", (0.0, 0)
    for action in legal:
        if action == "none":
            continue
        code = action["buy"]
        price = int(code[1])
        if price > funds:
            continue
        points = gain(mine, [code])
        key = (points - 0.25 * price, -price)
        if points > 0 and key > best_key:
            best, best_key = action, key
    return best


def choose_pay(obs: dict[str, Any], legal: list[Any]) -> Any:
    seat = obs["seat"]
    mine = obs["collected"][seat]
    owed = obs["payment"]["owed"]
    now = score(mine)
    cards = [a for a in legal if isinstance(a, dict)]
    losses = {}
    for action in cards:
        rest = list(mine)
        rest.remove(action["card"])
        losses[action["card"]] = now - score(rest)
    free = [a for a in cards if losses[a["card"]] == 0]
    if free:
        return free[0]
    if owed >= 3 and "bust" in legal:
        return "bust"
    if "token" in legal:
        return "token"
    if "bust" in legal:
        return "bust"
    return min(cards, key=lambda a: losses[a["card"]])


CHOOSERS = {"draw": choose_draw, "bid": choose_bid, "buy": choose_buy, "pay": choose_pay}


def choose(observation: dict[str, Any], legal: list[Any]) -> int:
    """The index in ``legal`` of the action to take."""
    chooser = CHOOSERS.get(observation.get("decision") or "")
    if chooser is None:
        return 0
    action = chooser(observation, legal)
    return legal.index(action) if action in legal else 0
