"""Stopping a league's workers never waits forever: a worker that does not end on SIGTERM (one
forked while another thread of the parent held a lock can hang before its handler runs) is
killed after a grace period, so a run that fails or is interrupted still returns."""

from __future__ import annotations

import signal
import time

import multiprocess
import pytest

from arena.run.local import _terminate, _worker_pids

pytestmark = pytest.mark.timeout(60)


def deaf() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def test_workers_deaf_to_sigterm_are_killed_after_the_grace() -> None:
    pool = multiprocess.get_context("fork").Pool(2, initializer=deaf)
    assert pool.apply_async(sum, ([1, 2],)).get(timeout=30) == 3
    started = [pool.apply_async(time.sleep, (3600,)) for _ in range(2)]  # both workers stuck
    time.sleep(0.5)
    workers = [p for p in pool._pool]
    assert len(_worker_pids(pool)) == 2
    _terminate(pool, grace=1.0)  # pool.terminate(); pool.join() alone never returns here
    assert all(p.exitcode == -signal.SIGKILL for p in workers), [p.exitcode for p in workers]
    assert not any(r.ready() for r in started)
