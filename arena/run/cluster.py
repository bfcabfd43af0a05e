"""Running a league on a Dask cluster (``pip install 'arena[dask]'``).

The parent process plans, sends batches of match specs to the workers of an existing cluster
(or of a :class:`distributed.LocalCluster` it starts), and is the only writer of the store: each
record is committed as it comes back (``as_completed``), exactly as the local executor does.

* **Bots travel by content hash.** Each submitted bot folder is packed into a deterministic tar,
  named by the SHA-256 of its bytes, and installed on every worker by a small worker plugin
  (also on workers that join later), which unpacks it once into a cache folder on the worker's
  machine (``$ARENA_BOT_CACHE``, default ``$TMPDIR/arena-bot-cache-UID/HASH``, private to the
  arena's user); a later run with the same bot finds it there, and uses it once it matches the
  bundle file for file. With ``[executor] bots = "shared"`` the workers read the bots
  from ``shared_folder`` (the league folder as the workers see it) instead.
* **Bot processes live across matches.** A second plugin holds one
  :class:`~arena.runtime.pool.BotPool` per worker thread; it is closed when the run ends (the plugin
  is removed) or the worker closes.
* **Tasks are pure and idempotent**: a batch of match specs in, a list of records out. A worker
  lost mid-batch loses nothing: the scheduler runs its unfinished batches again elsewhere, and
  the store keys records by match id, so nothing is counted twice.

The import of ``distributed`` is lazy: the rest of arena works without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from arena.errors import ArenaSetupError
from arena.league.core import League
from arena.league.store import Planned
from arena.run.local import Interrupted, Progress, RunReport, WorkerLost, finish, plan_more
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
    cluster = distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    client = distributed.Client(cluster, set_as_default=False)

    def close() -> None:
        client.close()
        cluster.close()

    return client, close


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
) -> RunReport:
    """Play the league on a Dask cluster until it is finished (or ``max_new`` matches).

    ``client`` (an open client) wins over ``scheduler`` (an address); with neither a
    ``LocalCluster`` of ``workers`` processes is started for the run. Raises
    :class:`~arena.run.local.Interrupted` on Ctrl-C, :class:`~arena.run.local.WorkerLost` if
    the scheduler gives a batch up (its workers kept dying), and
    :class:`~arena.errors.ArenaSetupError` when a worker cannot start a bot (a broken bot
    cache, a missing sandbox tool): no bot is charged for the arena's failure.
    """
    config = league.config
    settings = config.executor
    chunk = chunk or settings.chunk or config.schedule.chunk
    report = RunReport()
    began = time.monotonic()
    ratings = league.load_ratings()
    report.batches_planned += league.advance(ratings)
    pending: deque[Planned] = deque(league.unplayed())
    if not pending:
        return finish(league, report, began)
    distributed = _distributed()
    from arena.run.cluster_worker import BundlePlugin, PoolPlugin, play_batch

    close: Callable[[], None] | None = None
    if client is None:
        client, close = connect(scheduler or settings.scheduler or None, workers or config.workers)
    cl: Any = client  # distributed is only partly typed
    token = uuid.uuid4().hex[:12]
    plugin_name = f"arena-pools-{token}"
    shared = settings.bots == "shared"
    shared_folder = settings.shared_folder or str(league.folder.resolve())
    shipping = Shipping({}, {})
    registered: list[str] = []

    def refs_for(bots: Sequence[int]) -> tuple[BotRef, ...]:
        missing = sorted(set(bots) - set(shipping.refs))
        if missing:
            more = ship(league, missing, shared)
            for digest, data in more.bundles.items():
                if digest not in shipping.bundles:
                    name = f"arena-bot-{digest}"
                    cl.register_plugin(BundlePlugin(digest, data), name=name)
                    registered.append(name)
            shipping.refs.update(more.refs)
            shipping.bundles.update(more.bundles)
        return tuple(shipping.refs[b] for b in bots)

    seats: dict[str, tuple[int, ...]] = {}
    done = league.store.played_count()
    bar = Progress(progress, max(config.schedule.max_matches, done + len(pending)), done)
    stop_after = max_new
    futures = distributed.as_completed(loop=cl.loop)
    live: set[Any] = set()  # the futures not yet returned
    try:
        cl.register_plugin(
            PoolPlugin(
                config.run_limits(),
                config.schedule.fresh_processes,
                shared_folder if shared else None,
            ),
            name=plugin_name,
        )
        registered.append(plugin_name)
        threads, counted = max(1, sum(cl.nthreads().values())), time.monotonic()
        while pending or live:
            if time.monotonic() - counted > 2.0:  # workers may join or leave during a run
                threads, counted = max(1, sum(cl.nthreads().values())), time.monotonic()
            while pending and len(live) < 2 * threads and (stop_after is None or stop_after > 0):
                batch: list[Planned] = []
                while pending and len(batch) < chunk:
                    p = pending.popleft()
                    batch.append(p)
                    seats[p.match_id] = p.bots
                if stop_after is not None:
                    stop_after -= len(batch)
                task = [
                    (p.match_id, p.game, p.seed, dict(p.options), refs_for(p.bots)) for p in batch
                ]
                future = cl.submit(
                    play_batch, plugin_name, task, key=f"arena-play-{token}-{batch[0].match_id}"
                )
                live.add(future)
                futures.add(future)
            if not live:
                break
            future = next(futures)
            live.discard(future)
            try:
                item = future.result()
            except ArenaSetupError:
                raise  # the arena's own failure on a worker: stop, no bot to blame
            except distributed.KilledWorker as exc:
                raise WorkerLost(
                    f"the cluster gave up a batch after its workers died ({exc}); run again to resume"
                ) from None
            except Exception as exc:
                raise DaskError(
                    f"a batch failed on the cluster: {type(exc).__name__}: {exc}"
                ) from exc
            finally:
                future.release()
            report.processes_started += item["started"]
            for record in item["records"]:
                bots = seats.pop(record["match_id"], None)
                if bots is not None and league.store.record_match(record, bots):
                    done += 1
                    report.played += 1
                    if on_record is not None:
                        on_record(record)
            plan_more(league, ratings, pending, seats, report, bar, done)
            bar.update(done)
    except KeyboardInterrupt:
        bar.finish()
        raise Interrupted(
            f"stopped after {report.played} new matches; run again to resume"
        ) from None
    finally:
        for future in live:
            with contextlib.suppress(Exception):
                future.cancel()
        for name in reversed(registered):
            with contextlib.suppress(Exception):
                cl.unregister_worker_plugin(name)
        if close is not None:
            close()
    bar.update(done, force=True)
    bar.finish()
    return finish(league, report, began)
