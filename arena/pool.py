"""A pool of live bots, kept across matches: each bot process starts once and is reused.

The league's workers each hold one :class:`BotPool` for their whole life and pass it to
:func:`arena.match.run_match` for every match; a process is restarted only after a fault.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from types import TracebackType

from arena.botproc import (
    Agent,
    BotConnection,
    Connection,
    Fault,
    FaultKind,
    LocalConnection,
    ProcessTransport,
    RunLimits,
)
from arena.bots import BotKind, BotSpec, FirstAgent, RandomAgent
from arena.sandbox import confine


class BotPool:
    """Live bots by (bot, slot), started on first use and kept until a fault or :meth:`close`.

    ``slot`` tells apart several copies of one bot in the same match: the match loop asks for
    slot 0 for a bot's first seat, slot 1 for its second seat, and so on. So a league of
    distinct bots needs one process per bot per worker, whatever the seating.

    Use it as a context manager, or call :meth:`close`; either way no process is left behind.
    A pool belongs to one process: make it inside each worker, never share one across a fork.
    """

    def __init__(self, limits: RunLimits | None = None, scratch_root: Path | None = None) -> None:
        self.limits = limits or RunLimits()
        self.scratch_root = scratch_root
        """Where each process's private scratch folder is made (default: the system temp dir)."""
        self.started = 0
        """How many bot processes this pool has started (the benchmark counts them)."""
        self.start_seconds = 0.0
        """Total time spent starting processes, handshakes included."""
        self._live: dict[tuple[str, int], Connection] = {}
        self._scratch: dict[tuple[str, int], Path] = {}

    def get(self, bot: BotSpec, slot: int = 0) -> Connection | Fault:
        """The live bot for (bot, slot), started and greeted if need be; a :class:`Fault` if it
        fails to start (the next call tries again)."""
        key = (bot.source, slot)
        live = self._live.get(key)
        if live is not None:
            if live.alive():
                return live
            self.discard(bot, slot)  # it died between matches: start a fresh one
        started = self._start(bot, key)
        if isinstance(started, Fault):
            return started
        self._live[key] = started
        return started

    def _start(self, bot: BotSpec, key: tuple[str, int]) -> Connection | Fault:
        if bot.kind is BotKind.BUILTIN:
            agent: Agent = RandomAgent(bot.name) if bot.name == "random" else FirstAgent(bot.name)
            return LocalConnection(agent, self.limits)
        if bot.kind is BotKind.HUMAN:
            from arena.human import HumanAgent  # terminal I/O only when a person plays

            return LocalConnection(HumanAgent(), self.limits)
        assert bot.directory is not None
        scratch = Path(tempfile.mkdtemp(prefix=f"arena-{bot.name}-", dir=self.scratch_root))
        began = time.monotonic()
        try:
            confined = confine(bot.command, bot.directory, scratch, self.limits.sandbox)
            transport = ProcessTransport(confined, self.limits.max_line, self.limits.stderr_tail)
        except OSError as exc:
            shutil.rmtree(scratch, ignore_errors=True)
            return Fault(FaultKind.START_FAILED, f"cannot run {list(bot.command)}: {exc}")
        self.started += 1
        connection = BotConnection(transport, self.limits)
        fault = connection.handshake(began + self.limits.time.startup)
        self.start_seconds += time.monotonic() - began
        if fault is not None:
            transport.close(0.0)
            shutil.rmtree(scratch, ignore_errors=True)
            return Fault(fault.kind, fault.message, transport.stderr_tail())
        self._scratch[key] = scratch
        return connection

    def put(self, bot: BotSpec, slot: int, connection: Connection) -> None:
        """Seat an already live connection as (bot, slot), e.g. an in-process agent in a test."""
        self.discard(bot, slot)
        self._live[(bot.source, slot)] = connection

    def discard(self, bot: BotSpec, slot: int = 0) -> None:
        """Stop the bot at (bot, slot) now (after a fault); the next :meth:`get` restarts it."""
        key = (bot.source, slot)
        live = self._live.pop(key, None)
        if live is not None:
            live.close()
        scratch = self._scratch.pop(key, None)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    def close(self) -> None:
        """Say ``bye`` to every live bot, kill what does not exit, remove scratch folders."""
        for live in self._live.values():
            live.say_bye()
        for key in list(self._live):
            live = self._live.pop(key)
            try:
                live.close()
            finally:
                scratch = self._scratch.pop(key, None)
                if scratch is not None:
                    shutil.rmtree(scratch, ignore_errors=True)

    def __len__(self) -> int:
        return len(self._live)

    def __enter__(self) -> BotPool:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
