"""The launcher of the ``unshare`` sandbox: a bubblewrap-like root built inside a new mount namespace.

:mod:`arena.runtime.sandbox` starts it as
``unshare --mount --pid --fork --net --ipc --uts [--user --map-root-user] -- PYTHON -I -S jail.py
SPEC -- BOT ARGV...``: it runs as root (or as root of a new user namespace when the arena is not
root) in the new namespaces, before any privilege is dropped, so it can read what the arena reads
(an interpreter in a private home, a bot folder in a 0700 folder). It then:

1. mounts a tmpfs and pivots into it, keeping the old root at ``/oldroot``;
2. builds the bot's root on another tmpfs (``/newroot``): read-only binds of the system folders,
   a few ``/etc`` files, the interpreter's prefixes and the bot's folder; the scratch folder
   read-write; a ``/proc`` of the new pid namespace; a minimal ``/dev`` (null, zero, full, random,
   urandom, tty); fresh size-limited tmpfs ``/tmp``, ``/var/tmp`` and ``/dev/shm`` that vanish
   with the namespace. Missing parent folders are made 0755 on the tmpfs, so the modes of the
   real parents (a 0700 home) do not matter;
3. makes that root read-only, detaches the old root and pivots into the new one;
4. sets the hostname, changes to the bot's folder, sets ``no_new_privs``, empties the capability
   bounding set, switches to the bot's uid (when given) with no groups, clears every capability;
5. stays as the namespace's pid 1 (:func:`init`) and runs the bot as its child.

It imports nothing from ``arena`` and nothing outside the standard library, so it runs with
``-I -S`` (no site, no environment); everything it uses is imported before the pivot, after which
the interpreter's own files are out of reach. A failure before the bot runs is reported on stderr with the
prefix ``arena-jail:`` and exit status 125; it is the arena's fault, never the bot's.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import platform
import re
import socket
import sys
from typing import Any

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MNT_DETACH = 2
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_SYSCALLS = {"x86_64": (155, 126), "aarch64": (41, 91), "riscv64": (41, 91)}
"""(pivot_root, capset) syscall numbers per machine."""

_ST_TO_MS = (
    (os.ST_NOSUID, MS_NOSUID),
    (os.ST_NODEV, MS_NODEV),
    (os.ST_NOEXEC, MS_NOEXEC),
    (os.ST_NOATIME, MS_NOATIME),
    (os.ST_NODIRATIME, MS_NODIRATIME),
    (os.ST_RELATIME, MS_RELATIME),
)
"""The flags a read-only remount must keep (in a user namespace they are locked)."""

_DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
_libc = ctypes.CDLL(None, use_errno=True)


class JailError(Exception):
    """The jail could not be built: the arena's fault, reported before the bot runs."""


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise JailError(f"{what}: {os.strerror(errno)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    """``mount(2)``."""
    _check(
        _libc.mount(
            source.encode() if source is not None else None,
            target.encode(),
            fstype.encode() if fstype is not None else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {source} on {target}",
    )


def umount(target: str) -> None:
    """``umount2(target, MNT_DETACH)``."""
    _check(_libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def _syscall_numbers() -> tuple[int, int]:
    numbers = _SYSCALLS.get(platform.machine())
    if numbers is None:
        raise JailError(f"unsupported machine {platform.machine()}")
    return numbers


def pivot_root(new_root: str, put_old: str) -> None:
    """``pivot_root(2)`` (glibc has no wrapper)."""
    number = _syscall_numbers()[0]
    _check(
        _libc.syscall(ctypes.c_long(number), new_root.encode(), put_old.encode()),
        f"pivot_root {new_root}",
    )


def _prctl(option: int, arg: int) -> None:
    _check(
        _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg), ctypes.c_ulong(0), 0, 0),
        f"prctl {option}",
    )


def no_new_privs() -> None:
    """Nothing executed from here on can gain privileges (setuid bits, file capabilities)."""
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


def drop_bounding_set() -> None:
    """Empty the capability bounding set, so no later ``execve`` (even as uid 0) grants any."""
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            last = int(f.read())
    except OSError:
        last = 40
    for cap in range(last + 1):
        _prctl(PR_CAPBSET_DROP, cap)


def clear_capabilities() -> None:
    """Clear the effective, permitted and inheritable capability sets (``capset(2)``)."""

    class Header(ctypes.Structure):
        _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))

    class Data(ctypes.Structure):
        _fields_ = (
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        )

    header = Header(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (Data * 2)()
    number = _syscall_numbers()[1]
    _check(_libc.syscall(ctypes.c_long(number), ctypes.byref(header), data), "capset")


def _locked_flags(path: str) -> int:
    flags = os.statvfs(path).f_flag
    return sum(ms for st, ms in _ST_TO_MS if flags & st)


def _mount_points_under(path: str) -> list[str]:
    """Mount points at or below ``path``, as this process sees them (while building)."""
    found = []
    with open("/oldroot/proc/self/mountinfo") as f:
        for line in f:
            point = line.split()[4]
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), point)
            if point == path or point.startswith(path.rstrip("/") + "/"):
                found.append(point)
    return found


def _make_parents(path: str) -> None:
    """Create the missing parents of ``path`` (inside the new root) with mode 0755."""
    parent = os.path.dirname(path)
    missing = []
    while not os.path.lexists(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    for directory in reversed(missing):
        os.mkdir(directory)
        os.chmod(directory, 0o755)


def _mount_point(dest: str, like: str) -> None:
    """An empty file or folder at ``dest`` to mount ``like`` on."""
    _make_parents(dest)
    if os.path.isdir(like):
        if not os.path.isdir(dest):
            os.mkdir(dest, 0o755)
    elif not os.path.exists(dest):
        with open(dest, "w"):
            pass


def bind(source: str, dest: str, writable: bool) -> None:
    """Bind ``source`` (a path of the old root) at ``dest``; read-only unless ``writable``."""
    _mount_point(dest, source)
    mount(source, dest, None, MS_BIND | MS_REC)
    if writable:
        return
    for point in _mount_points_under(dest):
        flags = MS_BIND | MS_REMOUNT | MS_RDONLY | _locked_flags(point)
        mount(None, point, None, flags)


def tmpfs(dest: str, mode: int, size_mb: int | None) -> None:
    """A fresh tmpfs at ``dest``: private to the namespace, gone when it ends."""
    _make_parents(dest)
    os.makedirs(dest, exist_ok=True)
    data = f"mode={mode:o}" + (f",size={size_mb}m" if size_mb else "")
    mount("tmpfs", dest, "tmpfs", MS_NOSUID | MS_NODEV, data)


def make_dev(dev: str, shm_mb: int) -> None:
    """A minimal ``/dev``, as ``bwrap --dev`` makes: a few devices bound from the real one."""
    tmpfs(dev, 0o755, 1)
    for name in _DEVICES:
        source = f"/oldroot/dev/{name}"
        if os.path.exists(source):
            target = f"{dev}/{name}"
            with open(target, "w"):
                pass
            mount(source, target, None, MS_BIND)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
        ("core", "/proc/kcore"),
    ):
        os.symlink(target, f"{dev}/{name}")
    tmpfs(f"{dev}/shm", 0o1777, shm_mb)
    mount(None, dev, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def build(spec: dict[str, Any]) -> None:
    """Build the bot's root from ``spec`` and pivot into it (steps 1 to 3 of the module)."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    base = "/tmp" if os.path.isdir("/tmp") else "/mnt"
    mount("tmpfs", base, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    os.chdir(base)
    os.mkdir("newroot", 0o755)
    os.mkdir("oldroot", 0o755)
    pivot_root(base, "oldroot")
    os.chdir("/")
    tmpfs("/newroot", 0o755, 8)
    for op in spec["ops"]:
        kind, dest = op[0], "/newroot" + op[-1]
        if kind == "symlink":
            _make_parents(dest)
            os.symlink(op[1], dest)
        elif kind == "dir":
            _make_parents(dest)
            os.makedirs(dest, exist_ok=True)
            os.chmod(dest, 0o755)
        elif kind in ("ro", "rw"):
            source = "/oldroot" + op[1]
            if os.path.exists(source):
                bind(source, dest, writable=kind == "rw")
            elif not op[2]:
                raise JailError(f"{op[1]} does not exist")
        elif kind == "tmpfs":
            tmpfs(dest, 0o1777, op[1])
        elif kind == "proc":
            _make_parents(dest)
            os.makedirs(dest, exist_ok=True)
            mount("proc", dest, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        elif kind == "dev":
            make_dev(dest, op[1])
        else:
            raise JailError(f"unknown operation {kind}")
    mount(None, "/newroot", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    mount(None, "/oldroot", None, MS_REC | MS_PRIVATE)
    umount("/oldroot")
    old = os.open("/", os.O_DIRECTORY | os.O_RDONLY)
    os.chdir("/newroot")
    pivot_root(".", ".")
    os.fchdir(old)
    os.close(old)
    umount(".")
    os.chdir("/")


def become(uid: int | None) -> None:
    """Drop to ``uid`` (when given) with no groups and no capabilities, ``no_new_privs`` set."""
    no_new_privs()
    drop_bounding_set()
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    clear_capabilities()


def main(args: list[str]) -> int:
    """``jail.py SPEC -- ARGV...``: build the jail described by the JSON ``SPEC``, run ARGV."""
    if len(args) < 3 or args[1] != "--":
        print("arena-jail: usage: jail.py SPEC -- ARGV...", file=sys.stderr)
        return 125
    spec = json.loads(args[0])
    argv = args[2:]
    status = spec.get("status_fd")
    try:
        build(spec)
        socket.sethostname(spec.get("hostname", "bot"))
        os.chdir(spec["cwd"])
        become(spec.get("uid"))
    except (JailError, OSError) as exc:
        print(f"arena-jail: {exc}", file=sys.stderr)
        report(status, f"arena-jail: {exc}")
        return 125
    report(status, "ok")
    return init(argv)


def report(status_fd: int | None, text: str) -> None:
    """Tell the arena, on a pipe the bot never holds, whether the bot was set up; close it."""
    if status_fd is None:
        return
    with contextlib.suppress(OSError):
        os.write(status_fd, (text.replace("\n", " ") + "\n").encode("utf-8", "replace"))
    with contextlib.suppress(OSError):
        os.close(status_fd)


def init(argv: list[str]) -> int:
    """Be the namespace's pid 1: start the bot as pid 2, reap orphans, end when the bot ends.

    The bot is not made pid 1 itself, since the kernel shields a namespace's init from signals
    sent from inside it (a bot that kills itself would live on) and makes it heir to every
    orphan. When the bot ends, this exits with its status (128 + n for signal n, as bubblewrap
    does) and the kernel kills whatever else is left in the namespace.
    """
    child = os.fork()
    if child == 0:
        try:
            os.execve(argv[0], argv, dict(os.environ))
        except OSError as exc:
            print(f"arena-jail: cannot run {argv[0]}: {exc.strerror}", file=sys.stderr)
        os._exit(127)
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):  # the bot's pipes are the bot's: closing them must mean EOF
        os.dup2(null, fd)
    os.close(null)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            return 125
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
