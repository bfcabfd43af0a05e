"""Types of the C module built from arena/runtime/gather.c (see there)."""

from collections.abc import Sequence

VERSION: int

def gather(
    fds: Sequence[int], timeout: float, limit: int, spin: float, /
) -> list[tuple[bytes, float, bool]]: ...
