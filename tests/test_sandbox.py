"""Bots that misbehave inside the sandbox are stopped or refused, and the arena goes on.

Each test bot is a Python program given with ``-c`` and started exactly as the runner starts bots
(``confine`` then ``Popen`` in a new session, the group killed on close). Tests that need
bubblewrap are skipped where it is not installed; where it is installed it must work, so they ask
for it by name and fail if it is unusable.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena import sandbox
from arena.sandbox import (
    Confined,
    Limits,
    SandboxUnavailable,
    available_method,
    confine,
    describe_isolation,
)

pytestmark = pytest.mark.timeout(60)

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="a uid per bot needs root")
BWRAP = Limits(method="bubblewrap")


@dataclass
class Layout:
    """An arena's folders: a league with its database, two bots, a scratch folder for each."""

    league: Path
    alice: Path
    bob: Path
    scratch: Path


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    league = tmp_path / "league"
    league.mkdir()
    (league / "league.sqlite").write_text("seed=1234 hidden cards")
    alice = tmp_path / "bots" / "alice"
    bob = tmp_path / "bots" / "bob"
    for bot in (alice, bob):
        bot.mkdir(parents=True)
        (bot / "notes.txt").write_text(f"{bot.name}'s own notes")
    scratch = tmp_path / "scratch" / "alice"
    scratch.mkdir(parents=True)
    return Layout(league, alice, bob, scratch)


def start(c: Confined) -> subprocess.Popen[bytes]:
    """Start a confined bot the way the bot runner does."""
    return subprocess.Popen(
        c.argv,
        cwd=c.cwd,
        env=c.env,
        preexec_fn=c.preexec_fn,
        pass_fds=c.pass_fds,
        start_new_session=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill the bot's whole process group and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()


@dataclass
class Finished:
    returncode: int
    out: str
    err: str
    seconds: float

    def report(self) -> Any:
        """The JSON the bot printed last."""
        lines = self.out.strip().splitlines()
        assert lines, f"no output; rc={self.returncode} stderr={self.err}"
        return json.loads(lines[-1])


def reachable_by_all(path: str) -> bool:
    """Whether a uid of no group can execute ``path`` (each directory on the way searchable)."""
    real = Path(os.path.realpath(path))
    steps = [*reversed(real.parents), real]
    return all(step.stat().st_mode & 0o001 for step in steps)


def python_for(limits: Limits) -> str:
    """The interpreter for a Python test bot under ``limits``.

    Without bubblewrap the bot sees the real filesystem under its own uid, so an interpreter in a
    private home (``/root/.pyenv``) is out of its reach: use one every uid can run.
    """
    if limits.method in ("bubblewrap", "none") or os.geteuid() != 0:
        return sys.executable
    for candidate in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(candidate) and reachable_by_all(candidate):
            return candidate
    pytest.skip("no Python interpreter that every uid may run")


def run_bot(
    code: str, layout: Layout, limits: Limits = BWRAP, timeout: float = 30, bot: Path | None = None
) -> Finished:
    """Run ``code`` as a confined Python bot to its end (or to ``timeout``)."""
    c = confine(
        [python_for(limits), "-c", textwrap.dedent(code)],
        bot or layout.alice,
        layout.scratch,
        limits,
    )
    began = time.perf_counter()
    proc = start(c)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        stop(proc)
    return Finished(proc.returncode, out.decode(), err.decode(), time.perf_counter() - began)


def killed(result: Finished, *signals: int) -> bool:
    """Whether the bot died of one of ``signals`` (bwrap reports a child's signal as 128+n)."""
    return Confined([], "", {}, method="bubblewrap").signal_of(result.returncode) in signals


def bot_processes() -> list[tuple[int, int]]:
    """(pid, uid) of live processes running under a uid this test process gave to a bot."""
    first = sandbox._UID_BASE + (os.getpid() % (1 << 22)) * 256
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        uid = int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])
        if first <= uid < first + 256:
            found.append((int(entry), uid))
    return found


@pytest.fixture(autouse=True, scope="module")
def no_bot_left_behind() -> Iterator[None]:
    """After all the tests, not one bot process may still be running."""
    yield
    deadline = time.monotonic() + 5
    while bot_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert bot_processes() == []


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SECRET_SEED", "20260415")


# --- the environment --------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["bubblewrap", "unshare", "rlimits", "none"])
def test_the_arenas_environment_is_not_passed_on(
    method: str, layout: Layout, secret_env: None
) -> None:
    if method == "bubblewrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap not installed")
    if method == "unshare" and shutil.which("unshare") is None:
        pytest.skip("unshare not installed")
    result = run_bot(
        "import json, os; print(json.dumps(dict(os.environ)))",
        layout,
        Limits(method=method),  # type: ignore[arg-type]
    )
    env = result.report()
    assert "ARENA_SECRET_SEED" not in env
    assert env["HOME"] == env["TMPDIR"] == str(layout.scratch)
    assert set(env) <= {"PATH", "HOME", "TMPDIR", "LANG", "PWD"}


# --- the network ------------------------------------------------------------------------------

NETWORK = """
    import json, socket, sys
    results = {}
    for name, address in [("loopback", ("127.0.0.1", int(sys.argv[1]))), ("public", ("1.1.1.1", 53))]:
        try:
            socket.create_connection(address, timeout=3).close()
            results[name] = "connected"
        except OSError as exc:
            results[name] = type(exc).__name__ + ": " + str(exc)
    print(json.dumps(results))
"""


@needs_bwrap
def test_no_network_not_even_the_arenas_loopback(layout: Layout) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        c = confine(
            [sys.executable, "-c", textwrap.dedent(NETWORK), str(port)],
            layout.alice,
            layout.scratch,
            BWRAP,
        )
        proc = start(c)
        try:
            out, err = proc.communicate(timeout=30)
        finally:
            stop(proc)
    assert out, err
    results = json.loads(out)
    # The bot's loopback (up or down) is its own: the arena's listener is not on it.
    assert results["loopback"].startswith(("ConnectionRefusedError", "OSError")), results
    assert "unreachable" in results["public"].lower(), results


# --- the filesystem ---------------------------------------------------------------------------

FILES = """
    import json, os, sys
    scratch, own, other, league = sys.argv[1:5]
    def attempt(action):
        try:
            return action()
        except OSError as exc:
            return type(exc).__name__
    def write(path):
        with open(path, "w") as f:
            f.write("x")
        return "written"
    print(json.dumps({
        "scratch": attempt(lambda: write(os.path.join(scratch, "memo"))),
        "own_folder": attempt(lambda: write(os.path.join(own, "memo"))),
        "root": attempt(lambda: write("/memo")),
        "tmp": attempt(lambda: write("/tmp/memo")),
        "shm": attempt(lambda: write("/dev/shm/memo")),
        "league_write": attempt(lambda: write(os.path.join(league, "memo"))),
        "read_own": attempt(lambda: open(os.path.join(own, "notes.txt")).read()),
        "read_other": attempt(lambda: open(os.path.join(other, "notes.txt")).read()),
        "other_exists": os.path.exists(other),
        "league_exists": os.path.exists(league),
        "bots_listing": attempt(lambda: os.listdir(os.path.dirname(own))),
        "shadow": os.path.exists("/etc/shadow"),
    }))
"""


@needs_bwrap
def test_a_bot_writes_only_its_scratch_and_reads_only_its_own_folder(layout: Layout) -> None:
    c = confine(
        [
            sys.executable,
            "-c",
            textwrap.dedent(FILES),
            str(layout.scratch),
            str(layout.alice),
            str(layout.bob),
            str(layout.league),
        ],
        layout.alice,
        layout.scratch,
        BWRAP,
    )
    proc = start(c)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        stop(proc)
    assert out, err
    seen = json.loads(out)
    assert seen["scratch"] == "written"
    assert (layout.scratch / "memo").read_text() == "x"
    for place in ("own_folder", "root", "tmp", "shm", "league_write"):
        assert seen[place] != "written", (place, seen)
    assert not (layout.alice / "memo").exists()
    assert seen["read_own"] == "alice's own notes"
    assert seen["read_other"] == "FileNotFoundError"
    assert seen["other_exists"] is False
    assert seen["league_exists"] is False
    assert seen["bots_listing"] == ["alice"]
    assert seen["shadow"] is False


@needs_bwrap
def test_the_arenas_processes_are_invisible(layout: Layout) -> None:
    result = run_bot(
        """
        import json, os
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
        cmdlines = []
        for p in pids:
            try:
                cmdlines.append(open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace"))
            except OSError:
                pass
        print(json.dumps({"pids": pids, "me": os.getpid(), "cmdlines": cmdlines}))
        """,
        layout,
    )
    seen = result.report()
    assert len(seen["pids"]) <= 3, seen  # bwrap's init, (setpriv→) the bot
    assert str(seen["me"]) in seen["pids"]
    programs = {line.split("\0")[0] for line in seen["cmdlines"]}
    assert programs <= {"bwrap", sys.executable}, programs


# --- processes --------------------------------------------------------------------------------

FORKS = """
    import json, os, sys, time
    tries, hold = int(sys.argv[1]), float(sys.argv[2])
    children = []
    for _ in range(tries):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(hold)
            os._exit(0)
        children.append(pid)
    print(json.dumps({"forks": len(children)}), flush=True)
    for pid in children:
        os.waitpid(pid, 0)
"""


def forking_bot(layout: Layout, bot: Path, scratch: Path, limits: Limits, hold: float) -> Confined:
    return confine(
        [python_for(limits), "-c", textwrap.dedent(FORKS), "500", str(hold)], bot, scratch, limits
    )


@needs_bwrap
@needs_root
def test_forking_without_end_is_stopped_and_does_not_starve_other_bots(layout: Layout) -> None:
    limits = Limits(method="bubblewrap", processes=32)
    bob_scratch = layout.scratch.parent / "bob"
    bob_scratch.mkdir()
    alice = start(forking_bot(layout, layout.alice, layout.scratch, limits, hold=5))
    try:
        assert alice.stdout is not None
        alice_forks = json.loads(alice.stdout.readline())["forks"]
        # While alice holds all her processes, bob (another uid) still has his whole quota.
        bob = start(forking_bot(layout, layout.bob, bob_scratch, limits, hold=0.2))
        try:
            bob_out, _ = bob.communicate(timeout=30)
        finally:
            stop(bob)
    finally:
        stop(alice)
    bob_forks = json.loads(bob_out)["forks"]
    assert 16 <= alice_forks < 32
    assert 16 <= bob_forks < 32


@needs_root
def test_the_process_limit_holds_without_namespaces_too(layout: Layout) -> None:
    limits = Limits(method="rlimits", processes=16)
    c = forking_bot(layout, layout.alice, layout.scratch, limits, hold=0.2)
    proc = start(c)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        stop(proc)
    assert 0 < json.loads(out)["forks"] < 16, err


# --- memory, files, CPU -----------------------------------------------------------------------


@needs_bwrap
def test_allocating_without_end_is_stopped(layout: Layout) -> None:
    result = run_bot(
        """
        import json
        hoard = []
        try:
            for _ in range(100):
                hoard.append(bytearray(100 * 1024 * 1024))
            print(json.dumps({"allocated_mb": 100 * len(hoard)}))
        except MemoryError:
            print(json.dumps({"stopped_at_mb": 100 * len(hoard)}))
        """,
        layout,
        Limits(method="bubblewrap", memory_mb=512),
    )
    if result.returncode == 0:
        assert result.report()["stopped_at_mb"] < 512
    else:
        assert killed(result, signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT), result


@needs_bwrap
def test_a_huge_file_is_stopped(layout: Layout) -> None:
    result = run_bot(
        """
        import json, os
        written = 0
        try:
            with open(os.path.join(os.environ["TMPDIR"], "huge"), "wb") as f:
                for _ in range(64):
                    f.write(b"x" * 1024 * 1024)
                    f.flush()
                    written += 1
            print(json.dumps({"written_mb": written}))
        except OSError as exc:
            print(json.dumps({"errno": exc.errno, "written_mb": written}))
        """,
        layout,
        Limits(method="bubblewrap", file_size_mb=2),
    )
    seen = result.report()
    assert seen.get("errno") == 27, seen  # EFBIG
    assert (layout.scratch / "huge").stat().st_size <= 2 * 1024 * 1024


@needs_bwrap
def test_burning_cpu_past_the_limit_is_killed(layout: Layout) -> None:
    result = run_bot(
        """
        import time
        end = time.monotonic() + 30
        while time.monotonic() < end:
            pass
        print("survived")
        """,
        layout,
        Limits(method="bubblewrap", cpu_seconds=1),
    )
    assert "survived" not in result.out
    assert killed(result, signal.SIGXCPU, signal.SIGKILL), result
    assert result.seconds < 20


# --- languages and lifecycle ------------------------------------------------------------------


@needs_bwrap
@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_a_node_bot_runs_inside(layout: Layout) -> None:
    c = confine(
        [
            "node",
            "-e",
            "process.stdin.once('data', d => console.log(JSON.stringify({got: JSON.parse(d)})))",
        ],
        layout.alice,
        layout.scratch,
        BWRAP,
    )
    proc = start(c)
    try:
        out, err = proc.communicate(b'{"ping": 1}\n', timeout=30)
    finally:
        stop(proc)
    assert json.loads(out) == {"got": {"ping": 1}}, err


@needs_bwrap
def test_a_persistent_bot_answers_lines(layout: Layout) -> None:
    c = confine(
        [
            sys.executable,
            "-c",
            "import sys\nfor line in sys.stdin: print(line.strip()[::-1], flush=True)",
        ],
        layout.alice,
        layout.scratch,
        BWRAP,
    )
    proc = start(c)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for word in ("abc", "take5"):
            proc.stdin.write(word.encode() + b"\n")
            proc.stdin.flush()
            assert proc.stdout.readline() == word[::-1].encode() + b"\n"
    finally:
        stop(proc)


def marked_processes(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry))
    return found


@needs_bwrap
def test_nothing_outlives_the_bot_not_even_a_daemon(layout: Layout) -> None:
    marker = f"sandbox-daemon-{uuid.uuid4().hex}"
    code = """
        import os, sys, time
        if os.fork() == 0:
            os.setsid()  # leave the bot's process group, as a daemon would
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", sys.argv[1]])
            os._exit(0)
        print("ready", flush=True)
        time.sleep(60)
    """
    c = confine(
        [sys.executable, "-c", textwrap.dedent(code), marker], layout.alice, layout.scratch, BWRAP
    )
    proc = start(c)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"ready\n"
        deadline = time.monotonic() + 5
        while not marked_processes(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marked_processes(marker), "the daemon never started"
    finally:
        stop(proc)
    deadline = time.monotonic() + 5
    while marked_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marked_processes(marker) == []


# --- choosing the method ----------------------------------------------------------------------


def test_the_sandbox_can_be_disabled_for_debugging(layout: Layout) -> None:
    c = confine(
        [sys.executable, "-c", "print(1)"], layout.alice, layout.scratch, Limits(method="none")
    )
    assert c.method == "none"
    assert c.preexec_fn is None
    assert c.argv == [sys.executable, "-c", "print(1)"]
    assert describe_isolation("none").startswith("none:")


def test_the_chosen_method_is_described(layout: Layout) -> None:
    method = available_method()
    assert describe_isolation().startswith(method)
    assert confine([sys.executable, "-V"], layout.alice, layout.scratch, Limits()).method == method


@needs_bwrap
def test_bubblewrap_is_chosen_where_installed() -> None:
    assert available_method() == "bubblewrap"


def test_a_method_that_cannot_run_is_refused(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "_works", lambda method: method in ("rlimits", "none"))
    with pytest.raises(SandboxUnavailable):
        confine([sys.executable, "-V"], layout.alice, layout.scratch, BWRAP)


@pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare not installed")
def test_the_unshare_fallback_cuts_the_network(layout: Layout) -> None:
    limits = Limits(method="unshare")
    c = confine(
        [python_for(limits), "-c", textwrap.dedent(NETWORK), "9"],
        layout.alice,
        layout.scratch,
        limits,
    )
    proc = start(c)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        stop(proc)
    results = json.loads(out)
    assert "connected" not in results.values(), (results, err)


@needs_bwrap
@pytest.mark.skipif(shutil.which("python3") is None, reason="no python3 on PATH")
def test_a_command_named_on_path_still_resolves(layout: Layout) -> None:
    script = layout.alice / "run.sh"
    script.write_text("#!/bin/sh\nexec python3 -c 'print(6 * 7)'\n")
    script.chmod(0o755)
    for argv in (["python3", "-c", "print(6 * 7)"], ["./run.sh"], ["sh", "run.sh"]):
        c = confine(argv, layout.alice, layout.scratch, BWRAP)
        proc = start(c)
        try:
            out, err = proc.communicate(timeout=30)
        finally:
            stop(proc)
        assert out == b"42\n", (argv, err)


def test_a_signal_is_read_through_the_sandbox_tool() -> None:
    assert Confined([], "", {}, method="bubblewrap").signal_of(128 + 24) == signal.SIGXCPU
    assert Confined([], "", {}, method="bubblewrap").signal_of(-9) == signal.SIGKILL
    assert Confined([], "", {}, method="bubblewrap").signal_of(3) is None
    assert Confined([], "", {}, method="none").signal_of(137) is None
