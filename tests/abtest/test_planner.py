"""The test's planner on the league driver, with a fake backend that returns chunks out of order:
the verdict and the LLR path do not depend on how far ahead blocks are planned or how many
chunks are in flight; the run stops at the verdict and leaves nothing to play."""

from __future__ import annotations

from pathlib import Path

from arena.abtest.folder import BlockPlanner, Progress, Settings, open_test
from arena.league.core import League
from arena.run.driver import RunReport, drive
from tests.cluster.test_driver import FakeBackend

SETTINGS = Settings(
    game="take5",
    seats=3,
    new="builtin:first",
    old="builtin:random",
    h0=-150.0,
    h1=150.0,
    max_blocks=200,
    seed=4,
)


def run(folder: Path, capacity: int, ahead: int) -> tuple[Progress, RunReport, int]:
    settings, entrants, _ = open_test(folder, SETTINGS, workers=1)
    with League.open(folder) as lg:
        planner = BlockPlanner(lg, settings, entrants, ahead=ahead)
        report = drive(lg, lambda: FakeBackend(lg, capacity=capacity), chunk=2, planner=planner)
        assert lg.unplayed() == []
        return planner.progress(), report, lg.store.played_count()


def test_the_same_test_however_it_is_planned_and_played(tmp_path: Path) -> None:
    slow, slow_report, slow_played = run(tmp_path / "a", capacity=1, ahead=1)
    fast, fast_report, fast_played = run(tmp_path / "b", capacity=4, ahead=9)
    assert slow.status.finished and slow.status.blocks < 200
    assert slow.status == fast.status
    assert slow.history == fast.history and slow.counts == fast.counts
    assert slow_report.stopped == fast_report.stopped
    assert slow_report.stopped.startswith("finished: H")
    # Planned ahead and in flight, some blocks past the verdict were played, never counted.
    assert slow_played == 2 * slow.status.blocks
    assert 2 * fast.status.blocks <= fast_played <= 2 * (fast.status.blocks + 9)


def test_a_finished_test_plays_nothing_more(tmp_path: Path) -> None:
    first, _, played = run(tmp_path / "a", capacity=2, ahead=3)
    again, report, played_again = run(tmp_path / "a", capacity=2, ahead=3)
    assert again == first and played_again == played and report.played == 0
