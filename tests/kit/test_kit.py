"""Starter kits: the forward model a Python kit carries agrees with the arena step for step, its
sampled worlds are consistent with what the seat saw and uniform over the unseen cards, and the
kit bot passes the conformance check as a real process."""

from __future__ import annotations

import itertools
import json
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from arena.games import GAMES, JSON, State, get_game
from arena.kit import KitError, write_kit
from arena.kit.build import rewrite_imports
from benchmarks.sources import load_source
from tests.games.playouts import canonical

_loaded = itertools.count()


@pytest.fixture(scope="module")
def kits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A Python kit per game, written once."""
    root = tmp_path_factory.mktemp("kits")
    return {game: write_kit(game, "python", root / game)[0].parent for game in GAMES}


def load_rules(folder: Path) -> Any:
    """The kit's ``rules`` package, imported under a name of its own (no clash with arena's)."""
    return load_source(folder / "rules", f"kit_rules_{next(_loaded)}")


@pytest.fixture(scope="module")
def models(kits: dict[str, Path]) -> dict[str, ModuleType]:
    return {game: load_rules(folder) for game, folder in kits.items()}


def views(state: Any) -> str:
    """Everything the interface shows of a position, the log included, as one text."""
    return canonical(
        {
            "to_move": state.to_move(),
            "legal": [state.legal(s) for s in range(state.seats)],
            "observations": [state.observation(s) for s in range(state.seats)],
            "snapshot": state.snapshot(),
            "log": [[audience, event] for audience, event in state.log],
            "over": state.is_over(),
            "result": state.result().to_json() if state.is_over() else None,
        }
    )


AGREEMENT = [
    ("take5", 4, {}),
    ("take5", 6, {"professional": True, "max_rounds": 2}),
    ("take5", 3, {"tactics": True, "more_than": True}),
    ("ten", 1, {}),
    ("ten", 3, {}),
    ("ten", 5, {"start_tokens": 2, "token_cap": 4}),
    ("phase10", 2, {"max_hands": 3}),
    ("phase10", 4, {"max_hands": 2, "skip_next": True, "final_discard": True}),
    ("phase10", 3, {"pick_phase": True, "hit_others_same_turn": False, "max_hands": 2}),
]


@pytest.mark.parametrize(("game", "seats", "options"), AGREEMENT)
def test_the_kits_model_plays_exactly_as_the_arena(
    models: dict[str, Any], game: str, seats: int, options: dict[str, JSON]
) -> None:
    model = models[game]
    for seed in (1, 2):
        arena_state = get_game(game).new(seed, seats, options)
        kit_state = model.new_game(seed, seats, options)
        assert type(kit_state).__module__.startswith("kit_rules_")
        rng = random.Random(seed)
        while not arena_state.is_over():
            assert views(kit_state) == views(arena_state)
            seat = rng.choice(arena_state.to_move())
            action = rng.choice(arena_state.legal(seat))
            arena_state.apply(seat, action)
            kit_state.apply(seat, action)
        assert views(kit_state) == views(arena_state)
        assert kit_state.rng.getstate() == arena_state.rng.getstate()


def test_the_kits_model_restores_the_arenas_snapshots(models: dict[str, Any]) -> None:
    for game, model in models.items():
        state = get_game(game).new(4, 3)
        for _ in range(30):
            seat = state.to_move()[0]
            state.apply(seat, state.legal(seat)[-1])
        restored = model.from_snapshot(json.loads(json.dumps(state.snapshot())))
        assert restored.snapshot() == state.snapshot()
        with pytest.raises(model.SnapshotError, match="missing 'seed'"):
            model.from_snapshot({k: v for k, v in state.snapshot().items() if k != "seed"})


BLOCKER = """
import sys

class Blocked:
    '''Refuses the arena and the compiler's helpers: the kit must live without them.'''

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("arena", "mypy_extensions"):
            raise ImportError(f"the kit imported {name}")
        return None

sys.meta_path.insert(0, Blocked())
sys.path.insert(0, sys.argv[1])
import random
import re
import rules

state = rules.new_game(3, 3, {"max_hands": 1} if rules.GAME == "phase10" else {})
rng = random.Random(0)
while not state.is_over():
    seat = state.to_move()[0]
    world = rules.sample_world(state.observation(seat), state.options, rng, state.events_for(seat))
    state.apply(seat, rng.choice(state.legal(seat)))
print(rules.GAME, state.result().ranks)
"""


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_rules_package_needs_neither_arena_nor_mypy_extensions(
    kits: dict[str, Path], game: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-E", "-c", BLOCKER, str(kits[game])],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=kits[game].parent,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(game)
    for path in (kits[game] / "rules").glob("*.py"):
        assert "import arena" not in path.read_text() and "from arena" not in path.read_text()


# -- sampled worlds --------------------------------------------------------------------------


def positions(game: str, seats: int, options: dict[str, JSON], seed: int) -> Iterator[State]:
    """Every position of a random game."""
    state = get_game(game).new(seed, seats, options)
    rng = random.Random(seed)
    while not state.is_over():
        yield state
        seat = rng.choice(state.to_move())
        state.apply(seat, rng.choice(state.legal(seat)))
    yield state


WORLDS = [
    ("take5", 4, {}, 5),
    ("take5", 3, {"professional": True, "tactics": True}, 5),
    ("ten", 3, {}, 5),
    ("ten", 2, {"token_cap": 3}, 5),
    ("phase10", 3, {"max_hands": 3}, 5),
    ("phase10", 2, {"pick_phase": True, "hit_others_same_turn": False, "max_hands": 4}, 5),
    ("phase10", 4, {"all_advance": True, "first_phases": 1, "max_turns": 1}, 10),  # tie-breaks
]


@pytest.mark.parametrize(("game", "seats", "options", "seed"), WORLDS)
def test_a_sampled_world_shows_the_seat_exactly_what_it_saw(
    models: dict[str, Any], game: str, seats: int, options: dict[str, JSON], seed: int
) -> None:
    """Its observation, and (at its decisions, given its events) its legal actions, unchanged;
    in Phase 10 without the events too, observations and all."""
    sample_world = models[game].sample_world
    rng = random.Random(7)
    for state in positions(game, seats, options, seed):
        for seat in range(seats):
            seen = json.loads(json.dumps(state.observation(seat)))
            events = json.loads(json.dumps(state.events_for(seat)))
            world = sample_world(seen, state.options, rng, events)
            assert canonical(world.observation(seat)) == canonical(seen)
            assert world.legal(seat) == state.legal(seat)
            if game != "take5":  # in Take 5 the others' choices this trick are not seen
                assert world.to_move() == state.to_move()
            bare = sample_world(seen, state.options, rng)
            assert canonical(bare.observation(seat)) == canonical(seen)


def chi_square(counts: Counter[Any], expected: dict[Any, float]) -> float:
    return sum((counts[k] - e) ** 2 / e for k, e in expected.items())


def loose_bound(cells: int) -> float:
    """Far above chance for ``cells - 1`` degrees of freedom (mean d, sd sqrt(2d)): 6 sd."""
    freedom = cells - 1
    return float(freedom + 6 * (2 * freedom) ** 0.5)


SAMPLES = 3000


def test_take5_worlds_deal_the_unseen_cards_uniformly(models: dict[str, Any]) -> None:
    state = get_game("take5").new(11, 4)
    seen = state.observation(0)
    unseen = [c for c in range(1, 105) if c not in seen["hand"] and [c] not in seen["rows"]]
    assert len(unseen) == 90
    rng = random.Random(3)
    counts: Counter[int] = Counter()
    for _ in range(SAMPLES):
        world = models["take5"].sample_world(seen, state.options, rng)
        counts.update(world.hands[2])
        assert not set(world.hands[2]) & set(seen["hand"])
    assert set(counts) <= set(unseen)
    expected = dict.fromkeys(unseen, SAMPLES * 10 / 90)
    assert chi_square(counts, expected) < loose_bound(len(unseen))


def test_phase10_worlds_deal_the_unseen_cards_uniformly(models: dict[str, Any]) -> None:
    """Seat 1's hand, apart from the card it openly took, holds each unseen card in proportion
    to its copies left (the full deck less seat 0's hand, the discard pile and that card)."""
    spec = get_game("phase10")
    state = spec.new(6, 3)
    while True:  # play until some seat other than 0 has taken from the discard pile
        seat = state.to_move()[0]
        legal = state.legal(seat)
        state.apply(seat, "take" if seat == 1 and "take" in legal else legal[-1])
        if any(state.observation(0)["known"][1:]):
            break
    seen = json.loads(json.dumps(state.observation(0)))
    events = state.events_for(0)
    rng = random.Random(4)
    counts: Counter[str] = Counter()
    known = Counter(seen["known"][1])
    for _ in range(SAMPLES):
        world = models["phase10"].sample_world(seen, state.options, rng, events)
        hand = Counter(world.hands[1])
        assert hand & known == known
        counts.update(hand - known)
    snapshot = state.snapshot()
    pool = Counter(snapshot["draw_pile"]) + Counter(snapshot["hands"][1]) - known
    pool += Counter(snapshot["hands"][2])
    size = sum(pool.values())
    drawn = seen["hand_sizes"][1] - len(seen["known"][1])
    expected = {card: SAMPLES * drawn * copies / size for card, copies in pool.items()}
    assert set(counts) <= set(pool)
    assert chi_square(counts, expected) < loose_bound(len(pool))


def test_ten_worlds_shuffle_the_draw_pile_uniformly(models: dict[str, Any]) -> None:
    """Every card still to draw is as likely as its copies to be next: an exact list of cells."""
    state = get_game("ten").new(9, 3)
    seen = state.observation(0)
    rng = random.Random(5)
    counts: Counter[str] = Counter()
    for _ in range(SAMPLES):
        world = models["ten"].sample_world(seen, state.options, rng)
        assert Counter(world.draw_pile) == Counter(seen["unseen"])
        counts[world.draw_pile[-1]] += 1
    left = sum(seen["unseen"].values())
    expected = {code: SAMPLES * n / left for code, n in seen["unseen"].items()}
    assert chi_square(counts, expected) < loose_bound(len(expected))


# -- writing kits ----------------------------------------------------------------------------


def test_a_kit_lists_what_it_wrote(tmp_path: Path) -> None:
    python = write_kit("phase10", "python", tmp_path / "p10")
    names = sorted(str(p.relative_to(tmp_path / "p10")) for p in python)
    assert names == sorted(
        [
            "bot.toml",
            "bot.py",
            "arenabot.py",
            "rules/__init__.py",
            "rules/base.py",
            "rules/phase10.py",
            "rules/phase10_groups.py",
            "rules/world.py",
        ]
    )
    assert all(p.is_file() for p in python)
    assert 'games = ["phase10"]' in (tmp_path / "p10" / "bot.toml").read_text()
    assert 'name = "p10"' in (tmp_path / "p10" / "bot.toml").read_text()
    js = write_kit("ten", "js", tmp_path / "a b")
    assert sorted(p.name for p in js) == ["bot.js", "bot.toml"]
    assert 'name = "ten-bot"' in (tmp_path / "a b" / "bot.toml").read_text()


def test_unknown_games_languages_and_used_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(KitError, match=r"unknown game 'take6' .*did you mean 'take5'\?"):
        write_kit("take6", "python", tmp_path / "a")
    with pytest.raises(KitError, match=r"unknown language 'pyton' \(languages: python, js\)"):
        write_kit("ten", "pyton", tmp_path / "a")
    with pytest.raises(KitError, match=r"unknown game 'chess' .*phase10, take5, ten\)$"):
        write_kit("chess", "js", tmp_path / "a")
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "bot.py").write_text("mine\n")
    with pytest.raises(KitError, match="already exists and is not an empty folder"):
        write_kit("ten", "python", tmp_path / "used")
    assert (tmp_path / "used" / "bot.py").read_text() == "mine\n"
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize(
    "line",
    ["import arena.match", "from arena.match import run_match", "from arena import games"],
)
def test_a_rules_module_importing_more_of_the_arena_is_refused(line: str) -> None:
    with pytest.raises(KitError, match="the kit cannot carry"):
        rewrite_imports(f"from __future__ import annotations\n\n{line}\n", "arena/games/x.py")


def test_imports_are_rewritten_in_place() -> None:
    text = (
        "from arena.games.base import (\n    JSON,\n    State,\n)\n"
        "from mypy_extensions import mypyc_attr\n"
        "def f():\n    from arena.games.take5 import SPEC\n"
    )
    rewritten, needs = rewrite_imports(text, "x.py")
    assert rewritten.startswith("from .base import (\n    JSON,\n    State,\n)\ndef mypyc_attr(")
    assert "    from .take5 import SPEC\n" in rewritten
    assert sorted(needs) == ["base", "take5"]


# -- the kit bot, as a real process ------------------------------------------------------------


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("game", "lang"), [(g, "python") for g in sorted(GAMES)] + [("take5", "js")]
)
def test_a_kit_bot_passes_the_conformance_check(tmp_path: Path, game: str, lang: str) -> None:
    from arena.league.conformance import check_bot
    from arena.runtime.manifest import load_bot

    if lang == "js" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    folder = tmp_path / "bot"
    write_kit(game, lang, folder)
    for path in [tmp_path, *folder.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)  # the sandbox may run the bot under a uid of its own
    report = check_bot(load_bot(str(folder)), matches=1)
    assert report.passed, [
        (f.status, f.message, f.stderr_tail) for g in report.games for f in g.faults()
    ]
    assert [g.game for g in report.games] == [game]


def test_the_guides_monte_carlo_example_plays(models: dict[str, Any]) -> None:
    """protocol/WRITING_A_BOT.md's determinized Monte-Carlo ``choose`` runs on the kit's rules
    and always answers an index into ``legal``."""
    guide = Path(__file__).resolve().parents[2] / "protocol" / "WRITING_A_BOT.md"
    code = re.findall(r"```python\n(def choose\(.*?)```", guide.read_text(), re.S)[0]
    namespace: dict[str, Any] = {"rules": models["take5"], "rng": random.Random(1)}
    exec(code.replace("range(20)", "range(2)"), namespace)
    state = get_game("take5").new(3, 2, {"max_rounds": 1})
    while not state.is_over():
        for seat in state.to_move():
            legal = state.legal(seat)
            match = SimpleNamespace(seat=seat, options=state.options, events=state.events_for(seat))
            index = namespace["choose"](state.observation(seat), legal, match)
            assert 0 <= index < len(legal)
            state.apply(seat, legal[index])
            break
