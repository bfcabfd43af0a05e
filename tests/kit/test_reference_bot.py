"""The reference bot (bots/reference): its rules are the kit's, as generated today; its fast
playouts place cards exactly as the rules do; it passes the conformance check, answers in time
with a small decision time, and replays the same with a fixed sample budget."""

from __future__ import annotations

import itertools
import random
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.games import get_game
from arena.kit.build import RULES, kit_files
from arena.match import MatchSpec, run_match
from arena.runtime.botproc import RunLimits, TimeLimits
from arena.runtime.manifest import load_bot
from arena.runtime.pool import BotPool
from benchmarks.sources import load_source

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "bots" / "reference"
SEARCHED = ("take5", "ten", "phase10")
"""The games the reference bot searches in (its manifest's games)."""
_loaded = itertools.count()


def load_policy(game: str) -> Any:
    """The bot's package for ``game`` (with its rules), under a name of its own."""
    return load_copy(REFERENCE / game)


def load_copy(folder: Path) -> Any:
    """A package of the bot (or a copy of one) loaded under a new name."""
    return load_source(folder)


@pytest.fixture(scope="module")
def take5() -> ModuleType:
    return load_policy("take5")  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", SEARCHED)
def test_the_committed_rules_are_what_the_kit_writes_today(game: str) -> None:
    """The bot's forward model cannot drift from the arena's rules: on a change, regenerate
    it (``arena kit GAME DIR`` and copy DIR/rules to bots/reference/GAME/rules)."""
    expected = {
        path.removeprefix(f"{RULES}/"): text
        for path, text in kit_files(game, "python", "reference").items()
        if path.startswith(f"{RULES}/")
    }
    folder = REFERENCE / game / RULES
    committed = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.py")}
    assert sorted(committed) == sorted(expected)
    for name, text in expected.items():
        assert committed[name] == text, f"{folder / name} is stale: regenerate it"


def test_the_manifest_claims_the_searched_games_and_arenabot_is_current() -> None:
    bot = load_bot(str(REFERENCE))
    assert bot.name == "reference"
    assert bot.games == SEARCHED
    original = (ROOT / "bots" / "arenabot.py").read_text()
    assert (REFERENCE / "arenabot.py").read_text() == original


@pytest.mark.parametrize("options", [{}, {"professional": True}, {"tactics": True}])
def test_a_playout_places_cards_as_the_rules_do(take5: Any, options: dict[str, Any]) -> None:
    """Random tricks played in the rules and in the playout's plain lists leave the same rows
    and the same heads (a card too low takes the cheapest row in both)."""
    game = get_game("take5")
    for seed in range(30):
        state = game.new(seed, 2 + seed % 5, options)
        rng = random.Random(seed)
        seen, _ = take5.Searcher.seen_cards(state.observation(0), state.options)
        play = take5.Round(state.rows, state.hands, seen, bool(options.get("professional")))
        start = list(state.round_heads)
        while state.round == 1 and not state.is_over():
            cards = [rng.choice(state.hands[s]) for s in range(state.seats)]
            for seat, card in enumerate(cards):
                state.apply(seat, card)
                play.hands[seat].remove(card)
            while state.row_chooser is not None:
                heads = [sum(take5.HEADS[c] for c in r) for r in state.rows]
                state.apply(state.row_chooser, take5.pick_row(state.rows, heads))
            play.resolve(cards)
            if state.round == 1:
                assert play.rows == state.rows, seed
            gained = [h - s for h, s in zip(state.round_heads, start, strict=True)]
            if state.round == 1:
                assert play.heads == gained, seed


@pytest.mark.parametrize("options", [{}, {"tactics": True}])
def test_a_plain_playout_of_random_seats_plays_out_the_round_as_the_rules_do(
    take5: Any, options: dict[str, Any]
) -> None:
    """The standard placement's playout loop with every seat wild: replaying its draws (a card
    from each hand in seat order, then a row at random for a card too low) in the rules leaves
    the same heads for the round."""
    game = get_game("take5")
    for seed in range(30):
        state = game.new(seed, 2 + seed % 5, options)
        seen, _ = take5.Searcher.seen_cards(state.observation(0), state.options)
        seats = frozenset(range(state.seats))
        play = take5.Round(state.rows, state.hands, seen, False, seats, random.Random(seed))
        play.play_out()
        assert all(not hand for hand in play.hands)
        replay = random.Random(seed)
        start = list(state.totals)
        while state.round == 1 and not state.is_over():
            hands = [sorted(state.hands[s]) for s in range(state.seats)]
            cards = [hand[int(replay.random() * len(hand))] for hand in hands]
            for seat, card in enumerate(cards):
                state.apply(seat, card)
            while state.row_chooser is not None:
                state.apply(state.row_chooser, int(replay.random() * len(state.rows)))
        gained = [t - s for t, s in zip(state.totals, start, strict=True)]
        assert play.heads == gained, seed


def test_a_plain_playout_of_rule_players_agrees_with_trick_by_trick_resolution(
    take5: Any,
) -> None:
    """With no wild seat, the standard placement's loop gives the same heads as the rule's
    choices resolved trick by trick (:meth:`Round.resolve`, which the rules check), a forced
    first card included."""
    game = get_game("take5")
    for seed in range(40):
        state = game.new(seed, 2 + seed % 5)
        seen, _ = take5.Searcher.seen_cards(state.observation(0), state.options)
        forced = {0: state.hands[0][seed % len(state.hands[0])]}
        fast = take5.Round(state.rows, state.hands, seen, False)
        fast.play_out(forced)
        slow = take5.Round(state.rows, state.hands, seen, False)
        slow.resolve(slow.choices(forced))
        while slow.hands[0]:
            slow.resolve(slow.choices({}))
        assert fast.heads == slow.heads, seed


def playout_position(
    seed: int, take5: Any
) -> tuple[Any, list[int], frozenset[int], dict[int, int]]:
    """A position some random tricks into round 1 (2-10 seats, a quarter with tactics), with
    some seats wild and maybe one seat's first card forced: a state, its unseen flags, the wild
    seats and the forced card."""
    rng = random.Random(seed)
    seats = 2 + seed % 9
    state = get_game("take5").new(seed, seats, {"tactics": True} if seed % 4 == 3 else {})
    for _ in range(rng.randrange(6)):
        if state.round != 1 or state.is_over():
            break
        for seat in range(seats):
            state.apply(seat, rng.choice(state.hands[seat]))
        while state.row_chooser is not None:
            state.apply(state.row_chooser, rng.randrange(len(state.rows)))
    seen, _ = take5.Searcher.seen_cards(state.observation(0), state.options)
    wild = frozenset(s for s in range(seats) if rng.random() < 0.5)
    forced: dict[int, int] = {}
    if state.round == 1 and not state.is_over() and rng.random() < 0.7:
        seat = rng.randrange(seats)
        forced[seat] = rng.choice(state.hands[seat])
    return state, take5.unseen_flags(seen), wild, forced


def test_the_c_playout_loop_plays_exactly_as_the_python_one(take5: Any) -> None:
    """``playout.c`` (built with the arena as ``_playout``) against :meth:`Round.play_plain`'s
    own Python loop: the same heads, hands and unseen flags after the round, from the same
    draws (replayed :class:`Noise` and a seeded generator), in 1,500 positions."""
    if take5.FAST is None:
        pytest.skip("the C playout loop is not built here (no compiler, or ARENA_PURE_PYTHON=1)")
    fast = take5.FAST
    compared = 0
    try:
        for seed in range(1500):
            state, flags, wild, forced = playout_position(seed, take5)
            if state.round != 1 or state.is_over():
                continue
            hands = [sorted(h) for h in state.hands]
            noise = random.Random(-seed)
            values = [noise.random() for _ in range(len(hands[0]) * (len(wild) + 1))]
            outcomes = []
            for loop in (fast, None):
                take5.FAST = loop
                for draws in (take5.Noise(values), random.Random(seed)):
                    play = take5.Round(state.rows, hands, flags, False, wild, draws, True)
                    play.play_out(dict(forced))
                    outcomes.append((play.heads, play.hands, play.unseen))
            assert outcomes[:2] == outcomes[2:], seed
            assert all(not hand for hand in outcomes[0][1]), seed
            compared += 1
    finally:
        take5.FAST = fast
    assert compared > 1000


def test_a_c_loop_built_from_another_playout_c_is_not_used(tmp_path: Path) -> None:
    """The module's compiled-in digest must match the ``playout.c`` beside it: a copy of the
    bot's package whose source was edited after the build plays its Python loop."""
    built = sorted((REFERENCE / "take5").glob("_playout.*"))
    if not built:
        pytest.skip("the C playout loop is not built here (no compiler, or ARENA_PURE_PYTHON=1)")
    folder = tmp_path / "take5"
    shutil.copytree(REFERENCE / "take5", folder, ignore=shutil.ignore_patterns("__pycache__"))
    assert load_copy(folder).FAST is not None
    with (folder / "playout.c").open("a") as source:
        source.write("/* edited */\n")
    assert load_copy(folder).FAST is None
    (folder / "playout.c").unlink()
    assert load_copy(folder).FAST is None


def test_in_the_sandbox_the_bot_plays_its_c_loop(tmp_path: Path, take5: Any) -> None:
    """The built module loads where the bot runs (its folder bound into the sandbox, the
    arena's interpreter): a copy of the bot that exits at start without it passes the check."""
    if take5.FAST is None:
        pytest.skip("the C playout loop is not built here (no compiler, or ARENA_PURE_PYTHON=1)")
    from arena.league.conformance import check_bot

    folder = tmp_path / "reference"
    shutil.copytree(
        REFERENCE, folder, ignore=shutil.ignore_patterns("__pycache__", "ten", "phase10")
    )
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('"take5", "ten", "phase10"', '"take5"'))
    with (folder / "take5" / "__init__.py").open("a") as package:
        package.write('\nif FAST is None:\n    raise SystemExit("no C playouts")\n')
    report = check_bot(load_bot(str(folder)), matches=1)
    assert report.passed, [
        (f.status, f.message, f.stderr_tail) for g in report.games for f in g.faults()
    ]
    for built in (folder / "take5").glob("_playout.*"):
        built.unlink()
    assert not check_bot(load_bot(str(folder)), matches=1).passed


def test_worlds_are_redealt_from_the_kits_sample_keeping_what_the_seat_sees(take5: Any) -> None:
    """After the kit's first world, each world deals the same hidden cards again: this seat's
    hand unchanged, the others' hand sizes kept, no card twice, nothing seen dealt."""
    for observation, _legal, options in observations(11)[::7]:
        seat = observation["seat"]
        rng = random.Random(1)
        deals = take5.Deals(take5.sample_world(observation, options, rng), seat, rng)
        first = deals.next()
        hidden = sorted(deals.hidden)
        shown = {c for r in observation["rows"] for c in r} | set(observation["hand"])
        for _ in range(5):
            hands = deals.next()
            assert hands[seat] == observation["hand"]
            assert [len(h) for h in hands] == [len(h) for h in first]
            others = [c for s, h in enumerate(hands) if s != seat for c in h]
            assert len(set(others)) == len(others)
            assert set(others) <= set(hidden) and not set(others) & shown


def test_it_tells_random_opponents_from_heuristic_ones_by_the_cards_they_play(take5: Any) -> None:
    """Seats 1 and 3 play the heuristic, seat 2 at random: read from seat 0's events, only seat
    2 is taken to play at random (in the playouts, the others play the heuristic)."""
    heuristic = load_module(ROOT / "bots" / "heuristic" / "take5.py")
    game = get_game("take5")
    verdicts = []
    for seed in range(8):
        state = game.new(seed, 4)
        rng = random.Random(seed)
        opponents = take5.Opponents(4, 0, 104)
        while state.round < 3 and not state.is_over():
            for mover in state.to_move():
                legal = state.legal(mover)
                if mover % 2:
                    index = heuristic.choose(state.observation(mover), legal)
                else:
                    index = rng.randrange(len(legal))
                state.apply(mover, legal[index])
            opponents.read(state.events_for(0))
        verdicts.append(opponents.wild())
    assert verdicts.count(frozenset({2})) >= 7, verdicts


def test_three_tricks_tell_a_random_opponent_from_a_heuristic_one(take5: Any) -> None:
    """Each card is weighed by its likelihood under the heuristic's rule and at random (not by
    the share of risky cards, which took rounds to tell a random player: it lost games against
    3 random ones by playing as if they were heuristics). After three tricks of the first round
    the random seat is nearly sure (odds > 0.9) in most games, the heuristic ones mostly not."""
    heuristic = load_module(ROOT / "bots" / "heuristic" / "take5.py")
    game = get_game("take5")
    random_told = heuristic_told = 0
    for seed in range(20):
        state = game.new(seed, 4)
        rng = random.Random(seed)
        while state.round == 1 and state.trick <= 3:
            for mover in state.to_move():
                legal = state.legal(mover)
                if mover % 2 or mover == 0:
                    index = heuristic.choose(state.observation(mover), legal)
                else:
                    index = rng.randrange(len(legal))
                state.apply(mover, legal[index])
        opponents = take5.Opponents(4, 0, 104)
        opponents.read(state.events_for(0))
        odds = opponents.random_odds()
        random_told += odds[2] > 0.9
        heuristic_told += (odds[1] < 0.5) + (odds[3] < 0.5)
    assert random_told >= 15
    assert heuristic_told >= 34


def test_a_row_taken_that_is_not_the_cheapest_counts_for_random_play(take5: Any) -> None:
    """The heuristic takes the cheapest row when its card is too low for every row; another
    row taken is evidence of random play, the cheapest one evidence against it."""
    opponents = take5.Opponents(4, 0, 104)
    opponents.read(
        [
            {"type": "round", "round": 1, "rows": [[10], [20, 55], [30], [40]]},
            {"type": "choose_row", "seat": 1, "row": 1},
            {"type": "choose_row", "seat": 2, "row": 0},
        ]
    )
    odds = opponents.random_odds()
    assert odds[1] > 0.9
    assert odds[2] < 0.3
    assert odds[0] == 0.0


def test_it_deals_heuristic_opponents_hands_that_would_have_played_as_they_did(
    take5: Any,
) -> None:
    """Seats 1 and 2 play the bundled heuristic, seat 3 at random. Read from seat 0's events, the
    heuristics' true hands fit their plays this round (the rule is replayed as they saw each
    trick), and so does every hand dealt to them; seat 3 is dealt at random (its true hand, and
    its plays, do not fit the rule)."""
    heuristic = load_module(ROOT / "bots" / "heuristic" / "take5.py")
    game = get_game("take5")
    checked = 0
    for seed in range(6):
        state = game.new(seed, 4)
        rng = random.Random(seed)
        opponents = take5.Opponents(4, 0, 104)
        while state.round < 3 and not state.is_over():
            opponents.read(state.events_for(0))
            history = opponents.history(frozenset({3}))
            if state.trick >= 4 and state.observation(0)["decision"] == "card":
                assert sorted(history) == [1, 2]
                for s in (1, 2):
                    assert take5.consistent(sorted(state.hands[s]), history[s])
                world = take5.sample_world(state.observation(0), state.options, rng)
                deals = take5.Deals(world, 0, rng, history)
                for _ in range(5):
                    hands = deals.next()
                    for s in deals.history:
                        assert take5.consistent(hands[s], history[s])
                    others = [c for h in hands[1:] for c in h]
                    assert len(set(others)) == len(others)
                    assert not set(others) & set(state.hands[0])
                    assert [len(h) for h in hands] == [len(h) for h in state.hands]
                checked += 1
            for mover in state.to_move():
                legal = state.legal(mover)
                if mover in (1, 2):
                    index = heuristic.choose(state.observation(mover), legal)
                else:
                    index = rng.randrange(len(legal))
                state.apply(mover, legal[index])
    assert checked > 20


def observations(
    seed: int, options: dict[str, Any] | None = None
) -> list[tuple[dict[str, Any], list[Any], dict[str, Any]]]:
    """Every decision of seat 0 in a game of random players: (observation, legal, options)."""
    game = get_game("take5")
    state = game.new(seed, 4, options or {})
    rng = random.Random(seed)
    seen = []
    while not state.is_over():
        for mover in state.to_move():
            legal = state.legal(mover)
            if mover == 0:
                seen.append((state.observation(0), legal, dict(state.options)))
            state.apply(mover, rng.choice(legal))
    return seen


def test_with_a_fixed_budget_a_match_replays_the_same(take5: Any) -> None:
    """Seeded from the match id, the seat and the decision's number: the same match with the
    same number of worlds per decision gives the same choices."""
    plenty = {"decision_ms": 10**7, "bank_ms": 0}
    decisions = observations(3)

    def play(match_id: str) -> tuple[list[int], list[int]]:
        searcher = take5.Searcher(match_id, 0)
        return [searcher.choose(o, legal, opts, plenty, 4) for o, legal, opts in decisions], list(
            searcher.worlds_used
        )

    first, used = play("match-7")
    assert play("match-7") == (first, used)
    assert used == [4 if len(legal) > 1 else 0 for _, legal, _ in decisions]


def test_with_no_time_left_it_plays_the_heuristics_choice_without_searching(take5: Any) -> None:
    heuristic = load_module(ROOT / "bots" / "heuristic" / "take5.py")
    searcher = take5.Searcher("m", 0)
    for observation, legal, options in observations(5):
        index = searcher.choose(observation, legal, options, {"decision_ms": 0, "bank_ms": 0})
        assert index == heuristic.choose(observation, legal)
    assert set(searcher.worlds_used) == {0}


def test_the_playouts_heuristic_prices_only_the_lowest_card_of_each_gap_and_agrees(
    take5: Any,
) -> None:
    """The bundled heuristic's choice, from every seat's observation in games of 2-6 random
    players (all cards priced there; only the lowest card of each gap between row ends here)."""
    heuristic = load_module(ROOT / "bots" / "heuristic" / "take5.py")
    game = get_game("take5")
    compared = 0
    for seed in range(12):
        state = game.new(seed, 2 + seed % 5)
        rng = random.Random(seed)
        searcher = take5.Searcher("m", 0)
        while not state.is_over():
            for mover in state.to_move():
                legal = state.legal(mover)
                observation = state.observation(mover)
                if observation["decision"] == "card":
                    mine = searcher.heuristic(observation, legal, state.options, False)
                    assert mine == heuristic.choose(observation, legal), (seed, observation)
                    compared += 1
                state.apply(mover, rng.choice(legal))
    assert compared > 500


def test_a_decisions_work_is_bounded_and_the_worse_half_drops_out(take5: Any) -> None:
    """However many cards and tricks are left, a decision plays out at most ``budget`` tricks,
    and nearly all of them; with ten cards to choose from, the last actions standing see more
    worlds than the budget would give all ten (successive halving)."""
    searcher = take5.Searcher("bounded", 0)
    plenty = {"decision_ms": 10**7, "bank_ms": 0}
    for observation, legal, options in observations(4):
        searcher.choose(observation, legal, options, plenty, budget=1500)
        tricks = max(1, len(observation["hand"]))
        assert searcher.tricks_played[-1] <= 1500
        if len(legal) == 10:
            assert searcher.worlds_used[-1] > 1500 // (10 * tricks)
            assert searcher.tricks_played[-1] > 1500 - 10 * tricks


def test_the_budget_is_the_c_loops_only_where_the_c_loop_plays(take5: Any) -> None:
    """With the C module the standard placement gets :data:`BUDGET` tricks a decision; the
    professional variant, whose playouts run in Python, keeps the Python loop's caps."""
    plenty = {"decision_ms": 10**7, "bank_ms": 0}
    worlds, budget = take5.PYTHON_CAPS
    for options, cap in (({"professional": True}, budget), ({}, take5.BUDGET)):
        searcher = take5.Searcher("caps", 0)
        for observation, legal, opts in observations(6, options)[:12]:
            searcher.choose(observation, legal, opts, plenty)
        assert max(searcher.tricks_played) <= cap
        assert max(searcher.tricks_played) > cap - 10 * 10  # nearly all of it, where searched
        if options:
            assert max(searcher.worlds_used) <= worlds


def test_every_action_in_a_world_sees_the_same_random_draws(take5: Any) -> None:
    """Paired: the random seats' draws of a world are made once and replayed to each action, so
    the same action twice in one world takes the same heads (and the draws do not run out)."""
    compared = 0
    for observation, legal, options in observations(6):
        if observation["decision"] != "card" or len(legal) < 2:
            continue
        searcher = take5.Searcher("paired", 0)
        seats = len(observation["totals"])
        searcher.opponents = take5.Opponents(seats, 0, 104)
        searcher.opponents.evidence = [50.0] * seats  # every other seat plays at random
        rng = random.Random(compared)
        deals = take5.Deals(take5.sample_world(observation, options, rng), 0, rng)
        seen, _ = take5.Searcher.seen_cards(observation, options)
        flags = take5.unseen_flags(seen)
        hands = deals.next()
        actions = [legal[0], legal[1], legal[0]]
        first, _, again = searcher.evaluate(hands, deals.world, observation, actions, flags, False)
        assert first == again
        compared += 1
    assert compared > 5


def test_the_value_of_a_round_is_the_chance_to_win_the_game(take5: Any) -> None:
    """Exact when the round ends the game (the lowest total wins, a tie shares), a probability
    otherwise: the seats' chances add up to about one, fewer heads are better, and the same
    heads gap weighs more near the end than at the start."""
    settings = {"end_score": 66, "more_than": False}
    ending = take5.Outlook(0, [50, 60, 40, 55], settings, False)
    assert ending.chance([60, 66, 60, 56]) == 0.0
    assert ending.chance([45, 66, 45, 56]) == 0.5
    assert ending.chance([44, 66, 45, 56]) == 1.0
    assert take5.Outlook(0, [0, 0, 0, 0], settings, True).chance([3, 4, 5, 5]) == 1.0
    early = [10, 12, 14, 9]
    total = sum(take5.Outlook(s, [0] * 4, settings, False).chance(early) for s in range(4))
    assert abs(total - 1.0) < 0.02
    outlook = take5.Outlook(0, [0] * 4, settings, False)
    assert outlook.chance([5, 10, 10, 10]) > outlook.chance([10, 10, 10, 10])
    late = take5.Outlook(0, [0] * 4, settings, False)
    near = late.chance([40, 50, 50, 60]) - late.chance([50, 50, 50, 60])
    far = late.chance([0, 10, 10, 20]) - late.chance([10, 10, 10, 20])
    assert near > far > 0


def test_the_value_weighs_each_seats_own_rate_of_heads(take5: Any) -> None:
    """Ten heads behind after a round is a poor outlook among equals, but a good one against
    seats that take three times as many heads a round as this one (random players do): the
    rounds to come are modelled with each seat's own rate, so the search does not gamble when
    it is behind players it will outscore."""
    settings = {"end_score": 66, "more_than": False}
    after = [20, 10, 10, 10]
    equal = take5.Outlook(0, [0] * 4, settings, False)
    assert equal.chance(after) < 0.2
    rates = [5.0, 15.0, 15.0, 15.0]
    drifting = take5.Outlook(0, [0] * 4, settings, False, rates)
    assert drifting.chance(after) > 0.5


def test_the_rounds_to_come_expect_more_heads_of_random_players(take5: Any) -> None:
    """A table of rule players is expected to take about 13 heads a round each; against three
    players read as random, this seat about 6 and each of them about 15, before any round is
    played (so the game looks as good as won at even totals), and the rounds played move the
    rates toward what each seat took."""
    even = take5.expected_rates([0, 0, 0, 0], 0, [0.0, 0.0, 0.0, 0.0])
    assert all(abs(r - take5.ROUND_MEAN) < 1e-9 for r in even)
    mine, *theirs = take5.expected_rates([0, 0, 0, 0], 0, [0.0, 1.0, 1.0, 1.0])
    assert 5.0 < mine < 7.0 and all(14.0 < r < 17.0 for r in theirs)
    later = take5.expected_rates([30, 0, 0, 0], 2, [0.0, 1.0, 1.0, 1.0])
    assert later[0] > mine and later[1] < theirs[0]
    settings = {"end_score": 66, "more_than": False}
    read = take5.Outlook(0, [10, 10, 10, 10], settings, False, [mine, *theirs])
    assert read.chance([10, 10, 10, 10]) > 0.8  # measured: the heuristic wins 86-89%


def load_module(path: Path) -> Any:
    return load_source(path)


def test_the_reference_bot_passes_the_conformance_check() -> None:
    from arena.league.conformance import check_bot
    from arena.runtime.manifest import load_bot as load

    report = check_bot(load(str(REFERENCE)), matches=1)
    assert report.passed, [
        (f.status, f.message, f.stderr_tail) for g in report.games for f in g.faults()
    ]
    assert [g.game for g in report.games] == list(SEARCHED)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_it_never_answers_late_with_a_small_decision_time() -> None:
    """50 ms per decision and a bank of 1 s per match: the search stops by its deadline, so over
    a few whole matches the bank never runs out (3 random opponents, the bot in each seat). The
    bank is there for the machine, not the bot: on a loaded machine a reply written in time but
    read late by a starved parent would otherwise be a timeout."""
    reference = load_bot(str(REFERENCE))
    opponent = load_bot("builtin:random")
    limits = RunLimits(time=TimeLimits(decision=0.05, bank=1.0))
    with BotPool(limits) as pool:
        for k in range(4):
            seating = [opponent] * 3
            seating.insert(k % 4, reference)
            record = run_match(MatchSpec(f"late-{k}", "take5", k, tuple(seating)), pool)
            assert not record.faults, record.faults
            assert record.decisions[k % 4]["count"] > 0
