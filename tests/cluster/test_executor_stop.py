"""Stopping a league's workers never waits forever: a worker that does not end on SIGTERM (one
forked while another thread of the parent held a lock can hang before its handler runs) is
killed after a grace period, so a run that fails or is interrupted still returns."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest

from arena.run.local import Workers

pytestmark = pytest.mark.timeout(60)


def deaf() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def stuck(marker: str) -> None:
    Path(marker).touch()
    time.sleep(3600)


def wait_for_exit_codes(processes: list[Any]) -> None:
    """The executor's own thread may be reaping a worker at this moment (it joins them after a
    shutdown, and the exit code is set by whichever thread reaps): wait for the exit codes
    rather than read them at once (CI once read None for a worker already gone)."""
    deadline = time.monotonic() + 10
    while any(p.exitcode is None for p in processes) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_workers_deaf_to_sigterm_are_killed_after_the_grace(tmp_path: Path) -> None:
    workers = Workers(2, initializer=deaf)
    assert workers.executor.submit(sum, [1, 2]).result(timeout=30) == 3
    markers = [tmp_path / f"stuck-{n}" for n in range(2)]
    started = [workers.executor.submit(stuck, str(m)) for m in markers]  # both workers stuck
    deadline = time.monotonic() + 30
    while not all(m.exists() for m in markers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(m.exists() for m in markers)
    processes = workers.processes
    assert len(processes) == 2 and all(p.is_alive() for p in processes)
    workers.stop(grace=1.0)  # a SIGTERM alone never ends these workers
    wait_for_exit_codes(processes)
    assert all(p.exitcode == -signal.SIGKILL for p in processes), [p.exitcode for p in processes]
    assert not any(f.done() and not f.cancelled() and f.exception() is None for f in started)


def test_stopping_workers_that_end_on_sigterm_kills_none(tmp_path: Path) -> None:
    workers = Workers(2)
    marker = tmp_path / "stuck"
    workers.executor.submit(stuck, str(marker))
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    processes = workers.processes
    workers.stop(grace=30.0)
    wait_for_exit_codes(processes)
    assert all(p.exitcode == -signal.SIGTERM for p in processes), [p.exitcode for p in processes]
