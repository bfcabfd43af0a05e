"""The worker side of every backend: play a chunk of matches with the worker's own bot pool.

A :class:`Player` belongs to one worker (a local worker process, or one thread of a Dask worker):
its :class:`~arena.runtime.pool.BotPool` is made on first use and kept across chunks, so each bot
process starts once per worker; with ``schedule.fresh_processes`` each match gets a pool of its
own instead. Records leave the worker packed (:func:`~arena.league.store.pack_record`): a small
head the parent reads and the whole record compressed, which the store keeps as it is, so the
parent never decodes (or compresses) a whole record and bytes cross the process boundary.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arena.league.store import PackedRecord, pack_record
from arena.match import MatchSpec, run_match
from arena.runtime.botproc import RunLimits
from arena.runtime.pool import BotPool


@dataclass(frozen=True)
class ChunkResult:
    """What a worker sends back for a chunk of matches."""

    records: list[PackedRecord]
    """Each match record, packed for the store, in the chunk's order."""
    started: int
    """Bot processes this worker started while playing the chunk."""


class Player:
    """Plays chunks of matches for one worker; close it when the worker ends."""

    def __init__(self, limits: RunLimits, fresh: bool) -> None:
        self.limits = limits
        self.fresh = fresh
        """A fresh pool (fresh bot processes) for every match."""
        self._pool: BotPool | None = None
        self._match_pool: BotPool | None = None
        """The pool of the match being played with fresh processes, for :meth:`remove_scratch`."""

    def pool(self) -> BotPool:
        """The worker's pool, kept across chunks (made on first use)."""
        if self._pool is None:
            self._pool = BotPool(self.limits)
        return self._pool

    def play(self, specs: Iterable[MatchSpec]) -> ChunkResult:
        """Play ``specs`` in order; an :class:`~arena.errors.ArenaSetupError` (the arena cannot
        start a bot) ends the chunk, and no record of it is returned."""
        records = []
        started = 0
        for spec in specs:
            if self.fresh:
                try:
                    with BotPool(self.limits) as pool:
                        self._match_pool = pool
                        record = run_match(spec, pool)
                        started += pool.started
                finally:
                    self._match_pool = None
            else:
                pool = self.pool()
                before = pool.started
                record = run_match(spec, pool)
                started += pool.started - before
            records.append(pack_record(record.to_json()))
        return ChunkResult(records, started)

    def close(self) -> None:
        """Close the kept pool: every bot told ``bye``, scratch folders removed."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def remove_scratch(self) -> None:
        """Remove the scratch folders of every pool now, stopping nothing: for a signal handler
        that has killed the bots and is about to exit. Never raises."""
        for pool in (self._pool, self._match_pool):
            if pool is not None:
                pool.remove_scratch()
