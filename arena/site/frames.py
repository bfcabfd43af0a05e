"""A match record played back into what the replay viewer shows, step by step.

Frame ``i`` is the table after ``i`` actions. For each frame the viewer gets the omniscient table
(from ``state.snapshot()``) and each seat's table (from ``state.observation(seat)``), both drawn by
the game's function in :mod:`arena.site.tables`; the events the step produced with their
audience; the move that led to it; and the bots' debug notes and faults attached to the step where
they happened.

To keep long games small, the omniscient view is stored as a patch against itself one frame
earlier: a list of ``[path, value]`` replacements (see :func:`diff`). A seat's view is stored as
the patch from the omniscient view of the same frame with the other seats' private zones hidden
(:func:`~arena.site.tables.mask`), which is empty whenever the seat's own view shows the same.
The viewer (``templates/static/viewer.js``) decodes both the same way as :func:`decode`. :func:`embed_json` makes the JSON safe inside ``<script type="application/json">``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from arena import boards
from arena.games import JSON, GameError, get_game
from arena.replay import Replay
from arena.site.tables import drawing, mask

Patch = list[list[Any]]


def diff(
    before: JSON, after: JSON, path: list[Any] | None = None, out: Patch | None = None
) -> Patch:
    """The replacements that turn ``before`` into ``after``: ``[path, value]``, outermost first.

    Dicts with the same keys, and lists of the same length whose members are dicts or lists, are
    compared member by member; anything else that differs (a line of cards, a fact) is replaced
    whole. ``[[], value]`` replaces the root.
    """
    path = [] if path is None else path
    out = [] if out is None else out
    if before != after:
        _diff(before, after, path, out)
    return out


def _diff(before: JSON, after: JSON, path: list[Any], out: Patch) -> None:
    """:func:`diff` of two values already known to differ (each pair compared once)."""
    if isinstance(before, dict) and isinstance(after, dict) and before.keys() == after.keys():
        for key, b in after.items():
            a = before[key]
            if a is not b and a != b:
                _diff(a, b, [*path, key], out)
    elif (
        isinstance(before, list)
        and isinstance(after, list)
        and len(before) == len(after)
        and isinstance(after[0], dict | list)
    ):
        for i, (a, b) in enumerate(zip(before, after, strict=True)):
            if a is not b and a != b:
                _diff(a, b, [*path, i], out)
    else:
        out.append([path, after])


def patch(value: JSON, changes: Patch) -> JSON:
    """Apply :func:`diff`'s replacements (a copy along each path; the input is not changed)."""
    for path, new in changes:
        if not path:
            value = new
            continue
        root = copy_shallow(value)
        node = root
        for key in path[:-1]:
            node[key] = copy_shallow(node[key])
            node = node[key]
        node[path[-1]] = new
        value = root
    return value


def copy_shallow(value: JSON) -> JSON:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


def decode(data: Mapping[str, JSON]) -> tuple[list[JSON], list[list[JSON]]]:
    """The tables of every frame, omniscient and per seat, from a viewer's data (as the
    viewer does it; for tests)."""
    omni: list[JSON] = []
    value: JSON = None
    for p in data["omni"]:
        value = patch(value, p)
        omni.append(value)
    seats = [
        [patch(mask(omni[i], s), p) for i, p in enumerate(frames)]
        for s, frames in enumerate(data["seats"])
    ]
    return omni, seats


def embed_json(value: JSON) -> str:
    """JSON for a ``<script type="application/json">`` block: every ``<`` written ``\\u003c``,
    so no string (a bot's debug note, a name) can close the script or open a comment."""
    return orjson.dumps(value).decode().replace("<", "\\u003c")


@dataclass(frozen=True)
class Viewer:
    """What a match page embeds for its replay viewer (``data``), or why there is none."""

    data: dict[str, JSON] | None
    error: str
    steps: int


def action_text(action: JSON) -> str:
    if isinstance(action, str | int | float):
        return str(action)
    return orjson.dumps(action, option=orjson.OPT_SORT_KEYS).decode()


def action_words(game: str, view: JSON, action: JSON) -> str:
    """An action in words, from the acting seat's observation just before it: the game's own
    drawing's words (Ten), else the human seat's (:func:`arena.boards.action_text`)."""
    words = drawing(game).words
    if isinstance(view, dict):
        if words is None:
            return boards.action_text(game, view, action)
        try:
            return words(view, action)
        except (KeyError, TypeError, ValueError, IndexError):  # a record that does not replay
            pass
    return action_text(action)


def build_viewer(record: Mapping[str, JSON], names: list[str]) -> Viewer:
    """Replay ``record`` (a stored match record) into the viewer's data."""
    game = record["game"]
    actions = [(int(seat), action) for seat, action in record["actions"]]
    seats = len(record["seats"])
    try:
        spec = get_game(game)
        replay = Replay(game, seats, int(record["seed"]), dict(record["options"]), tuple(actions))
        state = replay.new_state()
    except (GameError, KeyError, TypeError, ValueError) as exc:
        return Viewer(None, f"this match cannot be replayed: {exc}", 0)
    art = drawing(game)
    draw = art.table
    describe = spec.state_class.describe
    fallback = set(record.get("fallback_steps", []))

    seen_views: list[JSON] = [None] * seats
    seen_tables: list[JSON] = [None] * seats

    def tables() -> tuple[JSON, list[JSON]]:
        omni = draw(state.snapshot(), seats, None)
        per_seat = []
        for s in range(seats):
            view = state.observation(s)
            if view != seen_views[s]:  # a seat's view changes far less often than the table
                seen_views[s], seen_tables[s] = view, draw(view, seats, s)
            per_seat.append(seen_tables[s])
        return omni, per_seat

    def events(start: int) -> list[list[JSON]]:
        return [[-1 if aud is None else aud, describe(event)] for aud, event in state.log[start:]]

    omni_prev, seat_prev = tables()
    omni_frames: list[Patch] = [[[[], omni_prev]]]
    seat_frames: list[list[Patch]] = [
        [diff(mask(omni_prev, s), t)] for s, t in enumerate(seat_prev)
    ]
    step_events = [events(0)]
    moves: list[JSON] = [None]
    error = ""
    for step, (seat, action) in enumerate(actions):
        seen = len(state.log)
        said = action_words(game, seen_views[seat] if 0 <= seat < seats else None, action)
        try:
            state.apply(seat, action)
        except GameError as exc:
            error = f"the replay stops at step {step}: {exc}"
            break
        omni, per_seat = tables()
        omni_frames.append(diff(omni_prev, omni))
        for s in range(seats):
            seat_frames[s].append(diff(mask(omni, s), per_seat[s]))
        omni_prev, seat_prev = omni, per_seat
        step_events.append(events(seen))
        moves.append([seat, said, *([1] if step in fallback else [])])
    steps = len(moves)
    last = steps - 1
    faults = [
        {
            "frame": min(int(f["step"]) + 1, last),
            "seat": f["seat"],
            "status": f["status"],
            "message": f["message"],
            "stderr": f["stderr_tail"],
        }
        for f in record.get("faults", [])
    ]
    notes = [
        {"frame": min(int(step) + 1, last), "seat": seat, "note": note}
        for step, seat, note in record.get("debug", [])
    ]
    data: dict[str, JSON] = {
        "game": game,
        "names": names,
        "faces": art.faces(),
        "omni": omni_frames,
        "seats": seat_frames,
        "events": step_events,
        "moves": moves,
        "faults": faults,
        "notes": notes,
    }
    return Viewer(data, error, steps)
