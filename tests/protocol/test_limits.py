"""The protocol's limits on what a bot sends, without processes (issue 13).

orjson reads what it cannot write back (arrays nested 256 to 1,024 levels); Python strings and
integers hold what JSON lines cannot (lone surrogates, numbers beyond 64 bits). Each value a bot
sends is bounded before it is kept, compared or shown.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import orjson
import pytest

from arena.runtime.botproc import (
    Answer,
    BotConnection,
    Fault,
    FaultKind,
    LocalConnection,
    Refusal,
    RunLimits,
    check_hello,
    check_reply,
    collect,
)
from arena.runtime.wire import (
    MAX_DEPTH,
    LimitError,
    bot_canonical,
    bot_text,
    describe,
    nested_deeper,
)
from tests.protocol.mock import MockTransport


def nest(levels: int, inner: Any = 0) -> Any:
    value = inner
    for _ in range(levels):
        value = [value]
    return value


def test_nesting_is_measured_without_recursion() -> None:
    assert not nested_deeper(0) and not nested_deeper("[[[") and not nested_deeper([])
    assert not nested_deeper(nest(32)) and nested_deeper(nest(33))
    assert nested_deeper({"a": [{"b": nest(31)}]}) and not nested_deeper({"a": nest(31)})
    assert nested_deeper(nest(100_000))  # far beyond any recursion limit


def test_bot_canonical_refuses_what_cannot_be_written_back() -> None:
    assert bot_canonical({"b": [1], "a": None}) == b'{"a":null,"b":[1]}'
    with pytest.raises(LimitError, match="nested deeper than 32 levels"):
        bot_canonical(nest(300))  # orjson itself stops at 255
    for value in (2**64, -(2**63) - 1, "\ud800", {"k": ["\udfff"]}):
        with pytest.raises(LimitError, match="not writable as JSON"):
            bot_canonical(value)


def test_bot_text_is_cut_writable_and_printable_on_demand() -> None:
    assert bot_text("abcdef", 3) == "abc"
    assert bot_text("a\ud800b", 10) == "a?b"
    assert bot_text("a\x1b[2J\x00\x9b", 10, printable=True) == "a\ufffd[2J\ufffd\ufffd"
    assert bot_text("a\x00", 10) == "a\x00"  # kept where nothing prints it raw


def test_describe_is_short_and_never_fails() -> None:
    assert describe(7) == "7"
    assert describe(nest(1000)) == "a list nested deeper than 32 levels"
    assert describe("\ud800").startswith("a str not writable as JSON")
    assert len(describe("x" * 10_000)) < 220


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        ({"name": " bot "}, {"name": "bot"}),
        ({"name": "bot", "version": 3, "author": None}, {"name": "bot", "version": "3"}),
        (
            {"name": "bot", "version": 1.5, "author": "Ada"},
            {"name": "bot", "version": "1.5", "author": "Ada"},
        ),
        ({"name": "b\x1b[31m", "extra": nest(1000), "protocol": 1}, {"name": "b\ufffd[31m"}),
        ({"name": "n" * 500, "author": "a" * 500}, {"name": "n" * 100, "author": "a" * 100}),
    ],
)
def test_hello_keeps_checked_name_version_and_author_only(
    answer: dict[str, Any], kept: dict[str, str]
) -> None:
    assert check_hello(answer) == kept


@pytest.mark.parametrize(
    "answer",
    [
        {"name": nest(1000)},
        {"name": "  "},
        {"name": "bot", "version": nest(1020)},
        {"name": "bot", "version": True},
        {"name": "bot", "author": {"first": "Ada"}},
        {"name": "bot", "version": 2**70},
    ],
)
def test_hello_with_other_values_is_refused(answer: dict[str, Any]) -> None:
    assert isinstance(check_hello(answer), str)


LEGAL = [3, {"card": "R5"}, [1, [2]]]


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ({"id": 1, "action": nest(MAX_DEPTH + 1)}, FaultKind.BAD_REPLY),
        ({"id": 1, "action": nest(1000)}, FaultKind.BAD_REPLY),
        ({"id": 1, "action": 2**64}, FaultKind.BAD_REPLY),
        ({"id": 1, "action": "\ud800"}, FaultKind.BAD_REPLY),
        ({"id": 1, "action": nest(MAX_DEPTH)}, FaultKind.ILLEGAL_ACTION),
        ({"id": 1, "index": 0, "debug": nest(300)}, FaultKind.BAD_REPLY),
        ({"id": 1, "index": 0, "debug": [2**64]}, FaultKind.BAD_REPLY),
        ({"id": 1, "index": 2**64}, FaultKind.ILLEGAL_ACTION),
        ({"id": 1, "index": 1.0}, FaultKind.BAD_REPLY),
    ],
)
def test_a_reply_beyond_the_limits_is_a_fault(reply: Mapping[str, Any], kind: FaultKind) -> None:
    checked = check_reply(reply, LEGAL, 1000, None, 0.0)
    assert isinstance(checked, Refusal) and checked.kind is kind, checked
    assert len(checked.message) < 1000


def test_debug_notes_are_kept_as_safe_text() -> None:
    def note(debug: object) -> str | None:
        checked = check_reply({"id": 1, "index": 0, "debug": debug}, LEGAL, 10, None, 0.0)
        assert isinstance(checked, Answer)
        return checked.debug

    assert note({"b": 1, "a": [True]}) == '{"a":[true'
    assert note("x\ud800y") == "x?y"
    assert note(nest(MAX_DEPTH)) == "[" * 10
    for debug in ("x\ud800y", nest(MAX_DEPTH), {"a": "\x00"}):
        orjson.dumps(note(debug))


def test_a_deep_reply_id_is_a_wrong_id_with_a_short_message() -> None:
    transport = MockTransport()
    transport.expect({"type": "hello"}, {"name": "mock"})
    connection = BotConnection(transport, RunLimits())
    assert connection.handshake(time.monotonic() + 1) is None
    deep_id = b'{"id":' + b"[" * 1000 + b"]" * 1000 + b',"index":0}\n'
    transport.expect({"type": "act"}, deep_id)
    connection.ask({"type": "act", "id": 0, "legal": LEGAL}, LEGAL, time.monotonic() + 1)
    (fault,) = collect([connection])
    assert isinstance(fault, Fault) and fault.kind is FaultKind.WRONG_ID
    assert fault.message == "reply id a list nested deeper than 32 levels but the request id is 1"


class Deep:
    """An in-process agent whose replies hold what no JSON line can."""

    name, version = "deep", ""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply = reply

    def receive(self, message: Mapping[str, Any]) -> None:
        pass

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        return {"id": message["id"], **self.reply}


@pytest.mark.parametrize(
    "reply",
    [
        {"action": nest(5000)},
        {"index": 0, "debug": nest(5000)},
        {"action": 2**80},
        {"choice": nest(5000)},
    ],
)
def test_an_in_process_agent_is_held_to_the_same_limits(reply: dict[str, Any]) -> None:
    connection = LocalConnection(Deep(reply), RunLimits())
    connection.ask({"type": "act", "id": 0}, LEGAL, time.monotonic() + 1)
    (fault,) = collect([connection])
    assert isinstance(fault, Fault) and fault.kind is FaultKind.BAD_REPLY, fault
