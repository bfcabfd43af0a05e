"""The omniscient tables a replay keeps from what each action changed (tables.Keeper) are the
tables drawn from the whole snapshot, at every step of random games of every game."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest

from arena.games import GAMES
from arena.players import RandomPlayer, play_local
from arena.site.frames import LazyView, action_words, build_viewer, collector_paused, patch
from arena.site.tables import DrawnKeeper, Phase10Keeper, drawing
from tests.site.leagues import record_of

OPTIONS: dict[str, list[dict[str, Any]]] = {
    "take5": [{}, {"max_rounds": 2}],
    "ten": [{}],
    "phase10": [
        {"max_hands": 6},
        {"first_phases": 2, "tiebreak": "lay"},
        {"pick_phase": True, "skip_next": True, "max_hands": 4},
        {"all_advance": True, "final_discard": True, "max_hands": 4},
        {"natural_per_phase": True, "hit_others_same_turn": True, "max_turns": 5},
        {"phases": "even", "first_phases": 1},
    ],
}


def kept_and_drawn(game: str, seats: int, seed: int, options: dict[str, Any]) -> int:
    """Replay a random game, keeping its table and drawing it at every step; the steps."""
    spec = GAMES[game]
    options = spec.validate_options(options)
    players = [RandomPlayer(f"{seed}:{s}") for s in range(seats)]
    replay = play_local(spec, seed, players, options).replay
    draw = drawing(game).table
    state = replay.new_state()
    keeper = drawing(game).keep(state, seats)
    table = keeper.first()
    assert table == draw(state.snapshot(), seats, None)
    for step, (seat, action) in enumerate(replay.actions):
        state.apply(seat, action)
        table = patch(table, keeper.advance(state))
        assert table == draw(state.snapshot(), seats, None), (game, seed, options, step)
    return len(replay.actions)


@pytest.mark.parametrize(("game", "options"), [(g, o) for g in sorted(OPTIONS) for o in OPTIONS[g]])
def test_kept_tables_are_the_drawn_tables_at_every_step(game: str, options: dict[str, Any]) -> None:
    spec = GAMES[game]
    steps = 0
    for seats in sorted({spec.min_seats, 3, spec.max_seats}):
        for seed in range(2):
            steps += kept_and_drawn(game, seats, seed, options)
    assert steps > 100


def test_phase10_has_its_own_keeper() -> None:
    state = GAMES["phase10"].new(1, 3, GAMES["phase10"].validate_options({}))
    assert isinstance(drawing("phase10").keep(state, 3), Phase10Keeper)
    state = GAMES["take5"].new(1, 3, GAMES["take5"].validate_options({}))
    assert isinstance(drawing("take5").keep(state, 3), DrawnKeeper)


def test_phase10_checks_a_discard_in_a_replay_as_against_every_legal_action() -> None:
    """A replay checks a Phase 10 discard among that card's discards only (the legal actions
    were not asked for): the answer is the one the whole list gives, for every card of the
    deck and every kind of target, at every step where the seat may discard."""
    spec = GAMES["phase10"]
    cards = sorted({c for c in [*"WS", *(f"{c}{n}" for c in "RBGY" for n in range(1, 13))]})
    checked = 0
    for seats, seed, options in [(2, 3, {"max_hands": 3}), (4, 4, {"skip_next": True}), (6, 5, {})]:
        options = spec.validate_options({**options, "max_hands": 3})
        players = [RandomPlayer(f"{seed}:{s}") for s in range(seats)]
        replay = play_local(spec, seed, players, options).replay
        state: Any = replay.new_state()
        for seat, action in replay.actions:
            if state._legal is None and state.step == "play":
                turn = state.turn
                targets: list[Any] = [None, True, "1", 1.0, *range(-1, seats + 1)]
                candidates: list[Any] = [{"discard": c} for c in [*cards, 7, "", ["R1"]]]
                candidates += [{"discard": c, "target": t} for c in ("S", "R1") for t in targets]
                candidates += [
                    {"discard": "S", "target": 1, "x": 0},
                    {"discard": "S", "end": "low"},
                ]
                answers = [state._allows(turn, a) for a in candidates]
                assert state._legal is None  # nothing asked for the whole list
                legal = state.legal(turn)
                assert answers == [any(a == b and same(a, b) for b in legal) for a in candidates]
                checked += sum(answers)
            state.apply(seat, action)
    assert checked > 100


def same(a: Any, b: Any) -> bool:
    """Equal as JSON (``True`` is not ``1``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_moves_in_words_are_the_words_of_the_whole_observation(game: str) -> None:
    """The words of a move, read through a lazy view that glances at a few keys (the same
    values as the observation's), are the words of the observation itself."""
    spec = GAMES[game]
    glance = drawing(game).glance
    for seats, seed in [(spec.min_seats, 1), (spec.max_seats, 2)]:
        options = spec.validate_options({"phase10": {"max_hands": 3}}.get(game, {}))
        players = [RandomPlayer(f"{seed}:{s}") for s in range(seats)]
        replay = play_local(spec, seed, players, options).replay
        state = replay.new_state()
        for seat, action in replay.actions:
            view = state.observation(seat)
            if glance is not None:
                assert glance(state, seat).items() <= view.items()
            said = action_words(game, LazyView(state, seat, glance), action)
            assert said == action_words(game, view, action)
            state.apply(seat, action)


def test_the_paused_collector_resumes_without_a_young_collection_pending() -> None:
    """What a paused stretch allocated (a long game's frames) is not left for the collector to
    walk as soon as it resumes; the collector is on again after it, and off stays off."""
    assert gc.isenabled()
    collections: list[int] = []

    def spy(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    with collector_paused():
        kept = [[i, [i]] for i in range(50_000)]
        assert not gc.isenabled()
        gc.callbacks.append(spy)
    try:
        more = [[i] for i in range(100)]
    finally:
        gc.callbacks.remove(spy)
    assert gc.isenabled() and collections == []
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert len(kept) == 50_000 and len(more) == 100


def test_a_record_with_an_action_json_cannot_hold_stops_with_the_viewers_error() -> None:
    spec = GAMES["phase10"]
    options = spec.validate_options({})
    players = [RandomPlayer(f"7:{s}") for s in range(3)]
    played = play_local(spec, 7, players, {**options, "max_hands": 1})
    actions = [*played.replay.actions[:5], (played.replay.actions[5][0], {"discard": 2**70})]
    record = record_of(
        "x",
        "phase10",
        7,
        dict(played.replay.options),
        [0, 1, 2],
        ["a", "b", "c"],
        actions,
        {"scores": [0, 0, 0], "ranks": [1, 1, 1]},
    )
    viewer = build_viewer(record, ["a", "b", "c"])
    assert viewer.data is not None and "step 5" in viewer.error
