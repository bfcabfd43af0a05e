"""The replay viewer's game models (templates/static/models/*.js) against the Python viewer:
the same tables, events and words at every step of random games, for every game, seat count
and option set listed in CASES; and the models' RNG against Python's random.Random."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from arena.games import JSON
from tests.site.jsmodel import NODE, check, random_record, reference

pytestmark = pytest.mark.skipif(NODE is None, reason="node not installed (apt-get install nodejs)")

MODELS = Path(__file__).parents[2] / "templates" / "static" / "models"

GAMES_PER_CASE = 4
CASES: list[tuple[str, int, dict[str, JSON]]] = [
    # (game, seats, options): each played GAMES_PER_CASE times with random legal moves
    # Take 5: every seat count, and each option of RULES.md (alone and together)
    *[("take5", seats, {}) for seats in range(2, 11)],
    ("take5", 4, {"tactics": True}),
    ("take5", 10, {"tactics": True}),
    ("take5", 3, {"professional": True}),
    ("take5", 10, {"professional": True}),
    ("take5", 4, {"more_than": True, "end_score": 20}),
    ("take5", 5, {"end_score": 1}),
    ("take5", 6, {"max_rounds": 1}),
    ("take5", 2, {"tactics": True, "professional": True, "max_rounds": 2, "end_score": 500}),
    ("take5", 7, {"tactics": "yes", "more_than": "on", "max_rounds": "none", "end_score": "30"}),
    # Ten: every seat count, and its options
    *(("ten", seats, {}) for seats in range(1, 6)),
    ("ten", 1, {"token_cap": 1}),
    ("ten", 2, {"start_tokens": 0, "token_cap": 0}),
    ("ten", 3, {"start_tokens": 20}),  # more than the cap: each seat starts at the cap
    ("ten", 4, {"start_tokens": 3, "token_cap": 4}),
    ("ten", 5, {"start_tokens": 50, "token_cap": 100}),
    # Phase 10: every seat count and option. With these seeds the last three reach tie-break
    # hands (one capped with no winner, one won by going out, one by laying down first).
    ("phase10", 2, {}),
    ("phase10", 3, {"final_discard": True, "hit_others_same_turn": False}),
    ("phase10", 4, {"skip_next": True, "natural_per_phase": True}),
    ("phase10", 5, {"phases": "odd", "tiebreak": "lay"}),
    ("phase10", 6, {}),
    ("phase10", 6, {"all_advance": True, "phases": "even"}),
    ("phase10", 3, {"pick_phase": True, "first_phases": 3}),
    ("phase10", 4, {"first_phases": 1, "max_turns": 4}),
    ("phase10", 5, {"max_turns": None, "max_hands": 4}),
    ("phase10", 6, {"all_advance": True, "first_phases": 1, "max_turns": 2}),
    ("phase10", 3, {"all_advance": True, "first_phases": 1, "max_turns": 23}),
    ("phase10", 5, {"first_phases": 1, "max_turns": 14, "tiebreak": "lay"}),
]


@pytest.mark.parametrize(("game", "seats", "options"), CASES)
def test_model_agrees_with_python(game: str, seats: int, options: dict[str, JSON]) -> None:
    base = 1000 * seats + 17 * len(json.dumps(options, sort_keys=True))
    records = [
        random_record(game, base + i, seats, options, chooser=i) for i in range(GAMES_PER_CASE)
    ]
    diffs, steps, _longest = check(records)
    assert steps > GAMES_PER_CASE
    assert not diffs, "\n".join(diffs)


SEEDS = ["0", "1", "-7", "4294967296", "9223372036854775807", "12345678901234567890123"]


def python_draws(seed: str) -> JSON:
    rng = random.Random(int(seed))
    deck = list(range(108))
    rng.shuffle(deck)
    bits = [rng.getrandbits(32), rng.getrandbits(1), rng.randrange(1000), rng.random()]
    return [deck, bits, rng.sample(list(range(1, 105)), 44), rng.sample(range(1000), 7)]


JS_DRAWS = """
globalThis.window = globalThis;
require(%s);
const out = %s.map((seed) => {
  const r = window.arenaRandom(seed), deck = [...Array(108).keys()];
  r.shuffle(deck);
  const bits = [r.getrandbits(32), r.getrandbits(1), r.randbelow(1000), r.random()];
  return [deck, bits, r.sample([...Array(104).keys()].map((i) => i + 1), 44),
          r.sample([...Array(1000).keys()], 7)];
});
console.log(JSON.stringify(out));
"""


def test_models_random_is_pythons() -> None:
    """Shuffles, draws and samples (both of random.sample's methods) from the same seeds,
    including a negative one and ones past 2^32 and 2^64."""
    script = JS_DRAWS % (json.dumps(str(MODELS / "rng.js")), json.dumps(SEEDS))
    assert NODE is not None
    done = subprocess.run([NODE, "-e", script], capture_output=True, check=True, timeout=60)
    assert json.loads(done.stdout) == [python_draws(s) for s in SEEDS]


DAMAGED_SEATS = {"take5": 4, "ten": 3, "phase10": 3}


def damaged(record: dict[str, JSON]) -> list[dict[str, JSON]]:
    """Records the rules refuse, made from a good one: an unknown option, a negative seed, a
    seat too many, actions no rule allows, a seat acting out of turn, an action after the end."""
    actions = record["actions"]
    seats = len(record["seats"])

    def but(**changes: JSON) -> dict[str, JSON]:
        return {**record, **changes}

    out = [
        but(options={"no such option": 1}),
        but(seed=-3),
        but(seats=[{"name": "x"}] * 11),
        but(actions=[*actions, [0, actions[-1][1]]]),
    ]
    for i, bad in ((0, "nonsense"), (3, {"no such": "action"}), (5, [1, 2]), (7, None)):
        out.append(but(actions=[*actions[:i], [actions[i][0], bad], *actions[i:]]))
    seat = actions[4][0]
    out.append(but(actions=[*actions[:4], [(seat + 1) % seats, actions[4][1]], *actions[5:]]))
    out.append(but(actions=[*actions[:2], [seats + 3, actions[2][1]], *actions[3:]]))
    return out


@pytest.mark.parametrize("game", sorted(DAMAGED_SEATS))
def test_a_damaged_record_stops_where_python_stops(game: str) -> None:
    """The model refuses what the rules refuse: the replay stops at the same step, in the same
    words (or does not start, in the same words)."""
    records = damaged(random_record(game, 11, DAMAGED_SEATS[game], {}, chooser=3))
    refused = [reference(r).error for r in records]
    assert all(refused), refused  # each one is refused by the Python viewer
    diffs, _steps, _longest = check(records)
    assert not diffs, "\n".join(diffs)
