"""Bots that misbehave inside the sandbox are stopped or refused, and the arena goes on.

Each test bot is a Python program given with ``-c`` and started exactly as the runner starts bots
(``confine`` then ``Popen`` in a new session, the group killed on close, then
``Confined.release``). Tests that need bubblewrap are skipped where it is not installed; where it
is installed it must work, so they ask for it by name and fail if it is unusable. The interpreter
is the arena's own (here in ``/root/.pyenv``, a private home) under every method.
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
import tempfile
import textwrap
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.runtime import sandbox
from arena.runtime.sandbox import (
    Confined,
    Limits,
    SandboxUnavailable,
    available_method,
    confine,
    describe_isolation,
)
from arena.runtime.scratch import remove_tree

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


def stop(proc: subprocess.Popen[bytes], confined: Confined | None = None) -> None:
    """Kill the bot's whole process group, reap it and release what it held."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    if confined is not None:
        confined.release()  # under rlimits, also kills what escaped the group (it holds pipes)
    proc.communicate()


@dataclass
class Finished:
    returncode: int
    out: str
    err: str
    seconds: float
    confined: Confined | None = None

    def report(self) -> Any:
        """The JSON the bot printed last."""
        lines = self.out.strip().splitlines()
        assert lines, f"no output; rc={self.returncode} stderr={self.err}"
        return json.loads(lines[-1])


def python_for(limits: Limits) -> str:
    """The interpreter for a Python test bot: the arena's own, under every method (even when it
    lives in a private home the bot's uid cannot traverse)."""
    return sys.executable


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
        stop(proc, c)
    return Finished(proc.returncode, out.decode(), err.decode(), time.perf_counter() - began, c)


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


def namespaced(method: str) -> Limits:
    """Limits for a method that hides the filesystem, skipping where its tool is missing."""
    tool = {"bubblewrap": "bwrap", "unshare": "unshare"}[method]
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not installed")
    return Limits(method=method)  # type: ignore[arg-type]


HIDING = pytest.mark.parametrize("method", ["bubblewrap", "unshare"])


def confining(method: str) -> Limits:
    """Limits for ``method``, skipping where it cannot keep its promises here."""
    if method == "rlimits":
        if os.geteuid() != 0:
            pytest.skip("without root, rlimits runs bots as the arena's own user")
        return Limits(method="rlimits")
    return namespaced(method)


CONFINING = pytest.mark.parametrize("method", ["bubblewrap", "unshare", "rlimits"])


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
    assert result.confined is not None
    assert env["HOME"] == env["TMPDIR"] == result.confined.scratch
    if method != "rlimits":  # rlimits gives a uid a scratch it can reach, if need be
        assert env["HOME"] == str(layout.scratch)
    assert set(env) <= {"PATH", "HOME", "TMPDIR", "LANG", "PWD", "LD_LIBRARY_PATH"}


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


@HIDING
def test_no_network_not_even_the_arenas_loopback(layout: Layout, method: str) -> None:
    limits = namespaced(method)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        c = confine(
            [sys.executable, "-c", textwrap.dedent(NETWORK), str(port)],
            layout.alice,
            layout.scratch,
            limits,
        )
        proc = start(c)
        try:
            out, err = proc.communicate(timeout=30)
        finally:
            stop(proc, c)
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


@HIDING
def test_a_bot_writes_only_its_scratch_and_reads_only_its_own_folder(
    layout: Layout, method: str
) -> None:
    limits = namespaced(method)
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
        limits,
    )
    proc = start(c)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        stop(proc, c)
    assert out, err
    seen = json.loads(out)
    assert seen["scratch"] == "written"
    assert (layout.scratch / "memo").read_text() == "x"
    # unshare gives private /tmp and /dev/shm that vanish with the bot (tested below)
    private = ("tmp", "shm") if method == "bubblewrap" else ()
    for place in ("own_folder", "root", "league_write", *private):
        assert seen[place] != "written", (place, seen)
    assert not (layout.alice / "memo").exists()
    assert seen["read_own"] == "alice's own notes"
    assert seen["read_other"] == "FileNotFoundError"
    assert seen["other_exists"] is False
    assert seen["league_exists"] is False
    assert seen["bots_listing"] == ["alice"]
    assert seen["shadow"] is False


@HIDING
def test_the_arenas_processes_are_invisible(layout: Layout, method: str) -> None:
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
        namespaced(method),
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


@CONFINING
@needs_root
def test_forking_without_end_is_stopped_and_does_not_starve_other_bots(
    layout: Layout, method: str
) -> None:
    confining(method)
    limits = Limits(method=method, processes=32)  # type: ignore[arg-type]
    bob_scratch = layout.scratch.parent / "bob"
    bob_scratch.mkdir()
    alice_c = forking_bot(layout, layout.alice, layout.scratch, limits, hold=5)
    alice = start(alice_c)
    try:
        assert alice.stdout is not None
        alice_forks = json.loads(alice.stdout.readline())["forks"]
        # While alice holds all her processes, bob (another uid) still has his whole quota.
        bob_c = forking_bot(layout, layout.bob, bob_scratch, limits, hold=0.2)
        bob = start(bob_c)
        try:
            bob_out, _ = bob.communicate(timeout=30)
        finally:
            stop(bob, bob_c)
    finally:
        stop(alice, alice_c)
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
        stop(proc, c)
    assert 0 < json.loads(out)["forks"] < 16, err


# --- memory, files, CPU -----------------------------------------------------------------------


@CONFINING
def test_allocating_without_end_is_stopped(layout: Layout, method: str) -> None:
    confining(method)
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
        Limits(method=method, memory_mb=512),  # type: ignore[arg-type]
    )
    if result.returncode == 0:
        assert result.report()["stopped_at_mb"] < 512
    else:
        assert killed(result, signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT), result


@CONFINING
def test_a_huge_file_is_stopped(layout: Layout, method: str) -> None:
    confining(method)
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
            size = os.path.getsize(os.path.join(os.environ["TMPDIR"], "huge"))
            print(json.dumps({"errno": exc.errno, "written_mb": written, "size": size}))
        """,
        layout,
        Limits(method=method, file_size_mb=2),  # type: ignore[arg-type]
    )
    seen = result.report()
    assert seen.get("errno") == 27, seen  # EFBIG
    assert seen["size"] <= 2 * 1024 * 1024


@CONFINING
def test_burning_cpu_past_the_limit_is_killed(layout: Layout, method: str) -> None:
    confining(method)
    result = run_bot(
        """
        import time
        end = time.monotonic() + 30
        while time.monotonic() < end:
            pass
        print("survived")
        """,
        layout,
        Limits(method=method, cpu_seconds=1),  # type: ignore[arg-type]
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
        stop(proc, c)
    assert json.loads(out) == {"got": {"ping": 1}}, err


@CONFINING
def test_a_persistent_bot_answers_lines(layout: Layout, method: str) -> None:
    limits = confining(method)
    c = confine(
        [
            sys.executable,
            "-c",
            "import sys\nfor line in sys.stdin: print(line.strip()[::-1], flush=True)",
        ],
        layout.alice,
        layout.scratch,
        limits,
    )
    proc = start(c)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for word in ("abc", "take5"):
            proc.stdin.write(word.encode() + b"\n")
            proc.stdin.flush()
            assert proc.stdout.readline() == word[::-1].encode() + b"\n"
    finally:
        stop(proc, c)


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


@CONFINING
def test_nothing_outlives_the_bot_not_even_a_daemon(layout: Layout, method: str) -> None:
    limits = confining(method)
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
        [sys.executable, "-c", textwrap.dedent(code), marker], layout.alice, layout.scratch, limits
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
        stop(proc, c)
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
    forced = os.environ.get("ARENA_SANDBOX", "auto").strip().lower() or "auto"
    method = available_method() if forced == "auto" else forced  # CI forces each method
    assert describe_isolation().startswith(method)
    assert confine([sys.executable, "-V"], layout.alice, layout.scratch, Limits()).method == method


@needs_bwrap
def test_bubblewrap_is_chosen_where_installed() -> None:
    assert available_method() == "bubblewrap"


def test_a_method_that_cannot_run_is_refused(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        sandbox, "_probe", lambda method: None if method in ("rlimits", "none") else "broken"
    )
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
        stop(proc, c)
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
            stop(proc, c)
        assert out == b"42\n", (argv, err)


def test_a_signal_is_read_through_the_sandbox_tool() -> None:
    assert Confined([], "", {}, method="bubblewrap").signal_of(128 + 24) == signal.SIGXCPU
    assert Confined([], "", {}, method="bubblewrap").signal_of(-9) == signal.SIGKILL
    assert Confined([], "", {}, method="bubblewrap").signal_of(3) is None
    assert Confined([], "", {}, method="none").signal_of(137) is None


# --- private folders, league data, leftovers (issues 12 and 13) -------------------------------

BOTS = Path(__file__).parent / "bots"


def private_bot(root: Path) -> Path:
    """tests/bots/good.py copied into ``root``/league/bots/good, behind 0700 folders."""
    folder = root / "private" / "league" / "bots" / "good"
    folder.mkdir(parents=True)
    for name in ("good.py", "_serve.py"):
        shutil.copy(BOTS / name, folder / name)
    (root / "private").chmod(0o700)
    (root / "private" / "league" / "league.db").write_text("seed=1234")
    return folder / "good.py"


@CONFINING
def test_a_bot_in_private_folders_starts_and_plays(tmp_path: Path, method: str) -> None:
    from arena.runtime.botproc import Answer, BotConnection, RunLimits, collect
    from arena.runtime.manifest import load_executable
    from arena.runtime.pool import BotPool

    limits = Limits(method=method)  # type: ignore[arg-type]
    if method != "rlimits":
        limits = namespaced(method)
    if os.geteuid() == 0:  # what this test is about: the bot's uid reaches neither
        assert not sandbox.reachable(tmp_path)
    spec = load_executable(private_bot(tmp_path), "good")
    assert spec.command[0] == sys.executable  # the arena's own, in /root/.pyenv here
    with BotPool(RunLimits(sandbox=limits)) as pool:
        bot = pool.get(spec)
        assert isinstance(bot, BotConnection), bot  # a Fault (start_failed) otherwise
        bot.ask({"type": "act", "legal": ["a", "b"]}, ["a", "b"], time.monotonic() + 10)
        (answer,) = collect([bot])
    assert isinstance(answer, Answer) and answer.index == 0, answer


SPY = """
    import json, os, sys
    league = sys.argv[1]
    def attempt(action):
        try:
            return action()
        except OSError as exc:
            return type(exc).__name__
    print(json.dumps({
        "db_up_two": attempt(lambda: open("../../league.db").read()),
        "db_absolute": attempt(lambda: open(os.path.join(league, "league.db")).read()),
        "other_bot": attempt(lambda: open(os.path.join(league, "bots", "other", "bot.py")).read()),
        "config": attempt(lambda: open(os.path.join(league, "league.toml")).read()),
    }))
"""


@CONFINING
def test_league_data_is_out_of_a_bots_reach(method: str) -> None:
    limits = confining(method)
    league = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="arena-test-league-"))
    try:
        league.chmod(0o755)  # an ordinary folder, readable by all: the bot must still not read
        (league / "league.db").write_text("seed=1234")
        (league / "league.toml").write_text("seed = 1234")
        for name in ("spy", "other"):
            (league / "bots" / name).mkdir(parents=True)
            (league / "bots" / name / "bot.py").write_text(f"# {name}")
        (league / "bots" / "spy" / "spy.py").write_text(textwrap.dedent(SPY))
        if method == "rlimits":
            sandbox.protect(league)  # what the league does with its folder
            assert (league.stat().st_mode & 0o077) == 0
        bot = league / "bots" / "spy"
        scratch = Path(tempfile.mkdtemp())
        c = confine([sys.executable, str(bot / "spy.py"), str(league)], bot, scratch, limits)
        proc = start(c)
        try:
            out, err = proc.communicate(timeout=30)
        finally:
            stop(proc, c)
            shutil.rmtree(scratch, ignore_errors=True)
        assert out, err
        seen = json.loads(out)
        for what, result in seen.items():
            assert result in ("FileNotFoundError", "PermissionError"), (what, seen)
    finally:
        shutil.rmtree(league, ignore_errors=True)


def test_protect_makes_a_folder_private(tmp_path: Path) -> None:
    folder = tmp_path / "league"
    folder.mkdir(mode=0o755)
    db = folder / "league.db"
    db.write_text("x")
    db.chmod(0o644)
    sandbox.protect(folder)
    sandbox.protect(db)
    assert folder.stat().st_mode & 0o777 == 0o700
    assert db.stat().st_mode & 0o777 == 0o600


LITTER = """
    import json, os, sys
    marker = sys.argv[1]
    done = {}
    for top in ("/tmp", "/var/tmp", "/dev/shm"):
        try:
            with open(os.path.join(top, marker), "w") as f:
                f.write("left behind")
            os.mkdir(os.path.join(top, marker + ".d"))
            with open(os.path.join(top, marker + ".d", "inner"), "w") as f:
                f.write("left behind")
            done[top] = "written"
        except OSError as exc:
            done[top] = type(exc).__name__
    print(json.dumps(done))
"""


@CONFINING
def test_writes_outside_scratch_do_not_outlive_the_bot(layout: Layout, method: str) -> None:
    limits = confining(method)
    marker = f"arena-litter-{uuid.uuid4().hex}"
    places = [
        Path(top) / name
        for top in ("/tmp", "/var/tmp", "/dev/shm")
        for name in (marker, marker + ".d")
    ]
    try:
        c = confine(
            [sys.executable, "-c", textwrap.dedent(LITTER), marker],
            layout.alice,
            layout.scratch,
            limits,
        )
        proc = start(c)
        try:
            out, err = proc.communicate(timeout=30)
        finally:
            stop(proc, c)
        assert out, err
        left = [str(place) for place in places if place.exists()]
        assert left == [], (left, out)
    finally:
        for place in places:
            if place.is_dir():
                shutil.rmtree(place, ignore_errors=True)
            elif place.exists():
                place.unlink()


# --- uids -------------------------------------------------------------------------------------


def test_uid_leases_never_hand_out_a_uid_still_held() -> None:
    """Thousands of leases: never a uid leased twice, never one a live process holds."""
    import random

    held: set[int] = set()  # uids live processes hold (some never released: leaked bots)
    leases = sandbox.UidLeases(block=16, in_use=lambda: set(held))
    rng = random.Random(13)
    live: list[int] = []
    for _ in range(5000):
        if live and (len(live) >= 12 or rng.random() < 0.45):
            uid = live.pop(rng.randrange(len(live)))
            if rng.random() < 0.05:
                leases.release(uid)  # released, but its process lives on (a daemon)
                held.add(uid)
                continue
            held.discard(uid)
            leases.release(uid)
            continue
        if rng.random() < 0.1 and held:
            held.discard(rng.choice(sorted(held)))  # a leaked process finally dies
        try:
            uid = leases.lease()
        except SandboxUnavailable:
            assert len(live) + len(held) >= 16
            continue
        assert uid not in live and uid not in held
        assert leases.first() <= uid < leases.first() + 16
        live.append(uid)
        held.add(uid)
    assert set(live) <= leases.leased()


def test_uid_leases_run_out_plainly() -> None:
    leases = sandbox.UidLeases(block=4, in_use=set)
    uids = [leases.lease() for _ in range(4)]
    assert len(set(uids)) == 4
    with pytest.raises(SandboxUnavailable):
        leases.lease()
    leases.release(uids[2])
    assert leases.lease() == uids[2]


@needs_root
@pytest.mark.slow
def test_live_bots_never_share_a_uid(layout: Layout) -> None:
    """Hundreds of real starts (past the 256 uids of a block) while the first bots still run,
    some never released: no uid is ever held by two live bots."""
    limits = Limits(method="rlimits")
    sleep = shutil.which("sleep") or "/bin/sleep"
    running: list[tuple[subprocess.Popen[bytes], Confined | None, int]] = []
    dropped: list[Path] = []
    try:
        for n in range(320):
            if len(running) >= 24:
                proc, c, _ = running.pop(3 + n % 7)  # the first three run to the end
                stop(proc, c)
            c = confine([sleep, "60"], layout.alice, layout.scratch, limits)
            assert c.uid is not None
            assert c.uid not in {uid for _, _, uid in running}, n
            proc = start(c)
            # every ninth is dropped unreleased while it runs: its uid must stay out of reach
            running.append((proc, None if n % 9 == 0 else c, c.uid))
            if n % 9 == 0:
                assert c.lease is not None
                dropped += c.lease.staged  # its staged folders outlive it: remove them below
            del c
    finally:
        for proc, c, _ in running:
            stop(proc, c)
        for path in dropped:
            shutil.rmtree(path, ignore_errors=True)


# --- privileges, the method -------------------------------------------------------------------


@CONFINING
def test_no_new_privileges(layout: Layout, method: str) -> None:
    result = run_bot(
        """
        import json
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        print(json.dumps({k: status[k].strip() for k in ("NoNewPrivs", "CapEff", "CapBnd")}))
        """,
        layout,
        confining(method),
    )
    seen = result.report()
    assert seen["NoNewPrivs"] == "1", seen
    assert int(seen["CapEff"], 16) == 0, seen


@pytest.mark.parametrize("method", ["unshare", "rlimits", "none"])
def test_arena_sandbox_sets_the_default_method(
    layout: Layout, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if method == "unshare":
        namespaced(method)
    monkeypatch.setenv("ARENA_SANDBOX", method)
    c = confine([sys.executable, "-V"], layout.alice, layout.scratch, Limits())
    c.release()
    assert c.method == method
    assert describe_isolation().startswith(method)
    assert sandbox.isolation_summary()["method"] == method
    # an explicit method in code still wins
    explicit = confine([sys.executable, "-V"], layout.alice, layout.scratch, Limits(method="none"))
    assert explicit.method == "none"


def test_a_bad_arena_sandbox_is_refused(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SANDBOX", "chroot")
    with pytest.raises(SandboxUnavailable, match="ARENA_SANDBOX"):
        confine([sys.executable, "-V"], layout.alice, layout.scratch, Limits())


def test_a_fallback_is_announced_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("ARENA_SANDBOX", raising=False)
    monkeypatch.setattr(
        sandbox,
        "_probe",
        lambda method: "bwrap is not installed" if method == "bubblewrap" else None,
    )
    sandbox.available_method.cache_clear()
    try:
        with caplog.at_level("WARNING", logger="arena.runtime.sandbox"):
            assert available_method() == "unshare"
            assert available_method() == "unshare"
            assert describe_isolation().startswith("unshare")
    finally:
        sandbox.available_method.cache_clear()
    said = [r.getMessage() for r in caplog.records if r.name == "arena.runtime.sandbox"]
    assert len(said) == 1, said
    assert "bubblewrap" in said[0] and "unshare" in said[0]


def test_the_summary_matches_the_description() -> None:
    for method in ("unshare", "rlimits", "none"):
        if method == "unshare" and shutil.which("unshare") is None:
            continue
        summary = sandbox.isolation_summary(method)
        line = describe_isolation(method)
        assert line.startswith(summary["method"])
        assert summary["no_new_privs"] == (method != "none")
        if not summary["hides_filesystem"]:
            assert "NOT" in line


# --- as a normal user -------------------------------------------------------------------------

AS_USER = """
import json, os, subprocess, sys, tempfile
from pathlib import Path
from arena.runtime.sandbox import Limits, confine, describe_isolation, isolation_summary
home = Path(tempfile.mkdtemp(dir=os.path.expanduser("~")))
os.chmod(home, 0o700)
(home / "league").mkdir()
(home / "league" / "league.db").write_text("seed")
bot = home / "league" / "bots" / "x"
bot.mkdir(parents=True)
scratch = Path(tempfile.mkdtemp())
code = (
    "import json, os\\n"
    "try: seen = open('../../league.db').read()\\n"
    "except OSError as exc: seen = type(exc).__name__\\n"
    "status = open('/proc/self/status').read()\\n"
    "open(os.path.join(os.environ['HOME'], 'memo'), 'w').write('x')\\n"
    "print(json.dumps({'nnp': status.split('NoNewPrivs:')[1].split()[0], 'league': seen}))"
)
results = {}
for method in sys.argv[1:]:
    c = confine([sys.executable, "-c", code], bot, scratch, Limits(method=method))
    done = subprocess.run(c.argv, cwd=c.cwd, env=c.env, preexec_fn=c.preexec_fn,
                          pass_fds=c.pass_fds, capture_output=True, start_new_session=True)
    c.release()
    results[method] = {
        "rc": done.returncode, "out": done.stdout.decode(), "err": done.stderr.decode()[-500:],
        "line": describe_isolation(method), "summary": isolation_summary(method),
    }
print(json.dumps(results))
"""


@needs_root
@pytest.mark.skipif(shutil.which("runuser") is None, reason="runuser not installed")
def test_as_a_normal_user(tmp_path: Path) -> None:
    """A non-root arena: unshare still hides league data; rlimits says it hides nothing."""
    user = "arena-sbx"
    if subprocess.run(["id", user], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "-m", user], check=True, capture_output=True)
    python = "/usr/bin/python3"
    if not os.path.exists(python) or sys.version_info < (3, 11):
        pytest.skip("no system Python 3.11+ that a normal user may run")
    version = subprocess.run(
        [python, "-c", "import sys; print(sys.version_info >= (3, 11))"],
        capture_output=True,
        text=True,
    )
    if version.stdout.strip() != "True":
        pytest.skip("the system Python is older than 3.11")
    script = Path(tempfile.mkdtemp()) / "as_user.py"
    script.write_text(AS_USER)
    script.parent.chmod(0o755)
    script.chmod(0o644)
    worktree = Path(__file__).resolve().parent.parent
    if not sandbox.reachable(worktree / "arena" / "sandbox.py"):
        pytest.skip("the arena's sources are not readable by a normal user here")
    methods = ["rlimits"]
    userns = subprocess.run(
        ["runuser", "-u", user, "--", "unshare", "--user", "--map-root-user", "--mount", "true"],
        capture_output=True,
    )
    if userns.returncode == 0:
        methods.append("unshare")
    try:
        done = subprocess.run(
            [
                "runuser",
                "-u",
                user,
                "--",
                "env",
                f"PYTHONPATH={worktree}",
                "ARENA_PURE_PYTHON=1",
                python,
                str(script),
                *methods,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd="/",
        )
    finally:
        shutil.rmtree(script.parent, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    for method, result in results.items():
        assert result["rc"] == 0, (method, result)
        assert json.loads(result["out"])["nnp"] == "1", (method, result)
    rlimits = results["rlimits"]
    assert json.loads(rlimits["out"])["league"] == "seed"  # nothing can hide it...
    assert "NOTHING hidden" in rlimits["line"]  # ...and it says so
    assert rlimits["summary"]["league_data_hidden"] is False
    if "unshare" in results:
        assert json.loads(results["unshare"]["out"])["league"] == "FileNotFoundError"
        assert results["unshare"]["summary"]["league_data_hidden"] is True


# --- staging for rlimits ----------------------------------------------------------------------


def fake_prefix(root: Path) -> Path:
    """A small interpreter prefix with a venv beside it, as a private home would hold them."""
    base = root / "home" / "versions" / "9.9"
    (base / "bin").mkdir(parents=True)
    (base / "lib").mkdir()
    (base / "bin" / "python9").write_text("#!/bin/sh\n")
    (base / "bin" / "python9").chmod(0o755)
    (base / "lib" / "os.py").write_text("# os\n")
    venv = root / "home" / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(base / "bin" / "python9")
    (venv / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\n")
    return base


@pytest.mark.parametrize("links_fail", [False, True])
def test_prefixes_are_mirrored_as_hard_links_and_rebuilt_when_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, links_fail: bool
) -> None:
    import errno

    monkeypatch.setenv("ARENA_STAGE_DIR", str(tmp_path / "stage"))
    if links_fail:  # another file system: copies instead

        def no_link(*args: object, **kwargs: object) -> None:
            raise OSError(errno.EXDEV, "Invalid cross-device link")

        monkeypatch.setattr(os, "link", no_link)
    base = fake_prefix(tmp_path)
    venv = tmp_path / "home" / "venv"
    root = sandbox.stage_root()
    assert root.stat().st_mode & 0o777 == 0o711
    mapping = sandbox._staged_prefixes((str(venv), str(base)), root)
    mirror, venv_mirror = Path(mapping[str(base)]), Path(mapping[str(venv)])
    same = (mirror / "lib" / "os.py").stat().st_ino == (base / "lib" / "os.py").stat().st_ino
    assert same is not links_fail
    assert (mirror / "lib" / "os.py").read_text() == "# os\n"
    assert os.readlink(venv_mirror / "bin" / "python") == str(mirror / "bin" / "python9")
    assert (venv_mirror / "pyvenv.cfg").read_text() == f"home = {mirror / 'bin'}\n"
    assert sandbox._staged_prefixes((str(venv), str(base)), root) == mapping  # cached
    (base / "lib" / "json").mkdir()  # a package installed: a new mirror
    (base / "lib" / "json" / "__init__.py").write_text("")
    again = sandbox._staged_prefixes((str(venv), str(base)), root)
    assert again[str(base)] != mapping[str(base)]
    assert (Path(again[str(base)]) / "lib" / "json" / "__init__.py").exists()


def test_a_stage_folder_others_may_write_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stage = tmp_path / "stage"
    stage.mkdir()
    stage.chmod(0o777)
    monkeypatch.setenv("ARENA_STAGE_DIR", str(stage))
    with pytest.raises(SandboxUnavailable):
        sandbox.stage_root()


@needs_root
def test_a_deep_tree_a_bot_left_in_a_temp_folder_is_removed_without_recursion() -> None:
    """Under rlimits as root the bot's uid's files in /tmp are removed after it: a tree deeper
    than Python's recursion limit must neither raise nor stay (shutil.rmtree would raise)."""
    uid = sandbox._UID_BASE + 4321
    top = Path(tempfile.mkdtemp(prefix="arena-deep-"))
    top.chmod(0o1777)  # like /tmp: the sweep looks into folders anyone may write
    tree = top / "bot-made"
    tree.mkdir()
    fd = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(sys.getrecursionlimit() + 500):
            os.mkdir("d", dir_fd=fd)
            os.chown("d", uid, uid, dir_fd=fd, follow_symlinks=False)
            below = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = below
    finally:
        os.close(fd)
    os.chown(tree, uid, uid)
    try:
        sandbox._sweep(str(top), uid, keep="")
        assert not tree.exists()
    finally:
        remove_tree(top)
