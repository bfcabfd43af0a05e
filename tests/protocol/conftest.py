"""After the protocol tests, no child process of the test run may be left."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def live_children() -> list[str]:
    """This process's children that are still running (zombies are reaped by nobody else)."""
    found = []
    me = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, rest = text.rsplit(") ", 1)
        fields = rest.split()
        if fields[1] == me:
            found.append(f"{stat.parent.name} {name.split('(', 1)[1]} state {fields[0]}")
    return found


@pytest.fixture(autouse=True, scope="session")
def no_process_left_behind() -> Iterator[None]:
    yield
    deadline = time.monotonic() + 2
    while live_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not live_children(), live_children()
