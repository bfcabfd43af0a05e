"""The wire codec: one UTF-8 JSON object per ``\\n``-terminated line, in both directions.

This module knows bytes and JSON, nothing about processes or games. :class:`LineBuffer`
assembles lines from whatever chunks a pipe delivers, stamps each complete line with the time it
was read, and refuses to grow past the maximum line length.

What a bot sends is read by a codec that accepts more than it can write back: orjson reads
arrays and objects nested up to 1,024 levels but writes at most 255, and Python strings may hold
what UTF-8 cannot. So no value from a bot is re-encoded or kept unchecked: :func:`bot_canonical`
and :func:`bot_text` bound it first (the protocol's limits, ``protocol/README.md``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Final

import orjson

PROTOCOL_VERSION: Final = 1
MAX_LINE: Final = 1 << 20
"""Default maximum length of one line a bot sends, in bytes, without the newline."""
MAX_DEPTH: Final = 32
"""Deepest nesting of arrays and objects in a value the arena keeps or re-encodes from a bot (an
``action``, a ``debug`` note that is not a string). Legal actions nest two or three levels."""
MAX_TEXT: Final = 100
"""Longest ``name``, ``version`` or ``author`` kept from a bot's answer to ``hello``."""


class WireError(ValueError):
    """A line that is not one JSON object (bad UTF-8, bad JSON, or another JSON value)."""


class LimitError(WireError):
    """A JSON value from a bot that the arena will not keep: too deep, or not writable as JSON."""


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


def nested_deeper(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` levels (``[]`` is one).

    Level by level, without recursion, so no value can exhaust the stack.
    """
    level = [value] if isinstance(value, (list, dict)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        inner: list[Any] = []
        for item in level:
            for child in item.values() if isinstance(item, dict) else item:
                if isinstance(child, (list, dict)):
                    inner.append(child)
        level = inner
    return False


def bot_canonical(value: Any, max_depth: int = MAX_DEPTH) -> bytes:
    """:func:`canonical` for a value a bot sent; :class:`LimitError` if it nests deeper than
    ``max_depth`` or cannot be written as JSON (an integer beyond 64 bits, a lone surrogate)."""
    if nested_deeper(value, max_depth):
        raise LimitError(f"nested deeper than {max_depth} levels")
    try:
        return canonical(value)
    except TypeError as exc:  # orjson.JSONEncodeError is a TypeError
        raise LimitError(f"not writable as JSON ({exc})") from None


_CONTROL = dict.fromkeys([*range(32), *range(127, 160)], "\ufffd")


def bot_text(text: str, limit: int, printable: bool = False) -> str:
    """A string a bot sent, safe to keep: cut to ``limit`` characters, every character writable
    as UTF-8 (a lone surrogate becomes ``?``), and with ``printable`` no control characters (each
    becomes U+FFFD), for names shown on a terminal."""
    text = text[:limit]
    if printable:
        text = text.translate(_CONTROL)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def describe(value: Any, limit: int = 200) -> str:
    """A short printable account of a JSON value a bot sent, for fault messages."""
    try:
        return excerpt(bot_canonical(value), limit)
    except LimitError as exc:
        return f"a {type(value).__name__} {exc}"


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
        last = len(chunk) - 1
        if not self._partial and 0 <= last <= self.max_line and chunk.find(b"\n") == last:
            self.lines.append((chunk[:-1], now))  # the common case: one whole line
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
