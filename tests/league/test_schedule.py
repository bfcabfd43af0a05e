"""The schedule: deterministic batches, duplicate sets with every seat rotated, opaque ids."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

from arena.league.config import GameConfig, LeagueConfig, Schedule
from arena.league.schedule import groups_of, match_id, plan_batch, trim_to_budget

ENV = LeagueConfig().rating.environment()


def config(seats: tuple[int, ...] = (4,), **schedule: object) -> LeagueConfig:
    return LeagueConfig(
        seed=11,
        games=(GameConfig("take5", seats, {}),),
        schedule=replace(Schedule(), **schedule),  # type: ignore[arg-type]
    )


def test_a_batch_is_a_function_of_its_inputs() -> None:
    entrants = {"take5": [1, 2, 3, 4, 5, 6, 7]}
    a = plan_batch(config(), 3, entrants, None, ENV)
    b = plan_batch(config(), 3, entrants, None, ENV)
    c = plan_batch(config(), 4, entrants, None, ENV)
    assert a == b
    assert a[1] != c[1]
    assert len({m.match_id for m in a[1] + c[1]}) == len(a[1]) + len(c[1])


def test_duplicate_sets_rotate_every_bot_through_every_seat_on_one_deal() -> None:
    mode, matches = plan_batch(config(), 0, {"take5": [1, 2, 3, 4, 5, 6, 7]}, None, ENV)
    assert mode == "uniform"
    by_tab: dict[int, list[tuple[int, ...]]] = {}
    for m in matches:
        by_tab.setdefault(m.tab, []).append(m.bots)
        assert len({x.seed for x in matches if x.tab == m.tab}) == 1
    for seatings in by_tab.values():
        assert len(seatings) == 4
        for seat in range(4):
            assert sorted(s[seat] for s in seatings) == sorted(seatings[0])
    # every entrant sits at a table in every round; tables are full
    assert len(matches) >= 32
    appear = Counter(b for m in matches if m.rotation == 0 for b in set(m.bots))
    assert set(appear) == {1, 2, 3, 4, 5, 6, 7}
    assert max(appear.values()) - min(appear.values()) <= 1 + len(by_tab) // 2


def test_rotations_of_a_deal_are_not_played_back_to_back() -> None:
    _, matches = plan_batch(config(), 0, {"take5": list(range(1, 9))}, None, ENV)
    for a, b in itertools.pairwise(matches):
        assert a.tab != b.tab


def test_match_ids_reveal_neither_seed_nor_set() -> None:
    _, matches = plan_batch(config(), 0, {"take5": [1, 2, 3, 4]}, None, ENV)
    for m in matches:
        assert str(m.seed) not in m.match_id
        assert len(m.match_id) == 16
    assert len({m.match_id for m in matches}) == len(matches)
    assert match_id(11, 0, 0) != match_id(12, 0, 0)


def test_without_duplicate_sets_a_table_is_one_match() -> None:
    _, matches = plan_batch(config(duplicate=False), 0, {"take5": [1, 2, 3, 4]}, None, ENV)
    assert all(m.rotation == 0 for m in matches)
    assert len({m.tab for m in matches}) == len(matches)


def test_fewer_entrants_than_seats_fill_the_table_with_copies() -> None:
    _, matches = plan_batch(config(), 0, {"take5": [1, 2]}, None, ENV)
    assert matches and all(len(m.bots) == 4 and set(m.bots) == {1, 2} for m in matches)
    _, none = plan_batch(config(), 0, {"take5": [1]}, None, ENV)
    assert none == []


def test_solo_tables_give_every_entrant_the_same_deal_in_a_round() -> None:
    cfg = config(seats=(1,), min_batch_matches=1)
    _, matches = plan_batch(cfg, 0, {"take5": [3, 1, 2]}, None, ENV)
    assert sorted(m.bots for m in matches) == [(1,), (2,), (3,)]
    assert len({m.seed for m in matches}) == 1


def test_adaptive_batches_seat_close_ratings_together() -> None:
    ratings = {
        "take5": {
            b: ENV.create_rating(mu, 1.0)
            for b, mu in {1: 40, 2: 39, 3: 38, 4: 37, 5: 10, 6: 11, 7: 12, 8: 13}.items()
        }
    }
    cfg = config(min_batch_matches=1, warmup_batches=1, adaptive=True)
    mode, matches = plan_batch(cfg, 1, {"take5": list(range(1, 9))}, ratings, ENV)
    assert mode == "adaptive"
    tables = {frozenset(m.bots) for m in matches}
    assert tables == {frozenset({1, 2, 3, 4}), frozenset({5, 6, 7, 8})}
    # during the warm-up the same inputs give a uniform batch
    assert plan_batch(cfg, 0, {"take5": list(range(1, 9))}, ratings, ENV)[0] == "uniform"
    assert plan_batch(cfg, 1, {"take5": list(range(1, 9))}, ratings, ENV) == (mode, matches)


def test_the_budget_keeps_whole_tables() -> None:
    _, matches = plan_batch(config(), 0, {"take5": list(range(1, 9))}, None, ENV)
    kept = trim_to_budget(matches, 10)
    assert len(kept) == 8
    assert Counter(m.tab for m in kept) == {0: 4, 1: 4}


def test_groups_seat_every_table_within_a_group_and_play_group_by_group() -> None:
    players = list(range(1, 31))
    games = (GameConfig("take5", (4,), {}), GameConfig("ten", (3,), {}))
    cfg = replace(config(group_size=8), games=games)
    _, matches = plan_batch(cfg, 2, {"take5": players, "ten": players}, None, ENV)
    groups = groups_of(cfg.seed, 2, players, 8, 4)
    assert sorted(len(g) for g in groups) == [7, 7, 8, 8]  # 30 in 4 near-equal groups
    assert sorted(b for g in groups for b in g) == players
    group_of = {b: k for k, g in enumerate(groups) for b in g}
    order = []
    for m in matches:
        (k,) = {group_of[b] for b in m.bots}  # every table within one group, in both games
        order.append(k)
    assert order == sorted(order)  # group by group
    for game in ("take5", "ten"):
        assert {b for m in matches if m.game == game for b in m.bots} == set(players)
    # Reshuffled every batch.
    assert groups_of(cfg.seed, 3, players, 8, 4) != groups


def test_a_group_as_large_as_the_field_changes_nothing() -> None:
    entrants = {"take5": list(range(1, 12))}
    assert plan_batch(config(group_size=11), 5, entrants, None, ENV) == plan_batch(
        config(), 5, entrants, None, ENV
    )
    grouped = plan_batch(config(group_size=5), 5, entrants, None, ENV)
    assert grouped != plan_batch(config(), 5, entrants, None, ENV)


def test_groups_are_never_smaller_than_a_table() -> None:
    entrants = {"take5": list(range(1, 10))}  # 9 players, groups of 2 asked, tables of 4
    _, matches = plan_batch(config(group_size=2), 0, entrants, None, ENV)
    assert all(len(set(m.bots)) == 4 for m in matches)
