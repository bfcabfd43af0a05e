"""The worker side of the Dask executor (see :mod:`arena.run.cluster`): bot bundles by
content hash, the per-worker bot pools, and the task that plays a batch of matches.

Imported by the workers (and by the parent once ``distributed`` is known to be installed).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import stat
import tarfile
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker

from arena.errors import ArenaSetupError
from arena.games import JSON
from arena.match import MatchSpec
from arena.run.worker import ChunkResult, Player
from arena.runtime.botproc import RunLimits
from arena.runtime.manifest import BotSpec, load_bot
from arena.runtime.scratch import private_folder, remove_tree


class BundleError(ArenaSetupError):
    """A bot bundle that is damaged or missing on a worker, or a cache it cannot use: the
    arena's trouble, never a bot's."""


# -- bots, by content hash --------------------------------------------------------------------


@dataclass(frozen=True)
class BotRef:
    """A bot as a task names it: its source (relative to the league folder) and where the
    worker finds it: ``bundle`` is the hash of its tar ("" for a built-in or a shared folder)."""

    source: str
    bundle: str = ""


def pack(folder: Path, arcname: str) -> bytes:
    """A deterministic tar of ``folder`` under ``arcname``: the same files give the same bytes."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        paths = [folder, *sorted(folder.rglob("*"))]
        for path in paths:
            if "__pycache__" in path.relative_to(folder).parts or path.suffix == ".pyc":
                continue
            info = tar.gettarinfo(str(path), arcname=str(Path(arcname) / path.relative_to(folder)))
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if path.is_file() and not path.is_symlink():
                with path.open("rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)
    return out.getvalue()


CACHE_MODE = 0o711
"""Only the arena lists or writes the cache; a bot's uid (the arena being root) passes through
to read its own folder, as under the sandbox's unshare and rlimits methods it must."""


def cache_root() -> Path:
    """Where workers keep unpacked bots (one folder per content hash), shared by the workers of
    a machine: ``$ARENA_BOT_CACHE``, or ``arena-bot-cache-UID`` in the temp folder.

    The folder must belong to the arena's user with mode 0711 (only that user lists or writes
    it): one planted by someone else (in a shared ``/tmp`` anyone may create that name first) is
    replaced, or refused with :class:`BundleError` if it cannot be.
    """
    env = os.environ.get("ARENA_BOT_CACHE")
    root = Path(env) if env else Path(tempfile.gettempdir()) / f"arena-bot-cache-{os.geteuid()}"
    try:
        return private_folder(root, CACHE_MODE)
    except ArenaSetupError as exc:
        raise BundleError(f"the bot cache is unusable: {exc}") from None


def unpack(digest: str, data: bytes, root: Path | None = None) -> Path:
    """The folder holding bundle ``digest``, unpacked now unless a previous run did.

    A folder already there is used only if it holds exactly the bundle's files with the same
    bytes (:func:`matches`); anything else (a damaged entry, another bot planted under this
    digest) is removed and the bundle unpacked again.
    """
    if hashlib.sha256(data).hexdigest() != digest:
        raise BundleError(f"bot bundle {digest[:12]} arrived damaged")
    root = private_folder(root, CACHE_MODE) if root is not None else cache_root()
    final = root / digest
    for _ in range(3):
        if os.path.lexists(final):
            if matches(final, data):
                final.chmod(0o755)  # an entry of an older arena may be 0700, closed to bots
                return final
            if not remove_tree(final):
                break
        scratch = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=root))
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                extract(tar, scratch)
            scratch.chmod(0o755)  # mkdtemp made it 0700; a bot's own uid must reach its folder
            with contextlib.suppress(OSError):  # another worker may have won the race
                os.rename(scratch, final)
        finally:
            remove_tree(scratch)
    if os.path.lexists(final) and matches(final, data):
        return final
    raise BundleError(f"cannot install bot bundle {digest[:12]} in {root}")


def extract(tar: tarfile.TarFile, folder: Path) -> None:
    """Unpack a bundle's files and folders, refusing links, devices and paths that leave
    ``folder``. Python 3.11.4+ (and 3.12) has ``filter="data"``; older 3.11 releases (Debian
    12's 3.11.2) do not, so the same rules are checked here first either way."""
    for member in tar.getmembers():
        parts = Path(member.name).parts
        if not (member.isfile() or member.isdir()) or member.name.startswith("/") or ".." in parts:
            raise BundleError(f"bot bundle member {member.name!r} is not a plain file or folder")
    if hasattr(tarfile, "data_filter"):
        tar.extractall(folder, filter="data")
    else:  # pragma: no cover - only before Python 3.11.4
        tar.extractall(folder)


def matches(folder: Path, data: bytes) -> bool:
    """Whether ``folder`` holds exactly the files and folders of the tar ``data``, byte for
    byte, with no link anywhere (checked through descriptors, never following a link)."""
    expected: dict[str, bytes | None] = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            for parent in Path(os.path.normpath(member.name)).parents[:-1]:
                expected.setdefault(str(parent), None)  # made by extraction if not listed
            if member.isdir():
                expected[os.path.normpath(member.name)] = None
            elif member.isfile():
                handle = tar.extractfile(member)
                expected[os.path.normpath(member.name)] = handle.read() if handle else b""
            else:
                return False  # pack() makes no links; extractall(filter="data") would refuse
    try:
        found = _tree(folder)
    except OSError:
        return False
    return found == expected


def _tree(folder: Path) -> dict[str, bytes | None]:
    """Every entry under ``folder``: a file's bytes, None for a folder; OSError on a link."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    top = os.open(folder, flags | os.O_DIRECTORY)
    out: dict[str, bytes | None] = {}
    stack = [(top, "")]
    try:
        while stack:
            fd, rel = stack.pop()
            try:
                with os.scandir(fd) as entries:
                    names = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
                for name, is_dir in names:
                    path = f"{rel}{name}"
                    if is_dir:
                        out[path] = None
                        stack.append((os.open(name, flags | os.O_DIRECTORY, dir_fd=fd), path + "/"))
                        continue
                    handle = os.open(name, flags | os.O_NONBLOCK, dir_fd=fd)
                    with os.fdopen(handle, "rb") as file:
                        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                            raise OSError(f"{path} is not a regular file")
                        out[path] = file.read()
            finally:
                os.close(fd)
    finally:
        for fd, _ in stack:
            os.close(fd)
    return out


class BundlePlugin(WorkerPlugin):
    """Worker plugin: unpack one bot bundle into the worker's cache (once per machine)."""

    idempotent = True

    def __init__(self, digest: str, data: bytes) -> None:
        self.digest = digest
        self.data = data

    def setup(self, worker: Any) -> None:
        unpack(self.digest, self.data)

    def teardown(self, worker: Any) -> None:
        pass  # the unpacked bot stays cached for the next run


class PoolPlugin(WorkerPlugin):
    """Worker plugin: the worker's players (one per thread, each with its bot pool), closed when
    the plugin is removed; and the bots it has loaded, each loaded once."""

    idempotent = False

    def __init__(self, limits: RunLimits, fresh: bool, shared: str | None) -> None:
        self.limits = limits
        self.fresh = fresh
        self.shared = shared
        self._players: dict[int, Player] = {}
        self._specs: dict[BotRef, BotSpec] = {}
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {"limits": self.limits, "fresh": self.fresh, "shared": self.shared}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["limits"], state["fresh"], state["shared"])  # type: ignore[misc]

    def setup(self, worker: Any) -> None:
        pass

    def player(self) -> Player:
        """This thread's player."""
        me = threading.get_ident()
        with self._lock:
            if me not in self._players:
                self._players[me] = Player(self.limits, self.fresh)
            return self._players[me]

    def spec(self, ref: BotRef) -> BotSpec:
        with self._lock:
            found = self._specs.get(ref)
        if found is not None:
            return found
        if ref.source.startswith("builtin:"):
            spec = load_bot(ref.source)
        elif ref.bundle:
            folder = cache_root() / ref.bundle
            if not folder.is_dir():
                raise BundleError(f"bot bundle {ref.bundle[:12]} is not on this worker")
            spec = load_bot(ref.source, base=folder)
        elif self.shared:
            spec = load_bot(ref.source, base=Path(self.shared))
        else:
            raise BundleError(f"no way to find {ref.source} on this worker")
        with self._lock:
            self._specs[ref] = spec
        return spec

    def teardown(self, worker: Any) -> None:
        with self._lock:
            players = list(self._players.values())
            self._players.clear()
        for player in players:
            with contextlib.suppress(Exception):
                player.close()


# -- the task ---------------------------------------------------------------------------------

TaskMatch = tuple[str, str, int, Mapping[str, JSON], tuple[BotRef, ...]]
"""(match id, game, seed, options, bots by seat)."""


def play_batch(plugin: str, matches: Sequence[TaskMatch]) -> ChunkResult:
    """Play a batch of matches on this worker: pure, so the scheduler may run it again."""
    state = get_worker().plugins[plugin]
    assert isinstance(state, PoolPlugin)
    specs = [
        MatchSpec(match_id, game, seed, tuple(state.spec(r) for r in refs), options)
        for match_id, game, seed, options, refs in matches
    ]
    return state.player().play(specs)
