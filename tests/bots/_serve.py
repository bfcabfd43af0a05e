"""Shared loop of the test bots: play the first legal action, misbehave where told."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Misbehave = Callable[[dict[str, Any], int], "dict[str, Any] | bytes | None"]


def send(data: Any) -> None:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode() + b"\n"
    sys.stdout.buffer.write(raw)
    sys.stdout.buffer.flush()


def serve(
    name: str,
    on_act: Misbehave | None = None,
    hello: Any = None,
    on_start: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """``on_act(message, n)`` for the n-th act (1-based) returns a reply, raw bytes, or None
    for the normal answer."""
    acts = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send(hello if hello is not None else {"name": name, "version": "test"})
        elif kind == "start" and on_start:
            on_start(message)
        elif kind == "act":
            acts += 1
            reply = on_act(message, acts) if on_act else None
            send(reply if reply is not None else {"id": message["id"], "index": 0})
        elif kind == "bye":
            return
