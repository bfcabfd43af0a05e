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
* the rate in matches per second, and the ratio of the big league's rate to the small one's;
* the CPU per match of the whole machine (bots inside bubblewrap are reaped there, so only the
  machine's count has their CPU), and per game the mean seconds and decisions of a match;
* the decisions per second, and their ratio.

The big league seats each batch in groups (``schedule.group_size``, by default the cap) so a
worker plays a group's matches with its bots alive; ``--group 0`` shows the cost without groups
(a process start for most seats once the field outgrows the cap).

The entrants are copies of the bundled heuristic bot, each under a name of its own with its own
content (so no two entrants share a content hash, a cache entry or a process). Copies of one bot
make every table the same mix, so both leagues play games of the same length (the per-game
decisions show it) and the ratio of their rates is the arena's own. ``--kinds random heuristic``
alternates the two bundled bots instead: their games' length then depends on how many random
bots a table seats (a Phase 10 game of four random bots is several times longer), and how the
groups of the big league happen to fall changes the work per match (2026-12-06, seed 15: 1,566
decisions a Phase 10 match with 100 entrants against 1,138 with 8); the decisions per second
compare that work.

    python -m benchmarks.bench_scale [--entrants 8 100] [--matches 2000] [--cap 12]
        [--group N] [--rounds 4] [--workers 2] [--kinds heuristic [random]] [--adaptive]
        [--repeats N] [--keep DIR] [--decision S] [--bank S] [--startup S]

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
import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.league.config import Executor, Schedule, default_config
from arena.league.core import League
from arena.run.local import run_league
from arena.runtime.botproc import TimeLimits

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("random", "heuristic")
MIB = 2**20


def entrant_folders(where: Path, count: int, kinds: Sequence[str] = KINDS) -> list[Path]:
    """``count`` bot folders, copies of the bundled bots ``kinds`` in turn, each with a name and
    content of its own."""
    folders = []
    for n in range(count):
        kind = kinds[n % len(kinds)]
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
    adaptive: bool = False,
) -> Path:
    config = default_config(seed=15)
    config = replace(
        config,
        workers=workers,
        limits=limits,
        schedule=replace(
            Schedule(),
            max_matches=matches,
            group_size=group,
            rounds_per_batch=rounds,
            adaptive=adaptive,
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
    """CPU of the workers and of the bot processes they reap themselves, per match (a bot under
    bubblewrap is reaped inside its sandbox, so its CPU is not in this figure)."""
    machine_ms: float
    """CPU of the whole machine per match (``/proc/stat``: everything, bots in sandboxes too,
    and whatever else runs)."""
    busy: float
    """The share of the machine's cores that was busy during the run."""


def by_game(folder: Path) -> tuple[str, int]:
    """Per game: matches, mean seconds a match, mean decisions a match and mean heuristic seats
    a match, from the stored records (to compare what the two leagues played); and the
    decisions of all the matches."""
    totals: dict[str, list[float]] = {}
    with League.open(folder) as lg:
        for record in lg.store.records():
            row = totals.setdefault(record["game"], [0, 0.0, 0, 0])
            row[0] += 1
            row[1] += float(record.get("seconds", 0.0))
            row[2] += len(record["actions"])
            row[3] += sum("heuristic" in str(seat.get("name", "")) for seat in record["seats"])
    text = "; ".join(
        f"{game} {int(n)} matches, {s / n * 1e3:.0f} ms, {d / n:.0f} decisions,"
        f" {h / n:.1f} heuristic seats"
        for game, (n, s, d, h) in sorted(totals.items())
    )
    return text, int(sum(row[2] for row in totals.values()))


def machine_busy() -> float:
    """Seconds of CPU the whole machine has spent busy since boot (all cores)."""
    with open("/proc/stat") as f:
        ticks = [int(v) for v in f.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def play(folder: Path, workers: int) -> Played:
    with League.open(folder) as lg, Watch() as watch:
        thread = time.thread_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        machine = machine_busy()
        report = run_league(lg, workers, progress=None)
        machine = machine_busy() - machine
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
        machine * per,
        machine / max(report.seconds * (os.cpu_count() or 1), 1e-9),
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
        "--kinds",
        nargs="+",
        choices=KINDS,
        default=["heuristic"],
        help="the bundled bots the entrants copy, in turn (default: the heuristic alone, so every"
        " table is the same mix)",
    )
    parser.add_argument(
        "--adaptive",
        action="store_true",
        help="schedule.adaptive (default off, as in a league): the two leagues then seat"
        " different mixes of tables, and their games differ in length",
    )
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
        "--repeats",
        type=int,
        default=1,
        help="play the leagues this many times, in turn (ABBA order); the median ratio",
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
    rates: dict[int, list[float]] = {count: [] for count in args.entrants}
    decided: dict[int, list[float]] = {count: [] for count in args.entrants}
    with contextlib.ExitStack() as stack:
        if args.keep is not None:
            args.keep.mkdir(parents=True)
        tmp = args.keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-")))
        bots = entrant_folders(Path(tmp) / "bots", max(args.entrants), args.kinds)
        for repeat in range(args.repeats):
            # ABBA: the order alternates, so that a machine getting slower or faster over the
            # run weighs on both leagues alike.
            order = args.entrants if repeat % 2 == 0 else args.entrants[::-1]
            for count in order:
                name = f"league-{count}" if args.repeats == 1 else f"league-{count}-{repeat}"
                folder = build(
                    Path(tmp) / name,
                    bots[:count],
                    args.matches,
                    args.cap,
                    args.cap if args.group is None else args.group,
                    args.rounds,
                    args.workers,
                    limits,
                    adaptive=args.adaptive,
                )
                got = play(folder, args.workers)
                report(count, got)
                games, decisions = by_game(folder)
                rates[count].append(got.rate)
                decided[count].append(decisions * got.rate / max(got.played, 1))
                print(f"  by game: {games}; {decided[count][-1]:.0f} decisions/s", flush=True)
    small, big = min(args.entrants), max(args.entrants)
    if small != big:
        ratios = [b / s for b, s in zip(rates[big], rates[small], strict=True)]
        work = [b / s for b, s in zip(decided[big], decided[small], strict=True)]
        print(
            f"rate with {big} entrants / rate with {small}: {listed(ratios)} (target >= 0.8);"
            f" live bots capped at {args.cap} per worker, groups of"
            f" {args.cap if args.group is None else args.group}, {args.rounds} rounds per batch,"
            f" {args.workers} workers"
        )
        print(
            f"decisions per second with {big} entrants / with {small}: {listed(work)} (the same"
            " ratio for work of any length a match)"
        )


def listed(ratios: Sequence[float]) -> str:
    """Each pair's ratio, and their median when there are several."""
    each = ", ".join(f"{r:.2f}" for r in ratios)
    return each if len(ratios) == 1 else f"{each}; median {statistics.median(ratios):.2f}"


def report(count: int, got: Played) -> None:
    size, processes = got.watch.peak()
    print(
        f"entrants {count}: {got.played} matches at {got.rate:.1f}/s; peak memory (PSS,"
        f" arena + bots) {size / MIB:.0f} MiB with {processes} processes; per quarter of"
        f" the run {got.watch.quarters()} MiB; at the peak {got.watch.breakdown()} MiB;"
        f" bot processes started {got.started}; CPU per match: driver"
        f" {got.driver_ms:.2f} ms, workers and bots {got.children_ms:.1f} ms, whole machine"
        f" {got.machine_ms:.1f} ms ({got.busy:.0%} of its cores busy)",
        flush=True,
    )


if __name__ == "__main__":
    main()
