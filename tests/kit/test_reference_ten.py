"""The reference bot's Ten (bots/reference/ten): its rules are the kit's, as generated today; its
game on plain lists (``fast``) plays exactly as the rules do, and its port of the bundled
heuristic chooses exactly as bots/heuristic/ten.py does; it passes the conformance check, answers
in time with a small decision time, and replays the same with a fixed budget."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.games import get_game
from arena.games.ten import CARDS, Kind, TenState, score_cards
from arena.kit.build import RULES, kit_files
from arena.league.config import GameConfig
from arena.match import MatchSpec, run_match
from arena.runtime.botproc import RunLimits, TimeLimits
from arena.runtime.manifest import load_bot
from arena.runtime.pool import BotPool
from benchmarks.sources import load_source

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "bots" / "reference"
_loaded = itertools.count()


def load_package() -> Any:
    """bots/reference/ten (with its rules), under a name of its own."""
    return load_source(REFERENCE / "ten")


def load_module(path: Path) -> Any:
    return load_source(path)


@pytest.fixture(scope="module")
def ten() -> ModuleType:
    return load_package()  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def heuristic() -> ModuleType:
    return load_module(ROOT / "bots" / "heuristic" / "ten.py")  # type: ignore[no-any-return]


def test_the_committed_rules_are_what_the_kit_writes_today() -> None:
    """On a change of the arena's rules, regenerate: ``arena kit ten DIR`` and copy DIR/rules to
    bots/reference/ten/rules."""
    expected = {
        path.removeprefix(f"{RULES}/"): text
        for path, text in kit_files("ten", "python", "reference").items()
        if path.startswith(f"{RULES}/")
    }
    folder = REFERENCE / "ten" / RULES
    committed = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.py")}
    assert sorted(committed) == sorted(expected)
    for name, text in expected.items():
        assert committed[name] == text, f"{folder / name} is stale: regenerate it"


def test_the_manifest_claims_ten() -> None:
    assert "ten" in (load_bot(str(REFERENCE)).games or ())


def same_position(state: TenState, sim: Any, fast: Any) -> None:
    """``sim`` holds what ``state`` holds (the draw pile in the same order)."""
    codes = fast.CODES

    def cards(counts: list[int]) -> list[str]:
        return sorted(codes[i] for i, n in enumerate(counts) for _ in range(n))

    decision = None if state.decision is None else fast.DECISIONS[str(state.decision)]
    assert (fast.OVER if decision is None else decision) == sim.decision
    assert [codes[c] for c in sim.pile] == state.draw_pile
    assert [codes[c] for c in sim.tableau] == state.tableau
    assert (sim.tab_num, sim.tab_cur) == state.tableau_sums()
    assert cards(sim.market) == sorted(state.market)
    assert [cards(c) for c in sim.cnt] == [sorted(c) for c in state.collected]
    assert sim.held == [len(c) for c in state.collected]
    assert (sim.currency, sim.busts) == (state.currency, state.busts)
    assert (sim.active, sim.turn) == (state.active, state.turn)
    assert (None if sim.wild < 0 else codes[sim.wild]) == state.wild
    assert (sim.bidders, sim.high_bid) == (state.bidders, state.high_bid)
    assert (None if sim.high_bidder < 0 else sim.high_bidder) == state.high_bidder
    assert (None if sim.payer < 0 else sim.payer, sim.owed) == (state.payer, state.owed)
    assert (None if sim.purchase < 0 else codes[sim.purchase]) == state.purchase
    assert (None if sim.buyer < 0 else sim.buyer) == state.buyer
    assert sim.final_buyers == state.final_buyers
    assert sim.points() == state.points()


@pytest.mark.parametrize("options", [{}, {"start_tokens": 0, "token_cap": 4}, {"token_cap": 20}])
def test_the_fast_game_plays_as_the_rules_do_step_for_step(
    ten: Any, heuristic: Any, options: dict[str, Any]
) -> None:
    """Whole games at 1-5 seats, each action by the heuristic or at random: after every step
    the plain lists hold the rules' position, the deciding seat and its legal actions (in the
    rules' order) agree, and the port of the heuristic picks what bots/heuristic/ten.py picks.
    At the end, the points and the places agree."""
    fast = ten.fast
    game = get_game("ten")
    for seed in range(10):
        state = game.new(seed, 1 + seed % 5, options)
        assert isinstance(state, TenState)
        sim = fast.Sim.from_state(state)
        rng = random.Random(seed)
        wild = 0.5 if seed % 2 else 0.1
        while not state.is_over():
            same_position(state, sim, fast)
            (seat,) = state.to_move()
            assert sim.deciding() == seat
            legal = state.legal(seat)
            decision = sim.decision
            assert [fast.to_rules(decision, a) for a in sim.legal()] == legal
            assert [fast.from_rules(decision, a) for a in legal] == sim.legal()
            choice = legal[heuristic.choose(state.observation(seat), legal)]
            assert fast.to_rules(decision, sim.heuristic()) == choice
            action = rng.choice(legal) if rng.random() < wild else choice
            state.apply(seat, action)
            sim.apply(fast.from_rules(decision, action))
        same_position(state, sim, fast)
        assert sim.ranks() == list(state.result().ranks)


def test_the_fast_scorer_agrees_with_the_rules(ten: Any) -> None:
    """Random collections heavy in wilds (numbered wilds, the full wild, colour wilds) score as
    the rules' ``score_cards`` scores them."""
    fast = ten.fast
    rng = random.Random(4)
    numbers = [c for c in CARDS if CARDS[c].kind is Kind.NUMBER]
    wilds = [c for c in CARDS if CARDS[c].is_wild]
    for _ in range(3000):
        cards = rng.sample(numbers, rng.randrange(0, 20))
        cards += rng.sample(wilds, rng.randrange(0, 9))
        cards += [c for c in ("R*", "B*") if rng.random() < 0.2]  # a second colour wild
        key = 0
        counts: dict[str, int] = {}
        for code in cards:
            card = fast.ID[code]
            if not counts.get(code) or fast.KIND[card] == fast.COLOUR_WILD:
                key += fast.BIT[card]
            counts[code] = counts.get(code, 0) + 1
        assert fast.score_of(key) == score_cards(cards), cards


def decisions(seed: int, seat: int = 0) -> list[tuple[dict[str, Any], list[Any], dict[str, Any]]]:
    """Every decision of ``seat`` in a 3-seat game of heuristic players (observation, legal,
    options)."""
    heuristic = load_module(ROOT / "bots" / "heuristic" / "ten.py")
    state = get_game("ten").new(seed, 3)
    seen = []
    while not state.is_over():
        (mover,) = state.to_move()
        legal = state.legal(mover)
        observation = state.observation(mover)
        if mover == seat:
            seen.append((observation, legal, dict(state.options)))
        state.apply(mover, legal[heuristic.choose(observation, legal)])
    return seen


def test_with_a_fixed_budget_a_match_replays_the_same(ten: Any) -> None:
    """Seeded from the match id, the seat and the decision's number: the same decisions with
    the same budget give the same choices, and the search did search."""
    plenty = {"decision_ms": 10**7, "bank_ms": 0}
    seen = decisions(3)[::4]

    def play(match_id: str) -> tuple[list[int], list[int]]:
        searcher = ten.Searcher(match_id, 0)
        choices = [searcher.choose(o, legal, opts, plenty, 6) for o, legal, opts in seen]
        return choices, list(searcher.worlds_used)

    first, used = play("match-7")
    assert play("match-7") == (first, used)
    assert any(used)


def test_with_no_time_left_it_plays_the_heuristics_choice(ten: Any, heuristic: Any) -> None:
    searcher = ten.Searcher("m", 0)
    for observation, legal, options in decisions(5):
        index = searcher.choose(observation, legal, options, {"decision_ms": 0, "bank_ms": 0})
        assert index == heuristic.choose(observation, legal)
    assert set(searcher.worlds_used) == {0}


def test_the_reference_bot_passes_the_conformance_check_in_ten() -> None:
    from arena.league.conformance import check_bot

    report = check_bot(load_bot(str(REFERENCE)), matches=1, tables=[GameConfig("ten", (3,))])
    assert report.passed, [
        (f.status, f.message, f.stderr_tail) for g in report.games for f in g.faults()
    ]
    assert [g.game for g in report.games] == ["ten"]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_it_never_answers_late_with_a_small_decision_time() -> None:
    """250 ms per decision and a bank of 1 s per match: the search stops by its deadline, so over
    whole matches the bank never runs out (2 heuristic opponents, the bot in each seat). The bank
    is there for the machine, not the bot: on a loaded machine a reply written in time but read
    late by a starved parent would otherwise be a timeout."""
    reference = load_bot(str(REFERENCE))
    opponent = load_bot(str(ROOT / "bots" / "heuristic"))
    limits = RunLimits(time=TimeLimits(decision=0.25, bank=1.0))
    with BotPool(limits) as pool:
        for k in range(3):
            seating = [opponent] * 2
            seating.insert(k, reference)
            record = run_match(MatchSpec(f"late-ten-{k}", "ten", k, tuple(seating)), pool)
            assert not record.faults, record.faults
            assert record.decisions[k]["count"] > 0
