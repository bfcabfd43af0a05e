"""Fixtures every test folder may use."""

from __future__ import annotations

import pytest

from tests.machine import why_no_process_bots


@pytest.fixture(scope="session")
def process_bots() -> None:
    """Skips the test, saying why, where this machine cannot run bot processes (tests/machine.py)."""
    reason = why_no_process_bots()
    if reason is not None:
        pytest.skip(reason)
