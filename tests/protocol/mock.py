"""A scripted transport, after python-chess's MockTransport: no process, no waiting.

``expect(message, *replies)`` says what the arena must send next (a dict compared on the keys it
gives, or a callable check) and what the "bot" writes back: dicts, raw bytes, or :data:`EOF`.
A request with no scripted reply times out at once.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

from arena.runtime.wire import LineBuffer, decode, encode

EOF = object()
"""A scripted reply: the bot closes its output (it exited)."""

Expected = dict[str, Any] | Callable[[dict[str, Any]], bool]


class MockTransport:
    def __init__(self, max_line: int = 1 << 20, stderr: str = "") -> None:
        self.buffer = LineBuffer(max_line)
        self.script: deque[tuple[Expected, tuple[Any, ...]]] = deque()
        self.sent: list[dict[str, Any]] = []
        self._eof = False
        self.closed = False
        self.stderr = stderr

    def expect(self, message: Expected, *replies: Any) -> None:
        self.script.append((message, replies))

    def assert_done(self) -> None:
        assert not self.script, f"expected messages not sent: {[m for m, _ in self.script]}"

    # -- the Transport interface --
    def send(self, data: bytes, deadline: float) -> None:
        from arena.runtime.botproc import TransportClosed

        if self._eof:
            raise TransportClosed("closed")
        assert data.endswith(b"\n") and data.count(b"\n") == 1, data
        message = decode(data)
        self.sent.append(message)
        assert self.script, f"unexpected message {message}"
        expected, replies = self.script.popleft()
        if callable(expected):
            assert expected(message), message
        else:
            for key, value in expected.items():
                assert message.get(key) == value, (key, message.get(key), value)
        now = time.monotonic()
        for reply in replies:
            if reply is EOF:
                self._eof = True
            elif isinstance(reply, bytes):
                self.buffer.feed(reply, now)
            elif callable(reply):
                self.buffer.feed(encode(reply(message)), now)
            else:
                self.buffer.feed(encode(reply), now)

    def fileno(self) -> int | None:
        return None

    def pump(self) -> None:
        pass

    @property
    def eof(self) -> bool:
        return self._eof

    def alive(self) -> bool:
        return not self._eof and not self.closed

    def exit_description(self) -> str:
        return "the process exited with status 1" if self._eof else "still running"

    def stderr_tail(self) -> str:
        return self.stderr

    def close(self, grace: float) -> None:
        self.closed = True
