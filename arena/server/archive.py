"""Bot uploads: a ``.zip`` or ``.tar.gz`` of a bot folder, unpacked without trusting it.

An upload comes from anyone with an account, so nothing in it is believed: names are checked one
by one, only regular files and folders are made, and the size is counted while writing (a header
may lie), so an archive bomb stops at the limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


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
    """Files and folders in the archive."""
    max_depth: int = 16
    """Path components."""
    max_name: int = 255
    """Bytes per path component (UTF-8)."""


def unpack(data: bytes, dest: Path, limits: Limits = Limits()) -> Path:
    """Unpack a .zip or .tar.gz into ``dest`` and return the bot folder."""
    raise NotImplementedError


def pack(folder: Path, limits: Limits = Limits()) -> bytes:
    """A .tar.gz of a bot folder (for ``arena submit --server``)."""
    raise NotImplementedError
