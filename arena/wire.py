"""The wire codec: one UTF-8 JSON object per ``\\n``-terminated line, in both directions.

This module knows bytes and JSON, nothing about processes or games. :class:`LineBuffer`
assembles lines from whatever chunks a pipe delivers, stamps each complete line with the time it
was read, and refuses to grow past the maximum line length.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Final

import orjson

PROTOCOL_VERSION: Final = 1
MAX_LINE: Final = 1 << 20
"""Default maximum length of one line a bot sends, in bytes, without the newline."""


class WireError(ValueError):
    """A line that is not one JSON object (bad UTF-8, bad JSON, or another JSON value)."""


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as a line: compact JSON and a newline."""
    return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)


def decode(line: bytes) -> dict[str, Any]:
    """The object on ``line`` (newline optional); raises :class:`WireError` otherwise."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise WireError(f"not valid UTF-8 JSON: {exc}") from None
    if not isinstance(value, dict):
        raise WireError(f"expected a JSON object, got {type(value).__name__}")
    return value


def canonical(value: Any) -> bytes:
    """A value's JSON text with sorted keys, for comparing actions exactly (``1`` is not ``true``)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def excerpt(data: bytes, limit: int = 200) -> str:
    """A short printable piece of what a bot sent, for fault messages (JSON stays as is)."""
    text = data[: limit + 1].decode("utf-8", "replace")
    if len(data) > limit:
        text = text[:limit] + "..."
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return repr(text)
    return text


class LineBuffer:
    """Complete lines from a byte stream, each with its arrival time; bounded in length.

    After a line longer than ``max_line`` bytes has been seen, :attr:`oversize` is set and
    nothing more is collected: the bot has broken the protocol and will be stopped.
    """

    __slots__ = ("_partial", "lines", "max_line", "oversize")

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self.lines: deque[tuple[bytes, float]] = deque()
        self._partial = b""
        self.oversize = False

    def feed(self, chunk: bytes, now: float) -> None:
        """Add bytes read at time ``now``."""
        if self.oversize:
            return
        data = self._partial + chunk if self._partial else chunk
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            if end - start > self.max_line:
                self._overflow()
                return
            self.lines.append((data[start:end], now))
            start = end + 1
        self._partial = data[start:]
        if len(self._partial) > self.max_line:
            self._overflow()

    def _overflow(self) -> None:
        self.oversize = True
        self._partial = b""

    @property
    def pending_bytes(self) -> int:
        """Bytes of an unfinished line."""
        return len(self._partial)
