"""Which matches to play: batches of tables, duplicate sets, uniform then adaptive.

A **batch** holds rounds -- ``rounds_per_batch`` of them, more if needed to reach
``min_batch_matches`` matches -- each covering every game and table size of the league; a
**round** seats every entrant of that game once (the last table is filled up with entrants
already seated, chosen at random, so every table is full). A **table** is played as a
**duplicate set** -- the same deal (seed) once per rotation of the seats, so each bot holds each
hand once -- or as one match when duplicate sets are off. A one-seat (solo) round plays one deal
for every entrant.

**Groups** (``schedule.group_size``, for leagues of many entrants): each batch cuts the field
into groups of at most that many entrants, in an order reshuffled every batch by a keyed hash of
each bot (so a bot entered in every game falls in the same group in each), seats every round
within the groups, and orders the matches group by group. A worker then plays one group's
matches with that group's bots alive, which its cap on live bots (``executor.live_bots``) can
hold; without groups, a field larger than the cap starts a bot process for most seats. Across
batches every entrant meets every other. With no groups (0, the default), or a group as large as
the field, a batch is exactly what it was before groups existed.

Everything here is a pure function of the league seed, the batch number, the entrants and the
ratings it is given: the league plans batch ``k`` from the results of batches up to ``k - 2``
(so workers never wait at a batch boundary), stores the plan, and the same inputs always give
the same plan whatever the number of workers or interruptions.

Match ids are keyed hashes of (league seed, batch, position): they reveal neither the game seed
nor which matches share a deal. Game seeds are keyed hashes too. The rotations of a deal are
spread over the batch (rotation-major order), so a worker does not play them back to back.

**A bot can still recognise a deal by its cards.** Bots are persistent processes: one that
remembers, say, the starting rows of Take 5 or its own hand could notice that it has seen this
deal before (as another seat) and use what it learned. Nothing in the ids gives it away, but
the cards do. ``schedule.fresh_processes = true`` closes the hole: every match starts fresh
processes (a bot remembers nothing between matches; bots must not write files that outlive
their scratch folder), at the cost of one process start per seat per match (~25 ms for
Python, ~100 ms for node). It is off by default because of that cost; turn it on for a league
whose results matter.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import trueskill

from arena.league.config import GameConfig, LeagueConfig
from arena.league.store import BatchMode, Planned

SEED_BITS = 48


def match_id(seed: int, batch: int, ordinal: int) -> str:
    """A match id that names a match without revealing its seed, deal or set."""
    digest = hashlib.blake2b(
        f"{seed}/{batch}/{ordinal}".encode(), key=b"arena-league-match-id", digest_size=8
    )
    return digest.hexdigest()


def game_seed(seed: int, batch: int, game: str, table: int) -> int:
    digest = hashlib.blake2b(
        f"{seed}/{batch}/{game}/{table}".encode(), key=b"arena-league-seed", digest_size=8
    )
    return int.from_bytes(digest.digest(), "big") >> (64 - SEED_BITS)


def round_rng(seed: int, batch: int, game: str, seats: int, round_no: int) -> random.Random:
    return random.Random(f"arena-league/{seed}/{batch}/{game}/{seats}/{round_no}")


@dataclass(frozen=True)
class Table:
    """Bots (entrant ids) by seat, for one game and one deal."""

    game: str
    bots: tuple[int, ...]
    seed: int
    group: int = 0


RatingView = Mapping[str, Mapping[int, trueskill.Rating]]
"""Per game, per entrant: its current rating (entrants not yet rated are absent)."""


def uniform_round(rng: random.Random, entrants: Sequence[int], seats: int) -> list[tuple[int, ...]]:
    """Every entrant seated once at random; the last table topped up with other entrants."""
    order = list(entrants)
    rng.shuffle(order)
    return fill_tables(rng, order, entrants, seats)


def fill_tables(
    rng: random.Random, order: list[int], entrants: Sequence[int], seats: int
) -> list[tuple[int, ...]]:
    """Cut ``order`` into tables of ``seats``, topping the last one up at random."""
    partial = len(order) % seats
    if partial:
        last = order[len(order) - partial :]
        extra = [e for e in entrants if e not in last]
        rng.shuffle(extra)
        while len(last) < seats:
            # Fewer entrants than seats: the same bot takes several seats (its own slots).
            last.append(extra.pop() if extra else last[len(last) % partial])
        order = order[: len(order) - partial] + last
    return [tuple(order[i : i + seats]) for i in range(0, len(order), seats)]


def misorder(a: trueskill.Rating, b: trueskill.Rating) -> float:
    """The probability that two ratings are in the wrong order: Phi(-|mu_a - mu_b| / sd)."""
    spread = math.sqrt(a.sigma**2 + b.sigma**2)
    return 0.5 * math.erfc(abs(a.mu - b.mu) / (spread * math.sqrt(2))) if spread > 0 else 0.0


def adaptive_round(
    rng: random.Random,
    entrants: Sequence[int],
    seats: int,
    ratings: Mapping[int, trueskill.Rating],
    env: trueskill.TrueSkill,
    met: dict[tuple[int, int], int] | None = None,
    counts: dict[int, int] | None = None,
) -> list[tuple[int, ...]]:
    """As many tables as a uniform round, each seated where a result tells the most.

    The ranking is settled when every pair of entrants is in the right order, so a table is
    worth the sum, over the pairs it seats, of the probability that the pair is in the wrong
    order now (:func:`misorder`: close ratings and large uncertainties count most), halved for
    every earlier meeting of the pair in this batch (``met``, updated) so that a batch spreads
    its tables. A table starts from the most valuable pair and is completed one seat at a time
    with the entrant that adds the most; ties go to the entrant seated least in this batch
    (``counts``, updated). Entrants whose place is already clear play less; a new entrant
    (default rating, large sigma) is sought out. Seat order is random.
    """
    default = env.create_rating()
    met = {} if met is None else met
    seated = {} if counts is None else counts
    players = sorted(set(entrants))
    rating = {b: ratings.get(b, default) for b in players}
    worth = {
        (x, y): misorder(rating[x], rating[y])
        for i, x in enumerate(players)
        for y in players[i + 1 :]
    }

    def value(x: int, y: int) -> float:
        key = (min(x, y), max(x, y))
        return worth[key] * 0.5 ** met.get(key, 0)

    tables: list[tuple[int, ...]] = []
    for _ in range(-(-len(players) // seats)):
        if len(players) < 2:
            break
        x, y = max(
            worth,
            key=lambda p: (value(*p), -seated.get(p[0], 0) - seated.get(p[1], 0), -p[0], -p[1]),
        )
        table = [x, y]
        while len(table) < seats:
            pool = [e for e in players if e not in table]
            if not pool:
                # Fewer entrants than seats: the same bot takes several seats.
                table.append(table[len(table) % len(set(table))])
                continue
            table.append(
                max(
                    pool,
                    key=lambda c: (sum(value(c, m) for m in table), -seated.get(c, 0), -c),
                )
            )
        for i, p in enumerate(table):
            seated[p] = seated.get(p, 0) + 1
            for q in table[i + 1 :]:
                if p != q:
                    key = (min(p, q), max(p, q))
                    met[key] = met.get(key, 0) + 1
        rng.shuffle(table)
        tables.append(tuple(table))
    return tables


MAX_ROUNDS = 1000


def groups_of(
    seed: int, batch: int, players: Sequence[int], size: int, seats: int
) -> list[list[int]]:
    """A game's players cut into the batch's groups of at most ``size`` (``size`` 0: one group).

    The players are taken in an order shuffled once per batch, by a keyed hash of each bot (the
    same for every game, so a bot entered in every game falls in the same group in each), and
    cut into near-equal slices, never smaller than a table (``seats``).
    """
    if size <= 0 or len(players) <= size:
        return [list(players)]

    def rank(bot: int) -> bytes:
        key = f"{seed}/{batch}/{bot}".encode()
        return hashlib.blake2b(key, key=b"arena-league-group", digest_size=8).digest()

    order = sorted(players, key=rank)
    count = max(1, min(math.ceil(len(order) / size), len(order) // max(seats, 1)))
    return [order[len(order) * k // count : len(order) * (k + 1) // count] for k in range(count)]


def plan_batch(
    config: LeagueConfig,
    batch: int,
    entrants: Mapping[str, Sequence[int]],
    ratings: RatingView | None,
    env: trueskill.TrueSkill,
) -> tuple[BatchMode, list[Planned]]:
    """The matches of batch ``batch``: (mode, matches in schedule order).

    ``entrants`` are the active entrant ids per game; ``ratings`` None means a uniform batch.
    Rounds are added (each covering every game and table size) until there are at least
    ``rounds_per_batch`` of them and the batch holds ``min_batch_matches`` matches.
    """
    s = config.schedule
    adaptive = ratings is not None and s.adaptive and batch >= s.warmup_batches
    tables = plan_tables(config, batch, entrants, ratings if adaptive else None, env)
    mode = BatchMode.ADAPTIVE if adaptive else BatchMode.UNIFORM
    return mode, order_matches(config, batch, tables)


def plan_tables(
    config: LeagueConfig,
    batch: int,
    entrants: Mapping[str, Sequence[int]],
    ratings: RatingView | None,
    env: trueskill.TrueSkill,
) -> list[tuple[GameConfig, Table]]:
    """The batch's tables, round by round (``ratings``: adaptive rounds, else uniform)."""
    s = config.schedule
    duplicate = s.duplicate
    tables: list[tuple[GameConfig, Table]] = []
    met: dict[tuple[str, int], dict[tuple[int, int], int]] = {}
    seated_count: dict[tuple[str, int], dict[int, int]] = {}
    count = 0
    for round_no in range(MAX_ROUNDS):
        if round_no >= s.rounds_per_batch and count >= s.min_batch_matches:
            break
        before = len(tables)
        for game in config.games:
            players = sorted(entrants.get(game.name, ()))
            for seats in game.seats:
                if not players or (seats > 1 and len(players) < 2):
                    continue
                rng = round_rng(config.seed, batch, game.name, seats, round_no)
                groups = groups_of(config.seed, batch, players, s.group_size, seats)
                solo_seed = game_seed(config.seed, batch, game.name, len(tables))  # one deal
                for group_no, group in enumerate(groups):
                    if seats == 1:
                        seated: list[tuple[int, ...]] = [(p,) for p in group]
                    elif ratings is not None:
                        seated = adaptive_round(
                            rng,
                            group,
                            seats,
                            ratings.get(game.name, {}),
                            env,
                            met.setdefault((game.name, seats), {}),
                            seated_count.setdefault((game.name, seats), {}),
                        )
                    else:
                        seated = uniform_round(rng, group, seats)
                    for bots in seated:
                        seed = (
                            solo_seed
                            if seats == 1
                            else game_seed(config.seed, batch, game.name, len(tables))
                        )
                        tables.append((game, Table(game.name, bots, seed, group_no)))
        if len(tables) == before:
            break
        count += sum(
            len(t.bots) if duplicate and len(t.bots) > 1 else 1 for _, t in tables[before:]
        )
    return tables


def order_matches(
    config: LeagueConfig, batch: int, tables: Sequence[tuple[GameConfig, Table]]
) -> list[Planned]:
    """The matches of ``tables`` in schedule order: group by group (a worker keeps a group's
    bots alive while it plays its matches) and, within a group, rotation-major (the rotations
    of one deal are spread over the group's matches, not played back to back by one worker)."""
    duplicate = config.schedule.duplicate
    rotations = [len(t.bots) if duplicate and len(t.bots) > 1 else 1 for _, t in tables]
    matches: list[Planned] = []
    for group in sorted({t.group for _, t in tables}):
        for rotation in range(max(rotations, default=0)):
            for tab, (game, table) in enumerate(tables):
                if table.group != group or rotation >= rotations[tab]:
                    continue
                n = len(table.bots)
                seating = tuple(table.bots[(s + rotation) % n] for s in range(n))
                ordinal = len(matches)
                matches.append(
                    Planned(
                        match_id=match_id(config.seed, batch, ordinal),
                        batch=batch,
                        ordinal=ordinal,
                        game=game.name,
                        tab=tab,
                        rotation=rotation,
                        seed=table.seed,
                        options=dict(game.options),
                        bots=seating,
                    )
                )
    return matches


def trim_to_budget(matches: list[Planned], room: int) -> list[Planned]:
    """The whole tables of ``matches`` that fit in ``room`` more matches (first tables first)."""
    sizes: dict[int, int] = {}
    for m in matches:
        sizes[m.tab] = sizes.get(m.tab, 0) + 1
    keep: set[int] = set()
    used = 0
    for tab in sorted(sizes):
        if used + sizes[tab] > room:
            break
        keep.add(tab)
        used += sizes[tab]
    return [m for m in matches if m.tab in keep]
