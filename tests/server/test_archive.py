"""Uploads: every refusal of :func:`arena.server.archive.unpack`, one by one, with archives built
here (zip and tar.gz), and :func:`pack` round trips."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.server import archive
from arena.server.archive import ArchiveError, Limits, pack, unpack

File = tuple[str, bytes, int]
"""A regular file for an archive: name, content, mode."""

BOT = [("bot.toml", b'name = "b"\n', 0o644), ("main.py", b"print()\n", 0o755)]


def make_zip(files: list[File], dirs: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name in dirs:
            z.writestr(zip_info(name, stat.S_IFDIR | 0o755), b"")
        for name, data, mode in files:
            z.writestr(zip_info(name, stat.S_IFREG | mode), data)
    return buffer.getvalue()


def zip_info(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


Member = tuple[tarfile.TarInfo, io.BytesIO | None]


def tar_member(
    name: str, data: bytes = b"", mode: int = 0o644, kind: bytes = tarfile.REGTYPE
) -> Member:
    info = tarfile.TarInfo(name)
    info.mode = mode
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, (io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def make_tgz(members: list[Member]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        for info, data in members:
            t.addfile(info, data)
    return gzip.compress(raw.getvalue())


def tgz(files: list[File]) -> bytes:
    return make_tgz([tar_member(n, d, m) for n, d, m in files])


KINDS: dict[str, Callable[[list[File]], bytes]] = {"zip": make_zip, "tgz": tgz}


def refused(data: bytes, dest: Path, match: str, limits: Limits | None = None) -> None:
    with pytest.raises(ArchiveError, match=match):
        unpack(data, dest, limits or Limits())
    assert not dest.exists(), "a refused upload leaves nothing behind"


# ---------------------------------------------------------------------------------------------
# what is taken


@pytest.mark.parametrize("kind", KINDS)
def test_a_flat_archive_is_the_bot_folder(kind: str, tmp_path: Path) -> None:
    dest = tmp_path / "up"
    got = unpack(KINDS[kind]([*BOT, ("lib/util.py", b"x = 1\n", 0o600)]), dest)
    assert got == dest
    assert (dest / "bot.toml").read_bytes() == b'name = "b"\n'
    assert stat.S_IMODE(dest.stat().st_mode) == 0o755
    assert stat.S_IMODE((dest / "main.py").stat().st_mode) == 0o755
    assert stat.S_IMODE((dest / "bot.toml").stat().st_mode) == 0o644
    assert stat.S_IMODE((dest / "lib" / "util.py").stat().st_mode) == 0o644
    assert stat.S_IMODE((dest / "lib").stat().st_mode) == 0o755


@pytest.mark.parametrize("kind", KINDS)
def test_a_wrapped_single_folder_is_the_bot_folder(kind: str, tmp_path: Path) -> None:
    dest = tmp_path / "up"
    got = unpack(KINDS[kind]([(f"my-bot/{n}", d, m) for n, d, m in BOT]), dest)
    assert got == dest / "my-bot"
    assert (got / "main.py").read_bytes() == b"print()\n"


def test_a_zip_from_finder_is_taken(tmp_path: Path) -> None:
    """macOS adds __MACOSX/ (resource forks) and .DS_Store next to the folder zipped."""
    files = [(f"my-bot/{n}", d, m) for n, d, m in BOT]
    files += [("__MACOSX/my-bot/._main.py", b"junk", 0o644), (".DS_Store", b"junk", 0o644)]
    got = unpack(make_zip(files), tmp_path / "up")
    assert got == tmp_path / "up" / "my-bot"
    assert not (tmp_path / "up" / "__MACOSX").exists()


def test_setuid_and_odd_modes_become_plain(tmp_path: Path) -> None:
    data = make_tgz(
        [tar_member("a", b"1", 0o4777), tar_member("b", b"2", 0o2600), tar_member("c", b"", 0o000)]
    )
    unpack(data, tmp_path / "up")
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "up").iterdir()}
    assert modes == {"a": 0o755, "b": 0o644, "c": 0o644}


def test_dot_slash_names_and_folder_entries(tmp_path: Path) -> None:
    """``tar -czf x.tgz .`` writes ./ and ./name; a folder may come after its files."""
    data = make_tgz(
        [
            tar_member("./", kind=tarfile.DIRTYPE, mode=0o755),
            tar_member("./bot.toml", b"t"),
            tar_member("./src/a.py", b"a"),
            tar_member("./src/", kind=tarfile.DIRTYPE, mode=0o755),
        ]
    )
    got = unpack(data, tmp_path / "up")
    assert got == tmp_path / "up"
    assert (got / "src" / "a.py").read_bytes() == b"a"


def test_a_gzip_of_several_members_is_read_whole(tmp_path: Path) -> None:
    raw = gzip.decompress(tgz(BOT))
    data = gzip.compress(raw[:700]) + gzip.compress(raw[700:])
    unpack(data, tmp_path / "up")
    assert (tmp_path / "up" / "main.py").read_bytes() == b"print()\n"


def test_dest_that_exists_is_the_callers_error(tmp_path: Path) -> None:
    (tmp_path / "up").mkdir()
    with pytest.raises(FileExistsError):
        unpack(tgz(BOT), tmp_path / "up")
    assert (tmp_path / "up").is_dir(), "a folder the caller made is not removed"


# ---------------------------------------------------------------------------------------------
# refusals: kinds of entry


def test_tar_symlink(tmp_path: Path) -> None:
    info, _ = tar_member("evil", kind=tarfile.SYMTYPE)
    info.linkname = "/etc/passwd"
    refused(make_tgz([tar_member("bot.toml", b"t"), (info, None)]), tmp_path / "u", "symbolic")


def test_zip_symlink(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(zip_info("evil", stat.S_IFLNK | 0o777), b"/etc/passwd")
    refused(buffer.getvalue(), tmp_path / "u", "symbolic link")


def test_tar_hard_link(tmp_path: Path) -> None:
    info, _ = tar_member("evil", kind=tarfile.LNKTYPE)
    info.linkname = "bot.toml"
    refused(make_tgz([tar_member("bot.toml", b"t"), (info, None)]), tmp_path / "u", "hard link")


@pytest.mark.parametrize(
    ("kind", "word"),
    [(tarfile.CHRTYPE, "device"), (tarfile.BLKTYPE, "device"), (tarfile.FIFOTYPE, "FIFO")],
)
def test_tar_devices_and_fifos(kind: bytes, word: str, tmp_path: Path) -> None:
    info, _ = tar_member("dev", kind=kind)
    info.devmajor, info.devminor = 1, 3
    refused(make_tgz([(info, None)]), tmp_path / "u", word)


def test_zip_fifo(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(zip_info("pipe", stat.S_IFIFO | 0o644), b"")
    refused(buffer.getvalue(), tmp_path / "u", "not a regular file")


def test_tar_unknown_entry_type(tmp_path: Path) -> None:
    info, _ = tar_member("odd", kind=b"V")  # a volume label
    refused(make_tgz([(info, None)]), tmp_path / "u", "not a regular file")


# ---------------------------------------------------------------------------------------------
# refusals: names


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("/etc/cron.d/x", "absolute"),
        ("../x", r"'\.\.'"),
        ("a/../../x", r"'\.\.'"),
        ("./a/../x", r"'\.\.'"),
        ("..\\x", "backslash"),
        ("a\x1b[2Jb", "control"),
        ("a\u202eb", "control or invisible"),
        ("x" * 256, "256 bytes"),
        ("é" * 128, "256 bytes"),
        ("/".join("d" * 17), "17 folders deep"),
        ("/".join(["x" * 200] * 6), "longer than 1024 bytes"),
    ],
)
def test_bad_names(kind: str, name: str, match: str, tmp_path: Path) -> None:
    refused(KINDS[kind]([*BOT, (name, b"x", 0o644)]), tmp_path / "u", match)


def test_nul_in_a_tar_name(tmp_path: Path) -> None:
    info, data = tar_member("a", b"x")
    info.pax_headers = {"path": "bot.toml\x00.png"}
    refused(make_tgz([(info, data)]), tmp_path / "u", "NUL")


def test_a_zip_name_stops_at_nul(tmp_path: Path) -> None:
    """zipfile itself cuts a zip name at a NUL (central and local header alike): what is
    written is the name before it, inside the folder."""
    unpack(make_zip([("bot.toml\x00/../../x", b"t", 0o644)]), tmp_path / "u")
    assert [p.name for p in (tmp_path / "u").iterdir()] == ["bot.toml"]


def test_limits_on_names_are_the_limits_given(tmp_path: Path) -> None:
    data = tgz([("a/b/c/d", b"x", 0o644)])
    refused(data, tmp_path / "u", "4 folders deep", Limits(max_depth=3))
    refused(tgz([("abcdef", b"x", 0o644)]), tmp_path / "u", "6 bytes", Limits(max_name=5))


@pytest.mark.parametrize("kind", ["zip", "tgz"])
def test_duplicate_names(kind: str, tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate it is asked to write
        data = KINDS[kind]([*BOT, ("bot.toml", b"again", 0o644)])
    refused(data, tmp_path / "u", "twice")


def test_duplicate_after_dot_slash(tmp_path: Path) -> None:
    refused(tgz([*BOT, ("./main.py", b"again", 0o644)]), tmp_path / "u", "twice")


@pytest.mark.parametrize("kind", KINDS)
def test_a_file_and_a_folder_of_one_name(kind: str, tmp_path: Path) -> None:
    data = KINDS[kind]([("lib", b"x", 0o644), ("lib/a.py", b"y", 0o644)])
    refused(data, tmp_path / "u", "both a file and a folder")
    data = KINDS[kind]([("lib/a.py", b"y", 0o644), ("lib", b"x", 0o644)])
    refused(data, tmp_path / "u", "both a file and a folder")


# ---------------------------------------------------------------------------------------------
# refusals: sizes and counts


@pytest.mark.parametrize("kind", KINDS)
def test_too_many_files(kind: str, tmp_path: Path) -> None:
    files = [(f"f{i}", b"", 0o644) for i in range(11)]
    refused(KINDS[kind](files), tmp_path / "u", "more than 10 files", Limits(max_files=10))
    unpack(KINDS[kind](files[:10]), tmp_path / "ok", Limits(max_files=10))


def test_folders_count_as_files(tmp_path: Path) -> None:
    data = make_tgz([tar_member(f"d{i}/", kind=tarfile.DIRTYPE) for i in range(4)])
    refused(data, tmp_path / "u", "more than 3 files", Limits(max_files=3))


@pytest.mark.parametrize("kind", KINDS)
def test_oversize_upload(kind: str, tmp_path: Path) -> None:
    data = KINDS[kind]([("big", os.urandom(5000), 0o644)])
    refused(data, tmp_path / "u", "over the limit of 4000 bytes", Limits(max_upload=4000))


@pytest.mark.parametrize("kind", KINDS)
def test_a_bomb_is_stopped_while_writing(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small archive that unpacks to 20 MiB against a limit of 1 MiB: refused, and the bytes
    written before the refusal (kept here by disabling the clean-up) stay within the limit."""
    limit = 2**20
    data = KINDS[kind]([("a", b"\0" * 300_000, 0o644), ("zeros", b"\0" * 20 * 2**20, 0o644)])
    assert len(data) < 100_000
    monkeypatch.setattr(archive.shutil, "rmtree", lambda *a, **k: None)
    with pytest.raises(ArchiveError, match="unpacks to more than 1 MiB"):
        unpack(data, tmp_path / "u", Limits(max_unpacked=limit))
    written = sum(p.stat().st_size for p in (tmp_path / "u").rglob("*") if p.is_file())
    assert 300_000 <= written <= limit
    assert written > limit - archive.BUFFER, "it wrote up to the limit, then stopped"


def test_the_limit_counts_every_file(tmp_path: Path) -> None:
    files = [(f"f{i}", b"x" * 1000, 0o644) for i in range(5)]
    refused(tgz(files), tmp_path / "u", "more than 4000 bytes", Limits(max_unpacked=4000))
    unpack(tgz(files), tmp_path / "ok", Limits(max_unpacked=5000))


def test_a_huge_tar_header_is_stopped(tmp_path: Path) -> None:
    """A pax header is read by tarfile itself, whole, into memory: the inflated stream is
    counted, so a header of 4 MiB (a few KiB of gzip) is refused before tarfile holds it."""
    info, data = tar_member("bot.toml", b"t")
    info.pax_headers = {"comment": "x" * 4 * 2**20}
    packed = make_tgz([(info, data)])
    assert len(packed) < 20_000
    refused(packed, tmp_path / "u", "more than the limit", Limits(max_unpacked=2**20, max_files=10))


def test_a_tar_bomb_made_of_many_headers(tmp_path: Path) -> None:
    refused(
        tgz([(f"f{i}", b"", 0o644) for i in range(50)]),
        tmp_path / "u",
        "more than 20 files",
        Limits(max_files=20),
    )


# ---------------------------------------------------------------------------------------------
# refusals: not an archive, corrupt, truncated


@pytest.mark.parametrize(
    "data", [b"", b"hello", b"#!/bin/sh\n", b"\x00" * 600, b"Rar!\x1a\x07\x00", b"BZh91AY&SY"]
)
def test_not_an_archive(data: bytes, tmp_path: Path) -> None:
    refused(data, tmp_path / "u", r"not a \.zip or \.tar\.gz")


def test_a_gzip_that_is_not_a_tar(tmp_path: Path) -> None:
    refused(gzip.compress(b"just some text, no tar here" * 40), tmp_path / "u", "corrupt tar")


@pytest.mark.parametrize("cut", [0.3, 0.6, 0.95])
def test_truncated_tgz(cut: float, tmp_path: Path) -> None:
    data = tgz([*BOT, ("noise", os.urandom(20_000), 0o644)])
    refused(data[: int(len(data) * cut)], tmp_path / "u", "truncated|corrupt")


def test_tgz_with_a_bad_crc(tmp_path: Path) -> None:
    data = bytearray(tgz(BOT))
    data[-8] ^= 0xFF  # the CRC32 in the gzip trailer
    refused(bytes(data), tmp_path / "u", "corrupt gzip")


def test_tgz_with_a_corrupt_deflate_stream(tmp_path: Path) -> None:
    data = bytearray(tgz([("noise", os.urandom(5000), 0o644)]))
    for i in range(30, 60):
        data[i] ^= 0x5A
    refused(bytes(data), tmp_path / "u", "corrupt")


@pytest.mark.parametrize("cut", [0.2, 0.5, 0.9])
def test_truncated_zip(cut: float, tmp_path: Path) -> None:
    data = make_zip([*BOT, ("noise", os.urandom(20_000), 0o644)])
    refused(data[: int(len(data) * cut)], tmp_path / "u", "corrupt zip")


def test_zip_with_a_bad_crc(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        z.writestr("bot.toml", b"name = 'b'\n" * 10)
    data = buffer.getvalue().replace(b"name = 'b'", b"name = 'c'", 1)
    refused(data, tmp_path / "u", "corrupt")


def test_zip_garbage_after_the_magic(tmp_path: Path) -> None:
    refused(b"PK\x03\x04" + os.urandom(300), tmp_path / "u", "corrupt zip")


def test_an_empty_archive(tmp_path: Path) -> None:
    refused(make_zip([]), tmp_path / "u", "empty")
    refused(make_tgz([]), tmp_path / "u", "empty")


# ---------------------------------------------------------------------------------------------
# pack


def write_bot(folder: Path) -> None:
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.toml").write_text('name = "b"\n')
    (folder / "main.py").write_text("print()\n")
    (folder / "main.py").chmod(0o755)
    (folder / "lib" / "util.py").write_text("x = 1\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref\n")


def test_pack_round_trip(tmp_path: Path) -> None:
    write_bot(tmp_path / "bot")
    data = pack(tmp_path / "bot")
    got = unpack(data, tmp_path / "up")
    assert got == tmp_path / "up"
    names = sorted(p.relative_to(got).as_posix() for p in got.rglob("*"))
    assert names == ["bot.toml", "lib", "lib/util.py", "main.py"]
    assert stat.S_IMODE((got / "main.py").stat().st_mode) == 0o755
    assert stat.S_IMODE((got / "lib" / "util.py").stat().st_mode) == 0o644


def test_pack_is_the_same_for_the_same_files(tmp_path: Path) -> None:
    write_bot(tmp_path / "bot")
    first = pack(tmp_path / "bot")
    os.utime(tmp_path / "bot" / "main.py", (1, 1))
    assert pack(tmp_path / "bot") == first


def test_pack_refuses_a_symlink(tmp_path: Path) -> None:
    write_bot(tmp_path / "bot")
    (tmp_path / "bot" / "lib" / "link").symlink_to("/etc/passwd")
    with pytest.raises(ArchiveError, match=r"lib/link is a symbolic link"):
        pack(tmp_path / "bot")


def test_pack_refuses_a_fifo(tmp_path: Path) -> None:
    write_bot(tmp_path / "bot")
    os.mkfifo(tmp_path / "bot" / "pipe")
    with pytest.raises(ArchiveError, match="not a regular file"):
        pack(tmp_path / "bot")


def test_pack_keeps_the_limits(tmp_path: Path) -> None:
    write_bot(tmp_path / "bot")
    with pytest.raises(ArchiveError, match="more than 3 files"):
        pack(tmp_path / "bot", Limits(max_files=3))
    (tmp_path / "bot" / "data").write_bytes(os.urandom(3000))
    with pytest.raises(ArchiveError, match="more than 2000 bytes"):
        pack(tmp_path / "bot", Limits(max_unpacked=2000))
    with pytest.raises(ArchiveError, match="over the limit of 1000 bytes"):
        pack(tmp_path / "bot", Limits(max_upload=1000))
    (tmp_path / "bot" / "bad\x1bname").write_text("")
    with pytest.raises(ArchiveError, match="control"):
        pack(tmp_path / "bot")


def test_pack_needs_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="not a folder"):
        pack(tmp_path / "nothing")
