"""The probe behind the ``process_bots`` fixture names what keeps bot processes from running."""

from __future__ import annotations

import pytest

from tests.machine import why_no_process_bots


def test_a_sandbox_that_cannot_run_is_the_reason_to_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SANDBOX", "no-such-method")
    reason = why_no_process_bots.__wrapped__()
    assert reason is not None and "ARENA_SANDBOX='no-such-method'" in reason, reason
