"""Ratings: TrueSkill per game, in schedule order, from the stored results alone.

* One explicit ``trueskill.TrueSkill`` environment (from the league config), never the global.
* A **table** (a duplicate set: one deal, once per rotation of the seats; or a single match) is
  one free-for-all result: each bot's place is its mean place over the matches of the table
  (places after faulted seats are put last, so a fault counts as a loss), and equal means tie.
  A bot seated twice at one table counts once, with its mean place.
* Results are rated batch by batch, table by table, in the schedule's order, so the same results
  always give the same ratings, incrementally or from scratch.
* The ranking uses the conservative rating ``mu - 3 * sigma``. The **overall** ranking is the mean
  of a bot's conservative ratings over the rated games it plays (one-seat tables excluded);
  a bot that plays fewer games is averaged over fewer games.
* One-seat (solo) tables give a score table instead: matches, mean score and its standard error.
* A resubmitted bot starts from the default rating, or from its previous version's rating
  (``entrants.resubmit = "carry"``) the first time it is rated in a game.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from arena.games.base import competition_ranks
from arena.league.store import Outcome

if TYPE_CHECKING:  # only its types are named here: the environment is made by the config
    import trueskill

RatingRow = tuple[str, int, float, float, int, int]


def conservative(rating: trueskill.Rating) -> float:
    return float(rating.mu - 3 * rating.sigma)


@dataclass
class Standing:
    bot: int
    mu: float
    sigma: float
    sets: int
    matches: int

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


class LeagueRatings:
    """The ratings of every (game, bot), updated one table at a time."""

    def __init__(
        self,
        env: trueskill.TrueSkill,
        previous: Mapping[int, int | None] | None = None,
        carry: bool = False,
    ) -> None:
        self.env = env
        self.previous = dict(previous or {})
        self.carry = carry
        self.ratings: dict[str, dict[int, trueskill.Rating]] = {}
        self.exact: dict[tuple[str, int], tuple[float, float]] = {}
        """Each rating's (mu, sigma) as stored. A Rating holds precision values, and mu and sigma
        do not survive a round trip through them bit for bit; so every rating is made from
        these floats, here and when loaded from the store, and a resumed league computes
        exactly what an uninterrupted one does."""
        self.sets: dict[tuple[str, int], int] = {}
        self.matches: dict[tuple[str, int], int] = {}

    def rating(self, game: str, bot: int) -> trueskill.Rating:
        known = self.ratings.setdefault(game, {})
        if bot in known:
            return known[bot]
        before = self.previous.get(bot)
        if self.carry and before is not None:
            return self.rating(game, before) if before in known else self.env.create_rating()
        return self.env.create_rating()

    def prior(self, game: str, bot: int) -> tuple[float, float]:
        """The exact (mu, sigma) that :meth:`rating` is made from: what the bot's next table
        starts from."""
        if (game, bot) in self.exact:
            return self.exact[(game, bot)]
        before = self.previous.get(bot)
        if self.carry and before is not None and (game, before) in self.exact:
            return self.exact[(game, before)]
        return self.env.mu, self.env.sigma

    def rate_table(self, game: str, outcomes: Sequence[Outcome]) -> None:
        """Rate the matches of one table (a duplicate set, or one match) as one result."""
        places: dict[int, list[int]] = {}
        for outcome in outcomes:
            for bot, rank in zip(outcome.bots, outcome.ranks, strict=True):
                places.setdefault(bot, []).append(rank)
        if len(places) < 2 or any(len(o.bots) < 2 for o in outcomes):
            return
        for outcome in outcomes:
            for bot in set(outcome.bots):
                self.matches[(game, bot)] = self.matches.get((game, bot), 0) + 1
        bots = sorted(places)
        means = [sum(places[b]) / len(places[b]) for b in bots]
        ranks = competition_ranks(means)
        priors = [self.prior(game, b) for b in bots]
        from arena.league import ffa  # and trueskill: reading ratings needs neither

        rated = ffa.rate(self.env, priors, [r - 1 for r in ranks])
        for bot, (mu, sigma) in zip(bots, rated, strict=True):
            self._set(game, bot, mu, sigma)
            self.sets[(game, bot)] = self.sets.get((game, bot), 0) + 1

    def rate_batch(self, outcomes: Sequence[Outcome]) -> None:
        """Rate one batch's results (any order): table by table, in table order."""
        by_tab: dict[int, list[Outcome]] = {}
        for outcome in sorted(outcomes, key=lambda o: o.ordinal):
            by_tab.setdefault(outcome.tab, []).append(outcome)
        for tab in sorted(by_tab):
            self.rate_table(by_tab[tab][0].game, by_tab[tab])

    def rows(self) -> list[RatingRow]:
        return [
            (
                game,
                bot,
                *self.exact[(game, bot)],
                self.sets.get((game, bot), 0),
                self.matches.get((game, bot), 0),
            )
            for game, known in sorted(self.ratings.items())
            for bot in sorted(known)
        ]

    def _set(self, game: str, bot: int, mu: float, sigma: float) -> None:
        self.exact[(game, bot)] = (mu, sigma)
        self.ratings.setdefault(game, {})[bot] = self.env.create_rating(mu, sigma)

    def load(self, rows: Iterable[RatingRow]) -> None:
        for game, bot, mu, sigma, sets, matches in rows:
            self._set(game, bot, mu, sigma)
            self.sets[(game, bot)] = sets
            self.matches[(game, bot)] = matches

    def standings(self, game: str) -> list[Standing]:
        """The game's rated bots, best conservative rating first (ties: by id)."""
        return standings_of(self.rows(), game)


def standings_of(rows: Iterable[RatingRow], game: str) -> list[Standing]:
    """The rated bots of ``game`` in ``rows`` (as :meth:`LeagueRatings.rows`, or as stored),
    best conservative rating first (ties: by id). Reading them needs no TrueSkill environment
    (``trueskill`` costs a command's start-up a few ms)."""
    out = [
        Standing(bot, mu, sigma, sets, matches)
        for name, bot, mu, sigma, sets, matches in rows
        if name == game
    ]
    return sorted(out, key=lambda s: (-s.conservative, s.bot))


def rate_by_batches(
    env: trueskill.TrueSkill,
    outcomes: Iterable[Outcome],
    previous: Mapping[int, int | None] | None = None,
    carry: bool = False,
) -> LeagueRatings:
    """Ratings from scratch, exactly as the league computes them incrementally."""
    ratings = LeagueRatings(env, previous, carry)
    by_batch: dict[int, list[Outcome]] = {}
    for outcome in outcomes:
        by_batch.setdefault(outcome.batch, []).append(outcome)
    for batch in sorted(by_batch):
        ratings.rate_batch(by_batch[batch])
    return ratings


class OverallScore(NamedTuple):
    """One bot's place in the overall ranking."""

    bot: int
    score: float
    """The mean over the league's rated games of its conservative rating (``mu - 3 * sigma``),
    a game it does not play counted at the floor (a newcomer's rating)."""
    games: int
    """The rated games it plays."""
    of: int
    """The rated games of the league (what the mean is taken over)."""


def overall(per_game: Mapping[str, Sequence[Standing]], floor: float = 0.0) -> list[OverallScore]:
    """Every rated bot's :class:`OverallScore`, best first (ties: by id).

    Fair to a bot that plays one game and to one that plays all: each is scored over every game
    of ``per_game`` (the league's rated games), a game it does not play counting at ``floor``,
    the conservative rating of a newcomer (``mu0 - 3 * sigma0``, 0 by default). So a specialist
    ranks above an all-rounder only if its one rating outweighs the all-rounder's across games.
    """
    rated = [game for game, standings in per_game.items() if standings]
    values: dict[int, list[float]] = {}
    for game in rated:
        for s in per_game[game]:
            values.setdefault(s.bot, []).append(s.conservative)
    n = len(rated)
    out = [
        OverallScore(bot, (sum(v) + floor * (n - len(v))) / n, len(v), n)
        for bot, v in values.items()
    ]
    return sorted(out, key=lambda t: (-t.score, t.bot))


SEPARATION_Z = 1.96
"""Two ratings are separated when their means differ by more than this many standard deviations
of the difference (95%, two-sided)."""


def separated(a: Standing, b: Standing, z: float = SEPARATION_Z) -> bool:
    """Whether the means of ``a`` and ``b`` differ by more than their uncertainty allows."""
    return abs(a.mu - b.mu) > z * math.hypot(a.sigma, b.sigma)


def tiers(ranked: Sequence[Standing], z: float = SEPARATION_Z) -> list[int]:
    """A tier number (1, 2, ...) per bot of ``ranked`` (best first): a bot opens a new tier when
    it is separated from the first bot of the current tier, so bots of one tier are not shown
    apart by the evidence so far."""
    out: list[int] = []
    leader: Standing | None = None
    for s in ranked:
        if leader is None or separated(leader, s, z):
            leader = s
            out.append(len(set(out)) + 1)
        else:
            out.append(out[-1])
    return out


def interval(s: Standing, z: float = SEPARATION_Z) -> tuple[float, float]:
    """The 95% interval of a bot's mean rating ``mu``."""
    return s.mu - z * s.sigma, s.mu + z * s.sigma


@dataclass(frozen=True)
class SoloScore:
    bot: int
    matches: int
    mean: float
    stderr: float


def solo_scores(outcomes: Iterable[Outcome], higher_is_better: bool) -> list[SoloScore]:
    """One-seat results as a score table, best mean first."""
    scores: dict[int, list[float]] = {}
    for outcome in outcomes:
        if len(outcome.bots) == 1:
            scores.setdefault(outcome.bots[0], []).append(float(outcome.scores[0]))
    table = []
    for bot, values in scores.items():
        n = len(values)
        mean = sum(values) / n
        var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
        table.append(SoloScore(bot, n, mean, math.sqrt(var / n)))
    sign = -1 if higher_is_better else 1
    return sorted(table, key=lambda s: (sign * s.mean, s.bot))
