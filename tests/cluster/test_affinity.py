"""The driver's queue of pending matches: clusters of matches that share bots, claimed by one
worker each, so that a worker keeps to the bots it has alive (:mod:`arena.run.affinity`)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from arena.league.store import Planned
from arena.run.affinity import Pending, clusters_of


def match(n: int, bots: tuple[int, ...], batch: int = 0) -> Planned:
    return Planned(f"m{batch}-{n}", batch, n, "take5", n, 0, n, {}, bots)


def groups(batch: int, *seatings: tuple[int, ...]) -> list[Planned]:
    return [match(n, bots, batch) for n, bots in enumerate(seatings)]


# Batch 0: two groups, {1, 2, 3, 4} and {5, 6, 7, 8}, played group by group; batch 1: one group.
BATCH0 = groups(
    0, (1, 2, 3, 4), (3, 4, 1, 2), (2, 1, 4, 3), (5, 6, 7, 8), (8, 7, 6, 5), (6, 5, 8, 7)
)
BATCH1 = groups(1, (1, 5, 2, 6), (6, 2, 5, 1))


def ids(matches: list[Planned]) -> list[str]:
    return [m.match_id for m in matches]


def test_matches_that_share_a_bot_within_a_batch_are_one_cluster() -> None:
    keys = [key for key, _ in clusters_of(BATCH0 + BATCH1, arrival=1)]
    assert keys[0] == keys[1] == keys[2]
    assert keys[3] == keys[4] == keys[5]
    assert keys[0] != keys[3]
    # The same bots in another batch are another cluster.
    assert keys[6] == keys[7] and keys[6] not in (keys[0], keys[3])


def test_a_chain_of_shared_bots_links_matches_with_no_bot_in_common() -> None:
    chain = groups(0, (1, 2), (3, 4), (2, 3))
    keys = {key for key, _ in clusters_of(chain, arrival=1)}
    assert len(keys) == 1


def test_without_a_worker_matches_go_in_schedule_order() -> None:
    pending = Pending(BATCH0 + BATCH1)
    taken = pending.take(None, 4) + pending.take(None, 100)
    assert ids(taken) == ids(BATCH0 + BATCH1)
    assert not pending


def test_each_worker_keeps_to_the_cluster_it_claimed() -> None:
    pending = Pending(BATCH0 + BATCH1)
    first = pending.take(0, 2)
    second = pending.take(1, 2)
    assert ids(first) == ids(BATCH0[:2])
    assert ids(second) == ids(BATCH0[3:5])  # the next cluster, not the rest of the first
    assert ids(pending.take(0, 2)) == ids(BATCH0[2:3])  # its own cluster's last match only
    assert ids(pending.take(1, 2)) == ids(BATCH0[5:6])
    # Its cluster done, a worker claims the first cluster nobody has.
    assert ids(pending.take(1, 1)) == ids(BATCH1[:1])
    # Nothing unclaimed left: worker 0 helps with the largest cluster.
    assert ids(pending.take(0, 5)) == ids(BATCH1[1:])
    assert not pending and pending.take(0, 1) == []


def test_queued_again_a_waiting_match_is_not_doubled() -> None:
    pending = Pending(BATCH0)
    pending.extend(BATCH0 + BATCH1 + BATCH1)
    assert len(pending) == len(BATCH0) + len(BATCH1)
    taken = pending.take(None, 100)
    assert ids(taken) == ids(BATCH0 + BATCH1)


def test_clear_drops_everything_and_every_claim() -> None:
    pending = Pending(BATCH0)
    pending.take(0, 1)
    pending.clear()
    assert not pending and pending.ids() == set()
    pending.extend(BATCH1)
    assert ids(pending.take(0, 5)) == ids(BATCH1)


seatings = st.lists(
    st.tuples(st.integers(0, 2), st.lists(st.integers(0, 15), min_size=1, max_size=4)),
    min_size=1,
    max_size=60,
)


@given(seatings, st.integers(0, 2**32 - 1))
def test_any_order_of_takes_sends_every_match_once(
    rows: list[tuple[int, list[int]]], seed: int
) -> None:
    """Takes by any workers (or none), in any order and size, with matches arriving in
    between, hand out every match exactly once."""
    rng = random.Random(seed)
    matches = [match(n, tuple(bots), batch) for n, (batch, bots) in enumerate(rows)]
    cut = rng.randrange(len(matches) + 1)
    pending = Pending(matches[:cut])
    sent: list[str] = []
    arrived = False
    while pending or not arrived:
        if not arrived and (not pending or rng.random() < 0.2):
            pending.extend(matches[cut:])
            arrived = True
            continue
        worker = rng.choice([None, 0, 1, 2])
        taken = pending.take(worker, rng.randint(1, 5))
        assert taken  # something waits, so something is given
        if worker is not None:  # one cluster: never two batches
            assert len({m.batch for m in taken}) == 1
        sent += ids(taken)
        assert len(pending) == len(matches) - len(sent) - (0 if arrived else len(matches) - cut)
    assert sorted(sent) == sorted(ids(matches))
