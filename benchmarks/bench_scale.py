"""Big leagues on one machine: memory and rate with many entrants (issue 15).

Builds two leagues side by side that differ only in their number of entrants (default 8 and
100), each a real league of real bot processes over the three games at four seats, played on 2
local workers with the league's cap on live bot processes per worker (``executor.live_bots``),
and measures while it plays:

* the memory of the whole run: the arena (this process, its workers) and every bot with its
  sandbox processes, summed as PSS (proportional set size: a shared page counts once in the sum,
  split between its sharers) from ``/proc/PID/smaps_rollup``, sampled twice a second; the peak,
  and the peaks over each quarter of the run (flat quarters show the memory does not grow
  with the number of matches played);
* the number of processes alive at the peak;
* the rate in matches per second, and the ratio of the big league's rate to the small one's.

The big league seats each batch in groups (``schedule.group_size``, by default the cap) so a
worker plays a group's matches with its bots alive; ``--group 0`` shows the cost without groups
(a process start for most seats once the field outgrows the cap).

The entrants are copies of the bundled random and heuristic bots, each under a name of its own
with its own content (so no two entrants share a content hash, a cache entry or a process).

    python -m benchmarks.bench_scale [--entrants 8 100] [--matches 2000] [--cap 12]
        [--group N] [--rounds 4] [--workers 2] [--keep DIR] [--decision S] [--bank S]
        [--startup S]

The issue's full size is ``--entrants 100 --matches 100000`` (about three hours on 2 cores at
9 matches per second); ``--keep`` keeps the league (to render its site afterwards), and a long
run that shares the machine (``nice -n 19``) may want looser time limits (``--bank``).
Targets (issue 15): peak memory under 2 GiB in total; rate with 100 entrants at least 0.8 of
the rate with 8.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from arena.league.config import Executor, Schedule, default_config
from arena.league.core import League
from arena.run.local import run_league
from arena.runtime.botproc import TimeLimits

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("random", "heuristic")
MIB = 2**20


def entrant_folders(where: Path, count: int) -> list[Path]:
    """``count`` bot folders, copies of the bundled bots, each with a name and content of its
    own."""
    folders = []
    for n in range(count):
        kind = KINDS[n % len(KINDS)]
        folder = where / f"{kind}-{n:03d}"
        shutil.copytree(ROOT / "bots" / kind, folder, ignore=shutil.ignore_patterns("__pycache__"))
        manifest = folder / "bot.toml"
        text = manifest.read_text().replace(f'name = "{kind}"', f'name = "{kind}-{n:03d}"', 1)
        manifest.write_text(text)
        (folder / "entrant.txt").write_text(f"entrant {n}\n")
        folders.append(folder)
    return folders


def build(
    folder: Path,
    bots: list[Path],
    matches: int,
    cap: int,
    group: int,
    rounds: int,
    workers: int,
    limits: TimeLimits,
) -> Path:
    config = default_config(seed=15)
    config = replace(
        config,
        workers=workers,
        limits=limits,
        schedule=replace(
            Schedule(), max_matches=matches, group_size=group, rounds_per_batch=rounds
        ),
        executor=replace(Executor(), live_bots=cap),
    )
    League.init(folder, config)
    with League.open(folder) as lg:
        for bot in bots:
            lg.submit(str(bot), check=False)
    return folder


# -- memory of a process tree -----------------------------------------------------------------


def children_map() -> dict[int, list[int]]:
    """Every process's children, from ``/proc/PID/stat``."""
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        parent = int(stat[stat.rindex(b")") + 2 :].split()[1])
        tree.setdefault(parent, []).append(int(name))
    return tree


def descendants(root: int) -> list[int]:
    tree = children_map()
    found, todo = [root], [root]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def pss(pid: int) -> int:
    """A process's proportional set size in bytes (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Watch:
    """Samples the memory of this process and all its descendants in a thread."""

    def __init__(self, interval: float = 0.5) -> None:
        self.interval = interval
        self.samples: list[tuple[float, int, int]] = []  # (time, bytes, processes)
        self.roles: list[tuple[int, int, int]] = []  # (parent, workers, all) bytes
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        me = os.getpid()
        while not self.stopping.is_set():
            tree = children_map()
            workers = tree.get(me, [])
            pids = descendants(me)
            sizes = {p: pss(p) for p in pids}
            self.samples.append((time.monotonic(), sum(sizes.values()), len(pids)))
            in_workers = sum(sizes.get(w, 0) for w in workers)
            self.roles.append((sizes.get(me, 0), in_workers, sum(sizes.values())))
            self.stopping.wait(self.interval)

    def breakdown(self) -> str:
        """Where the memory was at the peak: the parent, its worker processes, the bots (with
        their sandboxes), in MiB."""
        _, index = max((s[1], k) for k, s in enumerate(self.samples))
        parent, workers, total = self.roles[index]
        return (
            f"parent {parent // MIB}, workers {workers // MIB},"
            f" bots and sandboxes {(total - parent - workers) // MIB}"
        )

    def __enter__(self) -> Watch:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join()

    def peak(self) -> tuple[int, int]:
        """(peak bytes, processes at that moment)."""
        _, size, count = max(self.samples, key=lambda s: s[1])
        return size, count

    def quarters(self) -> list[int]:
        """The peak bytes in each quarter of the run, in MiB."""
        if not self.samples:
            return []
        start, end = self.samples[0][0], self.samples[-1][0]
        span = max(end - start, 1e-9)
        peaks = [0, 0, 0, 0]
        for moment, size, _ in self.samples:
            quarter = min(3, int(4 * (moment - start) / span))
            peaks[quarter] = max(peaks[quarter], size)
        return [p // MIB for p in peaks]


@dataclass(frozen=True)
class Played:
    rate: float
    """Matches per second."""
    played: int
    watch: Watch
    started: int
    """Bot processes started."""
    driver_ms: float
    """CPU of the driver's thread per match (planning, rating, storing)."""
    children_ms: float
    """CPU of the workers and every bot process per match (load-independent, unlike the rate)."""


def play(folder: Path, workers: int) -> Played:
    with League.open(folder) as lg, Watch() as watch:
        thread = time.thread_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        report = run_league(lg, workers, progress=None)
        thread = time.thread_time() - thread
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    per = 1e3 / max(report.played, 1)
    return Played(
        report.rate,
        report.played,
        watch,
        report.processes_started,
        thread * per,
        spent * per,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, nargs="+", default=[8, 100])
    parser.add_argument("--matches", type=int, default=2000, help="matches per league")
    parser.add_argument("--cap", type=int, default=12, help="live bot processes per worker")
    parser.add_argument(
        "--group", type=int, default=None, help="schedule.group_size (default: the cap; 0: none)"
    )
    parser.add_argument("--rounds", type=int, default=4, help="schedule.rounds_per_batch")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--keep", type=Path, default=None, help="Build the leagues in this new folder and keep them"
    )
    parser.add_argument(
        "--decision", type=float, default=None, help="limits.decision (default: the league's)"
    )
    parser.add_argument(
        "--bank", type=float, default=None, help="limits.bank (default: the league's)"
    )
    parser.add_argument(
        "--startup", type=float, default=None, help="limits.startup (default: the league's)"
    )
    args = parser.parse_args()
    limits = default_config(seed=15).limits
    limits = replace(
        limits,
        decision=limits.decision if args.decision is None else args.decision,
        bank=limits.bank if args.bank is None else args.bank,
        startup=limits.startup if args.startup is None else args.startup,
    )
    rates: dict[int, float] = {}
    with contextlib.ExitStack() as stack:
        if args.keep is not None:
            args.keep.mkdir(parents=True)
        tmp = args.keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-")))
        bots = entrant_folders(Path(tmp) / "bots", max(args.entrants))
        for count in args.entrants:
            folder = build(
                Path(tmp) / f"league-{count}",
                bots[:count],
                args.matches,
                args.cap,
                args.cap if args.group is None else args.group,
                args.rounds,
                args.workers,
                limits,
            )
            got = play(folder, args.workers)
            rates[count] = got.rate
            size, processes = got.watch.peak()
            print(
                f"entrants {count}: {got.played} matches at {got.rate:.1f}/s; peak memory (PSS,"
                f" arena + bots) {size / MIB:.0f} MiB with {processes} processes; per quarter of"
                f" the run {got.watch.quarters()} MiB; at the peak {got.watch.breakdown()} MiB;"
                f" bot processes started {got.started}; CPU per match: driver"
                f" {got.driver_ms:.2f} ms, workers and bots {got.children_ms:.1f} ms",
                flush=True,
            )
    small, big = min(args.entrants), max(args.entrants)
    if small != big:
        print(
            f"rate with {big} entrants / rate with {small}: {rates[big] / rates[small]:.2f}"
            f" (target >= 0.8); live bots capped at {args.cap} per worker, groups of"
            f" {args.cap if args.group is None else args.group}, {args.rounds} rounds per batch,"
            f" {args.workers} workers"
        )


if __name__ == "__main__":
    main()
