"""Sends values the arena must refuse or make safe; the match id names which (issue 13).

The part of the match id before ``:`` picks a reply from ``REPLIES``; a match whose id starts
with ``check-`` (``arena check``, a league's submission check) is played cleanly, and any other
id gets an ``action`` nested 300 levels deep: the bot that passed its check and then stopped
every league run (orjson reads 1,024 levels but writes only 255). Lines are written as raw text,
so it can send what ``json.dumps`` cannot: deep nesting, lone surrogates, NaN, duplicate keys.

Self-contained, so that a league can copy it as a single-file bot; the ``hello_*.py`` bots
import :func:`serve` to answer ``hello`` in their own way.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable


def deep(levels: int, inner: str = "0") -> str:
    """``inner`` inside ``levels`` nested arrays, as JSON text."""
    return "[" * levels + inner + "]" * levels


Reply = Callable[[int, list[object]], str]

REPLIES: dict[str, Reply] = {
    "deep_action": lambda i, legal: f'{{"id":{i},"action":{deep(300)}}}',
    "deeper_action": lambda i, legal: f'{{"id":{i},"action":{deep(1000)}}}',
    "action_33": lambda i, legal: f'{{"id":{i},"action":{deep(33)}}}',
    "deep_debug": lambda i, legal: f'{{"id":{i},"index":0,"debug":{deep(300)}}}',
    "debug_object": lambda i, legal: f'{{"id":{i},"index":0,"debug":{{"b":[1,2],"a":"x"}}}}',
    "deep_id": lambda i, legal: f'{{"id":{deep(1000)},"index":0}}',
    "deep_extra": lambda i, legal: f'{{"id":{i},"index":0,"extra":{deep(1000)}}}',
    "big_index": lambda i, legal: f'{{"id":{i},"index":123456789012345678901234567890}}',
    "big_action": lambda i, legal: f'{{"id":{i},"action":-123456789012345678901234567890}}',
    "big_id": lambda i, legal: f'{{"id":18446744073709551617{i},"index":0}}',
    "nan": lambda i, legal: f'{{"id":{i},"index":NaN}}',
    "infinity": lambda i, legal: f'{{"id":{i},"action":1e400}}',
    "surrogate_debug": lambda i, legal: f'{{"id":{i},"index":0,"debug":"\\ud800"}}',
    "surrogate_action": lambda i, legal: f'{{"id":{i},"action":"\\udc00x"}}',
    "duplicate_keys": lambda i, legal: f'{{"id":{i},"index":999,"index":0}}',
    "nul_debug": lambda i, legal: f'{{"id":{i},"index":0,"debug":"a\\u0000b\\u001b[2J"}}',
}
"""Misbehaviour name -> the reply line (without newline) for request id ``i``."""


def send(text: str | bytes) -> None:
    sys.stdout.buffer.write(text if isinstance(text, bytes) else text.encode() + b"\n")
    sys.stdout.buffer.flush()


def serve(hello: str = '{"name": "hostile"}') -> None:
    mode = "check"
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send(hello)
        elif kind == "start":
            match = str(message["match"])
            mode = "check" if match.startswith("check-") else match.split(":")[0]
        elif kind == "act":
            if mode == "close_stdout":
                os.close(1)
                time.sleep(30)
            reply = REPLIES.get(mode, REPLIES["deep_action"]) if mode != "check" else None
            i = message["id"]
            send(reply(i, message["legal"]) if reply else f'{{"id":{i},"index":0}}')
        elif kind == "bye":
            return


if __name__ == "__main__":
    serve()
