"""How a bot process is confined: the command that starts it, inside a sandbox.

The bot runner calls :func:`confine`, starts the result with ``subprocess.Popen`` (in a
process group of its own, without a controlling terminal; it kills the group on close) and calls
:meth:`Confined.release` once the process is reaped. The method is ``Limits.method``; its default
``auto`` takes the environment variable ``ARENA_SANDBOX`` (``auto``, ``bubblewrap``, ``unshare``,
``rlimits`` or ``none``) and, when that is unset or ``auto``, the strongest method that works
here (:func:`available_method`, probed once per process; a fallback is announced once on the
``arena.runtime.sandbox`` logger). A method asked for by name that cannot work raises
:class:`SandboxUnavailable`: an error of the arena, never a fault of the bot.

When the arena is root, every method but ``none`` runs each bot under a uid of its own, leased
for the life of the process and released after it is reaped (:class:`UidLeases`): no two live
bot processes ever share a uid, so ``RLIMIT_NPROC`` (which the kernel ignores for root) counts one
bot's processes only. Every method but ``none`` sets ``no_new_privs``.

``bubblewrap``
    ``bwrap`` builds new mount, pid, network, IPC and UTS namespaces. The bot sees only the
    system folders (``/usr`` and the merged-usr links, a few files of ``/etc``), the interpreter's
    prefixes, its own folder read-only and its scratch folder read-write, a ``/proc`` of its own
    pid namespace and a minimal ``/dev``. Everything else (the league, its database, other bots,
    the site, the Dask bot cache, ``/tmp``, the arena's processes) does not exist for it. There is
    no ``/tmp``; writes outside scratch are refused, or (``/dev/shm`` when the arena is not
    root) land in the sandbox's own tmpfs and vanish with the bot.
``unshare``
    When ``bwrap`` is missing: util-linux ``unshare`` (new mount, pid, network, IPC and UTS
    namespaces, plus a user namespace when the arena is not root) runs :mod:`arena.runtime.jail`, which
    builds the same view as bubblewrap on a tmpfs and pivots into it, then drops to the bot's uid
    with no capabilities. It hides the same things. Differences: ``/tmp``, ``/var/tmp`` and
    ``/dev/shm`` are fresh tmpfs mounts of ``file_size_mb`` each, writable, and gone with the
    bot; the loopback interface is down. When the arena is not root the bot runs as root of its
    user namespace with every capability dropped (the arena's own uid outside), without a
    process limit.
``rlimits``
    No namespaces (e.g. a container that forbids them). As root, the bot runs under its own uid;
    whatever of its folder, its scratch and its interpreter that uid cannot reach (a private home
    such as ``/root/.pyenv``, a league in a 0700 folder) is staged where it can: the bot's folder
    is copied per start into a folder only that uid may read, the interpreter's prefixes are
    mirrored once as trees of hard links (copies across file systems), cached per arena user
    under ``ARENA_STAGE_DIR`` (default ``/var/tmp/arena-stage-<uid>``, mode 0711, rebuilt when
    the source's folders change). The bot sees the rest of the filesystem with the permissions
    of an unprivileged uid: it cannot read league data only if that data is private, so the
    league makes its folder private with :func:`protect`. The network and the other processes
    are NOT isolated. After the bot is reaped every process left under its uid is killed and
    every file it left in ``/tmp``, ``/var/tmp`` and ``/dev/shm`` is removed. When the arena is
    NOT root, the bot runs as the arena's own user: nothing is hidden (it can read everything
    the arena can, league data included), there is no process limit, and its writes outside
    scratch stay.
``none``
    Nothing but a clean environment (for debugging: ``Limits(method="none")``).

Every method except ``none`` sets ``RLIMIT_AS``, ``RLIMIT_CPU`` (soft < hard: SIGXCPU then
SIGKILL), ``RLIMIT_NPROC`` (when a uid of its own can be given), ``RLIMIT_FSIZE``,
``RLIMIT_NOFILE`` and ``RLIMIT_CORE=0`` in ``preexec_fn``; the limits are inherited through the
sandbox tool by the bot and everything it starts. Every method gives the bot a clean environment
(``PATH``, ``HOME`` and ``TMPDIR`` pointing at the scratch folder, ``LANG``; under ``rlimits``
also ``LD_LIBRARY_PATH`` when a staged interpreter needs it), so nothing the arena knows, such as
a match seed, reaches it that way.

Not covered: memory is limited per process, not per bot (a bot of N processes may map N times
``memory_mb``, plus what it puts in the ``unshare`` tmpfs mounts; this machine's cgroup v2 has no
memory controller), disk use in scratch is bounded per file only, and bubblewrap's
``--die-with-parent`` ties the bot to the *thread* that started it, so start bots from a thread
that lives as long as they do.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import resource
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from arena.runtime import jail
from arena.runtime.scratch import remove_tree

Method = Literal["auto", "bubblewrap", "unshare", "rlimits", "none"]
"""How to confine a bot; ``auto`` takes ``ARENA_SANDBOX``, else the strongest that works here."""

ENV_VAR = "ARENA_SANDBOX"
"""Overrides the default method ``auto`` (an explicit ``Limits(method=...)`` still wins)."""

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

_TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
"""World-writable places whose leftovers of a bot's uid are removed after it (``rlimits``)."""

_UID_BASE = 1 << 20
"""Bots get uids from ``_UID_BASE + (pid % 2**22) * _UID_BLOCK + n``: a block per arena process,
unused by people."""
_UID_BLOCK = 256

log = logging.getLogger("arena.runtime.sandbox")


class SandboxUnavailable(RuntimeError):
    """The requested isolation method cannot run on this machine."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for one bot process (and everything it starts), and how to enforce them."""

    memory_mb: int = 2048
    """Address space per process (RLIMIT_AS). Node reserves ≈0.7 GiB of address space before
    running a line, so 1 GiB leaves it little room; 2 GiB suits both node and Python."""
    cpu_seconds: int = 600
    """CPU time per process over its whole life (RLIMIT_CPU); persistent bots live long, so the
    pool replaces a bot process that has used half of it before its next match
    (:data:`arena.runtime.pool.RETIRE_AT`)."""
    processes: int = 64
    """Processes and threads the bot may have at once (RLIMIT_NPROC under a uid of its own)."""
    file_size_mb: int = 64
    """Largest file the bot may write (RLIMIT_FSIZE); also the size of each of the ``unshare``
    method's private ``/tmp``, ``/var/tmp`` and ``/dev/shm``."""
    open_files: int = 256
    """File descriptors per process (RLIMIT_NOFILE)."""
    method: Method = "auto"
    """Isolation method; ``auto`` takes ``ARENA_SANDBOX``, else the strongest that works;
    ``none`` disables the sandbox for debugging."""
    uid: int | None = None
    """The uid the bot runs as when the arena is root; ``None`` leases one no live bot holds."""
    read_only: tuple[str, ...] = ()
    """More paths the bot may read (e.g. a toolchain outside the interpreter's prefix)."""


# -- uids ------------------------------------------------------------------------------------


def uids_in_use() -> set[int]:
    """Every uid (real, effective, saved or filesystem) that a live process holds now."""
    found: set[int] = set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"Uid:"):
                        found.update(int(u) for u in line.split()[1:])
                        break
        except OSError:
            continue  # it exited meanwhile
    return found


class UidLeases:
    """Hands out bot uids, each to one live bot process at a time.

    A uid is leased by :meth:`lease` and comes back by :meth:`release` (called by
    :meth:`Confined.release` once the process is reaped, or when the :class:`Confined` is
    garbage collected). Before leasing, a scan of ``/proc`` skips any uid a live process still
    holds, whichever arena process started it (a bot never released, or an earlier arena process
    whose pid, and so whose block of uids, this one reuses). Thread-safe.
    """

    def __init__(self, block: int = _UID_BLOCK, in_use: Callable[[], set[int]] = uids_in_use):
        self._block = block
        self._in_use = in_use
        self._lock = threading.Lock()
        self._leased: set[int] = set()
        self._next = 0

    def first(self) -> int:
        """The first uid of this arena process's block."""
        return _UID_BASE + (os.getpid() % (1 << 22)) * self._block

    def lease(self) -> int:
        """A uid that no live process holds and no unreleased lease has."""
        with self._lock:
            first = self.first()
            busy = self._in_use()
            for step in range(self._block):
                n = (self._next + step) % self._block
                uid = first + n
                if uid not in self._leased and uid not in busy:
                    self._leased.add(uid)
                    self._next = n + 1
                    return uid
        raise SandboxUnavailable(f"all {self._block} bot uids of this arena process are in use")

    def release(self, uid: int) -> None:
        """``uid`` may be leased again (its process is gone)."""
        with self._lock:
            self._leased.discard(uid)

    def leased(self) -> set[int]:
        """The uids leased and not yet released."""
        with self._lock:
            return set(self._leased)


LEASES = UidLeases()
"""This arena process's bot uids."""


class Lease:
    """What one confined bot holds until it is reaped: its uid and any staged folders."""

    def __init__(self, uid: int | None, leased: bool, sweep: bool) -> None:
        self.uid = uid
        self.sweep = sweep
        """Whether the uid's leftovers (processes, files in /tmp...) are cleared on release."""
        self.staged: list[Path] = []
        self.scratch = ""
        """The bot's scratch folder: the caller's to remove, never swept."""
        self._done = False
        self._lock = threading.Lock()
        # A lease dropped without release (a Confined never started) frees the uid number (the
        # /proc scan still keeps it from a new bot while a process holds it), and its staged
        # folders once no process holds the uid.
        self._finalizer = weakref.finalize(self, _forget, uid if leased else None, self.staged)

    def release(self) -> None:
        """Clear what the bot left and free its uid. Idempotent; call after the process is reaped."""
        with self._lock:
            if self._done:
                return
            self._done = True
        try:
            if self.uid is not None and self.sweep:
                _kill_uid(self.uid)
                _sweep_temp(self.uid, self.scratch)
            for path in self.staged:
                remove_tree(path)
            self.staged.clear()
        finally:
            self._finalizer()


def _forget(uid: int | None, staged: list[Path]) -> None:
    """What is left to do for a lease never released (see :class:`Lease`)."""
    if uid is not None:
        LEASES.release(uid)
    if staged and (uid is None or uid not in uids_in_use()):
        for path in staged:
            remove_tree(path)


def _kill_uid(uid: int) -> None:
    """Kill every process left under ``uid`` (a daemon that escaped the process group)."""
    if uid not in uids_in_use():
        return

    def as_uid() -> None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        os.kill(-1, signal.SIGKILL)  # every process of this uid but this one

    true = os.path.realpath(shutil.which("true") or "/bin/true")
    for _ in range(3):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run([true], preexec_fn=as_uid, env={}, check=False, timeout=10)
        if uid not in uids_in_use():
            return


def _sweep_temp(uid: int, keep: str) -> None:
    """Remove what ``uid`` left in the world-writable temporary folders (but ``keep``)."""
    for top in _TEMP_DIRS:
        _sweep(top, uid, keep)


def _entries(directory: str | Path) -> list[tuple[os.DirEntry[str], os.stat_result]]:
    """A folder's entries with their own status (links not followed); what vanished or cannot
    be read is left out."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    found = []
    for entry in entries:
        with contextlib.suppress(OSError):
            found.append((entry, entry.stat(follow_symlinks=False)))
    return found


def _sweep(directory: str, uid: int, keep: str) -> None:
    for entry, info in _entries(directory):
        if entry.path == keep:
            continue
        if info.st_uid == uid:
            if stat.S_ISDIR(info.st_mode):
                remove_tree(Path(entry.path))
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
        elif stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_IWOTH:
            _sweep(entry.path, uid, keep)  # the bot could write only into world-writable folders


# -- the confined command --------------------------------------------------------------------


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
    scratch: str = ""
    """The scratch folder as the bot sees it (its ``HOME`` and ``TMPDIR``)."""
    lease: Lease | None = field(default=None, compare=False, repr=False)
    setup_pipe: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    """Under ``unshare``: the pipe on which :mod:`arena.runtime.jail` says whether it set the bot up
    (``read`` and ``write`` ends, each removed when closed, so never closed twice). The bot
    never holds it, so it cannot forge the arena's failure."""

    def setup_error(self, deadline: float) -> str | None:
        """Why the sandbox failed to set the bot up (the arena's failure), or None if it did.

        Call once the process has started. Waits until the launcher reports, or ``deadline``
        (``time.monotonic()``) passes: a launcher that says nothing by then counts as set up,
        and what follows is the bot's own doing.
        """
        if "read" not in self.setup_pipe:
            return None
        read_end = self.setup_pipe["read"]
        self._close_pipe("write")  # only the launcher writes; EOF then means it ended
        report = b""
        while not report.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                return None
            chunk = os.read(read_end, 4096)
            if not chunk:
                break
            report += chunk
        self._close_pipe("read")
        text = report.decode("utf-8", "replace").strip()
        if text == "ok":
            return None
        return text or "the sandbox tool ended before the bot was set up"

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

    def release(self) -> None:
        """Free the bot's uid and clear what it left; call once its process has been reaped.

        Idempotent. Under ``rlimits`` as root it also kills what is left under the uid and
        removes the uid's files from ``/tmp``, ``/var/tmp``, ``/dev/shm`` and the staged folders.
        """
        if self.lease is not None:
            self.lease.release()
        self._close_pipe("read")
        self._close_pipe("write")

    def _close_pipe(self, end: str) -> None:
        fd = self.setup_pipe.pop(end, None)
        if fd is not None:
            _close_quietly(fd)


def confine(argv: Sequence[str], bot_dir: Path, scratch: Path, limits: Limits) -> Confined:
    """The command that runs ``argv`` for a bot in ``bot_dir`` with ``scratch`` writable.

    ``argv[0]`` may be a command name; it is looked up on the arena's ``PATH`` (skipping
    version-manager shims, which need the manager's whole tree) and the directories it lives in
    are made visible. ``scratch`` must exist; when the bot gets a uid of its own, ``scratch``
    is given to that uid. Call :meth:`Confined.release` after the process is reaped.
    """
    if not argv:
        raise ValueError("confine: empty argv")
    bot_dir = Path(os.path.abspath(bot_dir))
    scratch = Path(os.path.abspath(scratch))
    method = _choose(limits.method)
    if method == "none":
        env = _clean_env(os.environ.get("PATH", _SYSTEM_PATH), scratch)
        return Confined(list(argv), str(bot_dir), env, method="none", scratch=str(scratch))

    command = _resolve_command(argv[0], bot_dir)
    prefixes = _interpreter_prefixes(command, bot_dir, scratch)
    path = ":".join([*(p + "/bin" for p in prefixes if os.path.isdir(p + "/bin")), _SYSTEM_PATH])
    env = _clean_env(path, scratch)
    lease = _lease(limits, method)
    setup_pipe: tuple[int, int] | None = None
    try:
        uid = lease.uid
        if uid is not None:
            _give(scratch, uid)
        inner = [command, *argv[1:]]
        if method == "bubblewrap":
            full = _bwrap_argv(inner, bot_dir, scratch, prefixes, limits, uid)
            preexec = _preexec(limits, uid is not None, switch_to=None, nnp=not _setuid("bwrap"))
        elif method == "unshare":
            setup_pipe = os.pipe()
            os.set_inheritable(setup_pipe[1], True)
            full = _unshare_argv(inner, bot_dir, scratch, prefixes, limits, uid, setup_pipe[1])
            preexec = _preexec(limits, uid is not None, switch_to=None, nnp=True)
        else:
            staged = _stage(inner, bot_dir, scratch, prefixes, lease) if uid is not None else None
            if staged is not None:
                inner, bot_dir, scratch, env = staged
            full = inner
            preexec = _preexec(limits, uid is not None, switch_to=uid, nnp=True)
        lease.scratch = str(scratch)
    except BaseException:
        lease.release()
        for fd in setup_pipe or ():
            _close_quietly(fd)
        raise
    return Confined(
        full,
        str(bot_dir),
        env,
        preexec_fn=preexec,
        method=method,
        uid=uid,
        scratch=str(scratch),
        lease=lease,
        pass_fds=setup_pipe[1:] if setup_pipe else (),
        setup_pipe={"read": setup_pipe[0], "write": setup_pipe[1]} if setup_pipe else {},
    )


def _close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


def _lease(limits: Limits, method: Method) -> Lease:
    """The bot's uid when the arena is root (leased unless ``Limits.uid`` names one)."""
    if os.geteuid() != 0 or (method == "rlimits" and not _uid_switch_works()):
        return Lease(None, leased=False, sweep=False)
    if limits.uid is not None:
        return Lease(limits.uid, leased=False, sweep=method == "rlimits")
    return Lease(LEASES.lease(), leased=True, sweep=method == "rlimits")


def protect(path: Path | str) -> None:
    """Make ``path`` (a league's folder, its database) private to the arena's user.

    Removes every group and other permission bit (a folder becomes at most 0700, a file 0600),
    so a bot under ``rlimits`` (an unprivileged uid of its own, no namespaces) can neither read
    nor traverse it; bots kept inside a protected folder still start, as a staged copy. Under
    ``bubblewrap`` and ``unshare`` league data is hidden anyway; when the arena is not root
    under ``rlimits`` nothing can hide it, since the bot runs as the arena's own user.
    """
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if mode & 0o077:
        os.chmod(path, mode & 0o700)


# -- describing the isolation ----------------------------------------------------------------


def isolation_summary(method: Method = "auto", limits: Limits | None = None) -> dict[str, Any]:
    """What the method in force hides, as data (for ``--json`` records).

    Keys: ``method``; booleans ``hides_filesystem`` (league data, other bots...),
    ``league_data_hidden``, ``private_network``, ``private_processes``, ``own_uid``,
    ``process_limit``, ``temp_writes_vanish``, ``no_new_privs``; and ``error`` if the method
    cannot run.
    """
    try:
        chosen = _choose(method)
    except SandboxUnavailable as exc:
        return {"method": _requested(method, strict=False), "error": str(exc)}
    root = os.geteuid() == 0
    own = root and chosen != "none" and (chosen != "rlimits" or _uid_switch_works())
    namespaces = chosen in ("bubblewrap", "unshare")
    return {
        "method": chosen,
        "hides_filesystem": namespaces,
        "league_data_hidden": namespaces or (chosen == "rlimits" and own),
        "private_network": namespaces,
        "private_processes": namespaces,
        "own_uid": own,
        "process_limit": own,
        "temp_writes_vanish": namespaces or (chosen == "rlimits" and own),
        "no_new_privs": chosen != "none",
    }


def describe_isolation(method: Method = "auto", limits: Limits | None = None) -> str:
    """One line: the method in force on bots here, what it enforces and what it does NOT."""
    limits = limits or Limits(method=method)
    try:
        chosen = _choose(method)
    except SandboxUnavailable as exc:
        return f"sandbox unavailable: {exc}"
    if chosen == "none":
        return (
            "none: sandbox disabled; NOTHING hidden or limited: bots run as the arena's user "
            "with a clean environment only"
        )
    own = isolation_summary(chosen, limits)["own_uid"]
    nproc = (
        f"{limits.processes} processes/threads (a uid of its own per bot)"
        if own
        else "processes NOT limited (no uid of its own per bot, the arena not being root)"
    )
    rl = (
        f"address space {limits.memory_mb} MiB per process, CPU {limits.cpu_seconds} s per "
        f"process, {nproc}, files up to {limits.file_size_mb} MiB, "
        f"{limits.open_files} open files, no core dumps, no_new_privs"
    )
    env = "clean environment (PATH, HOME=TMPDIR=scratch, LANG)"
    view = (
        "read-only system dirs, selected /etc files and the interpreter's prefix; the bot's "
        "folder read-only; scratch read-write; nothing else of the filesystem visible (league "
        "data, other bots hidden)"
    )
    if chosen == "bubblewrap":
        return (
            "bubblewrap: new mount, pid, network, IPC and UTS namespaces; no network (only a "
            f"loopback of its own); only the bot's own processes in /proc; {view}; no /tmp; "
            f"no capabilities; {env}; {rl}"
        )
    if chosen == "unshare":
        return (
            "unshare (bubblewrap unavailable): new mount, pid, network, IPC and UTS namespaces "
            f"and a private root built by arena.runtime.jail; no network; only the bot's own processes "
            f"in /proc; {view}; private /tmp, /var/tmp, /dev/shm of {limits.file_size_mb} MiB "
            f"each, gone with the bot; no capabilities; {env}; {rl}"
        )
    if own:
        return (
            "rlimits (no namespaces available): network and processes NOT isolated; the "
            "filesystem is NOT hidden beyond what an unprivileged uid may read (league folders "
            "are made private; folders it cannot reach are staged for it); its processes are "
            f"killed and its files in /tmp, /var/tmp, /dev/shm removed after it; {env}; {rl}"
        )
    return (
        "rlimits (no namespaces, no uid of its own): NOTHING hidden: the bot runs as the arena's "
        "own user and can read everything it can, league data included; network and processes "
        f"NOT isolated; its writes outside scratch stay; {env}; {rl}"
    )


def isolation_line(method: Method = "auto") -> str:
    """The one line ``arena play``, ``check`` and ``league run`` print: the method in force and,
    when it is weaker than bubblewrap, what it does not cover."""
    summary = isolation_summary(method)
    chosen = summary["method"]
    if "error" in summary:
        return f"sandbox: {chosen} cannot run here: {summary['error']}"
    if chosen == "bubblewrap":
        return "sandbox: bubblewrap: bots see no league data, network or other processes"
    if chosen == "unshare":
        return (
            "sandbox: unshare (bubblewrap unavailable): a private root, network and process "
            "namespace, as bubblewrap gives"
        )
    if chosen == "rlimits" and summary["own_uid"]:
        return (
            "sandbox: rlimits (no namespaces here): a uid of its own per bot and resource "
            "limits; NOT isolated: network, other processes, files its uid may read (league "
            "folders are made private)"
        )
    if chosen == "rlimits":
        return (
            "sandbox: rlimits (no namespaces, not root): resource limits only; NOTHING hidden: "
            "bots run as you, with your files, network and processes"
        )
    return "sandbox: none (disabled): bots run as you, unconfined"


# -- choosing the method ---------------------------------------------------------------------


def _requested(method: Method, strict: bool = True) -> Method:
    """``method``, or for ``auto`` what ``ARENA_SANDBOX`` asks for."""
    if method != "auto":
        return method
    value = os.environ.get(ENV_VAR, "").strip().lower() or "auto"
    if value not in get_args(Method):
        if not strict:
            return "auto"
        raise SandboxUnavailable(f"{ENV_VAR}={value!r} is not one of {', '.join(get_args(Method))}")
    return value  # type: ignore[return-value]


@functools.cache
def available_method() -> Method:
    """The strongest isolation that works here; probed once per process, a fallback said once."""
    reasons: list[str] = []
    for method in _STRENGTH:
        reason = _probe(method)
        if reason is None:
            if reasons:
                log.warning(
                    "sandbox: %s; bots are confined by %s instead",
                    "; ".join(reasons),
                    method,
                )
            return method
        reasons.append(f"{method} does not work here ({reason})")
    return "rlimits"


def _choose(requested: Method) -> Method:
    requested = _requested(requested)
    if requested == "auto":
        return available_method()
    if requested == "none":
        return requested
    reason = _probe(requested)
    if reason is None:
        return requested
    raise SandboxUnavailable(f"{requested} does not work on this machine: {reason}")


def _works(method: Method) -> bool:
    return _probe(method) is None


@functools.cache
def _probe(method: Method) -> str | None:
    """Run ``echo`` under ``method`` exactly as a bot would be run: None if it works, else why."""
    if method == "none":
        return None
    if method == "rlimits":
        return None  # without a uid of its own if need be (see _uid_switch_works)
    if method == "bubblewrap" and os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "setpriv (util-linux) is missing"
    tool = "bwrap" if method == "bubblewrap" else "unshare"
    if shutil.which(tool) is None:
        return f"{tool} is not installed"
    # the real file: a PATH entry may be a folder of links the sandbox does not show
    echo = [os.path.realpath(shutil.which("echo") or "/bin/echo"), "arena-sandbox-ok"]
    uid = LEASES.lease() if os.geteuid() == 0 else None
    try:
        with tempfile.TemporaryDirectory(prefix="arena-probe-") as scratch:
            if uid is not None:
                os.chown(scratch, uid, uid)
            if method == "bubblewrap":
                argv = _bwrap_argv(echo, Path("/"), None, [], Limits(), uid)
            else:
                argv = _unshare_argv(echo, Path("/"), Path(scratch), [], Limits(), uid)
            try:
                done = subprocess.run(
                    argv,
                    env={"PATH": _SYSTEM_PATH},
                    capture_output=True,
                    timeout=20,
                    preexec_fn=_preexec(Limits(), uid is not None, None, nnp=method == "unshare"),
                )
            except (OSError, subprocess.SubprocessError) as exc:
                return str(exc)
    finally:
        if uid is not None:
            LEASES.release(uid)
    if done.returncode != 0 or done.stdout != b"arena-sandbox-ok\n":
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return said[-1] if said else f"exit status {done.returncode}, no output"
    return None


@functools.cache
def _uid_switch_works() -> bool:
    """Whether this root may switch to a bot uid (a user namespace may not map it)."""
    if os.geteuid() != 0:
        return False
    uid = LEASES.lease()
    true = os.path.realpath(shutil.which("true") or "/bin/true")
    try:
        done = subprocess.run(
            [true], env={}, preexec_fn=_preexec(Limits(), True, uid, nnp=True), timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        LEASES.release(uid)
    if done.returncode != 0:
        log.warning("sandbox: this root cannot switch to uid %d; bots run as the arena's uid", uid)
    return done.returncode == 0


def _setuid(tool: str) -> bool:
    """Whether ``tool`` is installed setuid (``no_new_privs`` would break it)."""
    found = shutil.which(tool)
    try:
        return found is not None and bool(os.stat(found).st_mode & stat.S_ISUID)
    except OSError:
        return False


def _clean_env(path: str, scratch: Path) -> dict[str, str]:
    return {"PATH": path, "HOME": str(scratch), "TMPDIR": str(scratch), "LANG": "C.UTF-8"}


def _give(scratch: Path, uid: int) -> None:
    """Make ``scratch`` (and whatever an earlier run left in it) belong to ``uid``."""
    os.chown(scratch, uid, uid)
    for root, dirs, files in os.walk(scratch):
        for name in [*dirs, *files]:
            os.lchown(os.path.join(root, name), uid, uid)


# -- staging for rlimits ---------------------------------------------------------------------


def reachable(path: str | Path) -> bool:
    """Whether a uid of no group may reach ``path``: every folder on the way searchable."""
    real = Path(os.path.realpath(path))
    try:
        for step in [*reversed(real.parents), real]:
            mode = step.stat().st_mode
            if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
                return False
    except OSError:
        return False
    return True


def stage_root() -> Path:
    """The arena user's staging folder (0711: others may pass, not list), made if missing.

    Refused (:class:`SandboxUnavailable`) when it exists but is not the arena user's own folder
    closed to writes by others, since bots would run what is in it.
    """
    root = Path(os.environ.get("ARENA_STAGE_DIR") or f"/var/tmp/arena-stage-{os.geteuid()}")
    try:
        with contextlib.suppress(FileExistsError):
            root.mkdir(mode=0o711, parents=True)
        info = os.lstat(root)
    except OSError as exc:
        raise SandboxUnavailable(f"cannot make the staging folder {root}: {exc}") from exc
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise SandboxUnavailable(f"{root} is not a folder of the arena's own, closed to writes")
    os.chmod(root, 0o711)
    for sub in ("prefixes", "run"):
        with contextlib.suppress(FileExistsError):
            (root / sub).mkdir(mode=0o711)
    _clear_stale_runs(root / "run")
    return root


_STALE_SECONDS = 3600.0


@functools.cache
def _clear_stale_runs(run: Path) -> None:
    """Once per process: remove staged folders an arena that died left behind.

    One is stale when no live process holds the uid it was made for (its owner for a scratch,
    its group for a bot's folder) and it is over an hour old (so a folder another arena process
    has staged for a bot it has not started yet is never taken).
    """
    busy = uids_in_use() | LEASES.leased()
    for entry, info in _entries(run):
        uid = info.st_gid if entry.name.startswith("bot-") else info.st_uid
        if uid not in busy and time.time() - info.st_mtime > _STALE_SECONDS:
            remove_tree(Path(entry.path))


def _stage(
    inner: list[str], bot_dir: Path, scratch: Path, prefixes: list[str], lease: Lease
) -> tuple[list[str], Path, Path, dict[str, str]] | None:
    """Put what the bot's uid cannot reach where it can; None if it reaches everything.

    Returns the translated argv, bot folder, scratch and environment.
    """
    hops = list(_links(inner[0]))
    own = [p for p in prefixes if not any(_inside(p, d) for d in _SYSTEM_DIRS)]
    need_prefixes = own and not all(reachable(h) for h in hops)
    need_bot = not reachable(bot_dir) or not os.stat(bot_dir).st_mode & stat.S_IROTH
    need_scratch = not reachable(scratch)
    if not (need_prefixes or need_bot or need_scratch):
        return None
    assert lease.uid is not None
    uid = lease.uid
    root = stage_root()
    mapping: dict[str, str] = {}
    if need_prefixes:
        try:
            mapping = _staged_prefixes(tuple(own), root)
        except OSError as exc:  # the arena's trouble (a full disk...), not the bot's fault
            raise SandboxUnavailable(f"cannot stage {', '.join(own)} under {root}: {exc}") from exc
    if need_bot:
        run = Path(tempfile.mkdtemp(prefix="bot-", dir=root / "run"))
        lease.staged.append(run)
        copy = run / bot_dir.name
        _copy_for(bot_dir, copy)
        os.chown(run, 0, uid)
        os.chmod(run, 0o750)
        mapping[str(bot_dir)] = str(copy)
        bot_dir = copy
    if need_scratch:
        own_scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=root / "run"))
        lease.staged.append(own_scratch)
        os.chown(own_scratch, uid, uid)
        scratch = own_scratch
    argv = [_translate(arg, mapping) for arg in inner]
    staged = [mapping[p] for p in own if p in mapping]
    path = ":".join([*(p + "/bin" for p in staged if os.path.isdir(p + "/bin")), _SYSTEM_PATH])
    env = _clean_env(path, scratch)
    libs = [p + "/lib" for p in staged if os.path.isdir(p + "/lib")]
    if libs:  # an interpreter linked with an absolute RUNPATH to its original prefix
        env["LD_LIBRARY_PATH"] = ":".join(libs)
    return argv, bot_dir, scratch, env


def _translate(path: str, mapping: dict[str, str]) -> str:
    for source, target in mapping.items():
        if _inside(path, source):
            return target + path[len(source) :]
    return path


def _copy_for(source: Path, target: Path) -> None:
    """Copy a bot's folder so any uid may read it (owned by the arena, never by the bot)."""
    shutil.copytree(source, target, symlinks=True)
    for root, _dirs, files in os.walk(target):
        os.chmod(root, 0o755)
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                executable = os.stat(path).st_mode & stat.S_IXUSR
                os.chmod(path, 0o755 if executable else 0o644)


_stage_lock = threading.Lock()


def _staged_prefixes(prefixes: tuple[str, ...], root: Path) -> dict[str, str]:
    """Each prefix mirrored under ``root`` as a tree of hard links: {prefix: its mirror}.

    A mirror's name carries a signature of its source's folders, so a changed source (a
    package installed, a file replaced) gets a new mirror; building one is atomic (a rename),
    so arena processes sharing the cache never see half a mirror.
    """
    with _stage_lock:
        mapping = {p: str(root / "prefixes" / _mirror_name(p)) for p in prefixes}
        for prefix in prefixes:
            target = Path(mapping[prefix])
            if target.is_dir():
                continue
            building = Path(tempfile.mkdtemp(prefix=".build-", dir=root / "prefixes"))
            try:
                _mirror(Path(prefix), building, mapping)
                os.chmod(building, 0o755)
                try:
                    os.rename(building, target)
                except OSError:
                    if not target.is_dir():  # not another arena process winning the race
                        raise
            finally:
                remove_tree(building)
        return mapping


_SIGNATURE_DEPTH = 3
"""How deep the signature of a prefix looks: ``lib/python3.X/site-packages`` is 3 down."""


def _mirror_name(prefix: str) -> str:
    """The mirror's name: the prefix's path and a signature of its top folders.

    The signature covers the folders up to :data:`_SIGNATURE_DEPTH` below the prefix (names,
    mtimes, inodes), where installing or removing a package shows (``bin``,
    ``lib/python3.X/site-packages``); ``__pycache__`` folders are left out (Python writes there
    as it imports). A file changed in place needs nothing: the mirror's hard link is that file.
    Not seen: a file deeper down replaced by a new one (a rename); remove the mirror then.
    """
    digest = hashlib.sha256(prefix.encode())
    top = prefix.rstrip("/").count("/")
    for folder, dirs, _files in os.walk(prefix):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        if folder.count("/") - top >= _SIGNATURE_DEPTH:
            dirs[:] = []
        info = os.stat(folder)
        digest.update(f"{folder}\0{info.st_mtime_ns}\0{info.st_ino}\n".encode())
    return f"{Path(prefix).name}-{digest.hexdigest()[:20]}"


def _mirror(source: Path, target: Path, mapping: dict[str, str]) -> None:
    """Hard-link every file of ``source`` under ``target`` (copy across file systems).

    Symlinks pointing into a mirrored prefix and a venv's ``pyvenv.cfg`` are rewritten to the
    mirrors, so a venv mirrored with its base interpreter finds it.
    """
    can_link = True
    for folder, dirs, files in os.walk(source):
        rel = os.path.relpath(folder, source)
        here = target if rel == "." else target / rel
        for name in [*dirs, *files]:
            src = os.path.join(folder, name)
            dst = here / name
            if os.path.islink(src):
                link = os.readlink(src)
                os.symlink(_translate(link, mapping) if os.path.isabs(link) else link, dst)
            elif os.path.isdir(src):
                dst.mkdir(mode=0o755)
                os.chmod(dst, 0o755)
            elif name == "pyvenv.cfg" and rel == ".":
                text = Path(src).read_text()
                for old, new in mapping.items():
                    text = text.replace(old, new)
                dst.write_text(text)
                os.chmod(dst, 0o644)
            elif os.path.isfile(src):
                if can_link:
                    try:
                        os.link(src, dst)
                        continue
                    except OSError:
                        can_link = False  # another file system (EXDEV), or links refused
                shutil.copy2(src, dst)


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
    # bwrap's /dev holds a /dev/shm the bot owns when it is not root (a user namespace): memory
    # outside every limit. An empty read-only tmpfs there, as a bot uid of root's sees it.
    argv += ["--tmpfs", "/dev/shm", "--remount-ro", "/dev/shm"]
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


def _unshare_argv(
    inner: list[str],
    bot_dir: Path,
    scratch: Path | None,
    prefixes: list[str],
    limits: Limits,
    uid: int | None,
    setup_fd: int | None = None,
) -> list[str]:
    """``unshare`` running :mod:`arena.runtime.jail` with the root to build, then ``inner``.

    ``setup_fd``: where the launcher reports ``ok`` or why it could not set the bot up."""
    argv = ["unshare", "--mount", "--net", "--ipc", "--uts", "--pid", "--fork", "--kill-child"]
    if os.geteuid() != 0:
        argv += ["--user", "--map-root-user"]  # root of a user namespace, to build the jail
    spec = {"ops": _jail_ops(bot_dir, scratch, prefixes, limits), "cwd": str(bot_dir), "uid": uid}
    if setup_fd is not None:
        spec["status_fd"] = setup_fd
    launcher = [sys.executable or "python3", "-I", "-S", str(Path(jail.__file__).resolve())]
    return [*argv, "--", *launcher, json.dumps(spec), "--", *inner]


def _jail_ops(
    bot_dir: Path, scratch: Path | None, prefixes: list[str], limits: Limits
) -> list[list[Any]]:
    """What :mod:`arena.runtime.jail` mounts, in order (see :func:`arena.runtime.jail.build`)."""
    ops: list[list[Any]] = []
    for directory in _SYSTEM_DIRS:
        if os.path.islink(directory):
            ops.append(["symlink", os.readlink(directory), directory])
        elif os.path.isdir(directory):
            ops.append(["ro", directory, True, directory])
    ops.append(["dir", "/etc"])
    for name in _ETC_FILES:
        path = f"/etc/{name}"
        if os.path.islink(path):
            ops.append(["symlink", os.readlink(path), path])
        elif os.path.exists(path):
            ops.append(["ro", path, True, path])
    size = max(1, limits.file_size_mb)
    ops += [["proc", "/proc"], ["dev", size, "/dev"], ["tmpfs", size, "/tmp"]]
    ops.append(["tmpfs", size, "/var/tmp"])
    binds = [("ro", path) for path in [*prefixes, *limits.read_only]]
    if str(bot_dir) != "/":
        binds.append(("ro", str(bot_dir)))
    if scratch is not None:
        binds.append(("rw", str(scratch)))
    for kind, path in sorted(binds, key=lambda bind: bind[1].count("/")):
        ops.append([kind, os.path.realpath(path), False, path])
    return ops


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
        "--no-new-privs",
        "--",
    ]


def _within_hard(which: int, soft: int, hard: int) -> tuple[int, int, int]:
    """Lower ``(soft, hard)`` to the current hard limit, which only root may raise."""
    current = resource.getrlimit(which)[1]
    if current != resource.RLIM_INFINITY and os.geteuid() != 0:
        hard = min(hard, current)
        soft = min(soft, hard)
    return which, soft, hard


def _preexec(limits: Limits, own_uid: bool, switch_to: int | None, nnp: bool) -> Callable[[], None]:
    """Set the rlimits, ``no_new_privs`` (when ``nnp``) and, for the plain rlimits method, the
    uid (with no groups and no capabilities left) in the forked child."""
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
        if nnp:
            jail.no_new_privs()
        if switch_to is not None:
            jail.drop_bounding_set()
            os.setgroups([])
            os.setresgid(switch_to, switch_to, switch_to)
            os.setresuid(switch_to, switch_to, switch_to)
            jail.clear_capabilities()

    return preexec
