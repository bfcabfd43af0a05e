"""``kill -9`` of a real ``arena server`` during a batch and during an upload: nothing lost,
nothing doubled, the audit passes, and the league finishes after a restart."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from arena.league.audit import audit
from arena.league.core import League
from arena.server.jobs import Jobs, uploads_dir
from tests.server.conftest import People, bot_archive
from tests.server.test_runner import small_league

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def server(folder: Path, port: int, more: int = 0) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "ARENA_PURE_PYTHON": "1"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "server",
            str(folder),
            "--port",
            str(port),
            "--workers",
            "2",
            "--more",
            str(more),
        ],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        with_group(process, signal.SIGKILL)
        process.wait(30)


def with_group(process: subprocess.Popen[bytes], sig: int) -> None:
    with suppress(ProcessLookupError):
        os.killpg(process.pid, sig)


def get(port: int, path: str) -> Any:
    import json

    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
        return json.loads(answer.read())


def wait_for(condition: Callable[[], bool], seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except (OSError, urllib.error.URLError, ValueError):
            pass
        time.sleep(0.2)
    raise AssertionError("timed out")


def played(folder: Path) -> int:
    with League.open(folder, read_only=True) as lg:
        return lg.store.played_count()


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def test_kill_during_batches_and_uploads(tmp_path: Path) -> None:
    budget = 2000  # enough that the kills land mid-run on a fast machine
    folder = small_league(tmp_path / "league", matches=budget, stop_rules=False)
    people = People(folder)
    port = free_port()
    # 1. kill -9 of the server process alone, mid-batch: its runner stops by itself.
    with server(folder, port) as process:
        wait_for(lambda: get(port, "/api/v1/standings")["matches_played"] > 3)
        assert played(folder) < budget  # the league is playing
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        wait_for(lambda: group_gone(process.pid), 60)  # runner, workers and bots followed
    middle = played(folder)
    assert 0 < middle < budget
    # 2. kill -9 of everything mid-batch, and of an upload sent half-way.
    port = free_port()
    with server(folder, port) as process:
        wait_for(lambda: get(port, "/api/v1/standings")["matches_played"] > middle)
        assert played(folder) < budget  # still playing
        data = bot_archive(tmp_path, "alice-bot")
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(
                b"POST /api/v1/bots HTTP/1.1\r\nHost: x\r\nContent-Type: application/gzip\r\n"
                + f"Authorization: Bearer {people.tokens['alice']}\r\n".encode()
                + f"Content-Length: {len(data)}\r\n\r\n".encode()
                + data[: len(data) // 2]
            )
            time.sleep(0.5)
            with_group(process, signal.SIGKILL)
            process.wait(10)
    assert not [p for p in uploads_dir(folder).iterdir()]  # the half upload left nothing
    # 3. A complete upload, then a kill right after the answer: it is queued, and validated
    # by the next server; the league resumes to its budget.
    port = free_port()
    with server(folder, port) as process:
        wait_for(lambda: bool(get(port, "/api/v1/standings")))
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/v1/bots",
            data=data,
            headers={**people.auth("alice"), "Content-Type": "application/gzip"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 201
        with_group(process, signal.SIGKILL)
        process.wait(10)
    port = free_port()
    with server(folder, port), Jobs(folder) as jobs:
        wait_for(lambda: jobs.validations()[0].ended, 120)
        assert [v.status for v in jobs.validations()] == ["passed"]
        wait_for(lambda: get(port, "/api/v1/standings")["finished"], 240)
    assert [p for p in uploads_dir(folder).iterdir()] == []  # entered, then removed
    with League.open(folder, read_only=True) as lg:
        assert lg.store.played_count() == lg.store.planned_matches() > middle  # none lost
        assert "alice-bot" in {e.name for e in lg.entrants()}
        report = audit(lg)
        assert report.problems == [], report.problems
