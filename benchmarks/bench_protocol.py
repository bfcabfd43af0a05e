"""How much the arena adds to a decision, and how many bot processes a league starts.

1. Per-decision overhead. The baseline is a raw round trip over a plain pipe: write a line,
   read the answer, with the *same* act lines (recorded from real matches) and the same
   minimal bot. Against it, in the same run, medians over repeated batches:
   a. the arena's protocol path: ``BotConnection.ask`` + ``collect`` (encode, drain stale lines,
      write with a deadline, wait with select, frame, decode, check id and action) -- the target
      of <= 1.5x applies here;
   b. the whole match loop: ``run_match`` wall time per decision of the process seat, Take 5
      rules included (seat 1 is ``builtin:first`` in-process, so its moves and the rules'
      work are charged to seat 0's decisions) -- for information.
2. Processes started for N matches: 2 workers (multiprocess), each with one BotPool for its
   share of the matches, four different process bots in rotating seats.

Run: /work/venv/bin/python benchmarks/bench_protocol.py [--matches 1000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import multiprocess

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.match import MatchSpec, run_match  # noqa: E402
from arena.runtime.botproc import Answer, LocalConnection, RunLimits, collect  # noqa: E402
from arena.runtime.manifest import BotKind, BotSpec, load_bot  # noqa: E402
from arena.runtime.pool import BotPool  # noqa: E402
from arena.runtime.wire import decode, encode  # noqa: E402

MINIMAL = ROOT / "benchmarks" / "minimal_bot.py"


class Tap:
    """An in-process seat that records the act messages a seat would receive."""

    name = version = "tap"

    def __init__(self) -> None:
        self.lines: list[bytes] = []

    def receive(self, message: Any) -> None:
        pass

    def act(self, message: Any) -> Any:
        self.lines.append(encode(message))
        return {"id": message["id"], "index": 0}


def recorded_acts(matches: int) -> list[bytes]:
    """Real act lines for seat 0 (playing index 0, like the minimal bot) vs builtin:first."""
    tap = Tap()
    bot = BotSpec("tap", BotKind.BUILTIN, "tap")
    with BotPool() as pool:
        for k in range(matches):
            pool.put(bot, 0, LocalConnection(tap, pool.limits))
            run_match(MatchSpec(f"bench-{k}", "take5", k, (bot, load_bot("builtin:first"))), pool)
    return tap.lines


def raw_round_trips(lines: list[bytes]) -> float:
    """Seconds per round trip: write a line, read the answer, over a plain pipe."""
    child = subprocess.Popen(
        [sys.executable, str(MINIMAL)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
    )
    assert child.stdin and child.stdout
    reader = child.stdout
    child.stdin.write(b'{"type":"hello","protocol":1}\n')
    reader.readline()
    begin = time.perf_counter()
    for line in lines:
        child.stdin.write(line)
        reader.readline()
    took = time.perf_counter() - begin
    child.stdin.close()
    child.wait()
    return took / len(lines)


def arena_decisions(pool: BotPool, matches: int, offset: int) -> float:
    """Seconds of run_match per decision of the process seat."""
    bots = (load_bot(str(MINIMAL)), load_bot("builtin:first"))
    decisions = 0
    begin = time.perf_counter()
    for k in range(matches):
        record = run_match(MatchSpec(f"bench-{k}", "take5", offset + k, bots), pool)
        decisions += int(record.decisions[0]["count"])
        assert not record.faults, record.faults
    return (time.perf_counter() - begin) / decisions


def protocol_path(connection: Any, messages: list[dict[str, Any]]) -> float:
    """Seconds per request through the arena's connection layer."""
    begin = time.perf_counter()
    for message in messages:
        connection.ask(dict(message), message["legal"], time.monotonic() + 5)
        (answer,) = collect([connection])
        assert isinstance(answer, Answer), answer
    return (time.perf_counter() - begin) / len(messages)


def in_process_actions(pool: BotPool, matches: int) -> float:
    """Seconds of run_match per action with two in-process seats: the loop and rules alone."""
    bots = (load_bot("builtin:first"), load_bot("builtin:first"))
    actions = 0
    begin = time.perf_counter()
    for k in range(matches):
        actions += len(run_match(MatchSpec(f"local-{k}", "take5", k, bots), pool).actions)
    return (time.perf_counter() - begin) / actions


def overhead(batches: int, matches: int) -> tuple[float, float, float, float]:
    lines = recorded_acts(matches)
    messages = [decode(line) for line in lines]
    raw, path, loop, local = [], [], [], []
    with BotPool() as pool:
        arena_decisions(pool, 2, 0)  # start the process outside the timing
        connection = pool.get(load_bot(str(MINIMAL)))
        for _ in range(batches):
            raw.append(raw_round_trips(lines))
            path.append(protocol_path(connection, messages))
            loop.append(arena_decisions(pool, matches, 0))
            local.append(in_process_actions(pool, matches))
    medians = (statistics.median(x) for x in (raw, path, loop, local))
    return tuple(medians)  # type: ignore[return-value]


def league_share(task: tuple[int, int]) -> tuple[int, int, float]:
    """One worker's share of a league: (processes started, matches played, seconds)."""
    first, count = task
    bots = [load_bot(str(ROOT / "bots" / b)) for b in ("random", "heuristic", "js-random")]
    bots.append(load_bot(str(MINIMAL)))
    begin = time.perf_counter()
    faults = 0
    with BotPool(RunLimits()) as pool:
        for k in range(first, first + count):
            seating = tuple(bots[(k + s) % 4] for s in range(4))
            record = run_match(MatchSpec(f"league-{k}", "take5", k, seating), pool)
            faults += len(record.faults)
        started = pool.started
    assert faults == 0, faults
    return started, count, time.perf_counter() - begin


def processes(matches: int, workers: int = 2) -> tuple[int, float]:
    share = matches // workers
    tasks = [
        (w * share, share + (matches % workers if w == workers - 1 else 0)) for w in range(workers)
    ]
    begin = time.perf_counter()
    with multiprocess.Pool(workers) as pool:
        results = pool.map(league_share, tasks, chunksize=1)
    return sum(r[0] for r in results), time.perf_counter() - begin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000, help="matches for the process count")
    parser.add_argument("--batches", type=int, default=7, help="timing batches (median)")
    parser.add_argument("--batch-matches", type=int, default=20, help="matches per timing batch")
    args = parser.parse_args()
    raw, path, loop, local = overhead(args.batches, args.batch_matches)
    started, seconds = processes(args.matches)
    rows = [
        ("raw pipe round trip, same act lines, same bot (median)", f"{raw * 1e6:.0f} µs"),
        ("arena protocol path per decision (median)", f"{path * 1e6:.0f} µs"),
        ("ratio protocol path / raw (target <= 1.5)", f"{path / raw:.2f}"),
        ("whole run_match per process decision, rules included", f"{loop * 1e6:.0f} µs"),
        ("ratio whole loop / raw", f"{loop / raw:.2f}"),
        ("run_match per action, both seats in-process (rules + loop)", f"{local * 1e6:.0f} µs"),
        (f"bot processes started for {args.matches} matches", f"{started}"),
        ("target: 4 bots x 2 workers", "8"),
        (f"wall time for {args.matches} matches, 2 workers", f"{seconds:.1f} s"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value:>10}")


if __name__ == "__main__":
    main()
