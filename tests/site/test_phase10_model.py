"""Phase 10's replay model (templates/static/models/phase10.js) refuses what the rules refuse:
its check of each action against the rules' legal list at every decision of random games, and
damaged records, which must stop where the Python viewer stops, in its words.

(tests/site/test_models.py checks the model's tables, events and words over whole games.)"""

from __future__ import annotations

import copy
import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from arena.games import JSON, Action, get_game
from arena.games.phase10 import Phase10State, is_listed
from arena.games.phase10_groups import COLOURS, full_deck
from tests.site.jsmodel import NODE, check, random_record, reference

pytestmark = pytest.mark.skipif(NODE is None, reason="node not installed (apt-get install nodejs)")

MODELS = Path(__file__).parents[2] / "templates" / "static" / "models"
CODES = sorted(set(full_deck()))

OPTION_SETS: list[dict[str, JSON]] = [
    {},
    {"final_discard": True},
    {"natural_per_phase": True},
    {"pick_phase": True, "natural_per_phase": True, "final_discard": True},
    {"hit_others_same_turn": False, "skip_next": True},
]


def candidates(state: Phase10State) -> list[Action]:
    """Actions to ask about at a decision: every shape the rules know, legal or not."""
    out: list[Action] = ["draw", "take", "end"]
    hand = state.hands[state.turn]
    if state.step.value == "lay":
        for kind in ("set", "run"):
            out += [{kind: k} for k in range(14)]
        out += [{"colour": c} for c in [*COLOURS, "X"]]
        out += [{"add": c} for c in CODES]
    elif state.step.value == "play":
        out += [{"lay": p} for p in range(12)]
        for g in range(len(state.table) + 1):
            for c in sorted({*hand, "R1", "W"}):
                out.append({"hit": g, "card": c})
                out += [{"hit": g, "card": c, "end": end} for end in ("low", "high")]
        for c in sorted({*hand, "R1"}):
            out.append({"discard": c})
            out += [{"discard": c, "target": t} for t in range(-1, state.seats + 1)]
    return out


def legality_cases(games: int) -> list[dict[str, Any]]:
    """Random games, each with the candidates asked at its decisions and the rules' answers."""
    cases = []
    for i in range(games):
        options = OPTION_SETS[i % len(OPTION_SETS)]
        seats = 2 + i % 5
        state = get_game("phase10").new(800 + i, seats, options)
        assert isinstance(state, Phase10State)
        rng = random.Random(i)
        actions: list[list[JSON]] = []
        checks: list[list[JSON]] = []
        while not state.is_over() and len(actions) < 1500:
            legal = state.legal(state.turn)
            if state.step.value != "draw" or len(actions) % 7 == 0:
                checks += [[len(actions), a, is_listed(a, legal)] for a in candidates(state)]
            action = legal[rng.randrange(len(legal))]
            actions.append([state.turn, action])
            state.apply(state.turn, action)
        cases.append(
            {
                "seed": str(800 + i),
                "seats": seats,
                "options": options,
                "actions": actions,
                "checks": checks,
            }
        )
    return cases


ASK = """
globalThis.window = globalThis;
require(%s);
require(%s);
const m = window.arenaModels.phase10;
const out = [];
for (const c of JSON.parse(require("fs").readFileSync(0, "utf8"))) {
  const [st] = m.start(c.seed, c.seats, c.options);
  let k = 0;
  for (let step = 0; step <= c.actions.length; step++) {
    for (; k < c.checks.length && c.checks[k][0] === step; k++) {
      out.push(m._allows(st, st.turn, c.checks[k][1]));
    }
    if (step < c.actions.length) m.apply(st, c.actions[step][0], c.actions[step][1]);
  }
}
console.log(JSON.stringify(out));
"""


def test_the_model_allows_what_the_rules_list(tmp_path: Path) -> None:
    """At decisions of random games (every option that changes legality), each candidate action
    is legal in the model exactly when the rules list it (the lay-down's feasibility search
    included). The model's check is reached through a copy that exposes it."""
    source = (MODELS / "phase10.js").read_text("utf-8")
    hook = "    clone: clone,\n"
    assert source.count(hook) == 1
    exposed = tmp_path / "phase10.js"
    exposed.write_text(source.replace(hook, hook + "    _allows: allows,\n"), "utf-8")
    cases = legality_cases(5)
    expected = [c[2] for case in cases for c in case["checks"]]
    script = ASK % (json.dumps(str(MODELS / "rng.js")), json.dumps(str(exposed)))
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", script], input=json.dumps(cases).encode(), capture_output=True, check=True
    )
    got = json.loads(done.stdout)
    assert len(got) == len(expected) and sum(expected) > 1000
    wrong = [c for case in cases for c in case["checks"]]
    wrong = [(w, g) for w, g in zip(wrong, got, strict=True) if w[2] != g]
    assert not wrong, wrong[:5]


def damaged(record: dict[str, JSON], rng: random.Random) -> dict[str, JSON]:
    """``record`` with one action replaced by a later one, by a bogus one, or given to the
    next seat, at a lay-down step or a hit more often than not, and cut 30 actions later."""
    out = copy.deepcopy(record)
    actions: list[list[Any]] = out["actions"]  # type: ignore[assignment]
    laying = [i for i, (_s, a) in enumerate(actions) if a == "end" or "discard" not in a]
    laying = [i for i in laying if actions[i][1] not in ("draw", "take")]
    at = rng.choice(laying) if laying and rng.random() < 0.7 else rng.randrange(len(actions))
    how = rng.randrange(3)
    if how == 0:
        actions[at][1] = copy.deepcopy(actions[min(len(actions) - 1, at + rng.randrange(1, 6))][1])
    elif how == 1:
        actions[at][1] = {"no such": "action"}
    else:
        actions[at][0] = (actions[at][0] + 1) % len(out["seats"])  # type: ignore[arg-type]
    out["actions"] = actions[: at + 30]
    return out


def test_a_damaged_record_stops_where_the_python_viewer_stops() -> None:
    rng = random.Random(3)
    records = []
    for i in range(8):
        options = {**OPTION_SETS[i % len(OPTION_SETS)], "first_phases": 3}
        base = random_record("phase10", 600 + i, 2 + i % 5, options, chooser=i)
        records += [damaged(base, rng) for _ in range(3)]
    stopped = [r for r in records if reference(r).error]
    assert len(stopped) > len(records) // 2
    diffs, _steps, _longest = check(records)
    assert not diffs, "\n".join(diffs)
