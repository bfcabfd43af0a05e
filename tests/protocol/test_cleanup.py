"""Clean-up never crashes and never leaves anything: scratch trees too deep for a recursive
removal, bots that ignore bye, a stop by SIGTERM, and the leftovers of an arena killed with -9.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.match import MatchSpec, run_match
from arena.runtime.botproc import (
    BotConnection,
    LocalConnection,
    ProcessTransport,
    RunLimits,
    TimeLimits,
)
from arena.runtime.manifest import FirstAgent, load_bot
from arena.runtime.pool import BotPool
from arena.runtime.scratch import owner_prefix, private_folder, remove_tree, sweep

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
TEST_BOTS = ROOT / "tests" / "bots"
FAST = RunLimits(time=TimeLimits(decision=0.5, bank=0.5, startup=10.0, grace=0.2))


@pytest.fixture
def temp_root() -> Iterator[Path]:
    """A temp folder a bot's uid can pass through (pytest's own is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-test-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    remove_tree(folder)


def gone(pid: int, wait: float = 5.0) -> bool:
    """True once process ``pid`` has ended (a zombie counts as ended)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0]
        except (OSError, IndexError):
            return True
        if state in "ZX":
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def pid_of(connection: Any) -> int:
    assert isinstance(connection, BotConnection), connection
    assert isinstance(connection.transport, ProcessTransport)
    return connection.transport.pid


def deep_tree(top: Path, depth: int) -> None:
    """A chain of ``depth`` folders under ``top``, with a file and a link out at the bottom."""
    top.mkdir()
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            below = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = below
        os.close(os.open("leaf", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
        os.symlink("/etc", "out", dir_fd=fd)
    finally:
        os.close(fd)


# -- remove_tree --------------------------------------------------------------------------------


def test_a_tree_deeper_than_the_recursion_limit_and_path_max_is_removed(tmp_path: Path) -> None:
    top = tmp_path / "scratch"
    deep_tree(top, 5000)
    assert remove_tree(top)
    assert not top.exists()


def test_links_are_removed_never_followed(tmp_path: Path) -> None:
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "precious").write_text("still here")
    top = tmp_path / "scratch"
    top.mkdir()
    (top / "to-folder").symlink_to(keep)
    (top / "to-file").symlink_to(keep / "precious")
    assert remove_tree(top)
    assert (keep / "precious").read_text() == "still here"
    (tmp_path / "lone-link").symlink_to(keep)
    assert remove_tree(tmp_path / "lone-link") and keep.is_dir()


def test_folders_closed_by_their_owner_are_removed(tmp_path: Path) -> None:
    top = tmp_path / "scratch"
    (top / "a" / "b").mkdir(parents=True)
    (top / "a" / "b" / "f").write_text("x")
    (top / "a" / "b").chmod(0)
    (top / "a").chmod(0o500)
    assert remove_tree(top)
    assert not top.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a folder to another uid")
def test_a_scratch_given_to_a_bot_uid_is_removed(tmp_path: Path) -> None:
    top = tmp_path / "scratch"
    deep_tree(top, 50)
    for root, dirs, files in os.walk(top):
        for name in [*dirs, *files]:
            os.lchown(os.path.join(root, name), 1 << 20, 1 << 20)
    os.chown(top, 1 << 20, 1 << 20)
    top.chmod(0o700)
    assert remove_tree(top)
    assert not top.exists()


def test_remove_tree_does_not_raise(tmp_path: Path) -> None:
    assert remove_tree(tmp_path / "missing" / "deeper")
    assert not remove_tree("/")  # refused, not raised


# -- the pool ---------------------------------------------------------------------------------


def test_a_deep_scratch_tree_and_a_bot_that_ignores_bye_are_all_cleaned_up(
    temp_root: Path,
) -> None:
    deep = load_bot(str(TEST_BOTS / "deep_scratch"))
    stubborn = load_bot(str(TEST_BOTS / "ignores_bye.py"))
    root = temp_root / "arena"
    pool = BotPool(FAST, scratch_root=root)
    record = run_match(MatchSpec("deep", "take5", 1, (deep, stubborn), {"max_rounds": 1}), pool)
    assert not record.faults, record.faults
    pids = [pid_of(pool.get(deep)), pid_of(pool.get(stubborn))]
    assert len(os.listdir(root)) == 2
    pool.close()  # the deep tree made this raise RecursionError, and the second bot stayed
    assert all(gone(pid) for pid in pids)
    assert os.listdir(root) == []
    assert len(pool) == 0


def test_close_stops_every_bot_even_when_one_fails_to_close(temp_root: Path) -> None:
    class Broken(LocalConnection):
        def close(self) -> None:
            raise RuntimeError("this connection cannot close")

    stubborn = load_bot(str(TEST_BOTS / "ignores_bye.py"))
    pool = BotPool(FAST, scratch_root=temp_root / "arena")
    pool.put(load_bot("builtin:first"), 0, Broken(FirstAgent(), FAST))
    pid = pid_of(pool.get(stubborn))
    with pytest.raises(RuntimeError, match="cannot close"):
        pool.close()
    assert gone(pid)
    assert os.listdir(temp_root / "arena") == []


def test_scratch_folders_are_named_for_their_arena_in_a_private_root(temp_root: Path) -> None:
    root = temp_root / "arena"
    with BotPool(FAST, scratch_root=root) as pool:
        pool.get(load_bot(str(TEST_BOTS / "slow.py")))
        (name,) = os.listdir(root)
        assert name.startswith(owner_prefix() + "slow-")
        assert root.stat().st_mode & 0o777 == 0o711
        assert sweep(root) == []  # this arena is alive: its folder stays
        assert os.listdir(root) == [name]


def test_a_planted_scratch_root_is_replaced(temp_root: Path) -> None:
    root = temp_root / "arena"
    root.symlink_to(temp_root)  # e.g. planted by another user in a shared /tmp
    private_folder(root, 0o711)
    assert root.is_dir() and not root.is_symlink()
    assert root.stat().st_mode & 0o777 == 0o711


# -- leftovers of a dead arena ----------------------------------------------------------------


def arena_play(tmpdir: Path, *bots: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TMPDIR": str(tmpdir), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "play", "take5", *bots, "--decision-time", "60"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def children_of(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def wait_for_bot(arena: subprocess.Popen[bytes], root: Path) -> list[int]:
    """Wait until ``arena`` has started its bot (it then waits for a decision that never
    comes); the bots' process groups."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        groups = children_of(arena.pid)
        if root.is_dir() and os.listdir(root) and groups:
            time.sleep(0.5)  # let it answer hello and get asked
            return children_of(arena.pid)
        assert arena.poll() is None, "the arena ended before its bot started"
        time.sleep(0.05)
    raise AssertionError("the arena did not start its bot")


def kill_groups(groups: list[int]) -> None:
    for group in groups:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)


@pytest.mark.slow
def test_the_next_pool_sweeps_the_scratch_of_an_arena_killed_with_sigkill(
    temp_root: Path,
) -> None:
    root = temp_root / f"arena-{os.geteuid()}"
    arena = arena_play(temp_root, str(TEST_BOTS / "hang_at_start.py"), "builtin:first")
    groups = wait_for_bot(arena, root)
    try:
        (left,) = os.listdir(root)
        arena.kill()
        arena.wait()
        assert (root / left).is_dir()  # nobody was there to clean up
    finally:
        kill_groups(groups)
    pool = BotPool(FAST, scratch_root=root)
    assert pool.swept == [left]
    assert os.listdir(root) == []
    pool.close()


@pytest.mark.slow
def test_sigterm_to_arena_play_stops_its_bots_and_removes_their_scratch(
    temp_root: Path,
) -> None:
    root = temp_root / f"arena-{os.geteuid()}"
    arena = arena_play(temp_root, str(TEST_BOTS / "hang_at_start.py"), "builtin:first")
    groups = wait_for_bot(arena, root)
    try:
        arena.send_signal(signal.SIGTERM)
        assert arena.wait(30) == 128 + signal.SIGTERM
        assert all(gone(group) for group in groups)
        assert os.listdir(root) == []
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
        kill_groups(groups)


def test_only_folders_of_dead_arenas_of_this_pid_namespace_are_swept(temp_root: Path) -> None:
    root = temp_root / "arena"
    root.mkdir()
    mine = owner_prefix() + "bot-x"
    pid, started, namespace, _ = mine.split("-", 3)
    dead = f"{pid}-{int(started) + 1}-{namespace}-bot-y"  # the same pid, another process
    elsewhere = f"{pid}-{int(started) + 1}-{int(namespace) + 1}-bot-z"  # another container's
    stranger = "not-an-arena-folder"
    for name in (mine, dead, elsewhere, stranger):
        (root / name).mkdir()
    assert sweep(root) == [dead]
    assert sorted(os.listdir(root)) == sorted([mine, elsewhere, stranger])


@pytest.mark.slow
def test_arena_play_survives_a_deep_scratch_and_a_bot_that_ignores_bye(
    temp_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    monkeypatch.setattr(tempfile, "tempdir", str(temp_root))
    bots = [str(TEST_BOTS / "deep_scratch"), str(TEST_BOTS / "ignores_bye.py")]
    result = CliRunner().invoke(
        main, ["play", "take5", *bots, "--quiet", "--option", "max_rounds=1"]
    )
    assert result.exit_code == 0, result.output
    assert os.listdir(temp_root / f"arena-{os.geteuid()}") == []
