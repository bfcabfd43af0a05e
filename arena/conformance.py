"""``arena check``: does a bot speak the protocol? Handshake, a few matches per game, timings,
and every fault explained with a hint on how to fix it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from arena.botproc import Fault, FaultKind, RunLimits
from arena.bots import BotSpec, load_bot
from arena.games import GAMES
from arena.match import MatchRecord, MatchSpec, SeatFault, run_match
from arena.pool import BotPool

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
}


@dataclass
class GameCheck:
    """How a bot did in one game."""

    game: str
    records: list[MatchRecord] = field(default_factory=list)

    def faults(self) -> list[SeatFault]:
        return [f for r in self.records for f in r.faults]

    def decision_times(self, seats: tuple[int, ...]) -> tuple[int, float, float]:
        """(decisions, mean seconds, max seconds) over the checked bot's seats."""
        count = total = worst = 0.0
        for record, seat in zip(self.records, seats, strict=False):
            stats = record.decisions[seat]
            count += stats["count"]
            total += stats["total_s"]
            worst = max(worst, stats["max_s"])
        return int(count), (total / count if count else 0.0), worst


@dataclass
class CheckReport:
    bot: BotSpec
    hello: Fault | tuple[str, str, float]
    """The start-up fault, or (name, version, seconds to start and answer hello)."""
    games: list[GameCheck] = field(default_factory=list)
    unknown_games: list[str] = field(default_factory=list)
    seats: tuple[int, ...] = ()
    """The checked bot's seat in each match of a game (the same pattern for every game)."""

    @property
    def passed(self) -> bool:
        if isinstance(self.hello, Fault) or not self.games:
            return False
        return not any(g.faults() for g in self.games)


def check_bot(bot: BotSpec, matches: int = 3, limits: RunLimits | None = None) -> CheckReport:
    """Greet ``bot``, then play ``matches`` matches of every known game it claims against
    ``builtin:random``, with the bot in a different seat each time."""
    opponent = load_bot("builtin:random")
    with BotPool(limits) as pool:
        began = time.monotonic()
        live = pool.get(bot)
        if isinstance(live, Fault):
            return CheckReport(bot, live)
        report = CheckReport(bot, (live.name, live.version, time.monotonic() - began))
        claimed = bot.games if bot.games is not None else tuple(GAMES)
        report.unknown_games = [g for g in claimed if g not in GAMES]
        for game in (g for g in claimed if g in GAMES):
            spec = GAMES[game]
            seats = max(spec.min_seats, min(3, spec.max_seats))
            check = GameCheck(game)
            placed = []
            for k in range(matches):
                seat = k % seats
                bots = tuple(bot if s == seat else opponent for s in range(seats))
                check.records.append(run_match(MatchSpec(f"check-{game}-{k}", game, k, bots), pool))
                placed.append(seat)
            report.seats = tuple(placed)
            report.games.append(check)
    return report
