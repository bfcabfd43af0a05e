"""arenabot: a single-file helper for writing arena bots in Python (standard library only).

Copy this file next to your bot and write::

    import arenabot

    def choose(observation, legal):
        return 0  # the index of your choice in `legal`

    arenabot.run(choose, name="my-bot", version="1.0")

``choose`` returns an index into ``legal`` (an ``int``), or the action itself for actions
that are not plain integers (a Take 5 card is an int, so return its *index* there). If
``choose`` takes a third parameter it also receives the :class:`Match` (game, seat, players,
options, every event seen so far in ``match.events``, and in ``match.time`` the time this
decision has: ``decision_ms`` and the ``bank_ms`` left). An exception in ``choose`` is
printed to stderr (your log) and the first legal action is played instead, so the match goes on.

The protocol itself is in ``protocol/README.md``; this helper answers ``hello``, keeps the
``start`` details and the events, answers ``act``, and exits on ``bye`` or end of input.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import Any

PROTOCOL = 1


class Match:
    """What the bot knows about the current match."""

    def __init__(self, start: dict[str, Any]) -> None:
        self.id: str = start.get("match", "")
        self.game: str = start.get("game", "")
        self.seat: int = start.get("seat", 0)
        self.seats: int = start.get("seats", 0)
        self.players: list[str] = start.get("players", [])
        self.options: dict[str, Any] = start.get("options", {})
        self.time: dict[str, Any] = start.get("time", {})
        """The match's limits from ``start``; during a decision, what is left now: the
        ``decision_ms`` free for this decision and the ``bank_ms`` left (from ``act``)."""
        self.events: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self.ranks: list[int] | None = None


def log(*parts: Any) -> None:
    """Write to stderr, which the arena keeps as your bot's log (the tail of it)."""
    print(*parts, file=sys.stderr, flush=True)


def run(
    choose: Callable[..., Any],
    name: str,
    version: str = "",
    on_start: Callable[[Match], None] | None = None,
    on_end: Callable[[Match], None] | None = None,
    stdin: Any = None,
    stdout: Any = None,
) -> None:
    """Serve the protocol on stdin/stdout until ``bye`` or end of input."""
    source = stdin or sys.stdin
    sink = stdout or sys.stdout
    code = getattr(choose, "__code__", None)
    wants_match = code is not None and code.co_argcount >= 3
    match = Match({})

    def send(message: dict[str, Any]) -> None:
        sink.write(json.dumps(message, separators=(",", ":")) + "\n")
        sink.flush()

    for line in source:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            match.events.extend(message.get("events", ()))
            if isinstance(message.get("time"), dict):
                match.time = {**match.time, **message["time"]}
            legal = message["legal"]
            try:
                if wants_match:
                    choice = choose(message["observation"], legal, match)
                else:
                    choice = choose(message["observation"], legal)
            except Exception:
                log(traceback.format_exc())
                choice = 0
            if isinstance(choice, int) and not isinstance(choice, bool):
                send({"id": message["id"], "index": choice})
            else:
                send({"id": message["id"], "action": choice})
        elif kind == "hello":
            send({"name": name, "version": version, "protocol": PROTOCOL})
        elif kind == "start":
            match = Match(message)
            if on_start:
                on_start(match)
        elif kind == "end":
            match.events.extend(message.get("events", ()))
            match.result = message.get("result")
            match.ranks = message.get("ranks")
            if on_end:
                on_end(match)
        elif kind == "bye":
            return
        # Unknown message types are ignored: later protocol versions may add some.
