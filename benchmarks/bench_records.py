"""Stored match records: bytes per match as JSON and as stored (compressed), and what the parent
pays per record to commit it, measured side by side on the same records.

Matches are played between in-process random agents through the real match loop (records as a
league stores them, decisions and debug included). For each game and table size it reports the
mean JSON size, the mean stored size and their ratio, the median time to pack a record (the
worker's cost: its head, and the body compressed) and the median time the parent spends on it
now (decode the head only) beside decoding the whole record (what the parent did before).

    python -m benchmarks.bench_records [--matches 40]
"""

from __future__ import annotations

import argparse
import statistics
import time

import orjson

from arena import native
from arena.league.store import pack_record
from arena.match import MatchSpec, run_match
from arena.runtime.manifest import load_bot
from arena.runtime.pool import BotPool

TABLES = (("take5", 4), ("ten", 3), ("phase10", 3))


def timed(fn: object, runs: int = 5) -> float:
    """Median seconds of ``fn()`` over ``runs`` calls."""
    assert callable(fn)
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40, help="matches per game")
    args = parser.parse_args()
    print(native.describe())
    random = load_bot("builtin:random")
    print(
        f"{'game':<8} {'seats':>5} {'JSON KiB':>9} {'stored KiB':>10} {'ratio':>6}"
        f" {'pack ms':>8} {'parent head ms':>14} {'parent whole ms':>15}"
    )
    json_total = stored_total = count = 0
    with BotPool() as pool:
        for game, seats in TABLES:
            records = [
                run_match(MatchSpec(f"r{k}", game, k, (random,) * seats), pool).to_json()
                for k in range(args.matches)
            ]
            plain = [orjson.dumps(r, option=orjson.OPT_SORT_KEYS) for r in records]
            packed = [pack_record(r) for r in records]
            n = len(records)
            pack = timed(lambda rs=records: [pack_record(r) for r in rs]) / n
            head = timed(lambda ps=packed: [orjson.loads(p.head)["match_id"] for p in ps]) / n
            whole = timed(lambda bs=plain: [orjson.loads(b)["match_id"] for b in bs]) / n
            size = sum(map(len, plain)) / len(plain)
            stored = sum(len(p.body) for p in packed) / len(packed)
            json_total += sum(map(len, plain))
            stored_total += sum(len(p.body) for p in packed)
            count += len(records)
            print(
                f"{game:<8} {seats:>5} {size / 1024:>9.1f} {stored / 1024:>10.1f}"
                f" {size / stored:>6.1f} {pack * 1000:>8.3f} {head * 1000:>14.4f}"
                f" {whole * 1000:>15.4f}"
            )
    print(
        f"all games: mean stored record {stored_total / count / 1024:.1f} KiB per match"
        f" (JSON {json_total / count / 1024:.1f} KiB, {json_total / stored_total:.1f}x smaller;"
        " target <= 6 KiB)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
