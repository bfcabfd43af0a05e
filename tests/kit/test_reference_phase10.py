"""The reference bot in Phase 10 (bots/reference/phase10): its rules are the kit's, as generated
today; its fast hands play as the rules do, step for step; its lay-downs are ones the rules
accept; its playouts' model of the bundled heuristic picks what the heuristic picks; a world or
two never overrule its policy; it passes the conformance check, answers in time with a small
decision time, and replays the same with a fixed sample budget."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.games import get_game
from arena.games.phase10 import Phase10State
from arena.kit.build import RULES, kit_files
from arena.match import MatchSpec, run_match
from arena.runtime.botproc import RunLimits, TimeLimits
from arena.runtime.manifest import load_bot
from arena.runtime.pool import BotPool
from tests.kit.test_reference_bot import REFERENCE, load_module, load_policy

GAME = "phase10"


@pytest.fixture(scope="module")
def bot() -> Any:
    return load_policy(GAME)


def test_the_committed_rules_are_what_the_kit_writes_today() -> None:
    """The bot's forward model cannot drift from the arena's rules: on a change, regenerate
    it (``arena kit phase10 DIR`` and copy DIR/rules to bots/reference/phase10/rules)."""
    expected = {
        path.removeprefix(f"{RULES}/"): text
        for path, text in kit_files(GAME, "python", "reference").items()
        if path.startswith(f"{RULES}/")
    }
    folder = REFERENCE / GAME / RULES
    committed = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.py")}
    assert sorted(committed) == sorted(expected)
    for name, text in expected.items():
        assert committed[name] == text, f"{folder / name} is stale: regenerate it"


def mirrored(bot: Any, state: Phase10State) -> Any:
    """A fast hand of ``state``'s position whose every move is made in ``state`` too (as the
    rules' actions: a lay-down group by group, card by card), so both must accept it."""
    fast = bot.fast

    class Mirror(fast.Hand):  # type: ignore[misc,name-defined]
        def draw(self) -> str:
            seat = self.turn
            if not self.draw_pile:  # the rules reshuffle with their own generator: follow it
                state.apply(seat, "draw")
                drawn = list(state.hands[seat])
                for c in self.hands[seat]:
                    drawn.remove(c)
                (card,) = drawn
                self.discard_pile = self.discard_pile[-1:]
                self.draw_pile = [*state.draw_pile, card]
                return str(super().draw())
            state.apply(seat, "draw")
            return str(super().draw())

        def take(self) -> str:
            state.apply(self.turn, "take")
            return str(super().take())

        def lay(self, groups: Any) -> None:
            seat = self.turn
            phase = self.phase[seat]
            state.apply(seat, {"lay": phase})
            for kind, key, cards in groups:
                opener = fast.COLOURS[key - 1] if kind == "colour" else key
                state.apply(seat, {kind: opener})
                for card in cards:
                    state.apply(seat, {"add": card})
                state.apply(seat, "end")
            super().lay(groups)

        def hit(self, gid: int, card: str, end: str | None) -> None:
            action: dict[str, Any] = {"hit": gid, "card": card}
            if end is not None:
                action["end"] = end
            state.apply(self.turn, action)
            super().hit(gid, card, end)

        def discard(self, card: str, target: int | None) -> None:
            action: dict[str, Any] = {"discard": card}
            if target is not None:
                action["target"] = target
            state.apply(self.turn, action)
            super().discard(card, target)

    return Mirror.from_world(state, random.Random(0))


def same(fast_hand: Any, state: Phase10State) -> None:
    """The fast hand and the rules' position agree on everything a hand is made of."""
    assert [sorted(h) for h in fast_hand.hands] == [sorted(h) for h in state.hands]
    assert fast_hand.discard_pile == state.discard_pile
    assert fast_hand.draw_pile == state.draw_pile
    assert [g.to_json(i) for i, g in enumerate(fast_hand.table)] == [
        g.to_json(i) for i, g in enumerate(state.table)
    ]
    assert fast_hand.laid == [p is not None for p in state.laid]
    assert fast_hand.skip_waiting == state.skip_waiting
    assert fast_hand.turn == state.turn
    assert fast_hand.turns == state.turns


@pytest.mark.parametrize("seats", [2, 3, 4, 6])
def test_a_fast_hand_plays_as_the_rules_do(bot: Any, seats: int) -> None:
    """Whole games of the playout policy, each hand played in the fast model and mirrored in
    the rules: every move is legal there, and after every turn both positions are the same; a
    hand ends in both at once (out, turn cap or blocked), with the same seat out."""
    game = get_game(GAME)
    hands = outs = 0
    for seed in range(4):
        state = game.new(seed, seats, {"max_turns": 12, "max_hands": 12})
        assert isinstance(state, Phase10State)
        while not state.is_over():
            number = state.hand_no
            play = mirrored(bot, state)
            same(play, state)
            while not play.over:
                play.play_turn()
                if not play.over:
                    assert state.hand_no == number
                    same(play, state)
            assert state.hand_no != number or state.is_over()
            ends = [e for e in state.public_events() if e["type"] == "hand_end"]
            assert ends[-1]["hand"] == number
            assert ends[-1]["out"] == play.out
            assert ends[-1]["points"] == [play.hand_points(s) for s in range(seats)]
            hands += 1
            outs += play.out is not None
    assert outs >= hands // 2, (outs, hands)  # most hands end with a seat out, not at the cap


def test_every_lay_down_it_builds_is_one_the_rules_accept(bot: Any) -> None:
    """For random hands of every phase: when the rules say the phase can be laid, the builder
    finds a lay-down (nearly always) and the rules accept it step by step."""
    rng = random.Random(4)
    deck = bot.fast.NUMBERS
    cards = [c for c in deck for _ in range(2)] + ["W"] * 6 + ["S"] * 2
    game = get_game(GAME)
    built = layable = 0
    for trial in range(3000):
        phase = 1 + trial % 10
        hand = sorted(rng.sample(cards, 10 + trial % 3))
        if not bot.fast.can_lay(phase, hand):
            continue
        layable += 1
        plan = bot.fast.layout(phase, hand)
        if plan is None:
            continue
        built += 1
        state = game.new(trial, 2)
        assert isinstance(state, Phase10State)
        state.hands[state.turn] = list(hand)
        state.done[state.turn] = [p for p in range(1, phase)]
        state.step = state.step.__class__("play")
        state._legal = None
        seat = state.turn
        state.apply(seat, {"lay": phase})
        for kind, key, group in plan:
            state.apply(seat, {kind: bot.fast.COLOURS[key - 1] if kind == "colour" else key})
            for card in group:
                state.apply(seat, {"add": card})
            state.apply(seat, "end")
        lays = [e for e in state.public_events() if e["type"] == "lay"]
        assert [(e["seat"], e["phase"]) for e in lays] == [(seat, phase)]
    assert layable > 200 and built >= 0.95 * layable, (built, layable)


def decisions(seed: int, seat: int = 0) -> list[tuple[dict[str, Any], list[Any], list[Any]]]:
    """Seat ``seat``'s decisions with a choice in a game of bundled heuristics (the first
    hands): (observation, legal, the events it saw)."""
    heuristic = load_module(REFERENCE.parent / "heuristic" / "phase10.py")
    state = get_game(GAME).new(seed, 3)
    seen = []
    while not state.is_over() and state.hand_no <= 2:
        mover = state.to_move()[0]
        legal = state.legal(mover)
        observation = state.observation(mover)
        if mover == seat and len(legal) > 1:
            seen.append((observation, legal, state.events_for(seat)))
        state.apply(mover, legal[heuristic.choose(observation, legal)])
    return seen


def test_with_a_fixed_budget_a_match_replays_the_same(bot: Any) -> None:
    """Seeded from the match id, the seat and the decision's number: the same decisions with
    the same number of worlds give the same choices, and every searched decision used them
    all."""
    plenty = {"decision_ms": 10**7, "bank_ms": 0}
    seen = decisions(3)
    options = dict(get_game(GAME).new(0, 3).options)

    def play(match_id: str) -> tuple[list[int], list[int]]:
        searcher = bot.Searcher(match_id, 0)
        chosen = [
            searcher.choose(o, legal, options, plenty, events, 3) for o, legal, events in seen
        ]
        return chosen, list(searcher.worlds_used)

    first, used = play("match-7")
    assert play("match-7") == (first, used)
    assert set(used) == {0, 3}
    assert used.count(3) >= 10


def test_with_no_time_left_it_plays_the_policys_choice_without_searching(bot: Any) -> None:
    searcher = bot.Searcher("m", 0)
    options = dict(get_game(GAME).new(0, 3).options)
    for observation, legal, events in decisions(5):
        index = searcher.choose(observation, legal, options, {"decision_ms": 0}, events)
        assert 0 <= index < len(legal)
    assert set(searcher.worlds_used) == {0}


def test_the_reference_bot_passes_the_conformance_check_in_phase10() -> None:
    from arena.league.conformance import check_bot, default_table

    report = check_bot(load_bot(str(REFERENCE)), matches=1, tables=[default_table(GAME)])
    assert report.passed, [
        (f.status, f.message, f.stderr_tail) for g in report.games for f in g.faults()
    ]
    assert [g.game for g in report.games] == [GAME]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_it_never_answers_late_with_a_small_decision_time() -> None:
    """100 ms per decision and a bank of 2 s per match: the search stops by its deadline (a
    share of the decision time, and of the bank only a little), so over a few hands the bank
    never runs out (2 random opponents, the bot in each seat). The bank is there for the
    arena's own hiccups on a loaded machine, not the bot's: with none, one late ``act`` sent
    by a starved parent is a timeout."""
    reference = load_bot(str(REFERENCE))
    opponent = load_bot("builtin:random")
    limits = RunLimits(time=TimeLimits(decision=0.1, bank=2.0))
    with BotPool(limits) as pool:
        for k in range(3):
            seating = [opponent] * 2
            seating.insert(k, reference)
            spec = MatchSpec(f"late-{k}", GAME, k, tuple(seating), {"max_hands": 4})
            record = run_match(spec, pool)
            assert not record.faults, record.faults
            assert record.decisions[k]["count"] > 0


def test_the_bot_imports_every_games_search_at_startup() -> None:
    """bot.py imports each game's package before it answers ``hello``: an import in
    ``on_start`` would run on the first decision's clock (``start`` gets no answer), and Phase
    10's rules take a few hundred ms to import where ``__pycache__`` cannot be written."""
    import subprocess
    import sys

    script = (
        "import runpy; g = runpy.run_path('bot.py', run_name='probe'); g['preload'](); "
        "print(sorted(k for k, v in g['policies'].items() if v is not g['first_legal']))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REFERENCE,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert out.strip() == str(sorted(load_bot(str(REFERENCE)).games or ()))


def test_the_playouts_model_of_the_heuristic_picks_what_the_heuristic_picks(bot: Any) -> None:
    """The other seats in the playouts play by :mod:`model`, a port of the bundled heuristic:
    in games of heuristics, at every draw, hit and discard, the port on a fast hand of the
    position picks the action the heuristic picks (lay-downs aside: those it approximates)."""
    heuristic = load_module(REFERENCE.parent / "heuristic" / "phase10.py")
    game = get_game(GAME)
    compared = 0
    for seed in range(6):
        state = game.new(seed, 3)
        while not state.is_over():
            mover = state.to_move()[0]
            legal = state.legal(mover)
            observation = state.observation(mover)
            action = legal[heuristic.choose(observation, legal)]
            decision = observation["decision"]
            lays = any(isinstance(a, dict) and "lay" in a for a in legal)
            if decision in ("draw", "play") and not lays:
                play = bot.fast.Hand.from_world(state, random.Random(0))
                mine: Any
                if decision == "draw":
                    mine = "take" if bot.model.wants_top(play) else "draw"
                elif any(isinstance(a, dict) and "hit" in a for a in legal):
                    gid, card, end = bot.model.hit(play)
                    mine = {"hit": gid, "card": card, **({"end": end} if end else {})}
                else:
                    card, target = bot.model.discard(play)
                    mine = {"discard": card, **({"target": target} if target is not None else {})}
                assert mine == action, (observation, legal)
                compared += 1
            state.apply(mover, action)
    assert compared > 1000


def test_the_models_progress_is_the_heuristics_arithmetic(bot: Any) -> None:
    """The port's progress measure (on counts, memoised) gives the heuristic's numbers exactly,
    tie-breaks by the order of the hand included."""
    heuristic = load_module(REFERENCE.parent / "heuristic" / "phase10.py")
    rng = random.Random(2)
    deck = bot.model.full_deck()
    for trial in range(4000):
        hand = rng.sample(deck, rng.randint(0, 12))
        phase = 1 + trial % 10
        assert bot.model._progress(phase, tuple(hand)) == heuristic.progress(phase, hand)


def test_a_world_or_two_never_overrule_the_policy(bot: Any) -> None:
    """A hand's outcome is noisy: when the deadline leaves time for a world or two only, the
    search plays the policy's own choice (a flat margin per world let one lucky world overrule
    it, and the search lost to its own policy)."""
    plenty = {"decision_ms": 10**7, "bank_ms": 0}
    options = dict(get_game(GAME).new(0, 3).options)
    seen = decisions(3) + decisions(8, seat=1)
    for worlds in (1, 2):
        policy = bot.Searcher("m", 0)
        searcher = bot.Searcher("m", 0)
        for observation, legal, events in seen:
            policy.seat = searcher.seat = observation["seat"]
            expected = policy.choose(observation, legal, options, plenty, events, 0)
            assert searcher.choose(observation, legal, options, plenty, events, worlds) == expected
        assert worlds in searcher.worlds_used


def test_near_its_lifetime_cpu_limit_it_stops_searching(
    bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The arena limits a bot process's CPU over its whole life (RLIMIT_CPU) and reuses it match
    after match: within ``CPU_SPARE`` seconds of that limit the search stops and the policy
    plays (in a benchmark the process was killed by SIGXCPU mid-match after about 90 games)."""
    plenty = {"decision_ms": 10**7, "bank_ms": 0}
    options = dict(get_game(GAME).new(0, 3).options)
    seen = decisions(3)
    policy = bot.Searcher("m", 0)
    expected = [policy.choose(o, legal, options, plenty, events, 0) for o, legal, events in seen]
    monkeypatch.setattr(bot, "cpu_left", lambda: bot.CPU_SPARE - 1.0)
    searcher = bot.Searcher("m", 0)
    chosen = [searcher.choose(o, legal, options, plenty, events, 3) for o, legal, events in seen]
    assert chosen == expected
    assert set(searcher.worlds_used) == {0}


def test_it_reads_the_cpu_left_under_a_real_limit() -> None:
    """:func:`cpu_left` reads the soft RLIMIT_CPU and the CPU used so far (in a child process
    given a limit of 500 s)."""
    import subprocess
    import sys

    script = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_CPU, (500, 510)); "
        "sys.path.insert(0, 'bots/reference'); import phase10; print(phase10.cpu_left())"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REFERENCE.parents[1],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert 400.0 < float(out) < 500.0


def down_with_a_run(bot: Any, hand: list[str]) -> Any:
    """A three-seat hand in which seat 0 has laid down and its run 4..8 is the only group on
    the table; seat 0 holds ``hand`` and is to move."""
    fast = bot.fast
    run = fast.Group(0, "run", 4, ["R4", "B5", "G6", "Y7", "R8"])
    return fast.Hand(
        [hand, ["B1"] * 5, ["B2"] * 5],
        ["G1"] * 20,
        ["Y1"],
        [run],
        [2, 1, 1],
        [True, False, False],
        [False, False, False],
        [0, 1, 2],
        0,
        0,
        None,
        False,
        random.Random(0),
    )


def test_once_down_it_keeps_a_card_a_run_is_about_to_reach(bot: Any) -> None:
    """Neither card can be hit: the 10 is worth more points, but the run 4..8 is two numbers
    from it, so the 5 (inside the run, never hittable on it) goes first."""
    hand = down_with_a_run(bot, ["R10", "G5"])
    assert hand.reach("R10") == 0.5
    assert hand.reach("G5") == 0.0
    assert hand.first_discard() == ("G5", None)
    assert [card for card, _ in hand.discard_order()] == ["G5", "R10"]


def test_it_hits_a_wild_where_its_next_card_fits_and_goes_out(bot: Any) -> None:
    """With a Wild and a 2 against a run 4..8, the Wild goes below the run (as a 3), so the 2
    fits next and the hand goes out (at the high end, the 2 would be stuck)."""
    hand = down_with_a_run(bot, ["W", "B2"])
    assert hand.wild_spot(["W", "B2"]) == (0, "W", "low")
    hand.lay_and_hit()
    assert hand.over and hand.out == 0
    assert hand.table[0].cards == ["B2", "W", "R4", "B5", "G6", "Y7", "R8"]
    assert down_with_a_run(bot, ["W", "R11"]).wild_spot(["W", "R11"]) is None


def test_once_down_it_discards_last_what_the_next_seat_would_take(bot: Any) -> None:
    """Deny once down: neither 6 nor 5 can be hit (the run 4..8 takes a 3 or a 9) and both are
    worth 5 points; the next seat (phase 1, two sets, not down) took a 6 from the pile, so the
    6 is kept and the 5 goes. Once that seat is down too, the hand's order decides again."""
    hand = down_with_a_run(bot, ["B6", "G5"])
    hand.known[1] = ["R6"]
    assert hand.taken_by_next(0)("Y6") and not hand.taken_by_next(0)("Y5")
    assert hand.first_discard() == ("G5", None)
    assert [card for card, _ in hand.discard_order()] == ["G5", "B6"]
    hand.laid[1] = True
    assert hand.taken_by_next(0) is None
    assert hand.first_discard() == ("B6", None)


def test_once_down_a_run_only_next_seat_is_denied_the_numbers_it_lacks(bot: Any) -> None:
    """The next seat's phase is a run of 7 (phase 4): a number it is known to hold is no use to
    it, one it lacks is, so the 6 it holds goes first."""
    hand = down_with_a_run(bot, ["B6", "G5"])
    hand.phase[1] = 4
    hand.known[1] = ["R6"]
    taken = hand.taken_by_next(0)
    assert taken("G5") and not taken("B6") and not taken("W")
    assert hand.first_discard() == ("B6", None)
