"""``arena check``: does a bot speak the protocol? Handshake, a few matches per game, timings,
and every fault explained with a hint on how to fix it."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena.games import GAMES, JSON
from arena.league.config import GameConfig
from arena.match import MatchRecord, MatchSpec, SeatFault, run_match
from arena.runtime.botproc import Fault, FaultKind, RunLimits
from arena.runtime.manifest import BotSpec, load_bot
from arena.runtime.pool import BotPool
from arena.runtime.usage import UsageSummary

HINTS: dict[FaultKind, str] = {
    FaultKind.START_FAILED: (
        "the command must start and keep running: try it by hand in the bot's folder "
        "(the stderr tail below shows what it printed)"
    ),
    FaultKind.STARTUP_TIMEOUT: (
        "answer hello at once, before any slow loading; flush stdout after each line "
        "(Python: print(..., flush=True); node: process.stdout.write)"
    ),
    FaultKind.BAD_HELLO: 'answer hello with one JSON object line such as {"name": "my-bot"}',
    FaultKind.TIMEOUT: (
        "answer every act within decision_ms (plus what is left of bank_ms) and flush stdout; "
        "end each answer with a newline"
    ),
    FaultKind.CRASH: (
        "keep reading stdin until bye or end of input; catch your own exceptions "
        "(see the stderr tail)"
    ),
    FaultKind.INVALID_JSON: (
        "write only protocol messages to stdout, one JSON object per line; "
        "put logs and debugging output on stderr"
    ),
    FaultKind.BAD_REPLY: 'answer act with {"id": <id>, "index": <int>} or {"id": <id>, "action": ...}',
    FaultKind.WRONG_ID: "copy the id of the act message you answer into your reply",
    FaultKind.ILLEGAL_ACTION: (
        "choose from legal only: an index 0..len(legal)-1, or a value equal to one element"
    ),
    FaultKind.OVERSIZE: "keep each line under the maximum line length (1 MiB); cut debug notes",
    FaultKind.RESOURCES: (
        "all your processes and threads together must stay under the league's caps "
        "(limits.cpu_seconds_per_match, limits.memory_mb_per_bot): stop helper processes "
        "and busy threads, and free memory you no longer need"
    ),
}


@dataclass
class GameCheck:
    """How a bot did in one game."""

    game: str
    records: list[MatchRecord] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    """The checked bot's seat in each record."""
    options: Mapping[str, JSON] = field(default_factory=dict)
    """The options the game was checked with (beyond these, the game's defaults)."""

    def faults(self) -> list[SeatFault]:
        return [f for r in self.records for f in r.faults]

    def own(self) -> list[tuple[MatchRecord, SeatFault]]:
        """The checked bot's faults (not its opponents'), each with the match it happened in."""
        return [
            (record, f)
            for record, seat in zip(self.records, self.seats, strict=True)
            for f in record.faults
            if f.seat == seat
        ]

    def own_faults(self) -> list[SeatFault]:
        return [f for _, f in self.own()]

    def table_sizes(self) -> list[int]:
        return sorted({len(r.seats) for r in self.records})

    def decision_times(self) -> tuple[int, float, float]:
        """(decisions, mean seconds, max seconds) over the checked bot's seats."""
        count = total = worst = 0.0
        for record, seat in zip(self.records, self.seats, strict=True):
            stats = record.decisions[seat]
            count += stats["count"]
            total += stats["total_s"]
            worst = max(worst, stats["max_s"])
        return int(count), (total / count if count else 0.0), worst

    def usage(self) -> UsageSummary | None:
        """The checked bot's CPU seconds and peak memory per match, over all its processes
        (None if none of its matches was measured)."""
        return UsageSummary.of(
            record.usage[seat] if seat < len(record.usage) else None
            for record, seat in zip(self.records, self.seats, strict=True)
        )


@dataclass
class CheckReport:
    bot: BotSpec
    hello: Fault | tuple[str, str, float]
    """The start-up fault, or (name, version, seconds to start and answer hello)."""
    games: list[GameCheck] = field(default_factory=list)
    unknown_games: list[str] = field(default_factory=list)
    not_played: list[str] = field(default_factory=list)
    """Games the bot claims that the tables given to check_bot leave out."""

    @property
    def passed(self) -> bool:
        if isinstance(self.hello, Fault) or not self.games:
            return False
        return not any(g.own_faults() for g in self.games)


def changed_options(game: str, options: Mapping[str, JSON]) -> str:
    """The options that differ from the game's defaults, as ``name=value, ...`` ("" if none)."""
    defaults = GAMES[game].validate_options()
    return ", ".join(
        f"{k}={v}" for k, v in sorted(options.items()) if k not in defaults or defaults[k] != v
    )


def default_table(game: str) -> GameConfig:
    """Three seats (or the nearest count the game allows), default options."""
    spec = GAMES[game]
    return GameConfig(game, (max(spec.min_seats, min(3, spec.max_seats)),), {})


def check_bot(
    bot: BotSpec,
    matches: int = 3,
    limits: RunLimits | None = None,
    tables: Sequence[GameConfig] | None = None,
) -> CheckReport:
    """Greet ``bot``, then play ``matches`` matches per table size of every known game it claims
    against ``builtin:random``, with the bot in a different seat each time.

    ``tables`` (a league's games: table sizes and options) limits the check to those games, at
    those sizes, with those options; without it each game is checked at three seats with its
    default options.
    """
    opponent = load_bot("builtin:random")
    chosen = {t.name: t for t in tables} if tables is not None else None
    with BotPool(limits) as pool:
        began = time.monotonic()
        live = pool.get(bot)
        if isinstance(live, Fault):
            return CheckReport(bot, live)
        report = CheckReport(bot, (live.name, live.version, time.monotonic() - began))
        claimed = bot.games if bot.games is not None else tuple(GAMES)
        report.unknown_games = [g for g in claimed if g not in GAMES]
        for game in (g for g in claimed if g in GAMES):
            if chosen is not None and game not in chosen:
                report.not_played.append(game)
                continue
            table = chosen[game] if chosen is not None else default_table(game)
            check = GameCheck(game, options=dict(table.options))
            for seats in table.seats:
                for _ in range(matches):
                    k = len(check.records)
                    seat = k % seats
                    bots = tuple(bot if s == seat else opponent for s in range(seats))
                    spec = MatchSpec(f"check-{game}-{k}", game, k, bots, table.options)
                    check.records.append(run_match(spec, pool))
                    check.seats.append(seat)
            report.games.append(check)
    return report
