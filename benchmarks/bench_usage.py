"""Cost of the usage sampler: one pass over ``/proc`` and the sampler thread's share of a core.

Starts ``--bots`` idle processes (``sleep``), each in a session of its own like a bot, tracks
them, and measures (1) one :meth:`~arena.runtime.usage.Sampler.sample` call, median over ``--runs``
calls, and (2) the arena process's CPU time while the sampler thread runs alone at its default
interval for ``--seconds`` (the main thread sleeps), as a share of one core. Then (3) 4 bots as
``arena play`` starts them (``benchmarks/minimal_bot.py`` in the arena's sandbox, bubblewrap
where installed: three processes a bot), side by side in interleaved runs: a full sample against
the light sample that ends a match (:meth:`~arena.runtime.usage.Sampler.refresh`: only the bots'
known processes read again, the sandbox's own not even those), CPU per call, medians.

    python -m benchmarks.bench_usage [--bots 8] [--runs 200] [--seconds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path

from arena.runtime.usage import Budget, Sampler, Tracker, shared_sampler

MINIMAL = Path(__file__).resolve().parent / "minimal_bot.py"


def cpu_per_call(call: object, calls: int) -> float:
    """CPU seconds per call of ``call()``."""
    assert callable(call)
    began = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - began) / calls


def end_of_match_row(runs: int) -> None:
    """(3): full sample against the light end-of-match sample with 4 sandboxed bots."""
    from arena.cli.play import PlayRun
    from arena.runtime.manifest import load_bot

    bots = tuple(load_bot(str(MINIMAL)) for _ in range(4))
    with open(os.devnull, "w") as null, PlayRun("take5", bots, out=null) as run:
        run.play(0)  # start the bots
        sampler = shared_sampler()
        trackers = list(sampler._trackers)
        full, light = [], []
        for _ in range(runs):
            full.append(cpu_per_call(sampler.sample, 200))
            light.append(cpu_per_call(lambda: sampler.refresh(trackers), 200))
        procs = sum(len(t.pids) for t in trackers)
        wrappers = sum(len(t.wrappers) for t in trackers)
    sandbox = run.sandbox["method"] if run.sandbox else "none"
    print(
        f"4 bots in the sandbox ({sandbox}; {procs} processes, {wrappers} of them the "
        f"sandbox's): full sample {statistics.median(full) * 1e6:.0f} µs CPU, end-of-match "
        f"sample {statistics.median(light) * 1e6:.0f} µs, ratio "
        f"{statistics.median(a / b for a, b in zip(light, full, strict=True)):.2f} "
        f"(median of {runs} interleaved runs of 200)"
    )


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
    end_of_match_row(max(3, args.runs // 20))


if __name__ == "__main__":
    main()
