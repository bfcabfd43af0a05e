"""Head to head counts each match once per pair of bots, even with a bot seated twice."""

from __future__ import annotations

from arena.site.cache import Tally


def test_a_bot_seated_twice_is_counted_once_per_match() -> None:
    tally = Tally.empty()
    # bot 1 in seats 0 and 2 (places 1 and 3: mean 2), bot 2 in seats 1 and 3 (places 2 and 4)
    tally.add("take5", 0, [1, 2, 1, 2], [1, 2, 3, 4], [1, 2, 3, 4], [])
    tally.add("take5", 0, [1, 2, 2, 1], [4, 1, 2, 3], [1, 2, 3, 4], [])  # 3.5 vs 1.5
    assert tally.pairs[("take5", 1, 2)] == [1, 1, 0]  # ahead, behind, tied
    assert tally.pairs[("take5", 2, 1)] == [1, 1, 0]
    assert sum(tally.pairs[("take5", 1, 2)]) == 2  # two matches together, not eight


def test_equal_mean_places_are_a_tie() -> None:
    tally = Tally.empty()
    tally.add("take5", 0, [1, 2, 2, 1], [1, 2, 3, 4], [0, 0, 0, 0], [])  # 2.5 each
    assert tally.pairs[("take5", 1, 2)] == [0, 0, 1]
