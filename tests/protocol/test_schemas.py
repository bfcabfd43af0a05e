"""The JSON Schemas in protocol/schemas/v1 accept the real messages of a real match."""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from arena.botproc import BotConnection, RunLimits
from arena.games import GAMES
from arena.match import MatchSpec, run_match
from arena.pool import BotPool
from tests.protocol.mock import MockTransport
from tests.protocol.test_match import Recorder, seat_agents

SCHEMAS = Path(__file__).resolve().parents[2] / "protocol" / "schemas" / "v1"
BASE = "https://arena.invalid/protocol/v1/"


def load_registry() -> Registry:
    registry: Registry = Registry()
    for path in sorted(SCHEMAS.rglob("*.json")):
        schema = json.loads(path.read_text())
        assert schema["$id"] == BASE + path.relative_to(SCHEMAS).as_posix(), path
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    return registry


REGISTRY = load_registry()


@functools.cache
def validator(ref: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$ref": BASE + ref}, registry=REGISTRY)


def validate(instance: Any, ref: str) -> None:
    validator(ref).validate(instance)


def test_every_schema_is_a_valid_schema() -> None:
    for path in SCHEMAS.rglob("*.json"):
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_has_its_schema_file(game: str) -> None:
    path = SCHEMAS / "games" / f"{game}.json"
    assert path.is_file(), f"add {path.relative_to(SCHEMAS.parents[2])}"
    defs = json.loads(path.read_text())["$defs"]
    assert {"observation", "action", "event"} <= set(defs)


def test_hello_and_bye_validate() -> None:
    transport = MockTransport()
    transport.expect({"type": "hello"}, {"name": "mock", "version": "1", "protocol": 1})
    transport.expect({"type": "bye"})
    connection = BotConnection(transport, RunLimits())
    assert connection.handshake(time.monotonic() + 1) is None
    connection.close()
    hello, bye = transport.sent
    validate(hello, "hello.json")
    validate(connection.hello, "hello_reply.json")
    validate(bye, "bye.json")


@pytest.mark.parametrize("options", [{}, {"professional": True, "tactics": True}])
def test_messages_of_a_real_match_validate(options: dict[str, Any]) -> None:
    agents = [Recorder(f"r{i}") for i in range(4)]
    with BotPool() as pool:
        record = run_match(
            MatchSpec("schema", "take5", 3, seat_agents(pool, agents), options), pool
        )
    kinds = set()
    for agent in agents:
        for message in agent.messages:
            kind = message["type"]
            kinds.add(kind)
            validate(message, f"{kind}.json")
            if kind == "act":
                validate(message["observation"], "games/take5.json#/$defs/observation")
                for action in message["legal"]:
                    validate(action, "games/take5.json#/$defs/action")
                validate({"id": message["id"], "index": 0, "debug": "x"}, "reply.json")
                validate({"id": message["id"], "action": message["legal"][0]}, "reply.json")
            for event in message.get("events", []):
                validate(event, "games/take5.json#/$defs/event")
    assert kinds == {"start", "act", "end"}
    assert record.result


def test_schemas_refuse_what_the_protocol_refuses() -> None:
    with pytest.raises(jsonschema.ValidationError):
        validate({"id": 1}, "reply.json")
    with pytest.raises(jsonschema.ValidationError):
        validate({"id": 1, "index": 0, "action": 3}, "reply.json")
    with pytest.raises(jsonschema.ValidationError):
        validate({"version": "1"}, "hello_reply.json")
    with pytest.raises(jsonschema.ValidationError):
        validate({"decision": "card"}, "games/take5.json#/$defs/observation")
