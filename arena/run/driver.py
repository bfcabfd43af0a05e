"""The league driver: one loop that runs a league's matches on any :class:`Backend`.

The driver plans, queues chunks of matches on the backend, commits each record as it comes back
(the parent is the only writer of the store), rates finished batches and plans the next ones,
shows progress, and stops: when the league is finished, when ``max_new`` matches are played, on
Ctrl-C (:class:`Interrupted`) or on a failure (the backend's error, after it is cancelled). What
was committed stays, and the next run resumes from the store.

A backend only moves chunks: :mod:`arena.run.local` (worker processes on this machine) and
:mod:`arena.run.cluster` (the workers of a Dask cluster); both play them with
:class:`arena.run.worker.Player`. A backend that sends a chunk to the worker the driver names
(the local one) gets from each worker's claimed cluster of matches, so that a worker keeps to
the bots it has alive (:mod:`arena.run.affinity`); the others get chunks in schedule order.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

import orjson

from arena.league.core import League
from arena.league.rating import LeagueRatings
from arena.league.store import Planned, unpack_record
from arena.run.affinity import Pending
from arena.run.worker import ChunkResult


class WorkerLost(Exception):
    """A worker died without returning its chunk; what was committed stays."""


class Interrupted(Exception):
    """The run was stopped (Ctrl-C); what was committed stays, the next run resumes."""


class Backend(Protocol):
    """Where chunks of matches are played. Made for one run; the driver ends it with exactly one
    of :meth:`close` (all went well) or :meth:`cancel` (anything else)."""

    def capacity(self) -> int:
        """How many chunks to keep submitted at once: enough to keep every worker busy."""
        ...

    def free(self) -> list[int | None]:
        """Where another chunk may be sent now: one entry per chunk, the worker that would play
        it (workers with nothing to play first), or ``None`` for each free place of a backend
        that does not choose the worker (the chunks are then sent in schedule order)."""
        ...

    def submit(self, chunk: Sequence[Planned], worker: int | None) -> None:
        """Send ``chunk`` (never empty) to be played by ``worker``, an entry of :meth:`free`."""
        ...

    def take(self, timeout: float) -> ChunkResult | None:
        """The result of a chunk that finished, waiting up to ``timeout`` seconds for one; None
        if none did. Raises :class:`WorkerLost` if a worker died with a chunk, or the error a
        worker raised (:class:`~arena.errors.ArenaSetupError`: the arena cannot start a bot)."""
        ...

    def close(self) -> None:
        """End the run after its last result: the workers close their bots."""
        ...

    def cancel(self) -> None:
        """Stop now (Ctrl-C, an error): drop what is in flight, stop the workers and their bots.
        Never waits long, never raises."""
        ...


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


class Planner(Protocol):
    """What the driver plays: a league's schedule (:class:`LeaguePlanner`, the default) or
    another plan kept in the same store (an A/B test's paired blocks, :mod:`arena.abtest`)."""

    batches_planned: list[int]
    """The batches this planner planned during the run."""

    def start(self) -> list[Planned]:
        """Plan what may be planned now; every unplayed match to play, in order."""
        ...

    def after(self) -> list[Planned] | None:
        """Called after each chunk's records are committed: the matches newly planned (queued
        after the pending ones, less those already pending or in flight), or None to stop: the
        pending matches are dropped (those in flight may still finish and are committed)."""
        ...

    def total(self) -> int:
        """The number of matches the progress line counts towards."""
        ...

    def stop_reason(self) -> str:
        """Why the run ended."""
        ...


class LeaguePlanner:
    """The league's schedule: rate finished batches, plan the next ones (:meth:`League.advance`)."""

    def __init__(self, league: League) -> None:
        self.league = league
        self.ratings: LeagueRatings | None = None
        self.batches_planned: list[int] = []

    def start(self) -> list[Planned]:
        self.ratings = self.league.load_ratings()
        self.batches_planned += self.league.advance(self.ratings)
        return self.league.unplayed()

    def after(self) -> list[Planned] | None:
        assert self.ratings is not None
        new = self.league.advance(self.ratings)
        if not new:
            return []
        self.batches_planned += new
        return self.league.store.unplayed(min(new))

    def total(self) -> int:
        return self.league.budget

    def stop_reason(self) -> str:
        return self.league.stop_reason()


def chunk_size(chunk: int, waiting: int, in_flight: int, capacity: int) -> int:
    """How many of the ``waiting`` matches to send as the next chunk (0: none for now).

    A backend's capacity is two chunks per worker: one playing, one queued behind it. Behind a
    busy worker only a full chunk is queued (tiny chunks cost the parent as much as full ones);
    a worker that may be idle gets its share of what waits, so that 10 matches on 2 idle workers
    go as two chunks of 5, not one chunk of 10 while the other worker idles."""
    workers = max(1, capacity // 2)
    if in_flight >= workers:
        return chunk if waiting >= chunk else 0
    return max(1, min(chunk, -(-waiting // (workers - in_flight))))


def plan_more(
    planner: Planner,
    pending: Pending,
    in_flight: Mapping[str, object],
    bar: Progress,
    done: int,
) -> bool:
    """Plan what may now be planned, and queue each new match once (not one already pending or
    in flight); False when the planner says stop (the pending matches are then dropped)."""
    fresh = planner.after()
    if fresh is None:
        pending.clear()
        return False
    if fresh:
        known = pending.ids() | set(in_flight)
        pending.extend(p for p in fresh if p.match_id not in known)
        bar.total = max(bar.total, done + len(pending) + len(in_flight))
    return True


def finish(planner: Planner, report: RunReport, began: float) -> RunReport:
    """Complete ``report`` at the end of a run: its time, batches and why it stopped."""
    report.seconds = time.monotonic() - began
    report.batches_planned = list(planner.batches_planned)
    reason = planner.stop_reason()
    report.stopped = reason or "stopped: the run's match limit is played"
    return report


POLL = 1.0
"""Seconds the driver waits for a result before it updates the progress line anyway."""


def drive(
    league: League,
    open_backend: Callable[[], Backend],
    *,
    chunk: int,
    progress: TextIO | None = None,
    max_new: int | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    planner: Planner | None = None,
) -> RunReport:
    """Play the league until it is finished (or ``max_new`` matches are played this run), in
    chunks of up to ``chunk`` matches on the backend that ``open_backend`` makes (only if there
    is something to play). ``planner`` decides what to play (default: the league's schedule,
    :class:`LeaguePlanner`); the records go to the league's store either way.

    Raises :class:`Interrupted` on Ctrl-C, and whatever the backend raises (after cancelling
    it): :class:`WorkerLost`, :class:`~arena.errors.ArenaSetupError`, its own errors.
    """
    report = RunReport()
    began = time.monotonic()
    plan = LeaguePlanner(league) if planner is None else planner
    pending = Pending(plan.start())
    if not pending:
        return finish(plan, report, began)
    seats: dict[str, tuple[int, ...]] = {}  # the matches in flight: their bots by seat
    done = league.store.played_count()
    bar = Progress(progress, max(plan.total(), done + len(pending)), done)
    left = max_new  # matches this run may still send
    in_flight = 0  # chunks
    backend: Backend | None = None
    try:
        backend = open_backend()
        while pending or in_flight:
            for worker in backend.free():
                if not pending or (left is not None and left <= 0):
                    break
                size = chunk_size(chunk, len(pending), in_flight, backend.capacity())
                batch = pending.take(worker, size)
                if not batch:
                    break
                for p in batch:
                    seats[p.match_id] = p.bots
                if left is not None:
                    left -= len(batch)
                backend.submit(batch, worker)
                in_flight += 1
            if not in_flight:
                break
            result = backend.take(POLL)
            if result is None:
                bar.update(done)
                continue
            in_flight -= 1
            report.processes_started += result.started
            done += commit(league, result, seats, report, on_record)
            plan_more(plan, pending, seats, bar, done)
            bar.update(done)
        backend.close()
    except KeyboardInterrupt:
        if backend is not None:
            backend.cancel()
        bar.finish()
        raise Interrupted(
            f"stopped after {report.played} new matches; run again to resume"
        ) from None
    except BaseException:
        if backend is not None:
            backend.cancel()
        raise
    bar.update(done, force=True)
    bar.finish()
    return finish(plan, report, began)


def commit(
    league: League,
    result: ChunkResult,
    seats: dict[str, tuple[int, ...]],
    report: RunReport,
    on_record: Callable[[dict[str, Any]], None] | None,
) -> int:
    """Store the records of ``result``; how many were new. A record whose match is not in
    flight (a chunk a Dask scheduler ran twice) or already stored is counted once only."""
    flown = []
    for packed in result.records:
        match_id = orjson.loads(packed.head)["match_id"]  # the head only: a few hundred bytes
        bots = seats.pop(match_id, None)
        if bots is not None:
            flown.append((packed, bots))
    stored = league.store.record_chunk(flown)  # one commit for the chunk
    new = 0
    for (packed, _), fresh in zip(flown, stored, strict=True):
        if fresh:
            new += 1
            report.played += 1
            if on_record is not None:
                on_record(unpack_record(packed.body))
    return new
