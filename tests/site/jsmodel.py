"""The replay viewer's game models (``templates/static/models``) checked against the Python
viewer: random legal games played by the Python rules, replayed by both, compared frame by frame
(the omniscient table), step by step (the events with their audience, the move in words).

``python -m tests.site.jsmodel GAME --games 30 --seats 4 [--options JSON] [--seed 1]`` prints the
first difference of each game, or that all agree; tests/site/test_models.py runs the same check.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games import JSON, get_game
from arena.site.frames import build_viewer, decode, unintern
from tests.games.playouts import random_playout

RUNNER = Path(__file__).with_name("run_models.js")
NODE = shutil.which("node")
ALL_FRAMES_UNDER = 1500
"""Games shorter than this are compared at every frame; longer ones at a sample of frames."""


def random_record(
    game: str, seed: int, seats: int, options: Mapping[str, JSON], chooser: int = 0
) -> dict[str, JSON]:
    """A record of a game of random legal moves (what the viewer reads of a stored record)."""
    _state, actions = random_playout(get_game(game), seed, seats, options, chooser_seed=chooser)
    return {
        "game": game,
        "seed": seed,
        "options": dict(options),
        "seats": [{"name": f"p{s}"} for s in range(seats)],
        "actions": [[s, a] for s, a in actions],
    }


@dataclass
class Reference:
    tables: list[JSON]
    events: list[JSON]
    moves: list[JSON]
    error: str


def reference(record: Mapping[str, JSON]) -> Reference:
    """What the Python viewer shows of ``record``."""
    seats = len(record["seats"])
    viewer = build_viewer(record, [f"p{s}" for s in range(seats)])
    if viewer.data is None:
        return Reference([], [], [], viewer.error)
    omni, _seats = decode(viewer.data)
    plain = unintern(viewer.data)
    moves = [None if m is None else m[:2] for m in plain["moves"]]
    return Reference(omni, plain["events"], moves, viewer.error)


def frames_to_check(steps: int, every: int = 97) -> list[int] | None:
    """Every frame of a short game; of a long one, a spread of frames and its last ten."""
    if steps <= ALL_FRAMES_UNDER:
        return None
    picked = set(range(0, steps, every)) | set(range(max(0, steps - 10), steps))
    picked |= {1, 2, 3, steps // 2, steps // 2 + 1}
    return sorted(f for f in picked if f < steps)


def run_node(
    records: Sequence[Mapping[str, JSON]], frames: Sequence[list[int] | None]
) -> list[Any]:
    """The models' replay of each record, in node (tests/site/run_models.js)."""
    if NODE is None:
        raise RuntimeError("node is not installed")
    payload = {
        "records": [
            {
                "game": r["game"],
                "seed": str(r["seed"]),
                "seats": len(r["seats"]),
                "options": r.get("options", {}),
                "actions": r["actions"],
                "frames": f,
            }
            for r, f in zip(records, frames, strict=True)
        ]
    }
    done = subprocess.run(
        [NODE, "--stack-size=4000", str(RUNNER)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"node failed: {done.stderr.decode(errors='replace')[-3000:]}")
    out: list[Any] = json.loads(done.stdout)
    return out


def first_path(expected: JSON, got: JSON, path: str = "") -> str:
    """Where two JSON values first differ (a path like ``.seats[1].zones[0].lines``)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in list(expected) + [k for k in got if k not in expected]:
            if key not in expected or key not in got or expected[key] != got[key]:
                if key in expected and key in got:
                    return first_path(expected[key], got[key], f"{path}.{key}")
                return f"{path}.{key} (only in {'expected' if key in expected else 'got'})"
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        for i, (e, g) in enumerate(zip(expected, got, strict=True)):
            if e != g:
                return first_path(e, g, f"{path}[{i}]")
    return f"{path or '(top)'}: expected {short(expected)}, got {short(got)}"


def short(value: JSON, limit: int = 300) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[:limit] + "..."


def difference(ref: Reference, got: Mapping[str, Any]) -> str | None:
    """The first difference between the Python viewer and the model, in words (None: none)."""
    if ref.error or got["error"]:
        if ref.error != got["error"]:
            return f"error: expected {ref.error!r}, got {got['error']!r}"
        if not ref.tables:
            return None
    if got["steps"] != len(ref.moves):
        return f"steps: expected {len(ref.moves)}, got {got['steps']}"
    for step in range(len(ref.moves)):
        if ref.events[step] != got["events"][step]:
            return f"step {step} events: {first_path(ref.events[step], got['events'][step])}"
        if ref.moves[step] != got["moves"][step]:
            return f"step {step} words: {first_path(ref.moves[step], got['moves'][step])}"
        table = got["tables"].get(str(step))
        if table is not None and table != ref.tables[step]:
            return f"step {step} table: {first_path(ref.tables[step], table)}"
    return None


def check(records: Iterable[Mapping[str, JSON]]) -> tuple[list[str], int, float]:
    """Differences (one line per record that differs), steps compared, the models' longest
    replay in seconds (node)."""
    records = list(records)
    refs = [reference(r) for r in records]
    frames = [frames_to_check(len(ref.moves)) for ref in refs]
    results = run_node(records, frames)
    out = []
    for r, ref, got in zip(records, refs, results, strict=True):
        found = difference(ref, got)
        if found is not None:
            out.append(
                f"seed {r['seed']}, {len(r['seats'])} seats, options {r.get('options')}: {found}"
            )
    steps = sum(len(ref.moves) for ref in refs)
    return out, steps, max((g["seconds"] for g in results), default=0.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--options", default="{}", help="the game's options, as JSON")
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed")
    args = parser.parse_args(argv)
    options = json.loads(args.options)
    start = time.perf_counter()
    records = [
        random_record(args.game, args.seed + i, args.seats, options, chooser=i)
        for i in range(args.games)
    ]
    diffs, steps, longest = check(records)
    for line in diffs:
        print(line)
    print(
        f"{args.games - len(diffs)} of {args.games} games agree ({steps} steps; the model's "
        f"longest replay {longest * 1000:.0f} ms in node; {time.perf_counter() - start:.1f} s)"
    )
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
