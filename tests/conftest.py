"""Fixtures every test folder may use."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.machine import why_no_process_bots


@pytest.fixture(scope="session")
def process_bots() -> None:
    """Skips the test, saying why, where this machine cannot run bot processes (tests/machine.py)."""
    reason = why_no_process_bots()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture
def own_stage(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A staging folder of this test's own (``ARENA_STAGE_DIR``, which the arena processes it
    starts inherit), so that ``bot_processes`` counts the bots this test's league staged and
    not those of a test running beside it (``pytest -n``: under ``rlimits`` a league's bots
    may run from staged copies, which the shared folder names only by the bot's name)."""
    root = Path(tempfile.mkdtemp(prefix="arena-stage-test-", dir="/var/tmp"))
    monkeypatch.setenv("ARENA_STAGE_DIR", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def no_resource_tracker_left() -> Iterator[None]:
    """LocalCluster starts its workers with multiprocessing's spawn, which starts a resource
    tracker process that lives as long as this one; stop it after the module (it starts
    again if needed), so that no child process outlives the tests."""
    yield
    from multiprocessing import resource_tracker

    stop = getattr(resource_tracker._resource_tracker, "_stop", None)
    if stop is not None:
        stop()
