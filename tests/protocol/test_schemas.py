"""The JSON Schemas in protocol/schemas/v1 accept the real messages of a real match."""

from __future__ import annotations

import functools
import json
import random
import time
from collections.abc import Mapping
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from arena import resources
from arena.games import GAMES
from arena.match import MatchSpec, run_match
from arena.runtime.botproc import BotConnection, RunLimits
from arena.runtime.pool import BotPool
from tests.protocol.mock import MockTransport
from tests.protocol.test_match import Recorder, seat_agents

SCHEMAS = resources.schemas()
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
    """A validator for ``ref`` (a file under SCHEMAS, optionally ``#/$defs/NAME``), resolving
    references through the registry, as a bot author's tools would."""
    return jsonschema.Draft202012Validator({"$ref": BASE + ref}, registry=REGISTRY)


def inline(node: Any, defs: Mapping[str, Any]) -> Any:
    """``node`` with every local ``{"$ref": "#/$defs/NAME"}`` replaced by the definition (the
    game schemas are not recursive): the same schema, validated about five times faster."""
    if isinstance(node, list):
        return [inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    rest = {key: inline(value, defs) for key, value in node.items() if key != "$ref"}
    if "$ref" not in node:
        return rest
    ref = node["$ref"]
    assert ref.startswith("#/$defs/"), ref
    target = inline(defs[ref.removeprefix("#/$defs/")], defs)
    rest.pop("description", None)
    return {"allOf": [target], **rest} if rest else target


@functools.cache
def fast_validator(ref: str) -> jsonschema.Draft202012Validator:
    path, _, name = ref.partition("#/$defs/")
    if not name:
        return validator(ref)
    defs = json.loads((SCHEMAS / path).read_text())["$defs"]
    return jsonschema.Draft202012Validator(inline(defs[name], defs))


def validate(instance: Any, ref: str) -> None:
    """Validate through the registry, and with local references inlined: both must agree."""
    validator(ref).validate(instance)
    fast_validator(ref).validate(instance)


def validate_fast(instance: Any, ref: str) -> None:
    fast_validator(ref).validate(instance)


def refused(instance: Any, ref: str) -> bool:
    """Whether both ways of validating refuse ``instance``."""
    return not validator(ref).is_valid(instance) and not fast_validator(ref).is_valid(instance)


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


# Seat counts and options each game's real matches are played with; a game missing here is
# played with its fewest and its most seats and default options.
MATCH_CASES: dict[str, list[tuple[int, dict[str, Any]]]] = {
    "take5": [(4, {}), (4, {"professional": True, "tactics": True}), (10, {"max_rounds": 1})],
    "ten": [(1, {}), (3, {}), (5, {})],
    # random seats rarely finish a phase: caps keep the matches short
    "phase10": [
        (2, {"max_hands": 3, "max_turns": 20}),
        (4, {"max_hands": 2, "max_turns": 12, "skip_next": True, "final_discard": True}),
        (6, {"max_hands": 2, "max_turns": 8, "pick_phase": True, "natural_per_phase": True}),
        (3, {"first_phases": 1, "all_advance": True, "max_turns": 1}),
    ],
}

# Options for the in-process games that look for every event type (default: the match cases').
COVERAGE_OPTIONS: dict[str, list[dict[str, Any]]] = {
    "phase10": [
        {"max_hands": 3, "max_turns": 30},
        {"first_phases": 1, "all_advance": True, "max_turns": 1},  # tie-break hands
        {"first_phases": 1, "all_advance": True, "max_turns": 2, "tiebreak": "lay"},
    ],
}

# Event types random play does not reach, with a real example of each to validate instead.
RARE_EVENTS: dict[str, list[dict[str, Any]]] = {
    # a seat that can draw from neither pile (tests/games/test_phase10_rules.py builds one)
    "phase10": [{"type": "blocked", "hand": 1, "seat": 0}],
}

# Actions each game's schema must refuse (every game needs an entry).
BAD_ACTIONS: dict[str, list[Any]] = {
    "take5": [-1, 105, "4", 4.5, True, None, [4]],
    "ten": [
        "stop",
        "",
        3,
        None,
        {"bid": 0},
        {"bid": "3"},
        {"bid": 2, "extra": 1},
        {"buy": "R*"},
        {"buy": "$3"},
        {"buy": "R10"},
        {"card": "$2"},
        {"card": "X5"},
        {"pay": "token"},
        ["draw"],
    ],
    "phase10": [
        "pass",
        "S",
        7,
        None,
        {"lay": 0},
        {"lay": 11},
        {"set": 13},
        {"run": 0},
        {"colour": "W"},
        {"add": "S"},
        {"add": "R13"},
        {"hit": 0},
        {"hit": -1, "card": "R5"},
        {"hit": 0, "card": "R5", "end": "middle"},
        {"discard": "R5", "target": 1},
        {"discard": "X"},
        {"discard": "S", "target": 6},
        {"lay": 1, "set": 3},
    ],
}


def match_cases() -> list[Any]:
    cases = []
    for game in sorted(GAMES):
        spec = GAMES[game]
        default: list[tuple[int, dict[str, Any]]] = [(spec.min_seats, {}), (spec.max_seats, {})]
        for seats, options in MATCH_CASES.get(game, default):
            label = "-".join([game, str(seats), *sorted(options)])
            cases.append(pytest.param(game, seats, options, id=label))
    return cases


class RandomRecorder(Recorder):
    """Keeps every message like :class:`Recorder` and plays a random legal action (seeded), so
    that a match goes through every kind of decision and event."""

    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name)
        self.rng = random.Random(seed)

    def act(self, message: Mapping[str, Any]) -> Mapping[str, Any]:
        super().act(message)
        return {"id": message["id"], "index": self.rng.randrange(len(message["legal"]))}


def event_types(game: str) -> set[str]:
    """The event types a game's schema names (each branch of its event oneOf has a const type)."""
    schema = json.loads((SCHEMAS / "games" / f"{game}.json").read_text())
    return {branch["properties"]["type"]["const"] for branch in schema["$defs"]["event"]["oneOf"]}


@pytest.mark.parametrize(("game", "seats", "options"), match_cases())
def test_messages_of_a_real_match_validate(game: str, seats: int, options: dict[str, Any]) -> None:
    agents: list[Recorder] = [RandomRecorder(f"r{i}", seed=i) for i in range(seats)]
    with BotPool() as pool:
        record = run_match(MatchSpec("schema", game, 3, seat_agents(pool, agents), options), pool)
    assert not record.faults
    games = f"games/{game}.json#/$defs/"
    kinds = set()
    # validate each distinct action and event once (a public event reaches every seat)
    actions: set[str] = set()
    events: set[str] = set()
    for agent in agents:
        for message in agent.messages:
            kind = message["type"]
            kinds.add(kind)
            validate_fast(message, f"{kind}.json")
            if kind == "act":
                validate_fast(message["observation"], games + "observation")
                actions.update(json.dumps(action) for action in message["legal"])
                validate_fast({"id": message["id"], "index": 0, "debug": "x"}, "reply.json")
                validate_fast({"id": message["id"], "action": message["legal"][0]}, "reply.json")
            events.update(json.dumps(event) for event in message.get("events", []))
    for action in actions:
        validate_fast(json.loads(action), games + "action")
    for event in events:
        validate_fast(json.loads(event), games + "event")
    assert kinds == {"start", "act", "end"}
    assert record.result


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_event_type_of_a_schema_occurs(game: str) -> None:
    """Random games in process at every seat count: every event type the schema lists occurs, and
    nothing else does (the real matches above validate every event; here a few of each type)."""
    spec = GAMES[game]
    seen: dict[str, int] = {}
    option_sets = COVERAGE_OPTIONS.get(game) or [o for _, o in MATCH_CASES.get(game, [])] or [{}]
    for seats in range(spec.min_seats, spec.max_seats + 1):
        for seed in range(2 * len(option_sets)):
            state = spec.new(seed, seats, option_sets[seed % len(option_sets)])
            rng = random.Random(seed)
            while not state.is_over():
                seat = state.to_move()[0]
                state.apply(seat, rng.choice(state.legal(seat)))
            for seat in range(seats):
                for event in state.events_for(seat):
                    seen[event["type"]] = seen.get(event["type"], 0) + 1
                    if seen[event["type"]] <= 3:
                        validate_fast(event, f"games/{game}.json#/$defs/event")
    rare = RARE_EVENTS.get(game, [])
    for event in rare:
        validate(event, f"games/{game}.json#/$defs/event")
    assert set(seen) | {event["type"] for event in rare} == event_types(game)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_events_of_the_golden_playthrough_validate(game: str) -> None:
    """The events recorded in ``seeds/GAME-golden.json`` (the documented playthrough)."""
    path = SCHEMAS.parents[2] / "seeds" / f"{game}-golden.json"
    if not path.is_file():
        pytest.skip(f"no {path.name}")
    golden = json.loads(path.read_text())
    lists = [value for key, value in golden.items() if key.endswith("events")]
    assert lists, f"no events in {path.name}"
    for event in (event for events in lists for event in events):
        validate_fast(event, f"games/{game}.json#/$defs/event")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_game_schema_refuses_a_malformed_observation_or_action(game: str) -> None:
    assert game in BAD_ACTIONS, f"add actions {game}'s schema must refuse to BAD_ACTIONS"
    spec = GAMES[game]
    state = spec.new(1, spec.min_seats)
    seat = state.to_move()[0]
    observation = state.observation(seat)
    games = f"games/{game}.json#/$defs/"
    validate(observation, games + "observation")
    for key in observation:
        missing = {k: v for k, v in observation.items() if k != key}
        assert refused(missing, games + "observation"), f"without {key}"
    for bad in ({**observation, "bogus": 1}, {**observation, "seat": "0"}, [observation], None):
        assert refused(bad, games + "observation"), bad
    for action in state.legal(seat):
        validate(action, games + "action")
    for action in BAD_ACTIONS[game]:
        assert refused(action, games + "action"), action


def test_schemas_refuse_what_the_protocol_refuses() -> None:
    with pytest.raises(jsonschema.ValidationError):
        validate({"id": 1}, "reply.json")
    with pytest.raises(jsonschema.ValidationError):
        validate({"id": 1, "index": 0, "action": 3}, "reply.json")
    with pytest.raises(jsonschema.ValidationError):
        validate({"version": "1"}, "hello_reply.json")
    with pytest.raises(jsonschema.ValidationError):
        validate({"decision": "card"}, "games/take5.json#/$defs/observation")
