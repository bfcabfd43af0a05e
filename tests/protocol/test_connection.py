"""The protocol spoken over a scripted transport: no processes, no waiting."""

from __future__ import annotations

import time

import pytest

from arena.runtime.botproc import (
    Answer,
    BotConnection,
    Fault,
    FaultKind,
    LocalConnection,
    RunLimits,
    collect,
)
from arena.runtime.manifest import FirstAgent
from tests.protocol.mock import EOF, MockTransport

LEGAL = [3, 17, 42]


def greeted(transport: MockTransport, limits: RunLimits | None = None) -> BotConnection:
    transport.expect({"type": "hello", "protocol": 1}, {"name": "mock", "version": "9"})
    connection = BotConnection(transport, limits or RunLimits())
    assert connection.handshake(time.monotonic() + 1) is None
    return connection


def ask(connection: BotConnection, legal: list[object] = LEGAL) -> Answer | Fault:
    connection.ask({"type": "act", "id": 0, "legal": legal}, legal, time.monotonic() + 1)
    return collect([connection])[0]


def test_handshake_reads_the_name_and_version() -> None:
    transport = MockTransport()
    connection = greeted(transport)
    assert (connection.name, connection.version) == ("mock", "9")
    transport.assert_done()


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ({"nom": "x"}, FaultKind.BAD_HELLO),
        ({"name": ""}, FaultKind.BAD_HELLO),
        ({"name": 5}, FaultKind.BAD_HELLO),
        (b"hello!\n", FaultKind.BAD_HELLO),
        (EOF, FaultKind.START_FAILED),
        (None, FaultKind.STARTUP_TIMEOUT),
    ],
)
def test_handshake_faults(reply: object, kind: FaultKind) -> None:
    transport = MockTransport(stderr="some log")
    transport.expect({"type": "hello"}, *(() if reply is None else (reply,)))
    fault = BotConnection(transport, RunLimits()).handshake(time.monotonic() + 1)
    assert fault is not None and fault.kind is kind
    assert fault.stderr_tail == "some log"


def test_an_index_and_an_action_both_name_a_legal_action() -> None:
    transport = MockTransport()
    connection = greeted(transport)
    transport.expect({"type": "act", "id": 1}, {"id": 1, "index": 2})
    transport.expect({"type": "act", "id": 2}, {"id": 2, "action": 17, "debug": "why"})
    first, second = ask(connection), ask(connection)
    assert isinstance(first, Answer) and first.index == 2 and first.debug is None
    assert isinstance(second, Answer) and second.index == 1 and second.debug == "why"
    transport.assert_done()


def test_actions_are_matched_exactly_true_is_not_one() -> None:
    transport = MockTransport()
    connection = greeted(transport)
    transport.expect({"id": 1}, {"id": 1, "action": True})
    fault = ask(connection, [0, 1])
    assert isinstance(fault, Fault) and fault.kind is FaultKind.ILLEGAL_ACTION
    transport.expect({"id": 2}, {"id": 2, "action": {"b": [1], "a": None}})
    answer = ask(connection, [{"a": None, "b": [2]}, {"a": None, "b": [1]}])
    assert isinstance(answer, Answer) and answer.index == 1


def test_debug_notes_are_cut_to_the_limit() -> None:
    transport = MockTransport()
    connection = greeted(transport, RunLimits(debug_chars=5))
    transport.expect({"id": 1}, {"id": 1, "index": 0, "debug": "0123456789"})
    answer = ask(connection)
    assert isinstance(answer, Answer) and answer.debug == "01234"


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ({"id": 1, "index": 3}, FaultKind.ILLEGAL_ACTION),
        ({"id": 1, "index": -1}, FaultKind.ILLEGAL_ACTION),
        ({"id": 1, "action": 4}, FaultKind.ILLEGAL_ACTION),
        ({"id": 1, "index": "0"}, FaultKind.BAD_REPLY),
        ({"id": 1, "index": True}, FaultKind.BAD_REPLY),
        ({"id": 1}, FaultKind.BAD_REPLY),
        ({"id": 1, "index": 0, "action": 3}, FaultKind.BAD_REPLY),
        ({"id": 7, "index": 0}, FaultKind.WRONG_ID),
        ({"id": "1", "index": 0}, FaultKind.WRONG_ID),
        ({"index": 0}, FaultKind.TIMEOUT),  # no id: ignored like chatter
        (b"{not json}\n", FaultKind.INVALID_JSON),
        (b"[1]\n", FaultKind.INVALID_JSON),
        (b"\xff\n", FaultKind.INVALID_JSON),
        (b"x" * 200, FaultKind.OVERSIZE),
        (EOF, FaultKind.CRASH),
        (None, FaultKind.TIMEOUT),
        (b'{"id": 1, "index": 0}', FaultKind.TIMEOUT),  # no newline: never complete
    ],
)
def test_reply_faults(reply: object, kind: FaultKind) -> None:
    transport = MockTransport(max_line=100)
    connection = greeted(transport)
    transport.expect({"type": "act"}, *(() if reply is None else (reply,)))
    fault = ask(connection)
    assert isinstance(fault, Fault), fault
    assert fault.kind is kind, fault


def test_a_stale_reply_is_dropped_never_applied_to_the_next_request() -> None:
    transport = MockTransport()
    connection = greeted(transport)
    # The bot answers request 1 twice; the duplicate arrives with request 2's answer.
    transport.expect({"id": 1}, {"id": 1, "index": 0})
    assert isinstance(ask(connection), Answer)
    transport.expect({"id": 2}, {"id": 1, "index": 1}, {"id": 2, "index": 2})
    answer = ask(connection)
    assert isinstance(answer, Answer) and answer.index == 2
    assert connection.discarded == 1


def test_lines_nobody_asked_for_are_dropped_before_the_next_request() -> None:
    transport = MockTransport()
    connection = greeted(transport)
    transport.expect({"type": "end"}, {"chatter": 1}, b'{"more": "chatter"}\n')
    assert connection.notify({"type": "end"}) is None
    transport.expect({"id": 1}, {"id": 1, "index": 1})
    answer = ask(connection)
    assert isinstance(answer, Answer) and answer.index == 1
    assert connection.discarded == 2


def test_garbage_between_requests_is_a_fault_at_the_next_request() -> None:
    transport = MockTransport()
    connection = greeted(transport)
    transport.expect({"type": "end"}, b"debug print on stdout\n")
    assert connection.notify({"type": "end"}) is None
    fault = ask(connection)
    assert isinstance(fault, Fault) and fault.kind is FaultKind.INVALID_JSON
    transport.assert_done()  # the act was never sent


def test_writing_to_a_closed_bot_is_a_crash() -> None:
    transport = MockTransport()
    connection = greeted(transport)
    transport.expect({"type": "start"}, EOF)
    assert connection.notify({"type": "start"}) is None
    fault = connection.notify({"type": "end"})
    assert fault is not None and fault.kind is FaultKind.CRASH
    assert ask(connection) == Fault(FaultKind.CRASH, "the process exited with status 1", "")


def test_collect_answers_every_seat_of_a_simultaneous_decision() -> None:
    transports = [MockTransport() for _ in range(3)]
    connections = [greeted(t) for t in transports]
    transports[0].expect({"id": 1}, {"id": 1, "index": 1})
    transports[1].expect({"id": 1})  # silent: times out
    transports[2].expect({"id": 1}, {"id": 1, "action": 3})
    for connection in connections:
        connection.ask({"type": "act", "id": 0}, LEGAL, time.monotonic() + 1)
    first, second, third = collect(connections)
    assert isinstance(first, Answer) and first.index == 1
    assert isinstance(second, Fault) and second.kind is FaultKind.TIMEOUT
    assert isinstance(third, Answer) and third.index == 0


def test_close_says_bye() -> None:
    transport = MockTransport()
    connection = greeted(transport)
    transport.expect({"type": "bye"})
    connection.close()
    assert transport.closed
    transport.assert_done()


def test_local_connection_checks_an_agent_like_a_bot() -> None:
    connection = LocalConnection(FirstAgent(), RunLimits())
    connection.ask({"type": "act", "id": 0, "legal": LEGAL}, LEGAL, time.monotonic() + 1)
    answer = collect([connection])[0]
    assert isinstance(answer, Answer) and answer.index == 0
