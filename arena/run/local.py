"""Running a league on this machine: N worker processes, each with its own bot pool.

The backend of :mod:`arena.run.driver` on one :class:`concurrent.futures.ProcessPoolExecutor`
of one forked worker per worker, so that a chunk goes to the worker the driver chose for it.
Each worker keeps its bot processes alive across matches (one :class:`~arena.run.worker.Player`
per worker, made in the initializer and closed when the worker exits, however it exits). A
worker that dies (killed, out of memory) breaks its executor, whose ``BrokenProcessPool``
becomes :class:`~arena.run.driver.WorkerLost`.

Ctrl-C (or SIGTERM) stops the workers and their bots; the next run resumes from the store.
Workers ignore SIGINT so that only the parent decides how to stop; on SIGTERM they kill their
bots and exit at once, and one that does not is SIGKILLed after a grace period.

The stdlib executor, not the ``multiprocess`` package's pool: payloads and results are plain
bytes, so ``dill`` brings nothing here, and the stdlib executor tells of a dead worker
(``BrokenProcessPool``) where the pool had to be watched through its private ``_pool``. It
accepts a ``multiprocess`` context too, but its queues pickle with the stdlib either way, and
mixing the two libraries' processes and finalizer registries gains nothing.
"""

from __future__ import annotations

import contextlib
import multiprocessing.connection
import multiprocessing.util
import os
import pickle
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import ForkContext, ForkProcess
from typing import Any, TextIO

from arena.league.core import League
from arena.league.store import Planned
from arena.match import MatchSpec
from arena.run.driver import Interrupted, Planner, Progress, RunReport, WorkerLost, drive
from arena.run.worker import ChunkResult, Player
from arena.runtime.botproc import RunLimits, spin_when_idle
from arena.runtime.limits import cpu_count
from arena.runtime.manifest import BotSpec

__all__ = [
    "Interrupted",
    "LocalBackend",
    "Progress",
    "RunReport",
    "WorkerLost",
    "Workers",
    "cpu_count",
    "run_league",
]

# -- the workers ------------------------------------------------------------------------------

_PLAYER: Player | None = None
"""This worker's player (set by :func:`init_worker`)."""


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
    if _PLAYER is not None:
        _PLAYER.remove_scratch()
    os._exit(1)


def init_worker(limits: RunLimits, fresh: bool, workers: int) -> None:
    """Worker initializer: ignore Ctrl-C, make the worker's player, close it at exit, follow
    the parent if it dies, and wait for bots spinning when the ``workers`` leave a core idle."""
    global _PLAYER
    spin_when_idle(workers)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_worker)
    _PLAYER = Player(limits, fresh)
    # Run when the worker process ends normally (the executor shut down), not on os._exit.
    multiprocessing.util.Finalize(None, _PLAYER.close, exitpriority=100)
    threading.Thread(target=_follow_parent, name="follow-parent", daemon=True).start()


def _follow_parent() -> None:
    """Stop this worker and its bots when the parent dies (``kill -9``, out of memory): nothing
    else would tell a worker waiting for its next chunk, and its bots would live on.

    The parent's sentinel is a pipe that the parent holds open; a worker forked after this one
    holds it too, so orphaned workers go one after the other, the last forked first.
    """
    parent = multiprocessing.parent_process()
    if parent is not None:
        parent.join()
        _stop_worker(signal.SIGTERM, None)


def play_chunk(payload: bytes) -> ChunkResult:
    """Play some matches in this worker; runs in the worker processes.

    ``payload`` is a pickled list of :class:`MatchSpec`: plain bytes cross the process boundary
    far faster than nested objects, so the parent stays a small share of the work.
    """
    assert _PLAYER is not None
    specs: Sequence[MatchSpec] = pickle.loads(payload)
    return _PLAYER.play(specs)


class _RecordingContext(ForkContext):
    """The fork context, keeping every process it makes: so that stopping reaches each worker,
    even one that hangs before its initializer runs, without the executor's private state."""

    def __init__(self) -> None:
        super().__init__()
        self.processes: list[ForkProcess] = []

    def Process(self, *args: Any, **kwargs: Any) -> ForkProcess:  # type: ignore[override]
        process = ForkProcess(*args, **kwargs)
        self.processes.append(process)
        return process


class Workers:
    """A pool of forked worker processes (a :class:`ProcessPoolExecutor`) that can be stopped
    without ever waiting forever."""

    def __init__(
        self,
        count: int,
        initializer: Callable[..., object] | None = None,
        initargs: tuple[Any, ...] = (),
    ) -> None:
        self._context = _RecordingContext()
        self.executor = ProcessPoolExecutor(
            count, mp_context=self._context, initializer=initializer, initargs=initargs
        )

    @property
    def processes(self) -> list[ForkProcess]:
        """Every worker process started so far (the executor starts them all at first submit)."""
        return list(self._context.processes)

    def close(self) -> None:
        """Let the workers finish and exit normally (their finalizers close their bots)."""
        self.executor.shutdown(wait=True)

    def stop(self, grace: float = 10.0) -> None:
        """Stop the workers now: SIGTERM, then SIGKILL for any still there after ``grace``
        seconds (a worker forked while another thread of the parent held a lock can hang before
        its SIGTERM handler runs). Waits at most about twice ``grace``; never raises."""
        stop_all([self], grace)


def stop_all(pools: Sequence[Workers], grace: float = 10.0) -> None:
    """:meth:`Workers.stop` for several pools together: every worker is sent SIGTERM before
    any is waited for."""
    for pool in pools:
        with contextlib.suppress(Exception):
            pool.executor.shutdown(wait=False, cancel_futures=True)
    processes = [p for pool in pools for p in pool.processes]
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    if _wait_dead(processes, grace):
        return
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
    _wait_dead(processes, grace)


def _wait_dead(processes: Sequence[ForkProcess], grace: float) -> bool:
    """Wait up to ``grace`` seconds for ``processes`` to end (reaping them); whether all did."""
    deadline = time.monotonic() + grace
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
    return not any(_alive(p) for p in processes)


def _alive(process: ForkProcess) -> bool:
    try:
        return process.is_alive()
    except (AssertionError, ValueError):  # never started, or closed
        return False


# -- the backend ------------------------------------------------------------------------------


LOST = "a worker process died unexpectedly; run again to resume"


class LocalBackend:
    """The driver's backend on :class:`Workers` of this machine: one single-process pool per
    worker, so that a chunk goes to the worker chosen for it (the one that has its bots alive,
    :mod:`arena.run.affinity`)."""

    def __init__(self, league: League, workers: int) -> None:
        config = league.config
        self.league = league
        self.workers = workers
        initargs = (config.run_limits(), config.schedule.fresh_processes, workers)
        self.pools = [
            Workers(1, initializer=init_worker, initargs=initargs) for _ in range(workers)
        ]
        self.flying = [0] * workers
        """Chunks sent to each worker and not yet taken back."""
        self.finished: queue.Queue[tuple[int, Future[ChunkResult]]] = queue.Queue()
        self.specs: dict[int, BotSpec] = {}

    def capacity(self) -> int:
        return 2 * self.workers

    def free(self) -> list[int | None]:
        """Each worker once per chunk it can take (two: one playing, one queued behind it),
        idle workers first."""
        return [w for depth in (0, 1) for w in range(self.workers) if self.flying[w] <= depth]

    def submit(self, chunk: Sequence[Planned], worker: int | None) -> None:
        w = 0 if worker is None else worker
        specs = [
            MatchSpec(p.match_id, p.game, p.seed, tuple(self.spec_of(b) for b in p.bots), p.options)
            for p in chunk
        ]
        payload = pickle.dumps(specs, pickle.HIGHEST_PROTOCOL)
        try:
            future = self.pools[w].executor.submit(play_chunk, payload)
        except BrokenProcessPool:  # a worker died before this chunk went out
            raise WorkerLost(LOST) from None
        self.flying[w] += 1
        future.add_done_callback(lambda done: self.finished.put((w, done)))

    def spec_of(self, bot: int) -> BotSpec:
        """A bot's spec, loaded once per run."""
        if bot not in self.specs:
            entrant = next(e for e in self.league.entrants() if e.id == bot)
            self.specs[bot] = self.league.bot_spec(entrant)
        return self.specs[bot]

    def take(self, timeout: float) -> ChunkResult | None:
        try:
            worker, future = self.finished.get(timeout=timeout)
        except queue.Empty:
            return None
        self.flying[worker] -= 1
        try:
            return future.result()
        except BrokenProcessPool:
            raise WorkerLost(LOST) from None

    def close(self) -> None:
        for pool in self.pools:
            pool.close()

    def cancel(self) -> None:
        """Stop every worker at once (SIGTERM to all, then SIGKILL to those left)."""
        stop_all(self.pools)


def run_league(
    league: League,
    workers: int | None = None,
    progress: TextIO | None = sys.stderr,
    max_new: int | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    planner: Planner | None = None,
) -> RunReport:
    """Play the league on local worker processes until it is finished (or ``max_new`` matches
    are played this run).

    Raises :class:`Interrupted` on Ctrl-C after stopping the workers, :class:`WorkerLost` if a
    worker died, and :class:`~arena.errors.ArenaSetupError` (from a worker) when the arena
    cannot start a bot: that match is not recorded, and no bot is charged for it.
    """
    count = workers or league.config.workers
    return drive(
        league,
        lambda: LocalBackend(league, count),
        chunk=league.config.schedule.chunk,
        progress=progress,
        max_new=max_new,
        on_record=on_record,
        planner=planner,
    )
