"""Budgets per bot, not per process: the CPU time and memory of *all* of a bot's processes.

The sandbox's rlimits bound each process alone, so a bot of three 1 GiB children, or a thread
burning CPU while the bot waits for its turn, goes unseen there. Here one :class:`Sampler` thread
per arena process reads ``/proc`` every ``sample_seconds`` (50 ms by default) and sums, for every
tracked bot, over every process that belongs to it:

* which processes: those of its process group (the bot is started in a group of its own, so
  the group id is the first process's pid), and, when the arena is root and gave the bot a uid of
  its own (see :mod:`arena.runtime.sandbox`), every process of that uid, which also catches
  children that called ``setpgid`` or ``setsid`` or double-forked. Without a uid of its own, a
  process that leaves the group is not seen.
* CPU: ``utime + stime`` of every live process plus ``cutime + cstime`` (what the children it
  waited for used), plus what processes that vanished had used when last seen, unless their
  parent is a live member (whose ``cutime`` then holds it). So CPU is exact for processes that
  are waited for by a member or still alive at a sample; a child waited for by a process that is
  not the bot's (an orphan reaped by init) loses what it used since the last sample, at most
  ``sample_seconds`` of CPU per core it ran on; one that starts and ends between two samples is
  not seen at all.
* memory: the summed resident set (RSS) of the processes, which counts pages shared between
  them once per process (so it errs high: a forked child is charged the parent's pages it still
  shares); the peak is over samples, so a spike shorter than ``sample_seconds`` can be missed.

A match takes the delta of CPU over the match and the peak of memory during it
(:func:`begin` and :func:`end`: the end reads again the bot processes already known, without
listing ``/proc`` (:meth:`Sampler.refresh`; a process born since the last full sample, at most
``sample_seconds`` ago, is counted from the next one on, in the next match if it is played
meanwhile); the begin takes a full sample only when the last sample is older than a clock tick,
so matches played back to back cost one light sample each). While a match runs, a bot past a
:class:`Budget` cap is killed (all its processes) at the sample that sees it, and
:attr:`Tracker.breach` says why; the match loop turns that into a ``resources`` fault.

Under bubblewrap, the sandbox's own two processes of each bot (the bot's leader and its child,
the namespace's init) are read once: the bot cannot run code in them, so what they use does not
change in a way that matters (issue 15: they were 8 of the 12 reads a sample with 4 bots).

Cost: one sample reads ``/proc/<pid>/stat`` of every process on the machine (about 8 µs each):
``benchmarks/bench_usage.py`` measured 0.9 ms per sample with 105 processes on the machine and
8 bots tracked, so 2.8% of one core at the default interval (2 cores, load ≈ 3), paid by each
arena process only while it has bots alive.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from arena.runtime.limits import Budget as Budget

MB = 1024 * 1024
_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Usage:
    """What one bot used in one match, over all its processes."""

    cpu_seconds: float
    """User plus system CPU time during the match."""
    peak_memory_mb: float
    """The highest summed resident memory seen during the match, in MiB."""

    def to_json(self) -> dict[str, float]:
        return {
            "cpu_seconds": round(self.cpu_seconds, 3),
            "peak_memory_mb": round(self.peak_memory_mb, 1),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Usage:
        return cls(float(data["cpu_seconds"]), float(data["peak_memory_mb"]))


@dataclass(frozen=True)
class UsageSummary:
    """A bot's usage over several matches: the mean and the max per match."""

    matches: int
    mean_cpu_seconds: float
    max_cpu_seconds: float
    mean_peak_memory_mb: float
    max_peak_memory_mb: float

    @classmethod
    def of(cls, usages: Iterable[Usage | None]) -> UsageSummary | None:
        """The summary of the measured matches (None entries skipped); None if there are none."""
        measured = [u for u in usages if u is not None]
        if not measured:
            return None
        cpu = [u.cpu_seconds for u in measured]
        memory = [u.peak_memory_mb for u in measured]
        n = len(measured)
        return cls(n, sum(cpu) / n, max(cpu), sum(memory) / n, max(memory))

    def describe(self) -> str:
        """One line for people: ``CPU 0.12 s mean, 0.30 s max; memory 11 MiB mean, 12 max``."""
        return (
            f"CPU {self.mean_cpu_seconds:.2f} s mean, {self.max_cpu_seconds:.2f} s max; "
            f"memory {self.mean_peak_memory_mb:.0f} MiB mean, "
            f"{self.max_peak_memory_mb:.0f} MiB max per match (all its processes)"
        )


class _Proc(NamedTuple):
    """One process as one sample saw it. Times in clock ticks, memory in bytes (a named tuple:
    a sample makes one for every process of every bot)."""

    start: int
    """When it started (with the pid, names one process even if the pid is reused)."""
    ppid: int
    session: int
    own: int
    """``utime + stime``: all its threads, live and ended."""
    waited: int
    """``cutime + cstime``: the children it has waited for."""
    rss: int


def _fields(pid: str) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` from the third (state) on; None if it is gone."""
    # os.open and one os.read, not open(): a sample reads this for every process on the
    # machine, twice a match, and a buffered file object costs twice the rest (issue 15)
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:  # gone meanwhile
        return None
    try:
        data = os.read(fd, 4096)  # one line, well under a page
    except OSError:
        return None
    finally:
        os.close(fd)
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    return data[data.rfind(b")") + 2 :].split()


def _proc(rest: list[bytes]) -> _Proc | None:
    try:
        return _Proc(
            start=int(rest[19]),
            ppid=int(rest[1]),
            session=int(rest[3]),
            own=int(rest[11]) + int(rest[12]),
            waited=int(rest[13]) + int(rest[14]),
            rss=int(rest[21]) * _PAGE,
        )
    except (IndexError, ValueError):
        return None


class Tracker:
    """The processes of one bot, their CPU time and memory, and whether it broke its budget.

    Made by :class:`~arena.runtime.botproc.ProcessTransport` when it starts the bot; the match loop
    calls :func:`begin` and :func:`end` around each match.
    """

    def __init__(
        self,
        leader: int,
        uid: int | None,
        sampler: Sampler | None = None,
        wrapped: bool = False,
    ) -> None:
        self.leader = leader
        """The first process's pid, which is also the bot's process group id."""
        self.wrapped = wrapped
        """The leader is bubblewrap's: it and its children (the inner bubblewrap, the pid
        namespace's init; the bot's own processes are that one's descendants and cannot become
        the leader's children) are the sandbox's, read once and kept (:attr:`wrappers`)."""
        self.wrappers: dict[int, _Proc] = {}
        """The sandbox's own processes as first seen (pid: process), when :attr:`wrapped`."""
        self.uid = uid
        """The bot's uid of its own, if it has one (the arena is root)."""
        self.breach: str | None = None
        """Why the bot was killed for its budget, once it was (during a match)."""
        self._sampler = sampler or shared_sampler()
        self._procs: dict[int, _Proc] = {}
        self._departed = 0
        self._cpu = 0
        self._rss = 0
        self._base = 0
        self._peak = 0
        self._budget: Budget | None = None
        self._sampler.add(self)

    @property
    def pids(self) -> list[int]:
        """The bot's processes at the last sample."""
        return sorted(self._procs)

    def _update(self, procs: dict[int, _Proc]) -> None:
        """Take one sample's view of the bot's processes (under the sampler's lock)."""
        if self.wrapped:
            leader = self.leader
            for pid, proc in procs.items():
                if (pid == leader or proc.ppid == leader) and pid not in self.wrappers:
                    self.wrappers[pid] = proc
        for pid, old in self._procs.items():
            new = procs.get(pid)
            if new is not None and new.start == old.start:
                continue
            # Gone (or its pid reused): keep what it used unless a live member waited for it.
            if new is not None or old.ppid not in procs:
                self._departed += old.own + old.waited
        self._procs = procs
        self._cpu = self._departed + sum(p.own + p.waited for p in procs.values())
        self._rss = sum(p.rss for p in procs.values())
        budget = self._budget
        if budget is None or self.breach is not None:
            return
        self._peak = max(self._peak, self._rss)
        used = (self._cpu - self._base) / _TICK
        if budget.memory_mb_per_bot and self._rss > budget.memory_mb_per_bot * MB:
            self.breach = (
                f"its processes together held {self._rss / MB:.0f} MiB, over the cap of "
                f"{budget.memory_mb_per_bot:g} MiB per bot ({len(procs)} process(es))"
            )
        elif budget.cpu_seconds_per_match and used > budget.cpu_seconds_per_match:
            self.breach = (
                f"its processes together used {used:.2f} s of CPU in this match, over the cap "
                f"of {budget.cpu_seconds_per_match:g} s"
            )
        if self.breach is not None:
            self._kill()

    def busiest(self) -> float:
        """CPU seconds the most used of its live processes has had over its whole life, at the
        last sample: what that process's ``RLIMIT_CPU`` is counted against."""
        with self._sampler.lock:
            return max((p.own for p in self._procs.values()), default=0) / _TICK

    def _kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.leader, signal.SIGKILL)
        for pid in self._procs:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def _begin(self, budget: Budget) -> None:
        self._budget = budget
        self._base = self._cpu
        self._peak = self._rss
        self.breach = None

    def _end(self) -> Usage:
        self._budget = None
        return Usage(max(0, self._cpu - self._base) / _TICK, self._peak / MB)

    def stop(self, kill: bool) -> None:
        """Stop tracking; with ``kill``, first kill every process still found to be the bot's
        (children that left its process group included, when it has a uid of its own)."""
        if kill:
            self._sampler.sample()
            with self._sampler.lock:
                self._kill()
        self._sampler.remove(self)


STRANGERS_KEPT = 1.0
"""Seconds for which a sample trusts the previous one's list of processes that are no bot's."""

REUSED_WITHIN = 1.0 / _TICK
"""A match's begin takes no sample of its own when the last one (the previous match's end, as a
rule) is at most this old, one clock tick: the counts move by whole ticks, so a fresh sample could
not tell the difference by more than the tick or so that the bots ran in between (issue 15: the
begin sample was a fifth of the arena's CPU a game of Take 5 in ``arena play``)."""


class Sampler:
    """Samples every tracked bot from one thread, each ``interval`` seconds, while any is."""

    def __init__(self, interval: float = Budget().sample_seconds) -> None:
        self.interval = interval
        self.lock = threading.Lock()
        self._trackers: list[Tracker] = []
        self._wake = threading.Condition(self.lock)
        self._thread: threading.Thread | None = None
        self.samples = 0
        self._strangers: set[str] = set()
        """The processes (pid names) the last sample found to be no tracked bot's: the next
        sample, if within :data:`STRANGERS_KEPT`, does not read them again (issue 15: reading
        every process on the machine cost most of a sample, and a match takes two). A process
        that is no bot's stays so: it cannot join a bot's process group from another session,
        nor take a bot's uid unless privileged, and its pid is not reused by another process
        within a second. A new tracker forgets them all."""
        self._strangers_at = 0.0
        self.sampled_at = -math.inf
        """When the last sample was taken (``time.monotonic``); minus infinity when a tracker
        has come since, which that sample did not see."""

    def add(self, tracker: Tracker) -> None:
        with self.lock:
            self._strangers = set()
            self.sampled_at = -math.inf
            self._trackers.append(tracker)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="usage", daemon=True)
                self._thread.start()

    def remove(self, tracker: Tracker) -> None:
        with self.lock:
            if tracker in self._trackers:
                self._trackers.remove(tracker)
            self._wake.notify()

    def tracked(self) -> int:
        with self.lock:
            return len(self._trackers)

    def _run(self) -> None:
        while True:
            self.sample()
            with self.lock:
                if not self._trackers:
                    self._thread = None
                    return
                self._wake.wait(self.interval)

    def sample(self) -> None:
        """Read ``/proc`` once and update every tracker; kills bots past their budget."""
        with self.lock:
            if not self._trackers:
                return
            self.samples += 1
            by_group = {t.leader: t for t in self._trackers}
            by_uid = {t.uid: t for t in self._trackers if t.uid is not None}
            found: dict[Tracker, dict[int, _Proc]] = {t: {} for t in self._trackers}
            now = time.monotonic()
            names = os.listdir("/proc")  # names only: a third of scandir's cost
            if now - self._strangers_at < STRANGERS_KEPT:  # set operations, not a loop of all
                strangers = self._strangers.intersection(names)
                unknown: Iterable[str] = strangers.symmetric_difference(names)
            else:
                strangers, unknown = set(), names
            wrappers = {str(p): (t, w) for t in self._trackers for p, w in t.wrappers.items()}
            for name in unknown:
                if name in wrappers:  # the sandbox's own: read once (see Tracker.wrapped)
                    keeper, kept = wrappers[name]
                    found[keeper][int(name)] = kept
                    continue
                if not name.isdigit():
                    strangers.add(name)
                    continue
                rest = _fields(name)
                if rest is None or len(rest) < 22:
                    continue
                owner = by_group.get(int(rest[2]))  # its process group
                if owner is None and by_uid:
                    try:
                        owner = by_uid.get(os.stat(f"/proc/{name}").st_uid)
                    except OSError:
                        continue
                if owner is None:
                    strangers.add(name)
                    continue
                proc = _proc(rest)
                if proc is not None:
                    found[owner][int(name)] = proc
            self._strangers, self._strangers_at = strangers, now
            self.sampled_at = now
            for tracker, procs in found.items():
                tracker._update(procs)

    def refresh(self, trackers: Sequence[Tracker]) -> None:
        """A light sample of these trackers: read again only the processes the last full sample
        found to be theirs (the sandbox's own not even those), without listing ``/proc``; one
        gone, or whose pid now names another process, is gone. New processes wait for the next
        full :meth:`sample` (the thread's, at most ``interval`` later)."""
        with self.lock:
            self.samples += 1
            for tracker in trackers:
                if tracker not in self._trackers:
                    continue
                procs: dict[int, _Proc] = {}
                for pid, old in tracker._procs.items():
                    if pid in tracker.wrappers:
                        procs[pid] = old
                        continue
                    rest = _fields(str(pid))
                    proc = _proc(rest) if rest is not None and len(rest) >= 22 else None
                    if proc is not None and proc.start == old.start:
                        procs[pid] = proc
                tracker._update(procs)
            self.sampled_at = time.monotonic()


_shared: tuple[int, Sampler] | None = None
_shared_lock = threading.Lock()


def shared_sampler() -> Sampler:
    """This process's sampler (a forked worker gets a new one: threads do not survive fork)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared[0] != os.getpid():
            _shared = (os.getpid(), Sampler())
        return _shared[1]


def tracker_of(connection: object) -> Tracker | None:
    """The tracker behind a seat's connection: None for in-process agents and fakes."""
    transport = getattr(connection, "transport", None)
    tracker = getattr(transport, "usage", None)
    return tracker if isinstance(tracker, Tracker) else None


def begin(trackers: Sequence[Tracker | None], budget: Budget) -> None:
    """Start a match for these bots: CPU counts from now, the peak from the memory now, and
    the caps of ``budget`` apply until :func:`end`. "Now" is the last sample when it is at most
    :data:`REUSED_WITHIN` old (a match that follows another at once starts from the other's end
    sample, so what a bot does with ``end`` in that tick counts in the next match), else a fresh
    one."""
    live = [t for t in trackers if t is not None]
    if not live:
        return
    sampler = live[0]._sampler
    sampler.interval = budget.sample_seconds
    if time.monotonic() - sampler.sampled_at > REUSED_WITHIN:
        sampler.sample()
    with sampler.lock:
        for tracker in live:
            tracker._begin(budget)


def end(trackers: Sequence[Tracker | None]) -> list[Usage | None]:
    """End the match for these bots (a light sample, :meth:`Sampler.refresh`, of their known
    processes): what each used during it."""
    live = [t for t in trackers if t is not None]
    if live:
        live[0]._sampler.refresh(live)
    out: list[Usage | None] = []
    for tracker in trackers:
        if tracker is None:
            out.append(None)
            continue
        with tracker._sampler.lock:
            out.append(tracker._end())
    return out
