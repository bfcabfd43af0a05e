"""Bot uploads: a ``.zip`` or ``.tar.gz`` of a bot folder, unpacked without trusting it.

An upload comes from anyone with an account, so nothing in it is believed. Every name is checked
on its own (no absolute paths, no ``..``, no control characters, no duplicates); only regular
files and folders are made, each opened with ``O_EXCL | O_NOFOLLOW``; and the size is counted
while writing, never read from a header (a header may lie), so an archive bomb stops at the
limit. The gzip stream is inflated here, behind a counter, so even what :mod:`tarfile` reads for
itself (a pax header of a gigabyte) is bounded. Any refusal removes what was written.

:func:`pack` is the author's side: their bot folder as a ``.tar.gz`` the server will take.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Generator, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

from arena.terminal import shown, unsafe

T = TypeVar("T")

BUFFER = 64 * 1024
"""Bytes copied at a time; the unpacked size is checked before each write."""

SKIPPED = frozenset({"__pycache__", ".git"})
"""Folders :func:`pack` leaves out (caches and history, never part of a bot)."""

FINDER_LITTER = "__MACOSX"
"""A top-level folder macOS's Finder adds to every zip it makes (resource forks): skipped."""

READ_ERRORS: tuple[type[Exception], ...] = (
    zipfile.BadZipFile,
    tarfile.TarError,
    zlib.error,
    EOFError,
    OSError,
    NotImplementedError,
    UnicodeError,
)
"""What the stdlib readers raise on a corrupt or unsupported archive."""

HEADER_ALLOWANCE = 8192
"""Bytes of tar headers (with pax or GNU long names) allowed per entry on top of the content."""


class ArchiveError(ValueError):
    """An upload refused; the message is safe and clear to show to its author."""


@dataclass(frozen=True)
class Limits:
    """What an upload may hold."""

    max_upload: int = 16 * 2**20
    """Bytes of the archive itself."""
    max_unpacked: int = 64 * 2**20
    """Bytes written, counted while unpacking (not from headers)."""
    max_files: int = 2000
    """Entries (files and folders) in the archive."""
    max_depth: int = 16
    """Path components."""
    max_name: int = 255
    """Bytes per path component (UTF-8)."""
    max_path: int = 1024
    """Bytes of a whole path (UTF-8): well under the system's own limit, so no write fails."""


@dataclass(frozen=True)
class _Entry:
    """One checked entry of an archive: where it goes, and how to read its bytes."""

    parts: tuple[str, ...]
    folder: bool
    executable: bool
    open: Callable[[], _Guarded] | None


def mib(size: int) -> str:
    """A size for a message: ``16 MiB``, ``1.5 MiB``, ``700 bytes``."""
    if size < 2**20:
        return f"{size} bytes"
    return f"{size / 2**20:.3g} MiB"


# ---------------------------------------------------------------------------------------------
# unpacking


def unpack(data: bytes, dest: Path, limits: Limits = Limits()) -> Path:
    """Unpack a .zip or .tar.gz (told apart by magic bytes) into ``dest`` (must not exist; made
    with 0o755) and return the bot folder: ``dest`` itself, or its single top-level folder when
    the archive wraps one (and has no ``bot.toml`` of its own).

    Refuses (:class:`ArchiveError`) symlinks, hard links, devices, FIFOs, absolute paths,
    ``..``, duplicate names, names with NUL or control characters, too many files, too deep,
    too big (counted while writing: a bomb is stopped at the limit), corrupt archives, anything
    not a zip or gzip'd tar. Only regular files and folders are made; modes 0o644, or 0o755 if
    any executable bit was set. On any refusal ``dest`` is removed. ``dest`` existing already is
    the caller's error (:class:`FileExistsError`), not the author's.
    """
    if len(data) > limits.max_upload:
        raise ArchiveError(
            f"the archive is {mib(len(data))}, over the limit of {mib(limits.max_upload)}"
        )
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        kind = "zip"
    elif data.startswith(b"\x1f\x8b"):
        kind = "tar.gz"
    else:
        raise ArchiveError("not a .zip or .tar.gz archive")
    dest.mkdir(parents=True, mode=0o755)
    try:
        dest.chmod(0o755)
        writer = _Writer(dest, limits)
        entries = _zip_entries(data, limits) if kind == "zip" else _tar_entries(data, limits)
        with closing(entries):  # the reader is closed at once, on a refusal too
            for entry in entries:
                writer.add(entry)
        if writer.entries == 0:
            raise ArchiveError("the archive is empty")
        return _bot_folder(dest)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def _bot_folder(dest: Path) -> Path:
    """``dest``, or the one folder it holds when the archive wrapped the bot in a folder."""
    if (dest / "bot.toml").exists():
        return dest
    inside = [p for p in dest.iterdir() if p.name != ".DS_Store"]
    if len(inside) == 1 and inside[0].is_dir():
        return inside[0]
    return dest


def check_name(name: str, limits: Limits) -> tuple[str, ...]:
    """The path components of an entry's name, checked; ``()`` for the archive's root (``./``).

    ``.`` and empty components are dropped (``./bot.toml``, ``a//b``); everything that could
    leave the folder or confuse a reader is refused.
    """
    if not name:
        raise ArchiveError("an entry with an empty name")
    if "\x00" in name:
        raise ArchiveError(f"a NUL character in the name {shown(repr(name))}")
    if any(unsafe(c) for c in name):
        raise ArchiveError(f"a control or invisible character in the name {shown(repr(name))}")
    if "\\" in name:
        raise ArchiveError(f"a backslash in the name {shown(repr(name))} (use / between folders)")
    if name.startswith("/"):
        raise ArchiveError(f"an absolute path: {shown(repr(name))}")
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if ".." in parts:
        raise ArchiveError(f"a '..' in the name {shown(repr(name))}")
    if len(parts) > limits.max_depth:
        raise ArchiveError(
            f"{shown(repr(name))} is {len(parts)} folders deep, over the limit of {limits.max_depth}"
        )
    try:
        sizes = [len(part.encode("utf-8")) for part in parts]
    except UnicodeEncodeError:
        raise ArchiveError(f"a name that is not UTF-8: {shown(repr(name))}") from None
    if sum(sizes) + len(sizes) > limits.max_path:
        raise ArchiveError(
            f"a path longer than {limits.max_path} bytes: {shown(repr(name[:80]))}..."
        )
    for size in sizes:
        if size > limits.max_name:
            raise ArchiveError(
                f"a name of {size} bytes in {shown(repr(name))}, over the limit of "
                f"{limits.max_name}"
            )
    return parts


class _Writer:
    """Writes checked entries under a root, counting entries and bytes against the limits."""

    def __init__(self, root: Path, limits: Limits) -> None:
        self.root = root
        self.limits = limits
        self.entries = 0
        self.written = 0
        self.kinds: dict[tuple[str, ...], bool] = {}
        """Every path made so far: True for a folder (named or implied), False for a file."""
        self.named: set[tuple[str, ...]] = set()
        """Paths an entry named (an implied folder may be named once later)."""

    def add(self, entry: _Entry) -> None:
        self.entries += 1
        if self.entries > self.limits.max_files:
            raise ArchiveError(f"more than {self.limits.max_files} files and folders")
        if not entry.parts:
            return  # the archive's own root, "./"
        if entry.parts[0] == FINDER_LITTER:
            return
        text = "/".join(entry.parts)
        if entry.parts in self.named:
            raise ArchiveError(f"{shown(repr(text))} is in the archive twice")
        self.named.add(entry.parts)
        for n in range(1, len(entry.parts)):
            self._folder(entry.parts[:n])
        if entry.folder:
            self._folder(entry.parts)
            return
        if entry.parts in self.kinds:
            raise ArchiveError(f"{shown(repr(text))} is both a file and a folder")
        self.kinds[entry.parts] = False
        assert entry.open is not None
        self._file(entry.parts, entry.open, entry.executable)

    def _folder(self, parts: tuple[str, ...]) -> None:
        kind = self.kinds.get(parts)
        if kind is True:
            return
        if kind is False:
            raise ArchiveError(f"{shown(repr('/'.join(parts)))} is both a file and a folder")
        path = self.root.joinpath(*parts)
        path.mkdir(mode=0o755)
        path.chmod(0o755)
        self.kinds[parts] = True

    def _file(self, parts: tuple[str, ...], source: Callable[[], _Guarded], exe: bool) -> None:
        mode = 0o755 if exe else 0o644
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.root.joinpath(*parts), flags, mode)
        with os.fdopen(fd, "wb") as out, source() as inp:
            os.fchmod(fd, mode)
            while chunk := inp.read(BUFFER):
                if self.written + len(chunk) > self.limits.max_unpacked:
                    raise ArchiveError(
                        f"the archive unpacks to more than {mib(self.limits.max_unpacked)}"
                    )
                out.write(chunk)
                self.written += len(chunk)


def _zip_entries(data: bytes, limits: Limits) -> Generator[_Entry, None, None]:
    """The entries of a zip, checked one by one (names and kinds before any byte is read)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
        raise ArchiveError(f"a corrupt zip archive ({exc})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.max_files:
            raise ArchiveError(f"more than {limits.max_files} files and folders")
        for info in infos:
            yield _zip_entry(archive, info, limits)


def _zip_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: Limits) -> _Entry:
    parts = check_name(info.filename, limits)
    unix = info.external_attr >> 16 if info.create_system == 3 else 0
    kind = stat.S_IFMT(unix)
    name = shown(repr(info.filename))
    if kind == stat.S_IFLNK:
        raise ArchiveError(f"a symbolic link: {name}")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise ArchiveError(f"not a regular file or folder: {name}")
    if info.flag_bits & 0x1:
        raise ArchiveError(f"an encrypted entry: {name}")
    folder = info.is_dir() or kind == stat.S_IFDIR
    if folder and info.file_size:
        raise ArchiveError(f"a folder with content: {name}")

    def source() -> _Guarded:
        return _Guarded(lambda: archive.open(info), info.filename)

    return _Entry(parts, folder, bool(unix & 0o111), None if folder else source)


def _tar_entries(data: bytes, limits: Limits) -> Generator[_Entry, None, None]:
    """The entries of a gzip'd tar, read as a stream: each one checked, then written, in turn."""
    budget = limits.max_unpacked + (limits.max_files + 1) * HEADER_ALLOWANCE
    stream = _Inflater(data, budget)
    try:
        archive = tarfile.open(fileobj=stream, mode="r|")  # noqa: SIM115 (closed below)
    except (tarfile.TarError, EOFError, UnicodeError) as exc:
        raise ArchiveError(f"a corrupt tar archive ({exc})") from None
    with archive:
        while True:
            try:
                member = archive.next()
            except (tarfile.TarError, EOFError, UnicodeError) as exc:
                raise ArchiveError(f"a corrupt tar archive ({exc})") from None
            if member is None:
                break
            yield _tar_entry(archive, member, limits)
    stream.finish()


def _tar_entry(archive: tarfile.TarFile, member: tarfile.TarInfo, limits: Limits) -> _Entry:
    parts = check_name(member.name, limits)
    name = shown(repr(member.name))
    if member.issym():
        raise ArchiveError(f"a symbolic link: {name}")
    if member.islnk():
        raise ArchiveError(f"a hard link: {name}")
    if member.ischr() or member.isblk():
        raise ArchiveError(f"a device: {name}")
    if member.isfifo():
        raise ArchiveError(f"a FIFO: {name}")
    if member.issparse():
        raise ArchiveError(f"a sparse file: {name}")
    if not (member.isreg() or member.isdir()):
        raise ArchiveError(f"not a regular file or folder: {name}")
    if member.isdir():
        return _Entry(parts, True, bool(member.mode & 0o111), None)

    def source() -> _Guarded:
        def opener() -> IO[bytes]:
            reader = archive.extractfile(member)
            assert reader is not None  # a regular file
            return reader

        return _Guarded(opener, member.name)

    return _Entry(parts, False, bool(member.mode & 0o111), source)


class _Guarded:
    """A member's bytes, with the readers' own errors (a bad CRC, a truncated stream, a method
    zipfile cannot inflate) turned into :class:`ArchiveError`."""

    def __init__(self, opener: Callable[[], IO[bytes]], name: str) -> None:
        self.name = name
        self.inner = self._guard(opener)

    def _guard(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except ArchiveError:
            raise
        except (*READ_ERRORS,) as exc:
            raise ArchiveError(f"{shown(repr(self.name))} is corrupt ({exc})") from None

    def read(self, size: int) -> bytes:
        return self._guard(lambda: self.inner.read(size))

    def __enter__(self) -> _Guarded:
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.close()


class _Inflater(io.RawIOBase):
    """The inflated bytes of a gzip stream, refused past ``budget`` bytes in all (so what
    :mod:`tarfile` reads for itself is bounded too); corrupt or truncated gzip is refused."""

    def __init__(self, data: bytes, budget: int) -> None:
        super().__init__()
        self.data = memoryview(data)
        self.at = 0
        self.budget = budget
        self.out = 0
        self.pending = b""
        self.inflate = zlib.decompressobj(wbits=31)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        want = BUFFER if size is None or size < 0 else max(size, 0)
        while len(self.pending) < want and not self._ended():
            self._more(want - len(self.pending))
        chunk, self.pending = self.pending[:want], self.pending[want:]
        return chunk

    def _ended(self) -> bool:
        return self.inflate.eof and not self.inflate.unused_data and self.at >= len(self.data)

    def _more(self, want: int) -> None:
        if self.inflate.eof:  # a gzip file may hold several members, one after another
            rest = self.inflate.unused_data
            self.inflate = zlib.decompressobj(wbits=31)
            self.data, self.at = memoryview(rest + self.data[self.at :].tobytes()), 0
        source = self.inflate.unconsumed_tail or self.data[self.at : self.at + BUFFER]
        if not self.inflate.unconsumed_tail:
            self.at += len(source)
        if not source:
            raise ArchiveError("a truncated archive (the gzip stream ends early)")
        try:
            got = self.inflate.decompress(source, max(want, BUFFER))
        except zlib.error as exc:
            raise ArchiveError(f"a corrupt gzip stream ({exc})") from None
        self.out += len(got)
        if self.out > self.budget:
            raise ArchiveError("the archive unpacks to more than the limit")
        self.pending += got

    def finish(self) -> None:
        """Read to the end of the gzip stream (bounded), so a bad CRC or a truncated end is
        refused even when the tar inside ended cleanly."""
        while self.read(BUFFER):
            pass


# ---------------------------------------------------------------------------------------------
# packing


def pack(folder: Path, limits: Limits = Limits()) -> bytes:
    """A .tar.gz of a bot folder (for ``arena submit --server``): regular files only, refuses
    symlinks and the same limits as :func:`unpack`, skips ``__pycache__`` and ``.git``. The
    archive is flat (``bot.toml`` at its top) and the same for the same files: names sorted,
    times, owners and the gzip header zeroed, modes 0o644 or 0o755."""
    if not folder.is_dir():
        raise ArchiveError(f"{shown(str(folder))} is not a folder")
    buffer = io.BytesIO()
    total = 0
    count = 0
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path in _walk(folder):
            rel = path.relative_to(folder).as_posix()
            check_name(rel, limits)
            count += 1
            if count > limits.max_files:
                raise ArchiveError(f"more than {limits.max_files} files and folders")
            info = tarfile.TarInfo(rel)
            info.mtime = 0
            mode = path.lstat().st_mode
            info.mode = 0o755 if mode & 0o111 else 0o644
            if stat.S_ISDIR(mode):
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
                continue
            info.size = path.lstat().st_size
            total += info.size
            if total > limits.max_unpacked:
                raise ArchiveError(f"the folder holds more than {mib(limits.max_unpacked)}")
            with path.open("rb") as source:
                tar.addfile(info, source)
    data = buffer.getvalue()
    if len(data) > limits.max_upload:
        raise ArchiveError(
            f"the archive is {mib(len(data))}, over the limit of {mib(limits.max_upload)}"
        )
    return data


def _walk(folder: Path, root: Path | None = None) -> Iterator[Path]:
    """Every folder and regular file under ``folder`` (sorted, depth first), refusing the rest."""
    root = root or folder
    for path in sorted(folder.iterdir(), key=lambda p: p.name):
        mode = path.lstat().st_mode
        rel = shown(str(path.relative_to(root)))
        if stat.S_ISLNK(mode):
            raise ArchiveError(f"{rel} is a symbolic link (copy what it points to instead)")
        if stat.S_ISDIR(mode):
            if path.name in SKIPPED:
                continue
            yield path
            yield from _walk(path, root)
        elif stat.S_ISREG(mode):
            yield path
        else:
            raise ArchiveError(f"{rel} is not a regular file or folder")
