"""Protocol fuzzing through real bot processes: over 10,000 seeded mutated replies and hellos.

``tests/bots/fuzz.py`` answers each request with mutations of a valid reply (seeded from the
match id, seat and step) and counts every line it writes on its stderr. Matches of every game
are played until the bots' counts add up to 10,000; then a hundred processes each answer
``hello`` with a mutation of their own. The arena must never raise, every fault must be a typed
:class:`FaultKind` with a short message, and every record must survive the store's encoding.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path

import orjson
import pytest

from arena.games import JSON
from arena.match import MatchRecord, MatchSpec, run_match
from arena.runtime.botproc import BotConnection, Connection, Fault, FaultKind, RunLimits, TimeLimits
from arena.runtime.manifest import BotSpec, load_bot
from arena.runtime.pool import BotPool

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600), pytest.mark.usefixtures("process_bots")]

ROOT = Path(__file__).resolve().parents[2]
FUZZ = ROOT / "tests" / "bots" / "fuzz.py"
SEED = 13
TARGET = 10_000
HELLOS = 100
MAX_MATCHES = 400
"""Far more than the target needs (some 60 mutations a fuzz seat a match, so about 90
matches): a bound, not a goal."""
LIMITS = RunLimits(time=TimeLimits(decision=0.2, bank=0.3, startup=10.0, grace=0.1))
TABLES: list[tuple[str, dict[str, JSON]]] = [
    ("take5", {}),
    ("ten", {}),
    ("phase10", {"max_hands": 1, "max_turns": 12}),
]
COUNT = re.compile(r"fuzz-count (\d+)")


class CountingPool(BotPool):
    """A pool that remembers every bot connection it hands out, to read their stderr."""

    def __init__(self, limits: RunLimits) -> None:
        super().__init__(limits)
        self.handed: dict[int, Connection] = {}

    def get(self, bot: BotSpec, slot: int = 0) -> Connection | Fault:
        got = super().get(bot, slot)
        if isinstance(got, BotConnection):
            self.handed[id(got)] = got
        return got

    def mutations(self) -> int:
        """The lines the fuzz processes said they wrote: each one's last running count."""
        return sum(
            int(found[-1]) if (found := COUNT.findall(c.stderr_tail())) else 0
            for c in self.handed.values()
        )


def checked(record: MatchRecord) -> MatchRecord:
    """Every fault is typed and short; the record round-trips through the store's encoding."""
    for fault in record.faults:
        assert isinstance(fault.kind, FaultKind)
        assert isinstance(fault.message, str) and len(fault.message) < 2000, fault.message
    text = orjson.dumps(record.to_json(), option=orjson.OPT_SORT_KEYS)
    again = MatchRecord.from_json(orjson.loads(text))
    assert orjson.dumps(again.to_json(), option=orjson.OPT_SORT_KEYS) == text
    return again


def test_ten_thousand_mutated_replies_and_hellos_never_break_the_arena() -> None:
    fuzz = load_bot(str(FUZZ))
    other = load_bot("builtin:random")
    kinds: Counter[FaultKind] = Counter()
    with CountingPool(LIMITS) as pool:
        matches = 0
        while pool.mutations() < TARGET:
            assert matches < MAX_MATCHES, f"only {pool.mutations()} mutations counted"
            game, options = TABLES[matches % len(TABLES)]
            spec = MatchSpec(
                f"fuzz{SEED}-{game}-{matches}", game, SEED + matches, (fuzz, other, fuzz), options
            )
            record = checked(run_match(spec, pool))
            kinds.update(f.kind for f in record.faults)
            assert record.replay().play().is_over()
            matches += 1
        replies = pool.mutations()

        hello_kinds: Counter[FaultKind | None] = Counter()
        for k in range(HELLOS):
            # A bot of its own (source) per hello, so each one is a fresh process.
            greeter = dataclasses.replace(
                fuzz, source=f"{fuzz.source}#{k}", command=(*fuzz.command, f"hello{SEED}-{k}")
            )
            got = pool.get(greeter)
            hello_kinds[got.kind if isinstance(got, Fault) else None] += 1
            if isinstance(got, Fault):
                assert got.kind in (
                    FaultKind.BAD_HELLO,
                    FaultKind.START_FAILED,
                    FaultKind.OVERSIZE,
                ), got
                assert len(got.message) < 2000
            elif k % 4 == 0:  # what a hello said reaches a record: it must encode too
                spec = MatchSpec(f"hello-{k}", "take5", k, (greeter, other), {"max_rounds": 1})
                checked(run_match(spec, pool))
            pool.discard(greeter)
        total = pool.mutations()

    assert replies >= TARGET and total >= replies + HELLOS // 2
    # The mutations reach every kind of fault a reply can have, and most hellos are judged.
    assert set(kinds) >= {
        FaultKind.INVALID_JSON,
        FaultKind.BAD_REPLY,
        FaultKind.WRONG_ID,
        FaultKind.ILLEGAL_ACTION,
        FaultKind.OVERSIZE,
        FaultKind.CRASH,
        FaultKind.TIMEOUT,
    }, kinds
    assert hello_kinds[None] and hello_kinds[FaultKind.BAD_HELLO], hello_kinds
