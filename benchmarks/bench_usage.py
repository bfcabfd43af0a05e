"""Cost of the usage sampler: one pass over ``/proc`` and the sampler thread's share of a core.

Starts ``--bots`` idle processes (``sleep``), each in a session of its own like a bot, tracks
them, and measures (1) one :meth:`~arena.runtime.usage.Sampler.sample` call, median over ``--runs``
calls, and (2) the arena process's CPU time while the sampler thread runs alone at its default
interval for ``--seconds`` (the main thread sleeps), as a share of one core.

    python -m benchmarks.bench_usage [--bots 8] [--runs 200] [--seconds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time

from arena.runtime.usage import Budget, Sampler, Tracker


def processes_on_machine() -> int:
    return sum(1 for name in os.listdir("/proc") if name.isdigit())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    children = [
        subprocess.Popen(["sleep", "600"], start_new_session=True) for _ in range(args.bots)
    ]
    sampler = Sampler(Budget().sample_seconds)
    trackers = [Tracker(c.pid, None, sampler) for c in children]
    try:
        wall, cpu = [], []
        for _ in range(args.runs):
            w, c = time.perf_counter(), time.process_time()
            sampler.sample()
            wall.append(time.perf_counter() - w)
            cpu.append(time.process_time() - c)
        before_samples = sampler.samples
        began_cpu, began = time.process_time(), time.perf_counter()
        time.sleep(args.seconds)
        share = (time.process_time() - began_cpu) / (time.perf_counter() - began)
        per_second = (sampler.samples - before_samples) / args.seconds
        print(f"processes on the machine: {processes_on_machine()}, tracked bots: {args.bots}")
        print(
            f"one sample: {statistics.median(wall) * 1000:.3f} ms wall, "
            f"{statistics.median(cpu) * 1000:.3f} ms CPU (median of {args.runs})"
        )
        print(
            f"sampler thread at {Budget().sample_seconds * 1000:.0f} ms: {per_second:.1f} "
            f"samples/s, {share * 100:.2f}% of one core"
        )
    finally:
        for tracker in trackers:
            tracker.stop(kill=False)
        for child in children:
            child.kill()
            child.wait()


if __name__ == "__main__":
    main()
