"""Synthetic leagues for the site's tests and benchmark, stored through the league's own API.

Games are really played (in-process random players), so every record replays; the bots' names,
authors, debug notes and stderr are as hostile as a bot author could make them.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.games import GAMES
from arena.league.config import GameConfig, LeagueConfig, default_config
from arena.league.core import League
from arena.league.rating import LeagueRatings
from arena.league.store import BatchMode, EntrantStatus, Planned
from arena.match import demote_faulted
from arena.players import RandomPlayer, play_local

HOSTILE_NAME = "<script>alert(1)</script>"
HOSTILE_AUTHOR = '<img src=x onerror="alert(2)">'
HOSTILE_LABEL = '"><b>v1</b>'
HOSTILE_NOTE = "</script><script>alert(3)</script><!-- <img src=x onerror=alert(4)>"
HOSTILE_STDERR = "Traceback...\n</pre><script>alert(5)</script><img src=x onerror=alert(6)>"
HOSTILE_HELLO = "</td><script>alert(7)</script>"
HOSTILE_REASON = "<b>suspended</b><script>alert(8)</script>"

SHORT_OPTIONS: dict[str, dict[str, Any]] = {
    "take5": {"max_rounds": 1},
    "phase10": {"max_hands": 2, "max_turns": 8},
}
"""Options that keep the test games short."""


def game_configs(games: Sequence[str], twice: bool = True) -> tuple[GameConfig, ...]:
    out = []
    for name in games:
        spec = GAMES[name]
        options = spec.validate_options(SHORT_OPTIONS.get(name, {}))
        seats: tuple[int, ...] = (min(3, spec.max_seats),)
        if spec.min_seats == 1:
            seats = (1, *seats)
        if name == "take5" and twice:
            seats = (3, 4)  # three entrants at four seats: one of them sits twice
        out.append(GameConfig(name, seats, options))
    return tuple(out)


def record_of(
    match_id: str,
    game: str,
    seed: int,
    options: dict[str, Any],
    bots: Sequence[int],
    names: Sequence[str],
    actions: Sequence[tuple[int, Any]],
    result: dict[str, Any],
    faults: Sequence[dict[str, Any]] = (),
    debug: Sequence[tuple[int, int, str]] = (),
) -> dict[str, Any]:
    faulted = {f["seat"] for f in faults}
    return {
        "match_id": match_id,
        "game": game,
        "seed": seed,
        "options": options,
        "seats": [
            {
                "bot": f"builtin:{n}",
                "name": n,
                "said": HOSTILE_HELLO if n == HOSTILE_NAME else n,
                "version": "1",
            }
            for n in names
        ],
        "actions": [[s, a] for s, a in actions],
        "fallback_steps": [],
        "debug": [list(d) for d in debug],
        "faults": list(faults),
        "result": result,
        "ranks": list(demote_faulted(result["ranks"], faulted)),
        "decisions": [{"count": 1, "total_s": 0.001, "max_s": 0.001} for _ in bots],
        "seconds": 0.01,
    }


def make_league(
    folder: Path,
    games: Sequence[str] | None = None,
    batches: int = 3,
    tables: int = 2,
    seed: int = 7,
    twice: bool = True,
) -> Path:
    """A league folder with three entrants (one hostile, suspended), ``batches`` rated batches
    of ``tables`` matches per game and table size, debug notes and a fault. With ``twice``,
    Take 5 is also played at four seats, so one entrant sits twice at a table."""
    games = list(games or GAMES)
    config: LeagueConfig = dataclasses.replace(
        default_config(seed, 1), games=game_configs(games, twice)
    )
    League.init(folder, config)
    with League.open(folder) as league:
        store = league.store
        alpha = store.add_entrant("alpha", "a" * 64, "Ann", "1.0", "builtin:first", games, None)
        hostile = store.add_entrant(
            HOSTILE_NAME, "b" * 64, HOSTILE_AUTHOR, HOSTILE_LABEL, "builtin:random", games, None
        )
        gamma = store.add_entrant("gamma", "c" * 64, "Gus", "2.0", "builtin:random", games, None)
        bots = [alpha, hostile, gamma]
        names = {alpha: "alpha", hostile: HOSTILE_NAME, gamma: "gamma"}
        rng = random.Random(seed)
        ratings = LeagueRatings(league.env)
        counter = 0
        for batch in range(batches):
            planned: list[Planned] = []
            records = []
            for conf in league.config.games:
                for seats in conf.seats:
                    for _ in range(tables):
                        counter += 1
                        seated = [bots[(counter + i) % len(bots)] for i in range(seats)]
                        game_seed = rng.randrange(1 << 30)
                        played = play_local(
                            GAMES[conf.name],
                            game_seed,
                            [RandomPlayer(f"{game_seed}:{i}") for i in range(seats)],
                            conf.options,
                        )
                        match_id = f"m{counter:05d}"
                        faults = []
                        if hostile in seated and counter % 3 == 0:
                            seat = seated.index(hostile)
                            faults.append(
                                {
                                    "seat": seat,
                                    "step": min(2, len(played.replay.actions) - 1),
                                    "status": "crash",
                                    "message": "the bot exited with status 1 <b>",
                                    "stderr_tail": HOSTILE_STDERR,
                                }
                            )
                        debug = [(1, 0, HOSTILE_NOTE), (2, seats - 1, "thinking: row 3 is safe")]
                        planned.append(
                            Planned(
                                match_id,
                                batch,
                                len(planned),
                                conf.name,
                                len(planned),
                                0,
                                game_seed,
                                conf.options,
                                tuple(seated),
                            )
                        )
                        records.append(
                            record_of(
                                match_id,
                                conf.name,
                                game_seed,
                                dict(played.replay.options),
                                seated,
                                [names[b] for b in seated],
                                played.replay.actions,
                                played.state.result().to_json(),
                                faults,
                                debug,
                            )
                        )
            with store.transaction():
                store.add_batch(batch, BatchMode.UNIFORM, batch, planned)
            for plan, record in zip(planned, records, strict=True):
                store.record_match(record, plan.bots)
            ratings.rate_batch(store.outcomes(batch))
            with store.transaction():
                store.save_ratings(ratings.rows())
                store.set_meta("rated_batches", str(batch + 1))
        store.set_status(hostile, EntrantStatus.SUSPENDED, HOSTILE_REASON)
    return folder
