"""A seat's position as a person reads it, and legal actions in words (for the human seat).

Pure functions of an observation (what the seat may know) and of an action; every string that
came from a bot (a player name) is escaped by the caller. Rows, seats and groups are numbered
from 0, as in the protocol, the ``legal`` list and the narration.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.games.take5 import HEADS

Observation = Mapping[str, Any]


def _seats(values: Sequence[Any], me: int) -> str:
    return ", ".join(f"seat {s}{' (you)' if s == me else ''}: {v}" for s, v in enumerate(values))


def _cards(cards: Sequence[Any]) -> str:
    return " ".join(str(c) for c in cards) if cards else "-"


def take5_board(obs: Observation) -> list[str]:
    me = int(obs["seat"])
    lines = ["rows:"]
    for index, row in enumerate(obs["rows"]):
        heads = sum(HEADS[c] for c in row)
        lines.append(f"  row {index}: {_cards(row):<24} ({len(row)} cards, {heads} heads)")
    if obs.get("revealed"):
        lines.append(f"revealed this trick: {_seats(obs['revealed'], me)}")
    lines.append(f"heads this round: {_seats(obs['round_heads'], me)}")
    lines.append(f"totals: {_seats(obs['totals'], me)}")
    lines.append(f"your hand: {_cards(obs['hand'])}")
    return lines


def take5_action(obs: Observation, action: Any) -> str:
    if obs.get("decision") == "row" and isinstance(action, int):
        row = obs["rows"][action]
        return f"take row {action}: {_cards(row)} ({sum(HEADS[c] for c in row)} heads)"
    return f"play card {action}" if isinstance(action, int) else _words(action)


def ten_board(obs: Observation) -> list[str]:
    me = int(obs["seat"])
    lines = [
        f"tableau: {_cards(obs['tableau'])} (numbers {obs['tableau_numbers']}, "
        f"currency {obs['tableau_currency']}); draw pile {obs['draw_pile']} cards",
        f"market: {_cards(obs['market'])}",
        f"tokens: {_seats(obs['currency'], me)}",
        f"points: {_seats(obs['points'], me)}",
        f"busts: {_seats(obs['busts'], me)}",
        "collected:",
    ]
    lines += [
        f"  seat {s}{' (you)' if s == me else ''}: {_cards(c)}"
        for s, c in enumerate(obs["collected"])
    ]
    if obs.get("auction"):
        lines.append(f"auction: {_words(obs['auction'])}")
    if obs.get("payment"):
        lines.append(f"payment: {_words(obs['payment'])}")
    return lines


def phase10_board(obs: Observation) -> list[str]:
    me = int(obs["seat"])
    phases = [
        f"phase {p}" + (" (laid)" if laid is not None else "")
        for p, laid in zip(obs["phase"], obs["laid"], strict=True)
    ]
    lines = [
        f"hand {obs['hand_no']}; phases: {_seats(phases, me)}",
        f"points: {_seats(obs['totals'], me)}",
        f"cards in hand: {_seats(obs['hand_sizes'], me)}",
        f"discard pile top: {obs['discard_top'] or '-'} ({obs['discard_size']} cards); "
        f"draw pile {obs['draw_size']} cards",
    ]
    if obs["table"]:
        lines.append("on the table:")
        for group in obs["table"]:
            lines.append(
                f"  group {group['id']}: {group['kind']} of seat {group['owner']}: "
                f"{_cards(group['cards'])}"
            )
    lines.append(f"your hand: {_cards(obs['hand'])}")
    return lines


def phase10_action(obs: Observation, action: Any) -> str:
    if action == "draw":
        return "draw from the draw pile"
    if action == "take":
        return f"take {obs.get('discard_top')} from the discard pile"
    return _words(action)


def _words(value: Any) -> str:
    """An action or a small object in words: ``{"bid": 1}`` is "bid 1", ``"take_numbers"`` is
    "take numbers"."""
    if isinstance(value, str):
        return value.replace("_", " ")
    if isinstance(value, Mapping):
        return ", ".join(f"{str(k).replace('_', ' ')} {_words(v)}" for k, v in value.items())
    if isinstance(value, list):
        return " ".join(_words(v) for v in value) if value else "none"
    return json.dumps(value)


BOARDS: dict[str, Callable[[Observation], list[str]]] = {
    "take5": take5_board,
    "ten": ten_board,
    "phase10": phase10_board,
}
ACTIONS: dict[str, Callable[[Observation, Any], str]] = {
    "take5": take5_action,
    "ten": lambda obs, action: _words(action),
    "phase10": phase10_action,
}


def board(game: str, obs: Observation) -> list[str]:
    """The position in lines of text; the raw observation if the game has no drawing or the
    observation is not what the drawing expects."""
    draw = BOARDS.get(game)
    if draw is not None:
        try:
            return draw(obs)
        except (KeyError, TypeError, ValueError, IndexError):
            pass
    return [json.dumps(obs)]


def action_text(game: str, obs: Observation, action: Any) -> str:
    """A legal action in words."""
    say = ACTIONS.get(game)
    try:
        return say(obs, action) if say is not None else _words(action)
    except (KeyError, TypeError, ValueError, IndexError):
        return json.dumps(action)
