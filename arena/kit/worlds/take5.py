"""Take 5 worlds: the seat's hand, the rows and the taken cards are known; the other hands and
the undealt cards are not. The other seats are dealt their hands from the unseen cards, none of
them having chosen yet (their choices this trick are hidden, and still theirs to make), and the
generator that deals the next rounds is drawn from ``rng``."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from arena.games.base import JSON, generator_state
from arena.games.take5 import HAND_SIZE, SPEC, Take5State, cards_in_play


def sample_world(
    observation: Mapping[str, JSON],
    options: Mapping[str, JSON],
    rng: random.Random,
    events: Sequence[Mapping[str, JSON]] | None = None,
) -> Take5State:
    """A position in which ``observation["seat"]`` sees exactly ``observation``, the cards it
    cannot see dealt uniformly at random from ``rng``. ``options`` are the match's (the ``start``
    message's); ``events`` are not needed in Take 5."""
    seat: int = observation["seat"]
    seats = len(observation["totals"])
    settings = SPEC.validate_options(options)
    hand: list[int] = list(observation["hand"])
    own: int | None = observation["chosen"]
    rows: list[list[int]] = [list(r) for r in observation["rows"]]
    taken: list[list[int]] = [list(t) for t in observation["taken"]]
    to_place: list[list[int]] = [list(p) for p in observation.get("to_place", [])]
    choosing_row = "to_place" in observation
    seen = {*hand, *(c for r in rows for c in r), *(c for t in taken for c in t)}
    seen.update(card for card, _ in to_place)
    if own is not None:
        seen.add(own)
    unseen = [c for c in cards_in_play(seats, settings["tactics"]) if c not in seen]
    rng.shuffle(unseen)
    over = not hand and own is None and not choosing_row
    size = 0 if over else HAND_SIZE - observation["trick"] + (0 if choosing_row else 1)
    hands: list[list[int]] = []
    for s in range(seats):
        if s == seat:
            hands.append(hand)
        else:
            hands.append(sorted(unseen[:size]))
            del unseen[:size]
    chosen: list[int | None] = [None] * seats
    chosen[seat] = own
    totals: list[int] = list(observation["totals"])
    end = settings["end_score"]
    reached = any(t > end if settings["more_than"] else t >= end for t in totals)
    snapshot: dict[str, JSON] = {
        "seed": 0,
        "seats": seats,
        "options": settings,
        "rng": generator_state(random.Random(rng.getrandbits(64))),
        "round": observation["round"],
        "trick": observation["trick"],
        "hands": hands,
        "rows": rows,
        "undealt": sorted(unseen),
        "chosen": chosen,
        "taken": taken,
        "round_heads": list(observation["round_heads"]),
        "totals": totals,
        "to_place": to_place,
        "revealed": list(observation.get("revealed", [])),
        "row_chooser": to_place[0][1] if choosing_row else None,
        "over": over,
        "capped": over and not reached,
    }
    world = SPEC.from_snapshot(snapshot)
    assert isinstance(world, Take5State)
    return world
