"""The league driver's loop on a fake backend in this process (built-in bots, no process):
budget and ``max_new``, commits whatever order chunks finish in, a lost worker, Ctrl-C."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.league.core import League
from arena.league.store import PackedRecord, Planned
from arena.match import MatchSpec
from arena.run.driver import Backend, Interrupted, WorkerLost, chunk_size, drive
from arena.run.worker import ChunkResult, Player
from arena.runtime.botproc import RunLimits
from tests.league.helpers import fingerprint, small_league, write_bot, write_config

BOTS = ["builtin:random", "builtin:first"]


class FakeBackend:
    """Plays each chunk in this process when it is taken, last submitted first (so results come
    back out of order); ``fail_at`` makes the n-th take (from 1) raise ``failure`` instead."""

    def __init__(
        self,
        league: League,
        capacity: int = 3,
        fail_at: int = 0,
        failure: BaseException | None = None,
        twice: bool = False,
    ) -> None:
        self.league = league
        self.player = Player(RunLimits(), fresh=False)
        self.slots = capacity
        self.fail_at = fail_at
        self.failure = failure
        self.twice = twice
        """Send each chunk's records again with the next chunk's (as from a task run twice)."""
        self.queued: list[Sequence[Planned]] = []
        self.last: list[PackedRecord] = []
        self.takes = 0
        self.most_in_flight = 0
        self.ended: list[str] = []

    def capacity(self) -> int:
        return self.slots

    def free(self) -> list[int | None]:
        return [None] * (self.slots - len(self.queued))

    def submit(self, chunk: Sequence[Planned], worker: int | None) -> None:
        assert chunk and not self.ended and worker is None
        self.queued.append(chunk)
        self.most_in_flight = max(self.most_in_flight, len(self.queued))

    def take(self, timeout: float) -> ChunkResult | None:
        self.takes += 1
        if self.takes == self.fail_at:
            assert self.failure is not None
            raise self.failure
        if not self.queued:
            return None
        chunk = self.queued.pop()
        by_id = {e.id: e for e in self.league.entrants()}
        specs = [
            MatchSpec(
                p.match_id,
                p.game,
                p.seed,
                tuple(self.league.bot_spec(by_id[b]) for b in p.bots),
                p.options,
            )
            for p in chunk
        ]
        result = self.player.play(specs)
        if self.twice:
            result, self.last = (
                ChunkResult(self.last + result.records, result.started),
                result.records,
            )
        return result

    def close(self) -> None:
        self.ended.append("close")
        self.player.close()

    def cancel(self) -> None:
        self.ended.append("cancel")
        self.player.close()


def run(folder: Path, **options: object) -> FakeBackend:
    """Run the league at ``folder`` to its end on a FakeBackend made with ``options``."""
    made: list[FakeBackend] = []
    with League.open(folder) as lg:

        def open_backend() -> Backend:
            made.append(FakeBackend(lg, **options))  # type: ignore[arg-type]
            return made[-1]

        drive(lg, open_backend, chunk=2, progress=None)
    return made[0]


def test_the_driver_plays_to_the_budget_and_commits_out_of_order_results(tmp_path: Path) -> None:
    folder = small_league(tmp_path / "l", BOTS, budget=24, batch=6)
    backend = run(folder)
    assert backend.ended == ["close"]
    assert backend.most_in_flight == 3  # the backend's capacity, never more
    with League.open(folder) as lg:
        assert lg.store.played_count() == 24 and lg.finished()
        assert lg.stop_reason().startswith("finished: the budget of 24 matches is played;")
        assert lg.rate_from_scratch().rows() == lg.load_ratings().rows()
    in_order = small_league(tmp_path / "in-order", BOTS, budget=24, batch=6)
    run(in_order, capacity=1)  # one chunk at a time: results come in schedule order
    assert fingerprint(folder) == fingerprint(in_order)


def test_a_record_sent_twice_is_committed_once(tmp_path: Path) -> None:
    folder = small_league(tmp_path / "l", BOTS, budget=24, batch=6)
    run(folder, twice=True)
    once = small_league(tmp_path / "once", BOTS, budget=24, batch=6)
    run(once)
    assert fingerprint(folder) == fingerprint(once)


def test_max_new_stops_the_run_after_that_many_matches_sent(tmp_path: Path) -> None:
    folder = small_league(tmp_path / "l", BOTS, budget=24, batch=6)
    with League.open(folder) as lg:
        made: list[FakeBackend] = []

        def open_backend() -> Backend:
            made.append(FakeBackend(lg))
            return made[-1]

        report = drive(lg, open_backend, chunk=2, progress=None, max_new=5)
        assert report.played == 6  # whole chunks: 2 + 2 + 2
        assert report.stopped == "stopped: the run's match limit is played"
        assert made[0].ended == ["close"]
    run(folder)
    whole = small_league(tmp_path / "whole", BOTS, budget=24, batch=6)
    run(whole)
    assert fingerprint(folder) == fingerprint(whole)


def test_a_finished_league_opens_no_backend(tmp_path: Path) -> None:
    folder = small_league(tmp_path / "l", BOTS, budget=6, batch=6)
    run(folder)
    with League.open(folder) as lg:
        report = drive(lg, pytest.fail, chunk=2, progress=None)  # type: ignore[arg-type]
    assert report.played == 0 and report.stopped.startswith("finished")


@pytest.mark.parametrize(
    ("failure", "raised"),
    [
        (WorkerLost("a worker process died"), WorkerLost),
        (KeyboardInterrupt(), Interrupted),
        (RuntimeError("the backend broke"), RuntimeError),
    ],
)
def test_a_run_that_fails_cancels_the_backend_keeps_what_it_committed_and_resumes(
    tmp_path: Path, failure: BaseException, raised: type[BaseException]
) -> None:
    folder = small_league(tmp_path / "l", BOTS, budget=24, batch=6)
    made: list[FakeBackend] = []
    with League.open(folder) as lg:

        def open_backend() -> Backend:
            made.append(FakeBackend(lg, fail_at=5, failure=failure))
            return made[-1]

        with pytest.raises(raised) as caught:
            drive(lg, open_backend, chunk=2, progress=None)
        assert made[0].ended == ["cancel"]
        assert lg.store.played_count() == 8  # the four chunks taken before the failure
    if raised is Interrupted:
        assert "stopped after 8 new matches; run again to resume" in str(caught.value)
    run(folder)
    whole = small_league(tmp_path / "whole", BOTS, budget=24, batch=6)
    run(whole)
    assert fingerprint(folder) == fingerprint(whole)


def test_a_backend_that_fails_to_open_is_not_cancelled(tmp_path: Path) -> None:
    folder = small_league(tmp_path / "l", BOTS, budget=6, batch=6)

    def open_backend() -> Backend:
        raise KeyboardInterrupt

    with League.open(folder) as lg, pytest.raises(Interrupted):
        drive(lg, open_backend, chunk=2, progress=None)


@pytest.mark.parametrize(
    ("waiting", "in_flight", "expected"),
    [
        (100, 0, 16),  # plenty: full chunks
        (10, 0, 5),  # two idle workers share what waits
        (10, 1, 10),  # one idle worker takes it all
        (1, 0, 1),
        (10, 2, 0),  # both busy: a partial chunk waits for more (or for a worker)
        (16, 2, 16),  # both busy: a full chunk is queued behind them
        (40, 3, 16),
    ],
)
def test_chunks_spread_over_idle_workers_and_only_full_ones_queue(
    waiting: int, in_flight: int, expected: int
) -> None:
    assert chunk_size(16, waiting, in_flight, capacity=4) == expected


def test_a_backend_of_one_slot_still_gets_chunks() -> None:
    assert chunk_size(4, 3, 0, capacity=1) == 3


class RoutingBackend(FakeBackend):
    """A FakeBackend whose chunks go to a chosen one of ``workers`` (as the local backend's
    do), taken back in the order they were sent; it notes which bots each worker met in each
    batch."""

    def __init__(self, league: League, workers: int = 2) -> None:
        super().__init__(league, capacity=2 * workers)
        self.workers = workers
        self.flying: list[tuple[int, Sequence[Planned]]] = []
        self.met: dict[tuple[int, int], set[int]] = {}

    def free(self) -> list[int | None]:
        busy = [sum(1 for w, _ in self.flying if w == worker) for worker in range(self.workers)]
        return [w for depth in (0, 1) for w in range(self.workers) if busy[w] <= depth]

    def submit(self, chunk: Sequence[Planned], worker: int | None) -> None:
        assert chunk and worker is not None and not self.ended
        self.flying.append((worker, chunk))
        for p in chunk:
            self.met.setdefault((p.batch, worker), set()).update(p.bots)

    def take(self, timeout: float) -> ChunkResult | None:
        if not self.flying:
            return None
        self.queued = [self.flying.pop(0)[1]]
        return super().take(timeout)


GROUPED = """\
seed = 11
workers = 2
[games.take5]
seats = [4]
[schedule]
max_matches = 48
rounds_per_batch = 2
min_batch_matches = 0
group_size = 4
chunk = 2
[limits]
startup = 10.0
"""


def test_each_worker_keeps_to_one_group_of_bots_and_the_results_are_the_same(
    tmp_path: Path,
) -> None:
    """With groups of 4 among 8 entrants, each worker plays one group's matches of a batch
    (it meets 4 bots, not 8), and the league decides exactly what it decides in schedule
    order."""
    bots = [str(write_bot(tmp_path / "bots", f"b{n}")) for n in range(8)]
    folders = []
    for name in ("routed", "in-order"):
        folder = tmp_path / name
        write_config(folder, GROUPED)
        with League.open(folder) as lg:
            for bot in bots:
                lg.submit(bot, check=False)
        folders.append(folder)
    with League.open(folders[0]) as lg:
        routed = RoutingBackend(lg)
        drive(lg, lambda: routed, chunk=2, progress=None)
    run(folders[1], capacity=1)
    assert fingerprint(folders[0]) == fingerprint(folders[1])
    assert sorted(routed.met) == [(b, w) for b in range(3) for w in range(2)]
    assert all(len(met) == 4 for met in routed.met.values())
