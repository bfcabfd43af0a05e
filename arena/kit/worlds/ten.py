"""Ten worlds: every card but the order of the draw pile is public (the observation counts the
pile's cards by code in ``unseen``), so a world is the position with the pile shuffled again."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from arena.games.base import JSON, generator_state
from arena.games.ten import SPEC, Decision, TenState


def sample_world(
    observation: Mapping[str, JSON],
    options: Mapping[str, JSON],
    rng: random.Random,
    events: Sequence[Mapping[str, JSON]] | None = None,
) -> TenState:
    """A position in which ``observation["seat"]`` sees exactly ``observation``, the draw pile in
    a uniformly random order from ``rng``. ``options`` are the match's (the ``start`` message's);
    ``events`` are not needed in Ten."""
    seats: int = observation["seats"]
    pile = [code for code, count in observation["unseen"].items() for _ in range(count)]
    rng.shuffle(pile)
    auction = observation["auction"]
    payment = observation["payment"]
    buyer: int | None = observation["buyer"]
    final: bool = observation["final_buys"]
    active: int = observation["active"]
    decision: Decision | None
    if auction is not None:
        decision = Decision.BID
    elif payment is not None:
        decision = Decision.PAY
    elif buyer is not None:
        decision = Decision.BUY
    elif final:
        decision = None  # the last buy phase is over: so is the game
    else:
        decision = Decision.DRAW
    final_buyers: list[int] | None = None
    if final:
        order = [(active + 1 + k) % seats for k in range(seats)]
        final_buyers = order[order.index(buyer) + 1 :] if buyer is not None else []
    snapshot: dict[str, JSON] = {
        "seed": 0,
        "seats": seats,
        "options": SPEC.validate_options(options),
        "rng": generator_state(random.Random(rng.getrandbits(64))),
        "active": active,
        "turn": observation["turn"],
        "decision": None if decision is None else str(decision),
        "draw_pile": pile,
        "tableau": list(observation["tableau"]),
        "market": list(observation["market"]),
        "discard": list(observation["discard"]),
        "collected": [list(c) for c in observation["collected"]],
        "currency": list(observation["currency"]),
        "busts": list(observation["busts"]),
        "wild": None if auction is None else auction["wild"],
        "bidders": [] if auction is None else list(auction["to_bid"]),
        "high_bid": 0 if auction is None else auction["high_bid"],
        "high_bidder": None if auction is None else auction["high_bidder"],
        "payer": None if payment is None else payment["payer"],
        "owed": 0 if payment is None else payment["owed"],
        "purchase": None if payment is None else payment["card"],
        "buyer": buyer,
        "final_buyers": final_buyers,
        "over": decision is None,
    }
    world = SPEC.from_snapshot(snapshot)
    assert isinstance(world, TenState)
    return world
