"""Ratings: known values, duplicate sets as one result, faults as losses, order and carry-over."""

from __future__ import annotations

import random
import tomllib

import pytest

from arena.league.config import ConfigError, Rating, Resubmit, config_text, parse_config
from arena.league.rating import (
    LeagueRatings,
    OverallScore,
    Standing,
    interval,
    overall,
    rate_by_batches,
    separated,
    solo_scores,
    tiers,
)
from arena.league.store import Outcome

ENV = Rating().environment()


def outcome(
    bots: tuple[int, ...],
    ranks: tuple[int, ...],
    tab: int = 0,
    batch: int = 0,
    ordinal: int = 0,
    scores: tuple[float, ...] | None = None,
) -> Outcome:
    return Outcome(
        f"m{batch}-{ordinal}",
        batch,
        ordinal,
        "take5",
        tab,
        bots,
        ranks,
        scores or tuple(float(r) for r in ranks),
        0,
    )


def test_one_win_matches_the_published_trueskill_numbers() -> None:
    ratings = LeagueRatings(ENV)
    ratings.rate_batch([outcome((1, 2), (1, 2))])
    win, loss = ratings.ratings["take5"][1], ratings.ratings["take5"][2]
    assert (round(win.mu, 3), round(win.sigma, 3)) == (29.396, 7.171)
    assert (round(loss.mu, 3), round(loss.sigma, 3)) == (20.604, 7.171)


def test_a_duplicate_set_is_one_result_of_mean_places() -> None:
    # Bot 1 wins one rotation, bot 2 the other: a tie over the set.
    ratings = LeagueRatings(ENV)
    ratings.rate_batch([outcome((1, 2), (1, 2), ordinal=0), outcome((2, 1), (1, 2), ordinal=1)])
    a, b = ratings.ratings["take5"][1], ratings.ratings["take5"][2]
    assert a.mu == pytest.approx(b.mu) == pytest.approx(25.0)
    assert a.sigma < 25 / 3
    assert ratings.sets[("take5", 1)] == 1 and ratings.matches[("take5", 1)] == 2


def test_a_faulted_seat_ranked_last_counts_as_a_loss() -> None:
    ratings = LeagueRatings(ENV)
    # the record's ranks are after fault demotion: the faulted seat 0 is last
    ratings.rate_batch([outcome((1, 2, 3), (3, 1, 2))])
    order = [s.bot for s in ratings.standings("take5")]
    assert order == [2, 3, 1]


def test_a_bot_in_two_seats_counts_once_with_its_mean_place() -> None:
    ratings = LeagueRatings(ENV)
    ratings.rate_batch([outcome((1, 1, 2), (1, 3, 2))])
    assert set(ratings.ratings["take5"]) == {1, 2}
    assert ratings.ratings["take5"][1].mu == pytest.approx(25.0)  # mean place 2 = bot 2's


def test_incremental_and_from_scratch_agree_and_order_matters() -> None:
    batches = [
        [
            outcome((1, 2, 3), (1, 2, 3), tab=0, batch=0, ordinal=0),
            outcome((3, 1, 2), (1, 3, 2), tab=1, batch=0, ordinal=1),
        ],
        [outcome((2, 3, 1), (1, 1, 3), tab=0, batch=1, ordinal=0)],
    ]
    step = LeagueRatings(ENV)
    for batch in batches:
        step.rate_batch(list(reversed(batch)))  # arrival order does not matter
    again = LeagueRatings(ENV)
    again.load(step.rows())
    scratch = rate_by_batches(ENV, [o for b in batches for o in b])
    assert scratch.rows() == step.rows() == again.rows()
    flipped = rate_by_batches(ENV, [o for b in reversed(batches) for o in b])
    swapped = [replace_batch(o, 1 - o.batch) for b in batches for o in b]
    assert rate_by_batches(ENV, swapped).rows() != scratch.rows()
    assert flipped.rows() == scratch.rows()  # sorted by batch number, not by input order


def replace_batch(o: Outcome, batch: int) -> Outcome:
    return Outcome(o.match_id, batch, o.ordinal, o.game, o.tab, o.bots, o.ranks, o.scores, 0)


def test_a_new_version_carries_the_old_rating_over_or_starts_afresh() -> None:
    first = [outcome((1, 2), (1, 2), tab=t, batch=0, ordinal=t) for t in range(5)]
    later = [outcome((3, 2), (2, 1), tab=0, batch=1)]
    carry = rate_by_batches(ENV, first + later, {3: 1}, carry=True)
    fresh = rate_by_batches(ENV, first + later, {3: 1}, carry=False)
    old = carry.ratings["take5"][1]
    assert carry.ratings["take5"][3].mu < old.mu  # started from bot 1's rating, then lost
    assert carry.ratings["take5"][3].mu > fresh.ratings["take5"][3].mu
    assert fresh.ratings["take5"][3].mu < 25


def test_overall_is_the_mean_over_the_leagues_games_with_a_floor_for_missing_ones() -> None:
    ratings = LeagueRatings(ENV)
    ratings.rate_batch([outcome((1, 2), (1, 2))])
    other = Outcome("x", 0, 1, "ten", 1, (1, 3), (2, 1), (0, 1), 0)
    ratings.rate_batch([other])
    per_game = {g: ratings.standings(g) for g in ("take5", "ten")}
    c = {g: {s.bot: s.conservative for s in per_game[g]} for g in per_game}
    for floor in (0.0, -5.0):
        table = {o.bot: (o.score, o.games, o.of) for o in overall(per_game, floor)}
        assert table[1] == (pytest.approx((c["take5"][1] + c["ten"][1]) / 2), 2, 2)
        assert table[2] == (pytest.approx((c["take5"][2] + floor) / 2), 1, 2)  # no ten: floor
        assert table[3] == (pytest.approx((c["ten"][3] + floor) / 2), 1, 2)
        ranked = overall(per_game, floor)
        assert [o.score for o in ranked] == sorted(t[0] for t in table.values())[::-1]
    best = overall(per_game)[0]
    assert isinstance(best, OverallScore)
    assert (best.bot, best.score, best.games, best.of) == tuple(best)


def test_a_specialist_does_not_outrank_an_all_rounder_on_one_game() -> None:
    # bot 1 is rated 20 in one game only; bot 2 is rated 15 in each of three games
    per_game = {
        "take5": [Standing(1, 20 + 3 * 1.0, 1.0, 9, 9), Standing(2, 15 + 3 * 1.0, 1.0, 9, 9)],
        "ten": [Standing(2, 18.0, 1.0, 9, 9)],
        "phase10": [Standing(2, 18.0, 1.0, 9, 9)],
    }
    ranked = overall(per_game, floor=0.0)
    assert [(o.bot, o.games, o.of) for o in ranked] == [(2, 3, 3), (1, 1, 3)]
    assert ranked[1].score == pytest.approx(20 / 3)


def test_tiers_group_bots_that_the_evidence_does_not_separate() -> None:
    close = [Standing(b, mu, 1.0, 9, 9) for b, mu in ((1, 30.0), (2, 29.0), (3, 28.0), (4, 20.0))]
    # 30 vs 29 and 28: |d| <= 1.96 * sqrt(2) = 2.77, one tier; 20 is far below: a new tier
    assert tiers(close) == [1, 1, 1, 2]
    assert separated(close[0], close[3]) and not separated(close[0], close[2])
    assert tiers([Standing(b, 25.0, 8.0, 1, 1) for b in range(5)]) == [1] * 5  # all uncertain
    sure = [Standing(b, 30.0 - 5 * b, 0.5, 99, 99) for b in range(4)]
    assert tiers(sure) == [1, 2, 3, 4]
    assert interval(Standing(1, 25.0, 2.0, 1, 1)) == pytest.approx((25 - 3.92, 25 + 3.92))


def test_solo_results_make_a_score_table() -> None:
    rows = [
        outcome((b,), (1,), tab=i, ordinal=i, scores=(s,))
        for i, (b, s) in enumerate([(1, 10.0), (1, 14.0), (2, 20.0), (2, 20.0)])
    ]
    high = solo_scores(rows, higher_is_better=True)
    assert [(s.bot, s.matches, s.mean) for s in high] == [(2, 2, 20.0), (1, 2, 12.0)]
    assert high[1].stderr == pytest.approx(2.0)
    assert [s.bot for s in solo_scores(rows, higher_is_better=False)] == [1, 2]
    ratings = LeagueRatings(ENV)
    ratings.rate_batch(rows)
    assert ratings.ratings.get("take5", {}) == {}


def test_ratings_reloaded_from_their_rows_go_on_bit_for_bit() -> None:
    """A resumed league reloads (mu, sigma) rows; it must then rate exactly as a league that
    kept its ratings in memory (a Rating's precision values do not round-trip mu and sigma)."""
    rng = random.Random(5)
    batches = []
    for batch in range(12):
        games = []
        for ordinal in range(6):
            bots = tuple(rng.sample(range(1, 7), 4))
            places = [1, 2, 3, 4]
            rng.shuffle(places)
            games.append(outcome(bots, tuple(places), tab=ordinal, batch=batch, ordinal=ordinal))
        batches.append(games)
    kept = LeagueRatings(ENV)
    for games in batches:
        kept.rate_batch(games)
    for split in range(1, 12):
        resumed = LeagueRatings(ENV)
        for games in batches[:split]:
            resumed.rate_batch(games)
        again = LeagueRatings(ENV)
        again.load(resumed.rows())
        for games in batches[split:]:
            again.rate_batch(games)
        assert again.rows() == kept.rows()  # exactly, not approximately
        assert again.standings("take5") == kept.standings("take5")


def test_loading_rows_gives_the_same_rows_back() -> None:
    """The league saves rows after every batch and reloads them when it resumes: a reload must
    not move a rating by a bit (a Rating built from mu and sigma reports slightly different ones
    for about one value in ten)."""
    rng = random.Random(8)
    rows = [
        ("take5", bot, rng.uniform(0, 50), rng.uniform(0.5, 8.4), 3, 7) for bot in range(1, 400)
    ]
    ratings = LeagueRatings(ENV)
    ratings.load(rows)
    assert ratings.rows() == rows
    again = LeagueRatings(ENV)
    again.load(ratings.rows())
    assert again.rows() == rows


def test_resubmit_reads_as_its_enum_and_writes_back_as_its_word() -> None:
    config = parse_config({"entrants": {"resubmit": "carry"}})
    assert config.entrants.resubmit is Resubmit.CARRY
    assert '\nresubmit = "carry"  # ' in config_text(config)
    assert parse_config(tomllib.loads(config_text(config))) == config
    assert parse_config({}).entrants.resubmit is Resubmit.NEW
    with pytest.raises(ConfigError, match=r'^entrants\.resubmit: "maybe" is not "new" or "carry"$'):
        parse_config({"entrants": {"resubmit": "maybe"}})
    with pytest.raises(ConfigError, match=r'^entrants\.resubmit: 3 is not "new" or "carry"$'):
        parse_config({"entrants": {"resubmit": 3}})
