"""Positions: ``GameSpec.from_snapshot`` restores what ``State.snapshot`` describes.

A round trip is identity (the restored state's snapshot is the original's), and the restored
state plays on exactly as the original does: the same seats to move, legal lists, observations,
events and result for the same actions, dealing the same cards (the generator is part of the
snapshot). A snapshot the rules cannot be in raises a :class:`GameError`, never anything else.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Mapping

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import GAMES, JSON, GameError, GameSpec, State, get_game
from arena.games.base import SnapshotError
from tests.games.playouts import canonical, random_playout

CASES: list[tuple[str, int, dict[str, JSON]]] = [
    ("take5", 4, {}),
    ("take5", 2, {"max_rounds": 2}),
    ("take5", 5, {"professional": True, "tactics": True, "end_score": 30}),
    ("ten", 1, {}),
    ("ten", 3, {}),
    ("ten", 5, {"start_tokens": 1, "token_cap": 3}),
    ("phase10", 3, {"max_hands": 2, "max_turns": 25}),
    ("phase10", 2, {"max_hands": 3, "max_turns": 30, "skip_next": True}),
    ("phase10", 3, {"pick_phase": True, "hit_others_same_turn": False, "max_hands": 2}),
    ("phase10", 2, {"phases": "even", "first_phases": 1, "max_turns": 40}),
    # tie-break hands are common here: everyone finishes after one short hand
    ("phase10", 4, {"all_advance": True, "first_phases": 1, "max_turns": 1}),
    ("phase10", 4, {"all_advance": True, "first_phases": 1, "max_turns": 2, "tiebreak": "lay"}),
]


def through_json(snapshot: Mapping[str, JSON]) -> JSON:
    """What a snapshot is after a trip through a file or the wire."""
    return json.loads(json.dumps(snapshot))


def views(state: State) -> str:
    """Everything the interface shows of a position, as one comparable text."""
    return canonical(
        {
            "to_move": state.to_move(),
            "over": state.is_over(),
            "legal": [state.legal(s) for s in range(state.seats)],
            "observations": [state.observation(s) for s in range(state.seats)],
            "snapshot": state.snapshot(),
            "result": state.result().to_json() if state.is_over() else None,
        }
    )


def replayed(spec: GameSpec, seed: int, seats: int, options: Mapping[str, JSON], moves: int,
             actions: list[tuple[int, JSON]]) -> State:  # fmt: skip
    state = spec.new(seed, seats, options)
    for seat, action in actions[:moves]:
        state.apply(seat, action)
    return state


@given(
    case=st.sampled_from(CASES),
    seed=st.integers(0, 2**32),
    chooser=st.integers(0, 2**32),
    where=st.floats(0, 1),
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_restored_position_plays_on_like_the_original(
    case: tuple[str, int, dict[str, JSON]], seed: int, chooser: int, where: float
) -> None:
    name, seats, options = case
    spec = get_game(name)
    _, actions = random_playout(spec, seed, seats, options, chooser_seed=chooser)
    cut = round(where * len(actions))
    original = replayed(spec, seed, seats, options, cut, actions)
    snapshot = original.snapshot()
    restored = spec.from_snapshot(through_json(snapshot))
    assert type(restored) is type(original)
    assert restored.snapshot() == snapshot
    assert restored.log == []
    logged = len(original.log)
    assert views(restored) == views(original)
    for seat, action in actions[cut:]:
        original.apply(seat, action)
        restored.apply(seat, action)
        assert views(restored) == views(original)
    assert restored.is_over() and original.is_over()
    assert restored.log == original.log[logged:]
    assert restored.rng.getstate() == original.rng.getstate()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_first_and_the_last_position_round_trip(name: str) -> None:
    spec = get_game(name)
    seats = max(spec.min_seats, 3)
    options: dict[str, JSON] = {"max_hands": 1} if name == "phase10" else {}
    first = spec.new(8, seats, options)
    assert spec.from_snapshot(first.snapshot()).snapshot() == first.snapshot()
    last, _ = random_playout(spec, 8, seats, options)
    again = spec.from_snapshot(through_json(last.snapshot()))
    assert again.snapshot() == last.snapshot() and again.is_over()
    assert again.result() == last.result()


def test_a_restored_take5_state_deals_the_next_round_the_original_deals() -> None:
    """The generator travels in the snapshot: the next round's hands agree card for card."""
    spec = get_game("take5")
    state = spec.new(31, 3, {"end_score": 200})
    restored = None
    while state.round < 2:
        if state.trick == 10 and restored is None:
            restored = spec.from_snapshot(through_json(state.snapshot()))
        seat = state.to_move()[0]
        action = state.legal(seat)[0]
        state.apply(seat, action)
        if restored is not None:
            restored.apply(seat, action)
    assert restored is not None and restored.round == 2
    assert restored.snapshot() == state.snapshot()


# -- bad snapshots ---------------------------------------------------------------------------


def midgame(name: str) -> dict[str, JSON]:
    """A snapshot some way into a game of ``name`` at three seats."""
    spec = get_game(name)
    state = spec.new(5, 3)
    rng = random.Random(2)
    for _ in range(40):
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal(seat)))
    snapshot: dict[str, JSON] = through_json(state.snapshot())
    return snapshot


Edit = Callable[[dict[str, JSON]], None]


def setting(key: str, value: JSON) -> Edit:
    def edit(snapshot: dict[str, JSON]) -> None:
        snapshot[key] = value

    return edit


def dropping(key: str) -> Edit:
    def edit(snapshot: dict[str, JSON]) -> None:
        del snapshot[key]

    return edit


def duplicate_first_card(key: str, index: int | None) -> Edit:
    """One card twice: ``snapshot[key][index]`` (or ``snapshot[key]``) gets its first card again."""

    def edit(snapshot: dict[str, JSON]) -> None:
        cards = snapshot[key] if index is None else snapshot[key][index]
        cards.append(cards[0])

    return edit


def dropping_card(key: str) -> Edit:
    def edit(snapshot: dict[str, JSON]) -> None:
        snapshot[key].pop()

    return edit


def placing_unrevealed(snapshot: dict[str, JSON]) -> None:
    """A card to place that no seat revealed."""
    snapshot["to_place"] = [[snapshot["undealt"].pop(), 0]]
    snapshot["revealed"] = []


BAD: list[tuple[str, Edit, str]] = [
    # every game
    ("take5", setting("surprise", 1), "unknown key"),
    ("take5", dropping("rows"), "missing 'rows'"),
    ("ten", dropping("seed"), "missing 'seed'"),
    ("phase10", setting("seats", 7), "seats must be a whole number 2..6"),
    ("take5", setting("seats", "4"), "seats must be a whole number"),
    ("take5", setting("seed", -1), "seed must be a whole number at least 0"),
    ("ten", setting("options", {"colour": "red"}), "ten has no option 'colour'"),
    ("take5", setting("options", [1]), "options must be an object"),
    ("take5", setting("rng", [3, [1, 2, 3], None]), r"rng\[1\] must hold 625 items"),
    ("phase10", setting("rng", None), "rng must be a list"),
    ("ten", setting("rng", [2, [0] * 625, None]), "rng\\[0\\] \\(the version\\)"),
    # take5
    ("take5", setting("trick", 11), "trick must be a whole number 1..10"),
    ("take5", setting("hands", "cards"), "hands must be a list"),
    ("take5", setting("hands", [[1], [2]]), "hands must hold 3 items"),
    ("take5", setting("chosen", [True, None, None]), r"chosen\[0\] must be a whole number"),
    ("take5", setting("rows", [[200], [1], [2], [3]]), r"rows\[0\]\[0\] must be a whole number"),
    ("take5", duplicate_first_card("hands", 0), "cards not conserved"),
    ("take5", dropping_card("undealt"), "cards not conserved .*missing"),
    ("take5", setting("row_chooser", 1), "row_chooser must own the lowest card"),
    ("take5", setting("over", 1), "over must be true or false"),
    ("take5", setting("round_heads", [9, 9, 9]), "round_heads"),
    ("take5", placing_unrevealed, "to_place names .* as seat 0's card, revealed does not"),
    # ten
    ("ten", setting("decision", "dance"), "decision must be one of bid, buy, draw, pay"),
    ("ten", duplicate_first_card("draw_pile", None), "cards not conserved"),
    ("ten", setting("draw_pile", ["R5", "Z9"]), r"draw_pile\[1\] is no card of the game: 'Z9'"),
    ("ten", setting("currency", [99, 0, 0]), r"currency\[0\] must be a whole number 0..10"),
    ("ten", setting("decision", None), "a game not over has a decision"),
    ("ten", setting("active", 3), "active must be a whole number 0..2"),
    ("ten", setting("owed", 99), "seat 0 owes 99, not 1..what it can pay"),
    ("ten", setting("owed", 0), "seat 0 owes 0"),
    # phase10
    ("phase10", setting("step", "sing"), "step must be one of"),
    ("phase10", setting("hands", [["R1"], 5, []]), r"hands\[1\] must be a list"),
    ("phase10", duplicate_first_card("draw_pile", None), "cards not conserved"),
    ("phase10", setting("table", [{"owner": 0}]), r"table\[0\].kind must be one of"),
    ("phase10", setting("laying", {"phase": 1}), "laying must be an object"),
    ("phase10", setting("active", [2, 0]), "active must list the seats in play"),
    ("phase10", setting("capped", "turns"), "capped must be one of hands"),
]


@pytest.mark.parametrize(("name", "edit", "message"), BAD)
def test_a_bad_snapshot_is_refused_with_a_clear_message(
    name: str, edit: Edit, message: str
) -> None:
    snapshot = midgame(name)
    edit(snapshot)
    with pytest.raises(GameError, match=message):
        get_game(name).from_snapshot(snapshot)


@pytest.mark.parametrize("value", [None, [], "snapshot", 3])
def test_a_snapshot_that_is_no_object_is_refused(value: JSON) -> None:
    with pytest.raises(SnapshotError, match="a take5 snapshot is a JSON object"):
        get_game("take5").from_snapshot(value)


def test_a_snapshot_of_another_game_is_refused() -> None:
    with pytest.raises(GameError, match="ten has no option 'end_score'"):
        get_game("ten").from_snapshot(midgame("take5"))
    with pytest.raises(SnapshotError, match="ten snapshot: missing 'active', 'turn'"):
        get_game("ten").from_snapshot(midgame("take5") | {"options": {}})


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 200) | st.sampled_from(["R5", "W", "S", "#", "x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)


@given(name=st.sampled_from(sorted(GAMES)), data=st.data())
@settings(max_examples=150, deadline=None)
def test_a_mangled_snapshot_restores_or_raises_a_game_error(name: str, data: st.DataObject) -> None:
    """Any key set to any JSON value, nested keys too: a GameError or a state, nothing else."""
    snapshot = midgame(name)
    target: JSON = snapshot
    for _ in range(data.draw(st.integers(1, 3))):
        if isinstance(target, dict) and target:
            key = data.draw(st.sampled_from(sorted(target)))
        elif isinstance(target, list) and target:
            key = data.draw(st.integers(0, len(target) - 1))
        else:
            break
        if data.draw(st.booleans()) and isinstance(target[key], dict | list) and target[key]:
            target = target[key]
            continue
        target[key] = data.draw(JSON_VALUES)
        break
    spec = get_game(name)
    try:
        state = spec.from_snapshot(copy.deepcopy(snapshot))
    except GameError:
        return
    assert state.snapshot()["seats"] == snapshot["seats"]
    rng = random.Random(0)
    for _ in range(50):  # and a position it accepts plays on
        if state.is_over():
            break
        seat = rng.choice(state.to_move())
        state.apply(seat, rng.choice(state.legal(seat)))
