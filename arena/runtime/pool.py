"""A pool of live bots, kept across matches: each bot process starts once and is reused.

The league's workers each hold one :class:`BotPool` for their whole life and pass it to
:func:`arena.match.run_match` for every match; a process is restarted only after a fault, or
before a match when it nears its lifetime CPU limit.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType, TracebackType

from arena.errors import ArenaSetupError
from arena.runtime.botproc import (
    Agent,
    BotConnection,
    Connection,
    Fault,
    FaultKind,
    LocalConnection,
    ProcessTransport,
    RunLimits,
    StderrSink,
)
from arena.runtime.manifest import BotKind, BotSpec, FirstAgent, RandomAgent
from arena.runtime.sandbox import SandboxUnavailable, confine
from arena.runtime.scratch import default_root, make_scratch, remove_tree, sweep
from arena.runtime.usage import tracker_of

RETIRE_AT = 0.5
"""The share of its lifetime CPU limit past which a live bot process is replaced before its
next match: a match may then use up to the other half without the kernel's ``SIGXCPU``."""


class BotPool:
    """Live bots by (bot, slot), started on first use and kept until a fault or :meth:`close`.

    ``slot`` tells apart several copies of one bot in the same match: the match loop asks for
    slot 0 for a bot's first seat, slot 1 for its second seat, and so on. So a league of
    distinct bots needs one process per bot per worker, whatever the seating.

    Use it as a context manager, or call :meth:`close`; either way no process is left behind.
    Used as a context manager in the main thread of a process that does not handle SIGTERM
    itself, the pool turns SIGTERM into ``SystemExit``, so ``kill`` closes the bots and removes
    their scratch folders as the end of a ``with`` block does.
    A pool belongs to one process: make it inside each worker, never share one across a fork.

    A new pool first sweeps the scratch folders that dead arena processes left behind
    (:func:`arena.runtime.scratch.sweep`). :class:`~arena.errors.ArenaSetupError` from :meth:`get` means
    the arena, not the bot, failed: its folder or program is gone, or the sandbox cannot start.
    """

    def __init__(
        self,
        limits: RunLimits | None = None,
        scratch_root: Path | None = None,
        human: Callable[[], Agent] | None = None,
        stderr_sink: Callable[[BotSpec, int], StderrSink | None] | None = None,
    ) -> None:
        self.limits = limits or RunLimits()
        self.human = human
        """Makes the agent of a ``human`` seat (the CLI passes its terminal agent); without it a
        human seat is the arena's error."""
        self.stderr_sink = stderr_sink
        """Gives each bot process started for (bot, slot) a sink for its stderr, or None."""
        self.scratch_root = scratch_root or default_root()
        """Where each process's private scratch folder is made (default: ``$TMPDIR/arena-UID``)."""
        self.swept = sweep(self.scratch_root)
        """The leftover scratch folders of dead arenas that this pool removed when made."""
        self.started = 0
        """How many bot processes this pool has started (the benchmark counts them)."""
        self.start_seconds = 0.0
        """Total time spent starting processes, handshakes included."""
        self._live: dict[tuple[str, int], Connection] = {}
        self._used: dict[tuple[str, int], int] = {}
        """When each live bot was last handed out (a counter), for the cap on live bots."""
        self._clock = 0
        self._match_began = 0
        self.evicted = 0
        """Bots closed to keep under :attr:`RunLimits.live_bots`."""
        self.retired = 0
        """Bots replaced near their lifetime CPU limit (:meth:`_worn`)."""
        self._scratch: dict[tuple[str, int], Path] = {}
        self._sigterm: _SigtermExit | None = None

    def get(self, bot: BotSpec, slot: int = 0) -> Connection | Fault:
        """The live bot for (bot, slot), started and greeted if need be; a :class:`Fault` if it
        fails to start (the next call tries again). Raises :class:`ArenaSetupError` if the arena
        cannot start it (the bot is not to blame)."""
        key = (bot.source, slot)
        self._clock += 1
        live = self._live.get(key)
        if live is not None:
            worn = self._worn(live)
            if live.alive() and not worn:
                self._used[key] = self._clock
                return live
            # It died between matches, or it is near its lifetime CPU limit: a fresh one.
            if worn:
                self.retired += 1
            self.discard(bot, slot)
        if bot.kind is BotKind.PROCESS:
            self._make_room()
        self._used[key] = self._clock
        started = self._start(bot, key)
        if isinstance(started, Fault):
            return started
        self._live[key] = started
        return started

    def _worn(self, live: Connection) -> bool:
        """Whether a live bot process has used :data:`RETIRE_AT` of the CPU time the sandbox
        allows a process over its whole life (``RLIMIT_CPU``, :attr:`Limits.cpu_seconds`).
        Reused match after match, any bot would reach it in the end and be killed by the
        kernel in the middle of a match (a crash it did not cause): so it is replaced first."""
        tracker = tracker_of(live)
        if tracker is None or self.limits.sandbox.method == "none":
            return False
        return tracker.busiest() >= RETIRE_AT * self.limits.sandbox.cpu_seconds

    def _start(self, bot: BotSpec, key: tuple[str, int]) -> Connection | Fault:
        if bot.kind is BotKind.BUILTIN:
            agent: Agent = RandomAgent(bot.name) if bot.name == "random" else FirstAgent(bot.name)
            return LocalConnection(agent, self.limits)
        if bot.kind is BotKind.HUMAN:
            if self.human is None:
                raise ArenaSetupError("a human seat needs a pool made with human=...")
            return LocalConnection(self.human(), self.limits)
        check_runnable(bot)
        scratch = make_scratch(self.scratch_root, bot.name)
        began = time.monotonic()
        try:
            transport = self._spawn(bot, scratch, key[1])
        except BaseException:
            remove_tree(scratch)
            raise
        if isinstance(transport, Fault):
            remove_tree(scratch)
            return transport
        self.started += 1
        connection = BotConnection(transport, self.limits)
        # Kept from now on, so that close() stops it even if the handshake is interrupted.
        self._live[key] = connection
        self._scratch[key] = scratch
        fault = connection.handshake(began + self.limits.time.startup)
        self.start_seconds += time.monotonic() - began
        if fault is not None:
            self._live.pop(key, None)
            transport.close(0.0)
            remove_tree(self._scratch.pop(key))
            return Fault(fault.kind, fault.message, transport.stderr_tail())
        return connection

    def _spawn(self, bot: BotSpec, scratch: Path, slot: int) -> ProcessTransport | Fault:
        """Start ``bot`` confined; a fault if its own program will not run, ArenaSetupError if
        the sandbox (the arena's part) will not."""
        assert bot.directory is not None
        try:
            confined = confine(bot.command, bot.directory, scratch, self.limits.sandbox)
        except (SandboxUnavailable, OSError) as exc:
            raise ArenaSetupError(f"cannot set up the sandbox for {bot.name}: {exc}") from None
        try:
            sink = self.stderr_sink(bot, slot) if self.stderr_sink is not None else None
            transport = ProcessTransport(
                confined, self.limits.max_line, self.limits.stderr_tail, sink
            )
        except subprocess.SubprocessError as exc:  # preexec_fn failed: rlimits, uid switch
            raise ArenaSetupError(f"cannot confine {bot.name}: {exc}") from None
        except OSError as exc:
            if confined.method in ("bubblewrap", "unshare"):  # the sandbox tool would not run
                raise ArenaSetupError(
                    f"cannot run the sandbox ({confined.argv[0]}) for {bot.name}: {exc}"
                ) from None
            return Fault(FaultKind.START_FAILED, f"cannot run {list(bot.command)}: {exc}")
        error = confined.setup_error(time.monotonic() + self.limits.time.startup)
        if error is not None:  # reported by the launcher on a pipe of its own: not the bot
            transport.close(0.0)
            raise ArenaSetupError(f"cannot set up the sandbox for {bot.name}: {error}")
        return transport

    def begin_match(self) -> None:
        """A new match starts seating its bots: none of them may be closed to make room for
        another while it is seated (see :attr:`RunLimits.live_bots`)."""
        self._match_began = self._clock + 1

    def _make_room(self) -> None:
        """Close least recently used bots until a new one fits under the cap; never one of the
        current match (a match that needs more bots than the cap exceeds it)."""
        cap = self.limits.live_bots
        if cap <= 0:
            return
        while len(self._scratch) >= cap:  # live bot processes (in-process agents have none)
            idle = [k for k in self._scratch if self._used.get(k, 0) < self._match_began]
            if not idle:
                return
            victim = min(idle, key=lambda k: self._used.get(k, 0))
            live = self._live.get(victim)
            if live is not None:
                with contextlib.suppress(Exception):
                    live.say_bye()
            self._stop(victim)
            self.evicted += 1

    def peek(self, bot: BotSpec, slot: int = 0) -> Connection | None:
        """The connection kept for (bot, slot), alive or not, without starting one."""
        return self._live.get((bot.source, slot))

    def put(self, bot: BotSpec, slot: int, connection: Connection) -> None:
        """Seat an already live connection as (bot, slot), e.g. an in-process agent in a test."""
        self.discard(bot, slot)
        self._live[(bot.source, slot)] = connection

    def discard(self, bot: BotSpec, slot: int = 0) -> None:
        """Stop the bot at (bot, slot) now (after a fault); the next :meth:`get` restarts it."""
        self._stop((bot.source, slot))

    def _stop(self, key: tuple[str, int]) -> None:
        self._used.pop(key, None)
        live = self._live.pop(key, None)
        try:
            if live is not None:
                live.close()
        finally:
            scratch = self._scratch.pop(key, None)
            if scratch is not None:
                remove_tree(scratch)

    def close(self) -> None:
        """Say ``bye`` to every live bot, kill what does not exit, remove scratch folders.

        Every bot is stopped even if stopping one fails; the first such error is raised after.
        """
        errors: list[Exception] = []
        for live in list(self._live.values()):
            try:
                live.say_bye()
            except Exception as exc:  # the others must still be told
                errors.append(exc)
        for key in [*self._live, *self._scratch]:
            try:
                self._stop(key)
            except Exception as exc:  # the others must still be stopped
                errors.append(exc)
        if errors:
            raise errors[0]

    def remove_scratch(self) -> None:
        """Remove every scratch folder now, without stopping anything: for a signal handler
        that has killed the bots and is about to exit. Never raises."""
        for key in list(self._scratch):
            scratch = self._scratch.pop(key, None)
            if scratch is not None:
                remove_tree(scratch)

    def __len__(self) -> int:
        return len(self._live)

    def __enter__(self) -> BotPool:
        self._sigterm = _SigtermExit.install()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        guard, self._sigterm = self._sigterm, None
        if guard is None:
            self.close()
            return
        with guard.held():
            self.close()


def check_runnable(bot: BotSpec) -> None:
    """Raise :class:`ArenaSetupError` unless the arena can reach the bot's folder and program.

    Run before each start: a folder or interpreter that has gone (a league folder moved, a
    toolchain removed) is the arena's trouble, never a fault of the bot.
    """
    folder = bot.directory
    if folder is None or not os.path.isdir(folder) or not os.access(folder, os.R_OK | os.X_OK):
        raise ArenaSetupError(f"cannot start {bot.name}: its folder {folder} is not readable")
    program = bot.command[0] if bot.command else ""
    if program and not os.path.isabs(program):  # a bare name (load_bot resolves every path)
        program = shutil.which(program) or program
    if not os.path.isabs(program) or not os.path.isfile(program):
        raise ArenaSetupError(f"cannot start {bot.name}: its program {program!r} does not exist")
    inside = os.path.realpath(program).startswith(os.path.realpath(folder) + os.sep)
    if not inside and not os.access(program, os.X_OK):
        # An interpreter outside the bot's folder; a bot's own file without +x is its fault.
        raise ArenaSetupError(f"cannot start {bot.name}: {program} is not executable")


class _SigtermExit:
    """SIGTERM as ``SystemExit(143)`` while a pool is open in the main thread, so that ``kill``
    runs the same clean-up as a normal exit; a second SIGTERM during that clean-up waits for it.
    """

    def __init__(self) -> None:
        self.holding = False
        self.pending = False

    @classmethod
    def install(cls) -> _SigtermExit | None:
        """The guard, if SIGTERM was unhandled here (a worker or the league's parent that handle
        it their own way are left alone)."""
        if threading.current_thread() is not threading.main_thread():
            return None
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return None
        guard = cls()
        signal.signal(signal.SIGTERM, guard.handle)
        return guard

    def handle(self, signum: int, frame: FrameType | None) -> None:
        if self.holding:
            self.pending = True
            return
        raise SystemExit(128 + signum)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Clean up with SIGTERM held back; restore the default afterwards, then act on it."""
        self.holding = True
        try:
            yield
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if self.pending:
            raise SystemExit(128 + signal.SIGTERM)
