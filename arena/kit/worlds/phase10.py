"""Phase 10 worlds: the seat's hand, the table, the discard pile's top and every count are known,
and so are the cards a seat took from the discard pile (``known``); the rest of the other hands
and the draw pile are not. With the match's ``events`` the discard pile is rebuilt card for card
(and the facts only events tell: whether the seat to move laid down this turn, the hands ended by
a cap or a block); without them the cards under its top are dealt at random too."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

from arena.games.base import JSON, SnapshotError, generator_state
from arena.games.phase10 import SPEC, Phase10State, Step
from arena.games.phase10_groups import full_deck, sort_cards

Events = Sequence[Mapping[str, JSON]]
TRIES = 2000
"""Deals tried before giving up on a world in which another seat can finish the phase it is
laying down (its starting to lay says it can: a world where it cannot is no world)."""


def discard_pile(events: Events) -> list[str]:
    """The discard pile as the events of the match tell it, bottom first."""
    pile: list[str] = []
    for event in events:
        kind = event.get("type")
        if kind == "hand":
            pile = [event["upcard"]]
        elif kind == "discard":
            pile.append(event["card"])
        elif kind == "take" and pile:
            pile.pop()
        elif kind == "reshuffle":
            pile = pile[-1:]
    return pile


def turn_facts(events: Events, turn: int) -> tuple[bool, bool]:
    """(whether seat ``turn`` has drawn this turn, whether it has laid down its phase this turn),
    from the events since the last turn began."""
    drawn = laid = False
    for event in events:
        kind = event.get("type")
        if kind in ("hand", "discard", "out"):
            drawn = laid = False
        elif kind in ("draw", "take"):
            drawn, laid = event.get("seat") == turn, False
        elif kind == "lay" and event.get("seat") == turn:
            laid = True
    return drawn, laid


def sample_world(
    observation: Mapping[str, JSON],
    options: Mapping[str, JSON],
    rng: random.Random,
    events: Events | None = None,
) -> Phase10State:
    """A position in which ``observation["seat"]`` sees exactly ``observation``, the cards it
    cannot see dealt uniformly at random from ``rng``. ``options`` are the match's (the ``start``
    message's); ``events`` are every event the seat has seen in the match, in order (arenabot's
    ``match.events``), or None."""
    seat: int = observation["seat"]
    seats = len(observation["totals"])
    over = observation["turn"] is None
    turn: int = 0 if over else observation["turn"]
    hand: list[str] = list(observation["hand"])
    known: list[list[str]] = [list(k) for k in observation["known"]]
    table: list[dict[str, JSON]] = observation["table"]
    laying = observation["laying"]
    top: str | None = observation["discard_top"]
    size: int = observation["discard_size"]
    told = discard_pile(events) if events is not None else []
    if len(told) != size or (told and told[-1] != top):
        told = []  # no events (or not all of them): the cards under the top are not known
    public = [*hand, *(c for g in table for c in g["cards"]), *told]
    if laying is not None:
        groups = [*laying["groups"], *([laying["open"]] if laying["open"] else [])]
        public += [c for g in groups for c in g["cards"]]
    for s in range(seats):
        if s != seat:
            public += known[s]
    if not told and top is not None:
        public.append(top)
    unseen_cards = list((Counter(full_deck()) - Counter(public)).elements())
    drawn, laid_this_turn = turn_facts(events or [], turn)
    decision = observation["decision"]
    if decision is not None:
        step = decision
    elif laying is not None:
        step = str(Step.LAY)
    else:
        step = str(Step.PLAY if drawn else Step.DRAW)
    caps = [e for e in events or [] if e.get("type") == "cap" and e.get("kind") == "turns"]
    blocks = [e for e in events or [] if e.get("type") == "blocked"]
    for _ in range(TRIES):
        hands, pile, unseen = deal(observation, unseen_cards, known, told, top, rng)
        snapshot: dict[str, JSON] = {
            "seed": 0,
            "seats": seats,
            "options": SPEC.validate_options(options),
            "rng": generator_state(random.Random(rng.getrandbits(64))),
            "hand_no": observation["hand_no"],
            "dealer": observation["dealer"],
            "turn": turn,
            "step": step,
            "turns": observation["turns"],
            "active": list(observation["active"]),
            "tiebreak": observation["tiebreak"],
            "tiebreak_winner": None,
            "hands": hands,
            "draw_pile": unseen,
            "discard_pile": pile,
            "table": table,
            "laying": laying,
            "laid": list(observation["laid"]),
            "done": [list(d) for d in observation["completed"]],
            "totals": list(observation["totals"]),
            "skip_waiting": list(observation["skip_waiting"]),
            "known": known,
            "over": over,
            "capped": None,
            "laid_this_turn": step != Step.DRAW and laid_this_turn,
            "turn_capped_hands": len(caps),
            "blocked_hands": len(blocks),
        }
        try:
            world = SPEC.from_snapshot(snapshot)
        except SnapshotError:
            if laying is None or turn == seat:
                raise
            continue  # the seat laying down cannot finish with the hand this deal gave it
        assert isinstance(world, Phase10State)
        return world
    raise SnapshotError(f"no deal of {TRIES} lets seat {turn} finish the phase it is laying")


def deal(
    observation: Mapping[str, JSON],
    unseen: list[str],
    known: list[list[str]],
    pile: list[str],
    top: str | None,
    rng: random.Random,
) -> tuple[list[list[str]], list[str], list[str]]:
    """The hands, the discard pile and the draw pile of one world: ``unseen`` shuffled and dealt
    to the other hands (after the cards they are known to hold), under the discard pile's top
    when ``pile`` (the pile as the events tell it) is empty, and the rest to the draw pile."""
    seat: int = observation["seat"]
    unseen = list(unseen)
    rng.shuffle(unseen)
    pile = list(pile)
    if not pile and top is not None:
        pile = [*(unseen.pop() for _ in range(observation["discard_size"] - 1)), top]
    hands: list[list[str]] = []
    for s in range(len(known)):
        if s == seat:
            hands.append(list(observation["hand"]))
            continue
        more = observation["hand_sizes"][s] - len(known[s])
        hands.append(sort_cards([*known[s], *unseen[:more]]))
        del unseen[:more]
    return hands, pile, unseen
