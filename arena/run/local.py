"""Running a league on this machine: N worker processes, each with its own bot pool.

The parent plans, dispatches chunks of matches to a ``multiprocess`` pool, and is the only
writer of the store: each record is committed as it arrives. Workers keep their bot processes
alive across matches (one :class:`~arena.runtime.pool.BotPool` per worker, made in the initializer and
closed when the worker exits, however it exits); with ``schedule.fresh_processes`` each match
gets fresh processes instead.

Ctrl-C (or SIGTERM) stops the workers and their bots; the next run resumes from the store.
Workers ignore SIGINT so that only the parent decides how to stop.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import multiprocess
import multiprocess.util
import orjson

from arena.league.core import League
from arena.league.rating import LeagueRatings
from arena.league.store import Planned
from arena.match import MatchSpec, run_match
from arena.runtime.botproc import RunLimits
from arena.runtime.manifest import BotSpec
from arena.runtime.pool import BotPool

_POOL: BotPool | None = None
_MATCH_POOL: BotPool | None = None
"""The per-match pool while a match runs with fresh processes (for the SIGTERM clean-up)."""
_FRESH = False
_LIMITS: RunLimits | None = None


def _children() -> list[int]:
    """This process's direct children (the bot processes, or their sandbox tool)."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(entry))
    return found


def _stop_worker(signum: int, frame: object) -> None:
    """SIGTERM from the parent (Ctrl-C, or an error): kill every bot now and exit.

    No exception is raised into whatever the worker was doing (it may hold a lock that the
    orderly close would need); each bot runs in its own process group, which is killed whole.
    """
    for child in _children():
        with contextlib.suppress(OSError):
            os.killpg(child, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)
    for pool in (_POOL, _MATCH_POOL):
        if pool is not None:
            pool.remove_scratch()
    os._exit(1)


def init_worker(limits: RunLimits, fresh: bool) -> None:
    """Worker initializer: ignore Ctrl-C, make the worker's bot pool, close it at exit."""
    global _POOL, _FRESH, _LIMITS
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_worker)
    _LIMITS = limits
    _FRESH = fresh
    _POOL = BotPool(limits)
    multiprocess.util.Finalize(None, _POOL.close, exitpriority=100)


@dataclass(frozen=True)
class ChunkResult:
    records: list[bytes]
    """Each match record as JSON (keys sorted, as the store keeps it)."""
    started: int
    """Bot processes this worker started while playing the chunk."""


def play_chunk(payload: bytes) -> ChunkResult:
    """Play some matches in this worker; runs in the worker processes.

    ``payload`` is a pickled list of :class:`MatchSpec` and each record comes back as JSON
    bytes: both cross the process boundary as plain bytes, which ``multiprocess`` (dill)
    passes on far faster than nested objects, so the parent stays a small share of the work.
    """
    global _MATCH_POOL
    assert _POOL is not None and _LIMITS is not None
    specs: Sequence[MatchSpec] = pickle.loads(payload)
    before = _POOL.started
    records = []
    fresh_started = 0
    for spec in specs:
        if _FRESH:
            with BotPool(_LIMITS) as pool:
                _MATCH_POOL = pool
                record = run_match(spec, pool)
                fresh_started += pool.started
            _MATCH_POOL = None
        else:
            record = run_match(spec, _POOL)
        records.append(orjson.dumps(record.to_json(), option=orjson.OPT_SORT_KEYS))
    return ChunkResult(records, _POOL.started - before + fresh_started)


def _terminate(pool: Any, grace: float = 10.0) -> None:
    """Stop the workers without ever waiting forever.

    ``terminate`` and ``join`` run on a thread of their own: a worker killed while it held the
    pool's result-queue lock (by the OOM killer, or ``kill -9``) leaves that lock taken for good,
    and ``terminate`` would block on it; a worker can also hang before its SIGTERM handler runs.
    After ``grace`` seconds every worker still there is SIGKILLed; if the pool is still stuck
    after another ``grace``, it is abandoned (its thread is a daemon) and the run goes on to
    report how it stopped.
    """
    pids = _worker_pids(pool)
    stopped = threading.Event()

    def stop() -> None:
        try:
            pool.terminate()
            pool.join()
        finally:
            stopped.set()

    threading.Thread(target=stop, name="stop-workers", daemon=True).start()
    if stopped.wait(grace):
        return
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    stopped.wait(grace)


def _worker_lost(pool: Any, at_start: set[int]) -> bool:
    """Whether a worker has died: replaced by the pool, or dead and not yet replaced (the pool's
    own thread may be late to reap and replace it)."""
    return _worker_pids(pool) != at_start or any(_dead(pid) for pid in at_start)


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return True
    fields = stat[stat.rfind(b")") + 2 :].split()
    return not fields or fields[0] in (b"Z", b"X")


def _worker_pids(pool: Any) -> set[int]:
    return {p.pid for p in getattr(pool, "_pool", [])}


class WorkerLost(Exception):
    """A worker died without returning its chunk; what was committed stays."""


class Interrupted(Exception):
    """The run was stopped (Ctrl-C); what was committed stays, the next run resumes."""


@dataclass
class RunReport:
    played: int = 0
    seconds: float = 0.0
    processes_started: int = 0
    batches_planned: list[int] = field(default_factory=list)
    stopped: str = ""
    """Why the run ended (:meth:`League.stop_reason`, or that ``max_new`` matches were played)."""

    @property
    def rate(self) -> float:
        return self.played / self.seconds if self.seconds > 0 else 0.0


class Progress:
    """A plain-text progress line on stderr: matches done, rate, ETA to the budget."""

    def __init__(self, stream: TextIO | None, total: int, done: int) -> None:
        self.stream = stream
        self.total = total
        self.start_done = done
        self.done = done
        self.began = time.monotonic()
        self.last = 0.0
        self.tty = bool(stream is not None and stream.isatty())

    def update(self, done: int, force: bool = False) -> None:
        self.done = done
        if self.stream is None:
            return
        now = time.monotonic()
        if not force and now - self.last < (0.2 if self.tty else 5.0):
            return
        self.last = now
        elapsed = now - self.began
        rate = (done - self.start_done) / elapsed if elapsed > 0 else 0.0
        left = max(0, self.total - done)
        eta = f"{left / rate:.0f}s" if rate > 0 else "?"
        line = f"league: {done}/{self.total} matches  {rate:.1f}/s  ETA {eta} (budget)"
        if self.tty:
            self.stream.write("\r" + line.ljust(70))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.stream is not None and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def plan_more(
    league: League,
    ratings: LeagueRatings,
    pending: deque[Planned],
    in_flight: Mapping[str, object],
    report: RunReport,
    bar: Progress,
    done: int,
) -> None:
    """Rate the finished batches, plan what may now be planned, and queue each new match once
    (not one already pending or in flight). Shared by the local and the Dask executors."""
    new = league.advance(ratings)
    if new:
        report.batches_planned += new
        known = {p.match_id for p in pending} | set(in_flight)
        fresh = league.store.unplayed(min(new))
        pending.extend(p for p in fresh if p.match_id not in known)
        bar.total = max(bar.total, done + len(pending) + len(in_flight))


def run_league(
    league: League,
    workers: int | None = None,
    progress: TextIO | None = sys.stderr,
    max_new: int | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> RunReport:
    """Play the league until it is finished (or ``max_new`` matches are played this run).

    Raises :class:`Interrupted` on Ctrl-C after stopping the workers, and
    :class:`~arena.errors.ArenaSetupError` (from a worker) when the arena cannot start a bot:
    that match is not recorded, and no bot is charged for it.
    """
    config = league.config
    workers = workers or config.workers
    report = RunReport()
    began = time.monotonic()
    ratings = league.load_ratings()
    report.batches_planned += league.advance(ratings)
    specs: dict[int, BotSpec] = {}

    def spec_of(bot: int) -> BotSpec:
        if bot not in specs:
            entrant = next(e for e in league.entrants() if e.id == bot)
            specs[bot] = league.bot_spec(entrant)
        return specs[bot]

    def match_spec(p: Planned) -> MatchSpec:
        return MatchSpec(p.match_id, p.game, p.seed, tuple(spec_of(b) for b in p.bots), p.options)

    pending: deque[Planned] = deque(league.unplayed())
    if not pending:
        return finish(league, report, began)
    seats: dict[str, tuple[int, ...]] = {}
    done = league.store.played_count()
    bar = Progress(progress, max(config.schedule.max_matches, done + len(pending)), done)
    results: queue.Queue[ChunkResult | BaseException] = queue.Queue()
    pool = multiprocess.get_context("fork").Pool(
        workers,
        initializer=init_worker,
        initargs=(config.run_limits(), config.schedule.fresh_processes),
    )
    in_flight = 0
    stop_after = max_new
    workers_at_start = _worker_pids(pool)
    try:
        while pending or in_flight:
            while pending and in_flight < 2 * workers and (stop_after is None or stop_after > 0):
                chunk: list[Planned] = []
                while pending and len(chunk) < config.schedule.chunk:
                    p = pending.popleft()
                    chunk.append(p)
                    seats[p.match_id] = p.bots
                if stop_after is not None:
                    stop_after -= len(chunk)
                payload = pickle.dumps([match_spec(p) for p in chunk], pickle.HIGHEST_PROTOCOL)
                pool.apply_async(
                    play_chunk,
                    (payload,),
                    callback=results.put,
                    error_callback=results.put,
                )
                in_flight += 1
            if not in_flight:
                break
            try:
                item = results.get(timeout=1.0)
            except queue.Empty:
                bar.update(done)
                if _worker_lost(pool, workers_at_start):
                    # multiprocess replaces a worker that died (killed, out of memory) but
                    # never reports its task: stop rather than wait for it forever.
                    raise WorkerLost(
                        "a worker process died unexpectedly; run again to resume"
                    ) from None
                continue
            in_flight -= 1
            if isinstance(item, BaseException):
                raise item
            report.processes_started += item.started
            for blob in item.records:
                record = orjson.loads(blob)
                bots = seats.pop(record["match_id"])
                if league.store.record_match(record, bots, encoded=blob.decode()):
                    done += 1
                    report.played += 1
                    if on_record is not None:
                        on_record(record)
            plan_more(league, ratings, pending, seats, report, bar, done)
            bar.update(done)
        pool.close()
        pool.join()
    except KeyboardInterrupt:
        _terminate(pool)
        bar.finish()
        raise Interrupted(
            f"stopped after {report.played} new matches; run again to resume"
        ) from None
    except BaseException:
        _terminate(pool)
        raise
    bar.update(done, force=True)
    bar.finish()
    return finish(league, report, began)


def finish(league: League, report: RunReport, began: float) -> RunReport:
    """Complete ``report`` at the end of a run: its time and why it stopped."""
    report.seconds = time.monotonic() - began
    report.stopped = league.stop_reason() or "stopped: the run's match limit is played"
    return report


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
