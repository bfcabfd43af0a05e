"""Fixtures every test folder may use."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.machine import why_no_process_bots


@pytest.fixture(scope="session")
def process_bots() -> None:
    """Skips the test, saying why, where this machine cannot run bot processes (tests/machine.py)."""
    reason = why_no_process_bots()
    if reason is not None:
        pytest.skip(reason)


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
