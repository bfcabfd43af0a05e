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
from tests.site.jsmodel import NODE, check, random_record

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
