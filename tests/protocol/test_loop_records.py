"""The match loop's shortcuts change no record and no message (issue 15).

In-process seats that read only ``legal`` (``builtin:random``, ``builtin:first``) are played
without building observations, events or messages for them, and Ten's observation keeps caches.
The digests below were taken on main before either change: every record (timings set aside) and
every message a seat that reads everything receives must stay byte for byte the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import pytest

from arena.match import MatchSpec, run_match
from arena.runtime.botproc import LocalConnection
from arena.runtime.manifest import BotKind, BotSpec, load_bot
from arena.runtime.pool import BotPool

TIMINGS = ("seconds",)
"""Record fields that are measurements, not outcomes (``decisions`` keeps its counts)."""


def outcome(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record without its timings: what must not change by a byte."""
    data = {k: v for k, v in record.items() if k not in TIMINGS}
    data["decisions"] = [{"count": d["count"]} for d in record["decisions"]]
    return data


def digest(items: list[Any]) -> str:
    text = "\n".join(json.dumps(item, sort_keys=True, separators=(",", ":")) for item in items)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Reader:
    """An in-process agent that reads every message (so it gets the whole act message), plays
    the first legal action, and keeps every message it was sent, as JSON text."""

    version = "1"

    def __init__(self, name: str) -> None:
        self.name = name
        self.messages: list[Any] = []

    def receive(self, message: Mapping[str, Any]) -> None:
        self.messages.append(json.loads(json.dumps(message)))

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        self.messages.append(json.loads(json.dumps(message)))
        legal = message["legal"]
        return {"id": message["id"], "index": (len(self.messages) * 7) % len(legal)}


SEATINGS: dict[str, tuple[str, ...]] = {
    "random4": ("builtin:random",) * 4,
    "first3": ("builtin:first",) * 3,
    "mixed5": ("builtin:random", "builtin:first", "builtin:random", "builtin:first", "builtin:random"),
}

RECORDS = {
    ("take5", "random4"): "40b0ba0e508f3d1d",
    ("take5", "first3"): "e88b3e2ae59d6c81",
    ("take5", "mixed5"): "877814a2534296e9",
    ("ten", "random4"): "238ace1593963d79",
    ("ten", "first3"): "a41d7193977624b3",
    ("ten", "mixed5"): "713c66806ffb7356",
    ("phase10", "random4"): "c404748fddee1ced",
    ("phase10", "first3"): "96615b69a658cb5e",
    ("phase10", "mixed5"): "0f5957058daaf9f9",
}


@pytest.mark.parametrize(("game", "seating"), sorted(RECORDS))
def test_in_process_records_are_unchanged(game: str, seating: str) -> None:
    bots = tuple(load_bot(text) for text in SEATINGS[seating])
    matches = 2 if game == "phase10" else 6
    with BotPool() as pool:
        records = [
            outcome(run_match(MatchSpec(f"{game}-{k}", game, 100 + k, bots), pool).to_json())
            for k in range(matches)
        ]
    assert digest(records) == RECORDS[(game, seating)]


MESSAGES = {"phase10": "d59b57af2d7436b0", "take5": "c2f6b238ee6d34e2", "ten": "3c66800bac214388"}


@pytest.mark.parametrize("game", sorted(MESSAGES))
def test_a_seat_that_reads_everything_gets_the_same_messages(game: str) -> None:
    """Two reading seats among legal-only ones: their messages, and the records, as before."""
    readers = [Reader("reader-a"), Reader("reader-b")]
    matches = 1 if game == "phase10" else 3
    with BotPool() as pool:
        seats: list[BotSpec] = []
        for i, reader in enumerate(readers):
            bot = BotSpec(reader.name, BotKind.BUILTIN, f"test:{i}")
            pool.put(bot, 0, LocalConnection(reader, pool.limits))
            seats.append(bot)
        bots = (seats[0], load_bot("builtin:random"), seats[1], load_bot("builtin:first"))
        records = [
            outcome(run_match(MatchSpec(f"{game}-{k}", game, 7 + k, bots), pool).to_json())
            for k in range(matches)
        ]
    assert digest([*records, *readers[0].messages, *readers[1].messages]) == MESSAGES[game]
