"""How a bot process is confined: the command that starts it, inside a sandbox.

The bot runner calls :func:`confine` and starts the result with ``subprocess.Popen``
(``start_new_session=True``; it kills the process group on close). Isolation comes from an
existing tool, chosen once per arena process by :func:`available_method`:

``bubblewrap``
    ``bwrap`` builds a new mount, pid, network, IPC and UTS namespace. The bot sees only the
    system directories (``/usr`` and the merged-usr links, a few files of ``/etc``), the
    interpreter's own prefix, its own folder read-only and its scratch folder read-write, a
    ``/proc`` of its own pid namespace, and a minimal ``/dev``. Everything else (the league,
    the database, other bots' folders, the arena's processes) does not exist for it. When the
    arena is root, ``setpriv`` drops the bot to a uid of its own with no capabilities, so that
    ``RLIMIT_NPROC`` is enforced (the kernel does not enforce it for root) and counts only that
    bot's processes; otherwise ``bwrap --unshare-user`` is used.
``unshare``
    The fallback when ``bwrap`` is missing or unusable: util-linux ``unshare`` gives new network,
    pid (with its own ``/proc``), IPC and UTS namespaces, and the same uid switch. The bot still
    sees the whole filesystem with the permissions of its uid.
``rlimits``
    Only resource limits, the uid switch and a clean environment.
``none``
    Nothing but a clean environment (for debugging: ``Limits(method="none")``).

Under ``unshare`` and ``rlimits`` the bot's uid must be able to reach its interpreter: one in a
private home (``/root/.pyenv``, mode 0700) cannot start there; bubblewrap has no such problem.

Every method except ``none`` sets ``RLIMIT_AS``, ``RLIMIT_CPU`` (soft < hard: SIGXCPU then
SIGKILL), ``RLIMIT_NPROC`` (when a uid of its own can be given), ``RLIMIT_FSIZE``,
``RLIMIT_NOFILE`` and ``RLIMIT_CORE=0`` in ``preexec_fn``; the limits are inherited through the
sandbox tool by the bot and everything it starts. Every method gives the bot a clean environment
(``PATH``, ``HOME`` and ``TMPDIR`` pointing at the scratch folder, ``LANG``), so nothing the arena
knows, such as a match seed, reaches it that way.

Not covered: memory is limited per process, not per bot (a bot of N processes may map N times
``memory_mb``; this machine's cgroup v2 has no memory controller), disk use in scratch is bounded
per file only, and bubblewrap's ``--die-with-parent`` ties the bot to the *thread* that started
it, so start bots from a thread that lives as long as they do.
"""

from __future__ import annotations

import functools
import itertools
import os
import resource
import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Method = Literal["auto", "bubblewrap", "unshare", "rlimits", "none"]
"""How to confine a bot; ``auto`` takes the strongest one that works on this machine."""

_STRENGTH: tuple[Method, ...] = ("bubblewrap", "unshare", "rlimits")

_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Read-only in the sandbox: programs and shared libraries."""

_ETC_FILES = (
    "passwd",
    "group",
    "nsswitch.conf",
    "host.conf",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "alternatives",
    "ssl",
    "ca-certificates",
    "mime.types",
)
"""The parts of ``/etc`` that interpreters read; the rest (shadow, keys, configs) stays hidden."""

_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"

_UID_BASE = 1 << 20
"""Bots get uids from ``_UID_BASE + pid * 256 + n``: distinct per live bot, unused by people."""

_uid_counter = itertools.count()


class SandboxUnavailable(RuntimeError):
    """The requested isolation method cannot run on this machine."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for one bot process (and everything it starts), and how to enforce them."""

    memory_mb: int = 2048
    """Address space per process (RLIMIT_AS). Node reserves ≈0.7 GiB of address space before
    running a line, so 1 GiB leaves it little room; 2 GiB suits both node and Python."""
    cpu_seconds: int = 600
    """CPU time per process over its whole life (RLIMIT_CPU); persistent bots live long."""
    processes: int = 64
    """Processes and threads the bot may have at once (RLIMIT_NPROC under a uid of its own)."""
    file_size_mb: int = 64
    """Largest file the bot may write (RLIMIT_FSIZE)."""
    open_files: int = 256
    """File descriptors per process (RLIMIT_NOFILE)."""
    method: Method = "auto"
    """Isolation method; ``none`` disables the sandbox for debugging."""
    uid: int | None = None
    """The uid the bot runs as when the arena is root; ``None`` picks one no other bot uses."""
    read_only: tuple[str, ...] = ()
    """More paths the bot may read (e.g. a toolchain outside the interpreter's prefix)."""


@dataclass(frozen=True)
class Confined:
    """Everything needed to start a confined bot with ``subprocess.Popen``."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    preexec_fn: Callable[[], None] | None = None
    pass_fds: tuple[int, ...] = field(default=())
    method: str = "none"
    """Which isolation is in force: ``bubblewrap``, ``unshare``, ``rlimits`` or ``none``."""
    uid: int | None = None
    """The uid the bot runs as, when the sandbox switched it (the arena being root)."""

    def signal_of(self, returncode: int) -> int | None:
        """The signal that ended the bot, if one did.

        ``Popen`` reports a signal as a negative return code, but a bot under bubblewrap or
        unshare is a child of the tool, which exits with 128 + the signal's number instead.
        """
        if returncode < 0:
            return -returncode
        if self.method in ("bubblewrap", "unshare") and 128 < returncode < 128 + 65:
            return returncode - 128
        return None


def confine(argv: Sequence[str], bot_dir: Path, scratch: Path, limits: Limits) -> Confined:
    """The command that runs ``argv`` for a bot in ``bot_dir`` with ``scratch`` writable.

    ``argv[0]`` may be a command name; it is looked up on the arena's ``PATH`` (skipping
    version-manager shims, which need the manager's whole tree) and the directories it lives in
    are made visible. ``scratch`` must exist; when the bot gets a uid of its own, ``scratch``
    is given to that uid.
    """
    if not argv:
        raise ValueError("confine: empty argv")
    bot_dir = Path(os.path.abspath(bot_dir))
    scratch = Path(os.path.abspath(scratch))
    method = _choose(limits.method)
    if method == "none":
        env = _clean_env(os.environ.get("PATH", _SYSTEM_PATH), scratch)
        return Confined(list(argv), str(bot_dir), env, method="none")

    command = _resolve_command(argv[0], bot_dir)
    prefixes = _interpreter_prefixes(command, bot_dir, scratch)
    path = ":".join([*(p + "/bin" for p in prefixes if os.path.isdir(p + "/bin")), _SYSTEM_PATH])
    env = _clean_env(path, scratch)
    uid = _bot_uid(limits) if os.geteuid() == 0 else None
    if uid is not None:
        _give(scratch, uid)
    inner = [command, *argv[1:]]
    # Under bwrap and unshare the uid switch happens inside the new namespaces (setpriv);
    # under plain rlimits it happens in preexec_fn.
    if method == "bubblewrap":
        full = _bwrap_argv(inner, bot_dir, scratch, prefixes, limits, uid)
        preexec = _preexec(limits, uid is not None, switch_to=None)
    elif method == "unshare":
        full = _unshare_argv(inner, uid)
        preexec = _preexec(limits, uid is not None, switch_to=None)
    else:
        full = inner
        preexec = _preexec(limits, uid is not None, switch_to=uid)
    return Confined(full, str(bot_dir), env, preexec_fn=preexec, method=method, uid=uid)


def describe_isolation(method: Method = "auto", limits: Limits | None = None) -> str:
    """What is enforced on bots on this machine, and by which method (for the CLI)."""
    limits = limits or Limits(method=method)
    try:
        chosen = _choose(method)
    except SandboxUnavailable as exc:
        return f"sandbox unavailable: {exc}"
    if chosen == "none":
        return "none: sandbox disabled; bots run as the arena's user with a clean environment only"
    root = os.geteuid() == 0
    nproc = (
        f"{limits.processes} processes/threads (a uid of its own per bot)"
        if root
        else "processes not limited (the arena is not root, so no uid of its own per bot)"
    )
    rl = (
        f"address space {limits.memory_mb} MiB per process, CPU {limits.cpu_seconds} s per "
        f"process, {nproc}, files up to {limits.file_size_mb} MiB, "
        f"{limits.open_files} open files, no core dumps"
    )
    env = "clean environment (PATH, HOME=TMPDIR=scratch, LANG)"
    if chosen == "bubblewrap":
        return (
            "bubblewrap: new mount, pid, network, IPC and UTS namespaces; no network (only a "
            "loopback of its own); only the bot's own processes in /proc; read-only system dirs, selected /etc "
            "files and the interpreter's prefix; the bot's folder read-only; scratch read-write; "
            f"nothing else of the filesystem visible; no capabilities; {env}; {rl}"
        )
    if chosen == "unshare":
        return (
            "unshare (bubblewrap unavailable): new pid, network, IPC and UTS namespaces; no "
            "network; only the bot's own processes in /proc; the filesystem is NOT hidden "
            f"(the bot reads what its uid may read); {env}; {rl}"
        )
    return (
        "rlimits (no namespaces available): network, processes and filesystem NOT isolated; "
        f"{env}; {rl}"
    )


@functools.cache
def available_method() -> Method:
    """The strongest isolation that works here; probed once per process."""
    for method in _STRENGTH:
        if _works(method):
            return method
    return "rlimits"


def _choose(requested: Method) -> Method:
    if requested == "auto":
        return available_method()
    if requested in ("rlimits", "none") or _works(requested):
        return requested
    raise SandboxUnavailable(f"{requested} does not work on this machine")


@functools.cache
def _works(method: Method) -> bool:
    """Run ``true`` under ``method`` exactly as a bot would be run."""
    if method in ("rlimits", "none"):
        return True
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return False
    tool = "bwrap" if method == "bubblewrap" else "unshare"
    if shutil.which(tool) is None:
        return False
    true = shutil.which("true") or "/bin/true"
    uid = _UID_BASE - 1 if os.geteuid() == 0 else None
    if method == "bubblewrap":
        argv = _bwrap_argv([true], Path("/"), None, [], Limits(), uid)
    else:
        argv = _unshare_argv([true], uid)
    try:
        done = subprocess.run(argv, env={"PATH": _SYSTEM_PATH}, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _clean_env(path: str, scratch: Path) -> dict[str, str]:
    return {"PATH": path, "HOME": str(scratch), "TMPDIR": str(scratch), "LANG": "C.UTF-8"}


def _bot_uid(limits: Limits) -> int:
    if limits.uid is not None:
        return limits.uid
    return _UID_BASE + (os.getpid() % (1 << 22)) * 256 + next(_uid_counter) % 256


def _give(scratch: Path, uid: int) -> None:
    """Make ``scratch`` (and whatever an earlier run left in it) belong to ``uid``."""
    os.chown(scratch, uid, uid)
    for root, dirs, files in os.walk(scratch):
        for name in [*dirs, *files]:
            os.lchown(os.path.join(root, name), uid, uid)


def _resolve_command(command: str, bot_dir: Path) -> str:
    """An absolute path for ``command``: relative to the bot's folder, or found on ``PATH``."""
    if "/" in command:
        return str(bot_dir / command) if not os.path.isabs(command) else command
    for directory in os.environ.get("PATH", _SYSTEM_PATH).split(os.pathsep):
        if not directory or Path(directory).name == "shims":
            continue
        candidate = os.path.join(directory, command)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return command  # let the sandbox report "not found" like exec would


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _interpreter_prefixes(command: str, bot_dir: Path, scratch: Path) -> list[str]:
    """Directories the command needs: the prefix of each link on the way to the real program.

    ``/work/venv/bin/python`` → ``/work/venv`` (a venv) and, through its symlink,
    ``/root/.pyenv/versions/3.11.7``. A prefix that would contain the bot's folder, its scratch
    or the arena's working directory (where leagues live) is never exposed; only the program
    file itself is.
    """
    guarded = [str(bot_dir), str(scratch), os.getcwd()]
    found: list[str] = []
    for hop in _links(command):
        if any(_inside(hop, d) for d in _SYSTEM_DIRS) or _inside(hop, str(bot_dir)):
            continue
        parent = os.path.dirname(hop)
        grand = os.path.dirname(parent)
        looks_like_prefix = os.path.basename(parent) == "bin" and (
            os.path.isdir(os.path.join(grand, "lib"))
            or os.path.isfile(os.path.join(grand, "pyvenv.cfg"))
        )
        prefix = grand if looks_like_prefix else parent
        if prefix == "/" or any(_inside(g, prefix) for g in guarded):
            prefix = hop
        if prefix not in found:
            found.append(prefix)
        home = _venv_home(prefix)
        if home and home not in found and not any(_inside(g, home) for g in guarded):
            found.append(home)
    return found


def _links(command: str) -> Iterator[str]:
    """``command`` and every path its symlinks lead through, up to the real file."""
    path = os.path.abspath(command)
    for _ in range(40):
        yield path
        if not os.path.islink(path):
            return
        path = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))


def _venv_home(prefix: str) -> str | None:
    """For a venv made with ``--copies``, the base installation's prefix."""
    try:
        text = Path(prefix, "pyvenv.cfg").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            home = os.path.realpath(value.strip())
            return os.path.dirname(home) if os.path.basename(home) == "bin" else home
    return None


def _bwrap_argv(
    inner: list[str],
    bot_dir: Path,
    scratch: Path | None,
    prefixes: list[str],
    limits: Limits,
    uid: int | None,
) -> list[str]:
    argv = ["bwrap", "--die-with-parent"]
    argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    argv += ["--unshare-cgroup-try", "--hostname", "bot"]
    if uid is None:
        argv.append("--unshare-user")  # not root: an unprivileged user namespace instead
    for directory in _SYSTEM_DIRS:
        if os.path.islink(directory):
            argv += ["--symlink", os.readlink(directory), directory]
        else:
            argv += ["--ro-bind-try", directory, directory]
    argv += ["--perms", "0755", "--dir", "/etc"]
    for name in _ETC_FILES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    binds = [("--ro-bind", path) for path in [*prefixes, *limits.read_only]]
    if str(bot_dir) != "/":
        binds.append(("--ro-bind", str(bot_dir)))
    if scratch is not None:
        binds.append(("--bind", str(scratch)))
    made = {"/", "/etc", "/proc", "/dev"}
    for flag, path in binds:
        # bwrap would create the missing parents with mode 0700, closed to the bot's uid.
        for parent in reversed(Path(path).parents):
            name = str(parent)
            if name not in made and not any(_inside(name, d) for d in _SYSTEM_DIRS):
                argv += ["--perms", "0755", "--dir", name]
                made.add(name)
        argv += [flag, path, path]
        made.add(path)
    argv += ["--remount-ro", "/", "--chdir", str(bot_dir)]
    if uid is not None:
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [*argv, "--", *_drop_to(uid), *inner]


def _unshare_argv(inner: list[str], uid: int | None) -> list[str]:
    argv = ["unshare", "--net", "--ipc", "--uts", "--pid", "--fork", "--mount-proc"]
    argv.append("--kill-child")
    if uid is None:
        argv.append("--user")
    return [*argv, "--", *_drop_to(uid), *inner]


def _drop_to(uid: int | None) -> list[str]:
    """The prefix that switches to ``uid`` with no capabilities left, if switching."""
    if uid is None:
        return []
    return [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
    ]


def _within_hard(which: int, soft: int, hard: int) -> tuple[int, int, int]:
    """Lower ``(soft, hard)`` to the current hard limit, which only root may raise."""
    current = resource.getrlimit(which)[1]
    if current != resource.RLIM_INFINITY and os.geteuid() != 0:
        hard = min(hard, current)
        soft = min(soft, hard)
    return which, soft, hard


def _preexec(limits: Limits, own_uid: bool, switch_to: int | None) -> Callable[[], None]:
    """Set the rlimits (and, for the plain rlimits method, the uid) in the forked child."""
    mib = 1024 * 1024
    settings = [
        (resource.RLIMIT_AS, limits.memory_mb * mib, limits.memory_mb * mib),
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 2),
        (resource.RLIMIT_FSIZE, limits.file_size_mb * mib, limits.file_size_mb * mib),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if own_uid:
        # Counted per uid, and each bot has its own; for root it would not be enforced at all.
        settings.append((resource.RLIMIT_NPROC, limits.processes, limits.processes))
    settings = [_within_hard(which, soft, hard) for which, soft, hard in settings]

    def preexec() -> None:
        for which, soft, hard in settings:
            resource.setrlimit(which, (soft, hard))
        if switch_to is not None:
            os.setgroups([])
            os.setresgid(switch_to, switch_to, switch_to)
            os.setresuid(switch_to, switch_to, switch_to)

    return preexec
