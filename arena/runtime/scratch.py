"""Bot scratch folders: where they live, how they are removed, and the sweep of what a dead
arena left behind.

Each bot process gets a private scratch folder (its ``HOME`` and ``TMPDIR``) inside the arena's
per-user root, ``$TMPDIR/arena-<uid>/`` (mode 0711: a bot's uid can reach its own folder but not
list the others). A folder's name starts with the pid, start time and pid namespace of the
arena process that made it, so a later arena can tell the folders of a dead one (killed with
``kill -9``, out of memory) from those of one still running, and :func:`sweep` removes the
former.

Removal must survive anything a bot leaves: a tree thousands of levels deep, paths longer than
``PATH_MAX``, symbolic links to elsewhere, folders without permissions. :func:`remove_tree` walks
with directory descriptors (never a path longer than one name, never following a link), holds a
bounded number of descriptors, uses no recursion, and never raises.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaSetupError

ROOT_MODE = 0o711
"""The scratch root: only its owner lists it; bot uids pass through to their own folder."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_OPEN = 32
"""Descriptors :func:`remove_tree` keeps open at most, however deep the tree."""


# -- removal ----------------------------------------------------------------------------------


@dataclass
class _Level:
    """One folder on the way down: its name in its parent, its descriptor (-1 once closed to
    bound the number open) and its identity, to check a re-opened parent is the same folder."""

    name: str
    fd: int
    ident: tuple[int, int]
    skip: set[str] = field(default_factory=set)
    """Entries that could not be removed: not tried again."""


def remove_tree(path: Path | str) -> bool:
    """Remove ``path`` and everything under it; True if it is gone. Never raises.

    Symbolic links are removed, never followed (a link to ``/`` costs nothing but the link).
    Folders a bot made unreadable or unwritable are opened up first if the arena owns them (an
    arena that is root needs no such help).
    """
    text = os.path.abspath(os.fspath(path))
    parent, name = os.path.split(text)
    if not name:
        return False
    try:
        parent_fd = os.open(parent or "/", _DIR_FLAGS & ~os.O_NOFOLLOW)
    except OSError:
        return not os.path.lexists(text)
    try:
        return _remove_in(parent_fd, name)
    except OSError:
        return False
    finally:
        os.close(parent_fd)


def _remove_in(parent_fd: int, name: str) -> bool:
    """Remove entry ``name`` of the open folder ``parent_fd``, whatever it is."""
    try:
        os.unlink(name, dir_fd=parent_fd)
        return True
    except FileNotFoundError:
        return True
    except IsADirectoryError:
        pass
    except PermissionError:
        # Linux says EISDIR for a folder, but other systems say EPERM: look before giving up.
        if not stat.S_ISDIR(os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode):
            return False
    top = _open_dir(parent_fd, name)
    if top is None:
        return False
    levels = [top]
    try:
        while levels:
            level = levels[-1]
            child = _clear_files(level)
            if child is not None:
                below = _open_dir(level.fd, child)
                if below is None:
                    level.skip.add(child)
                    continue
                levels.append(below)
                _bound_open(levels)
                continue
            # ``level`` holds no more than what could not be removed: remove it, go up.
            levels.pop()
            up_fd = levels[-1].fd if levels else parent_fd
            if levels and up_fd < 0:
                up_fd = _reopen_parent(level, levels[-1])
            os.close(level.fd)
            level.fd = -1
            if up_fd < 0:
                return False  # the tree was moved under us: stop rather than guess
            try:
                os.rmdir(level.name, dir_fd=up_fd)
            except FileNotFoundError:
                pass
            except OSError:
                if not levels:
                    return False
                levels[-1].skip.add(level.name)
        return True
    finally:
        for level in levels:
            if level.fd >= 0:
                os.close(level.fd)


def _open_dir(parent_fd: int, name: str) -> _Level | None:
    """Open folder ``name`` without following a link, making it usable if the arena owns it."""
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except PermissionError:
        if not _open_up(parent_fd, name):
            return None
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
        except OSError:
            return None
    except NotADirectoryError:
        # It became a file or a link since it was listed: remove it as one.
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=parent_fd)
        return None
    except OSError:  # ELOOP (a link), ENOENT (gone), EMFILE...
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=parent_fd)
        return None
    info = os.fstat(fd)
    if info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) & 0o700 != 0o700:
        with contextlib.suppress(OSError):
            os.fchmod(fd, stat.S_IMODE(info.st_mode) | 0o700)
    return _Level(name, fd, (info.st_dev, info.st_ino))


def _open_up(parent_fd: int, name: str) -> bool:
    """Give the arena's own folder ``name`` owner permissions again (a bot may chmod 000 it)."""
    try:
        handle = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY, dir_fd=parent_fd)
    except OSError:
        return False
    try:
        info = os.fstat(handle)
        if info.st_uid != os.geteuid():
            return False
        # fchmod refuses an O_PATH descriptor; its /proc link reaches the same folder.
        os.chmod(f"/proc/self/fd/{handle}", stat.S_IMODE(info.st_mode) | 0o700)
        return True
    except OSError:
        return False
    finally:
        os.close(handle)


def _clear_files(level: _Level) -> str | None:
    """Remove every non-folder in ``level``; return a sub-folder to descend into, if any."""
    with os.scandir(level.fd) as entries:
        for entry in entries:
            if entry.name in level.skip:
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                return entry.name
            try:
                os.unlink(entry.name, dir_fd=level.fd)
            except FileNotFoundError:
                pass
            except IsADirectoryError:
                return entry.name
            except OSError:
                level.skip.add(entry.name)
    return None


def _bound_open(levels: list[_Level]) -> None:
    """Close the descriptors of levels far above the current one (reopened on the way up)."""
    open_levels = [level for level in levels if level.fd >= 0]
    for level in open_levels[: max(0, len(open_levels) - _MAX_OPEN)]:
        os.close(level.fd)
        level.fd = -1


def _reopen_parent(child: _Level, parent: _Level) -> int:
    """Re-open ``parent`` through ``child``'s ``..``; -1 unless it is the very same folder."""
    try:
        fd = os.open("..", _DIR_FLAGS, dir_fd=child.fd)
    except OSError:
        return -1
    info = os.fstat(fd)
    if (info.st_dev, info.st_ino) != parent.ident:
        os.close(fd)
        return -1
    parent.fd = fd
    return fd


# -- private folders --------------------------------------------------------------------------


def private_folder(path: Path, mode: int) -> Path:
    """``path`` as a folder of the arena's own user with exactly ``mode``, made if missing.

    Anything else found there (a link, a file, another user's folder, as another local user could
    plant in a shared temp folder) is removed and replaced; if it cannot be,
    :class:`ArenaSetupError` says so. ``mode`` must leave the folder unwritable to others.
    """
    for _ in range(2):
        try:
            os.mkdir(path, mode)
        except FileExistsError:
            pass
        except OSError as exc:
            raise ArenaSetupError(f"cannot create the arena's folder {path}: {exc}") from None
        try:
            info = os.lstat(path)
        except OSError as exc:
            raise ArenaSetupError(f"cannot use the arena's folder {path}: {exc}") from None
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
            if stat.S_IMODE(info.st_mode) != mode:
                try:
                    os.chmod(path, mode, follow_symlinks=False)
                except OSError as exc:
                    raise ArenaSetupError(f"cannot protect {path}: {exc}") from None
            return path
        if not remove_tree(path):
            break
    raise ArenaSetupError(
        f"{path} exists and is not a folder of this user (uid {os.geteuid()}); "
        "remove it or point TMPDIR elsewhere"
    )


# -- scratch folders and the sweep ------------------------------------------------------------


def default_root() -> Path:
    """The per-user scratch root, ``$TMPDIR/arena-<uid>`` (not made here)."""
    return Path(tempfile.gettempdir()) / f"arena-{os.geteuid()}"


def start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks after boot), None if there is no such process.

    With the pid, it names a process for good: a pid reused later has another start time.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
    except OSError:
        return None
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses; starttime is field 22.
    fields = text[text.rfind(b")") + 2 :].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def pid_namespace() -> int:
    """This process's pid namespace (0 if unknown): pids of another one are not comparable."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def owner_prefix() -> str:
    """The start of the names of this process's scratch folders:
    ``<pid>-<start time>-<pid namespace>-``."""
    pid = os.getpid()
    return f"{pid}-{start_time(pid) or 0}-{pid_namespace()}-"


def make_scratch(root: Path, label: str) -> Path:
    """A new scratch folder (mode 0700) in ``root`` named for this process and ``label``."""
    private_folder(root, ROOT_MODE)
    try:
        return Path(tempfile.mkdtemp(prefix=f"{owner_prefix()}{label}-", dir=root))
    except OSError as exc:
        raise ArenaSetupError(f"cannot make a scratch folder in {root}: {exc}") from None


def owner_alive(name: str) -> bool:
    """Whether the process that made scratch folder ``name`` still runs (True if unsure: a
    name this module does not give, or a process of another pid namespace, e.g. a container
    sharing this temp folder)."""
    fields = name.split("-", 3)
    if len(fields) < 4 or not all(f.isdigit() for f in fields[:3]):
        return True
    pid, started, namespace = (int(f) for f in fields[:3])
    if namespace != pid_namespace():
        return True
    now = start_time(pid)
    return now is not None and (started == 0 or now == started)


def sweep(root: Path) -> list[str]:
    """Remove the scratch folders in ``root`` whose arena process is gone; their names.

    Never raises: a folder that cannot be removed now is tried again by the next sweep.
    """
    try:
        names = os.listdir(root)
    except OSError:
        return []
    removed = []
    for name in names:
        if not owner_alive(name) and remove_tree(root / name):
            removed.append(name)
    return removed
