"""Running a league on a Dask cluster (``pip install 'arena[dask]'``).

The backend of :mod:`arena.run.driver` on the workers of an existing cluster (or of a
:class:`distributed.LocalCluster` it starts): the driver plans, the backend sends each chunk of
match specs as one task, and the driver commits each record as it comes back, exactly as with
the local backend.

* **Bots travel by content hash.** Each submitted bot folder is packed into a deterministic tar,
  named by the SHA-256 of its bytes, and installed on every worker by a small worker plugin
  (also on workers that join later), which unpacks it once into a cache folder on the worker's
  machine (``$ARENA_BOT_CACHE``, default ``$TMPDIR/arena-bot-cache-UID/HASH``, private to the
  arena's user); a later run with the same bot finds it there, and uses it once it matches the
  bundle file for file. With ``[executor] bots = "shared"`` the workers read the bots
  from ``shared_folder`` (the league folder as the workers see it) instead.
* **Bot processes live across matches.** A second plugin holds one
  :class:`~arena.run.worker.Player` (with its :class:`~arena.runtime.pool.BotPool`) per worker
  thread; it is closed when the run ends (the plugin is removed) or the worker closes.
* **Tasks are pure and idempotent**: a batch of match specs in, a list of records out. A worker
  lost mid-batch loses nothing: the scheduler runs its unfinished batches again elsewhere, and
  the store keys records by match id, so nothing is counted twice.

The import of ``distributed`` is lazy: the rest of arena works without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import queue
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from arena.errors import ArenaSetupError
from arena.league.core import League
from arena.league.store import Planned
from arena.run.driver import Planner, RunReport, WorkerLost, drive
from arena.run.worker import ChunkResult
from arena.runtime.manifest import BotKind, BotSpec

if TYPE_CHECKING:
    from distributed import Client

    from arena.run.cluster_worker import BotRef


class DaskError(Exception):
    """The Dask executor cannot run: ``distributed`` missing, no scheduler, a bot not found."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise DaskError(
            "the Dask executor needs the 'distributed' package: pip install 'arena[dask]'"
        ) from None
    return distributed


# -- the parent -------------------------------------------------------------------------------


@dataclass
class Shipping:
    """The bots of a run and how the workers get them."""

    refs: dict[int, BotRef]
    bundles: dict[str, bytes]


def ship(league: League, entrants: Sequence[int], shared: bool) -> Shipping:
    """How the workers find each of ``entrants``: a bundle by content hash, or the shared
    folder (built-ins need nothing)."""
    from arena.run.cluster_worker import BotRef, pack

    refs: dict[int, BotRef] = {}
    bundles: dict[str, bytes] = {}
    root = league.folder.resolve()
    by_id = {e.id: e for e in league.entrants()}
    for bot in entrants:
        entrant = by_id[bot]
        if entrant.source.startswith("builtin:") or shared:
            refs[bot] = BotRef(entrant.source)
            continue
        spec: BotSpec = league.bot_spec(entrant)
        if spec.kind is not BotKind.PROCESS or spec.directory is None:
            raise DaskError(f"{entrant.name} cannot run on a cluster")
        try:
            rel = spec.directory.resolve().relative_to(root)
        except ValueError:
            raise DaskError(f"{entrant.name} lives outside the league folder") from None
        data = pack(spec.directory, str(rel))
        digest = hashlib.sha256(data).hexdigest()
        bundles[digest] = data
        refs[bot] = BotRef(entrant.source, digest)
    return Shipping(refs, bundles)


def local_cluster(workers: int) -> Any:
    """A new ``LocalCluster`` of ``workers`` single-threaded worker processes, as a run without
    a scheduler starts one.

    Its workers do not profile their tasks: Dask's profiler wakes every 10 ms in each worker and
    takes the GIL from the thread playing the match, which waits on its bots' replies and then
    again for the GIL. (A cluster of your own may turn it off too: ``DASK_DISTRIBUTED__WORKER__
    PROFILE__ENABLED=False`` where its workers start.)
    """
    import dask

    distributed = _distributed()
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        return distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        )


def connect(scheduler: str | None, workers: int) -> tuple[Client, Callable[[], None]]:
    """A client of the cluster at ``scheduler``, or of a new local cluster of ``workers``
    single-threaded worker processes; and how to close what was opened."""
    distributed = _distributed()
    if scheduler:
        try:  # parse first: a Client made from a bad address complains again when collected
            distributed.comm.addressing.get_address_host_port(scheduler)
        except (ValueError, TypeError) as exc:
            raise DaskError(
                f"not a Dask scheduler address: {scheduler!r} ({exc}); e.g. tcp://host:8786"
            ) from None
        try:
            client = distributed.Client(scheduler, timeout="20s", set_as_default=False)
        except OSError as exc:
            raise DaskError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        return client, client.close
    cluster = local_cluster(workers)
    client = distributed.Client(cluster, set_as_default=False)

    def close() -> None:
        client.close()
        cluster.close()

    return client, close


class DaskBackend:
    """The driver's backend on a Dask cluster: one task per chunk (pure, so the scheduler may
    run it again elsewhere if a worker is lost), bots shipped by content hash as they are met,
    and the workers' bot pools in a plugin removed when the run ends."""

    def __init__(
        self, league: League, client: Client, close: Callable[[], None] | None = None
    ) -> None:
        from arena.run.cluster_worker import PoolPlugin

        self.distributed = _distributed()
        self.league = league
        self.client: Any = client  # distributed is only partly typed
        self._close: Callable[[], None] | None = (
            None  # set once made: a failure here is the maker's
        )
        self.token = uuid.uuid4().hex[:12]
        self.plugin = f"arena-pools-{self.token}"
        settings = league.config.executor
        self.shared = settings.bots == "shared"
        self.shipping = Shipping({}, {})
        self.registered: list[str] = []
        self.live: set[Any] = set()  # the futures not yet taken
        self.finished: queue.Queue[Any] = queue.Queue()
        self.threads = 1
        self.counted = -math.inf
        try:
            self.client.register_plugin(
                PoolPlugin(
                    league.config.run_limits(),
                    league.config.schedule.fresh_processes,
                    (settings.shared_folder or str(league.folder.resolve()))
                    if self.shared
                    else None,
                ),
                name=self.plugin,
            )
            self.registered.append(self.plugin)
            self.capacity()
        except BaseException:
            self.cancel()
            raise
        self._close = close

    def capacity(self) -> int:
        if time.monotonic() - self.counted > 2.0:  # workers may join or leave during a run
            self.threads = max(1, sum(self.client.nthreads().values()))
            self.counted = time.monotonic()
        return 2 * self.threads

    def free(self) -> list[int | None]:
        """The scheduler chooses the worker: chunks go in schedule order."""
        return [None] * max(0, self.capacity() - len(self.live))

    def submit(self, chunk: Sequence[Planned], worker: int | None = None) -> None:
        from arena.run.cluster_worker import play_batch

        task = [(p.match_id, p.game, p.seed, dict(p.options), self.refs_for(p.bots)) for p in chunk]
        future = self.client.submit(
            play_batch, self.plugin, task, key=f"arena-play-{self.token}-{chunk[0].match_id}"
        )
        self.live.add(future)
        future.add_done_callback(self.finished.put)

    def refs_for(self, bots: Sequence[int]) -> tuple[BotRef, ...]:
        """How the workers find ``bots``; a bot met for the first time is shipped now."""
        from arena.run.cluster_worker import BundlePlugin

        missing = sorted(set(bots) - set(self.shipping.refs))
        if missing:
            more = ship(self.league, missing, self.shared)
            for digest, data in more.bundles.items():
                if digest not in self.shipping.bundles:
                    name = f"arena-bot-{digest}"
                    self.client.register_plugin(BundlePlugin(digest, data), name=name)
                    self.registered.append(name)
            self.shipping.refs.update(more.refs)
            self.shipping.bundles.update(more.bundles)
        return tuple(self.shipping.refs[b] for b in bots)

    def take(self, timeout: float) -> ChunkResult | None:
        try:
            future = self.finished.get(timeout=timeout)
        except queue.Empty:
            return None
        self.live.discard(future)
        try:
            result: ChunkResult = future.result()
        except ArenaSetupError:
            raise  # the arena's own failure on a worker: stop, no bot to blame
        except self.distributed.KilledWorker as exc:
            raise WorkerLost(
                f"the cluster gave up a batch after its workers died ({exc}); run again to resume"
            ) from None
        except Exception as exc:
            raise DaskError(f"a batch failed on the cluster: {type(exc).__name__}: {exc}") from exc
        finally:
            future.release()
        return result

    def close(self) -> None:
        """Remove the run's plugins (the workers close their bot pools); close what the run
        opened."""
        for name in reversed(self.registered):
            with contextlib.suppress(Exception):
                self.client.unregister_worker_plugin(name)
        self.registered.clear()
        if self._close is not None:
            close, self._close = self._close, None
            close()

    def cancel(self) -> None:
        for future in self.live:
            with contextlib.suppress(Exception):
                future.cancel()
        self.live.clear()
        with contextlib.suppress(Exception):
            self.close()


def run_league_dask(
    league: League,
    scheduler: str | None = None,
    *,
    client: Client | None = None,
    workers: int | None = None,
    chunk: int | None = None,
    progress: TextIO | None = None,
    max_new: int | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    planner: Planner | None = None,
) -> RunReport:
    """Play the league on a Dask cluster until it is finished (or ``max_new`` matches).

    ``client`` (an open client) wins over ``scheduler`` (an address); with neither a
    ``LocalCluster`` of ``workers`` processes is started for the run. Raises
    :class:`~arena.run.driver.Interrupted` on Ctrl-C, :class:`~arena.run.driver.WorkerLost` if
    the scheduler gives a batch up (its workers kept dying), and
    :class:`~arena.errors.ArenaSetupError` when a worker cannot start a bot (a broken bot
    cache, a missing sandbox tool): no bot is charged for the arena's failure.
    """
    config = league.config
    settings = config.executor

    def open_backend() -> DaskBackend:
        _distributed()  # DaskError before a cluster is sought, if distributed is missing
        if client is not None:
            return DaskBackend(league, client)
        opened, close = connect(scheduler or settings.scheduler or None, workers or config.workers)
        try:
            return DaskBackend(league, opened, close)
        except BaseException:
            close()  # the backend was not made, so it cannot close what was opened
            raise

    return drive(
        league,
        open_backend,
        chunk=chunk or settings.chunk or config.schedule.chunk,
        progress=progress,
        max_new=max_new,
        on_record=on_record,
        planner=planner,
    )
