"""A match record played back into what the replay viewer shows, step by step.

A match page of a game with a model (:data:`MODELS`: every game) carries only its record, and
the browser replays it (:func:`record_viewer`; ``templates/static/models/``): the game's rules,
its drawing, its events and words in JavaScript, checked against this module at every step of
random games of every option (tests/site/test_models.py). This module is that reference, and
still builds the page of a game without a model:

Frame ``i`` is the table after ``i`` actions. For each frame the viewer gets the omniscient table
(the game's drawing of ``state.snapshot()``) and each seat's table (of
``state.observation(seat)``), both drawn by the game's functions in :mod:`arena.site.tables`;
the events the step produced with their audience; the move that led to it; and the bots' debug
notes and faults attached to the step where they happened.

To keep long games small, the omniscient view is stored as a patch against itself one frame
earlier (:data:`~arena.site.tables.Patch`: replacements, and splices of lists, so a hand that
gains a card stores that card). The drawing's keeper (:class:`~arena.site.tables.Keeper`) gives
that patch from what the action changed (Phase 10: from the state's own fields, no snapshot),
or draws the whole snapshot and compares it (:func:`diff`). A seat's view is the omniscient view
of the same frame with the other seats' private zones hidden (:func:`~arena.site.tables.mask`),
patched only at the frames where the seat's own table differs; for a drawing whose seat tables
are always that (:attr:`~arena.site.tables.Drawing.masked_views`: every game's) no
observation is drawn at all, except the acting seat's when its move's words read it.

The data is built compact (:class:`Interner`): each distinct path and text stored once, a patch
and a step's events as flat lists. In the page (:func:`pack`), past :data:`PACKED_OVER` the
whole is compressed with bzip2 and base64-encoded inside a JSON string; ``<`` never appears. The
viewer (``templates/static/viewer.js``, with ``static/bzip2.js``) undoes it and decodes the
frames as :func:`decode` does. This module and :mod:`arena.site.tables` are compiled with mypyc
where the rules are (:data:`arena.native.NATIVE_MODULES`): a long game's page replays thousands
of steps.
"""

from __future__ import annotations

import base64
import bz2
import contextlib
import gc
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from arena import boards
from arena.games import JSON, GameError, State, get_game
from arena.replay import Replay
from arena.site.tables import DrawnKeeper, Glance, Keeper, Patch, drawing, mask
from arena.site.tables import diff as diff  # the viewer's encoding, where it always was
from arena.site.tables import splice as splice


def patch(value: JSON, changes: Patch) -> JSON:
    """Apply :func:`diff`'s operations (a copy along each path; the input is not changed)."""
    for op in changes:
        path = op[0]
        if not path and len(op) == 2:
            value = op[1]
            continue
        root = copy_shallow(value)
        node = root
        for key in path[:-1]:
            node[key] = copy_shallow(node[key])
            node = node[key]
        if len(op) == 2:
            node[path[-1]] = op[1]
        elif path:
            start, count, items = op[1], op[2], op[3]
            node[path[-1]] = [*node[path[-1]][:start], *items, *node[path[-1]][start + count :]]
        else:
            root = [*root[: op[1]], *op[3], *root[op[1] + op[2] :]]
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
    viewer does it; for tests). ``data`` may be :func:`intern`-ed (as :func:`build_viewer`
    gives it) or not."""
    if "paths" in data:
        data = unintern(data)
    omni: list[JSON] = []
    value: JSON = None
    for p in data["omni"]:
        value = patch(value, p)
        omni.append(value)
    seats = []
    for s, changes in enumerate(data["seats"]):
        at = dict(changes)
        seats.append([patch(mask(table, s), at.get(i, [])) for i, table in enumerate(omni)])
    return omni, seats


def embed_json(value: JSON) -> str:
    """JSON for a ``<script type="application/json">`` block: every ``<`` written ``\\u003c``,
    so no string (a bot's debug note, a name) can close the script or open a comment."""
    return orjson.dumps(value).decode().replace("<", "\\u003c")


PACKED_OVER = 32 * 1024
"""Viewer data longer than this (as JSON) is embedded compressed (:func:`pack`)."""


class Interner:
    """The viewer's data in its compact form, as it is built: each distinct path of a patch
    and each distinct text (of an event, of a move) numbered once, in the order first met, and
    named by its number (a long game repeats a few dozen paths and a few thousand texts many
    thousand times; the lists come once, as ``paths`` and ``texts``); a patch is one flat list
    (:meth:`ops`) and a step's events one flat list of (audience, text) pairs (:meth:`events`).
    """

    def __init__(self) -> None:
        self.paths: dict[tuple[Any, ...], int] = {}
        self.texts: dict[str, int] = {}

    def ops(self, changes: Patch) -> list[Any]:
        """A patch as one flat list: ``path, value`` for a replacement and ``~path, start,
        count, items`` for a splice (``~path`` is ``-1 - path``), each path by its number."""
        paths = self.paths
        out: list[Any] = []
        for op in changes:
            path = op[0]
            key = path if type(path) is tuple else tuple(path)
            number = paths.get(key)
            if number is None:
                number = paths[key] = len(paths)
            if len(op) == 2:
                out.append(number)
                out.append(op[1])
            else:
                out.append(~number)
                out.extend(op[1:])
        return out

    def text(self, value: str) -> int:
        number = self.texts.get(value)
        if number is None:
            number = self.texts[value] = len(self.texts)
        return number

    def events(self, pairs: Iterable[tuple[int, str]]) -> list[int]:
        """A step's events, ``audience, text, audience, text...`` (-1: every seat)."""
        out: list[int] = []
        for audience, said in pairs:
            out.append(audience)
            out.append(self.text(said))
        return out

    def lists(self) -> dict[str, JSON]:
        return {"paths": [list(p) for p in self.paths], "texts": list(self.texts)}


def intern(data: Mapping[str, JSON]) -> dict[str, JSON]:
    """Plain viewer data (:func:`unintern`'s) in the compact form :class:`Interner` builds
    (data already compact is returned as it is)."""
    if "paths" in data:
        return dict(data)
    names = Interner()
    out = dict(data)
    out["omni"] = [names.ops(p) for p in data["omni"]]
    out["seats"] = [[[frame, names.ops(p)] for frame, p in ch] for ch in data["seats"]]
    out["events"] = [names.events(step) for step in data["events"]]
    out["moves"] = [None if m is None else [m[0], names.text(m[1]), *m[2:]] for m in data["moves"]]
    out.update(names.lists())
    return out


def unintern(data: Mapping[str, JSON]) -> dict[str, JSON]:
    """The compact form undone (what the viewer does first; for tests): patches as lists of
    operations (:data:`Patch`), events as ``[audience, text]`` pairs, texts in place."""
    paths, texts = data["paths"], data["texts"]

    def ops(flat: list[Any]) -> Patch:
        out, i = [], 0
        while i < len(flat):
            if flat[i] >= 0:
                out.append([paths[flat[i]], flat[i + 1]])
                i += 2
            else:
                out.append([paths[~flat[i]], *flat[i + 1 : i + 4]])
                i += 4
        return out

    out = {k: v for k, v in data.items() if k not in ("paths", "texts")}
    out["omni"] = [ops(p) for p in data["omni"]]
    out["seats"] = [[[frame, ops(p)] for frame, p in changes] for changes in data["seats"]]
    out["events"] = [
        [[step[i], texts[step[i + 1]]] for i in range(0, len(step), 2)] for step in data["events"]
    ]
    out["moves"] = [None if m is None else [m[0], texts[m[1]], *m[2:]] for m in data["moves"]]
    return out


def pack(data: Mapping[str, JSON]) -> str:
    """The viewer's data as the text of its ``<script type="application/json">`` block: for a
    record to replay (:func:`record_viewer`), as it is (its strings are base64, names and
    digits, and ``<`` is escaped all the same); else
    compact (:func:`intern`), as JSON; past :data:`PACKED_OVER` bytes, one JSON string
    instead, the base64 of that JSON compressed with bzip2, which ``templates/static/bzip2.js``
    undoes (the longest of ten six-seat Phase 10 games of random players, 17,109 steps: 0.96 MB
    compact, 85 KiB with bzip2 against 150 KiB deflated at level 9, what a browser could inflate
    by itself; bzip2 takes most of the CPU of packing, about as much as the replay)."""
    if "record" in data:
        return embed_json(dict(data))
    with collector_paused():
        text = orjson.dumps(intern(data))
    if len(text) > PACKED_OVER:
        text = orjson.dumps(base64.b64encode(bz2.compress(text, 9)).decode())
    return text.decode().replace("<", "\\u003c")


def unpack(text: str) -> dict[str, JSON]:
    """:func:`pack` undone: the viewer's data from its script block, not interned; or, from a
    page that carries its record (:func:`record_viewer`), that data with the record decoded (for
    tests)."""
    value = orjson.loads(text)
    if isinstance(value, dict) and "record" in value:
        return {**value, "record": orjson.loads(zlib.decompress(base64.b64decode(value["record"])))}
    if isinstance(value, str):
        value = orjson.loads(bz2.decompress(base64.b64decode(value)))
    return unintern(value)


MODELS: frozenset[str] = frozenset({"take5", "ten", "phase10"})
"""Games whose match pages carry the record itself, replayed in the browser by the game's model
(``templates/static/models/GAME.js``, through ``models/replay.js``; :func:`record_viewer`). The
models are checked against :func:`build_viewer` (tables, events and words at every step of random
games, every option: tests/site/test_models.py)."""

RECORD_LEVEL = 6
"""zlib level of a record in its page: the longest of ten six-seat Phase 10 games (274 KiB of
JSON) is 22 KiB in 3.8 ms at 6, 38 KiB in 1.0 ms at 1, 21 KiB in 28 ms at 9."""


@dataclass(frozen=True)
class Viewer:
    """What a match page embeds for its replay viewer (``data``, in the compact form of
    :class:`Interner`; :func:`unintern` gives it plain), or why there is none."""

    data: dict[str, JSON] | None
    error: str
    steps: int

    @property
    def carries_record(self) -> bool:
        """Whether the page carries the record itself (:func:`record_viewer`)."""
        return self.data is not None and "record" in self.data


_FACES: dict[str, JSON] = {}


def record_viewer(record: Mapping[str, JSON], names: list[str], text: bytes) -> Viewer | None:
    """What the page of a game with a model (:data:`MODELS`) embeds: the record (``text``, its
    JSON) compressed with zlib, as base64, which the browser inflates by itself, with the seed as
    text (JSON numbers past 2^53 lose digits in a browser). None for a game without a model."""
    game = record.get("game")
    if game not in MODELS:
        return None
    faces = _FACES.get(game)
    if faces is None:
        faces = _FACES[game] = drawing(game).faces()
    data: dict[str, JSON] = {
        "game": game,
        "names": names,
        "faces": faces,
        "seed": str(record.get("seed")),
        "record": base64.b64encode(zlib.compress(text, RECORD_LEVEL)).decode(),
    }
    return Viewer(data, "", len(record.get("actions", ())) + 1)


def action_text(action: JSON) -> str:
    if isinstance(action, str | int | float):
        return str(action)
    return orjson.dumps(action, option=orjson.OPT_SORT_KEYS).decode()


class LazyView(Mapping[str, JSON]):
    """A seat's observation, taken from the state when first read: most moves are put in words
    without it (a Phase 10 draw or discard), and an observation costs as much as a step. The
    keys the drawing can glance at (:attr:`~arena.site.tables.Drawing.glance`: Phase 10's
    discard top, for a take) are read without it. :attr:`read` says whether anything was."""

    def __init__(self, state: State, seat: int, glance: Glance | None = None) -> None:
        self.state = state
        self.seat = seat
        self.glance = glance
        self.glanced: dict[str, JSON] | None = None
        self.view: Mapping[str, JSON] | None = None
        self.read = False

    def _get(self) -> Mapping[str, JSON]:
        if self.view is None:
            self.view = self.state.observation(self.seat)
        return self.view

    def __getitem__(self, key: str) -> JSON:
        self.read = True
        if self.glance is not None and self.view is None:
            if self.glanced is None:
                self.glanced = self.glance(self.state, self.seat)
            if key in self.glanced:
                return self.glanced[key]
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        self.read = True
        return iter(self._get())

    def __len__(self) -> int:
        self.read = True
        return len(self._get())


def action_words(game: str, view: JSON, action: JSON) -> str:
    """An action in words, from the acting seat's observation just before it: the game's own
    drawing's words (Ten), else the human seat's (:func:`arena.boards.action_text`)."""
    words = drawing(game).words
    if isinstance(view, Mapping):
        if words is None:
            return boards.action_text(game, view, action)
        try:
            return words(view, action)
        except (KeyError, TypeError, ValueError, IndexError):  # a record that does not replay
            pass
    return action_text(action)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector paused: building a long game's frames allocates millions of
    small lists and dicts (none in a cycle), and each full collection walks all of them (a
    third of the time of a long Phase 10 game's page).

    Resumed, the collector would at once walk everything allocated meanwhile that is still
    alive (the frames, until the page is written: 10-35 ms for a long game). Instead what it
    tracks moves to its oldest generation unwalked (``gc.freeze()`` then ``gc.unfreeze()``):
    the frames are freed by reference counting once the page is written, and anything else
    is still collected, by the next full collection."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def words_key(action: JSON) -> bytes | None:
    """What the words of an action are kept under (None: not kept, for what JSON cannot
    hold, such as an integer past 64 bits in a record that will not replay anyway)."""
    try:
        return orjson.dumps(action)
    except TypeError:
        return None


class Frames:
    """The viewer's tables and events of one replay, frame by frame, as the state moves on: the
    omniscient table's patches (:attr:`omni`, from the drawing's keeper), each seat's own
    patches where its table is not the omniscient one masked (:attr:`seat_frames`), the events
    of each step (:attr:`steps`), all in the compact form of :attr:`names`."""

    def __init__(self, game: str, state: State, seats: int, describe: Any) -> None:
        art = drawing(game)
        self.game = game
        self.state = state
        self.seats = seats
        self.describe = describe
        self.names = Interner()
        self.draw = art.table
        # A drawing whose seat tables are its omniscient table masked (Drawing.masked_views,
        # tested step by step) needs no observation drawn: only the acting seat's, for its
        # move in words, and only when the words read it (words that did not are kept for the
        # same action).
        self.masked = art.masked_views
        self.glance = art.glance
        self.drawn: DrawnKeeper | None = None
        self.keeper: Keeper
        if self.masked:
            self.keeper = art.keep(state, seats)
        else:
            self.drawn = DrawnKeeper(self.draw, state, seats)
            self.keeper = self.drawn
        self.said_before: dict[str | bytes, str] = {}
        self.seen_views: list[JSON] = [None] * seats
        self.seen_tables: list[JSON] = [None] * seats
        self.seat_frames: list[list[list[JSON]]] = [[] for _ in range(seats)]
        self.omni: list[list[Any]] = [self.names.ops([[[], self.keeper.first()]])]
        self.seen = 0
        self.steps: list[list[int]] = []
        self.seat_changes(0)
        self.events()

    def advance(self, frame: int) -> None:
        """The frame after the state's last action."""
        self.omni.append(self.names.ops(self.keeper.advance(self.state)))
        self.seat_changes(frame)
        self.events()

    def events(self) -> None:
        """The events logged since the last frame, with their audience (-1: every seat)."""
        log = self.state.log
        out: list[int] = []
        text = self.names.text
        for i in range(self.seen, len(log)):
            audience, event = log[i]
            out.append(-1 if audience is None else audience)
            out.append(text(self.describe(event)))
        self.seen = len(log)
        self.steps.append(out)

    def words(self, seat: int, action: JSON) -> str:
        """The move in words, from the acting seat's view before it."""
        if not 0 <= seat < self.seats:
            return action_text(action)
        if not self.masked:
            return action_words(self.game, self.seen_views[seat], action)
        key: str | bytes | None = action if type(action) is str else words_key(action)
        said = None if key is None else self.said_before.get(key)
        if said is None:
            view = LazyView(self.state, seat, self.glance)
            said = action_words(self.game, view, action)
            if not view.read and key is not None:
                self.said_before[key] = said
        return said

    def seat_changes(self, frame: int) -> None:
        """The seats' own tables where they are not the omniscient one masked (the general
        case: observations drawn, and the keeper a DrawnKeeper, whose table is at hand)."""
        if self.drawn is None:
            return
        omni = self.drawn.table
        for s in range(self.seats):
            view = self.state.observation(s)
            if view != self.seen_views[s]:  # a seat's view changes far less than the table
                self.seen_views[s], self.seen_tables[s] = view, self.draw(view, self.seats, s)
            changes = diff(mask(omni, s), self.seen_tables[s])
            if changes:
                self.seat_frames[s].append([frame, self.names.ops(changes)])


def build_viewer(record: Mapping[str, JSON], names: list[str]) -> Viewer:
    """Replay ``record`` (a stored match record) into the viewer's data."""
    with collector_paused():
        return _build_viewer(record, names)


def _build_viewer(record: Mapping[str, JSON], names: list[str]) -> Viewer:
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
    fallback = set(record.get("fallback_steps", []))
    frames = Frames(game, state, seats, spec.state_class.describe)
    text = frames.names.text
    omni_frames = frames.omni
    step_events = frames.steps
    moves: list[JSON] = [None]
    error = ""
    for step in range(len(actions)):
        seat, action = actions[step]
        said = frames.words(seat, action)
        try:
            state.apply(seat, action)
        except GameError as exc:
            error = f"the replay stops at step {step}: {exc}"
            break
        frames.advance(step + 1)
        moves.append([seat, text(said), 1] if step in fallback else [seat, text(said)])
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
        "seats": frames.seat_frames,
        "events": step_events,
        "moves": moves,
        "faults": faults,
        "notes": notes,
        **frames.names.lists(),
    }
    return Viewer(data, error, steps)
