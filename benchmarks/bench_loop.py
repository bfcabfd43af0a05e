"""The match loop's overheads (issue 15), three figures side by side in one run.

1. ``run_match`` with in-process seats (``builtin:random`` in every seat) against the plain local
   loop (``arena.players.play_local`` with ``RandomPlayer``s, the loop ``bench_take5`` and
   ``bench_ten`` time): CPU microseconds per action, per game (4 seats), and the ratio. Target:
   at most 2x.
2. Ten's ``observation()`` against a rules step (4 seats): recorded random games replayed twice,
   once calling ``to_move``, ``legal`` and ``apply`` per action (the rules step), once also
   asking the mover's observation first, as the match loop does for a process bot; the
   observation's cost is the difference. Target: at most 2x a rules step.
3. ``arena play``'s path with 4 stdio bots (``benchmarks/minimal_bot.py``, started once; the
   narrated account of each game written to /dev/null, as ``arena play take5 B B B B --games N``
   does to a terminal) against a bare-bones loop of the same 4 bots over plain pipes (no
   sandbox, no deadlines, no checks, no record: for each decision the act message with the same
   observation, legal list and events, written with orjson, and a blocking read of each answer).
   Games per second (wall clock: the bots run in processes of their own), and the ratio. Target:
   at least 0.8x. The two play in ``--play-blocks`` alternating blocks of ``--play-games`` games
   (the same seeds; which goes first alternates); the ratio is of all games over all time, with
   a 95% bootstrap interval over the blocks (a block's own ratio swings by a fifth or more on
   this VM, so a median of a few runs did not settle which side of 0.8 it lies). A fourth
   loop in the same blocks is arena play with its wait's spinning turned off
   (``botproc.SPIN``: it looks for answers for 100 us before it sleeps), for the reference.

Figures 1 and 2 are medians over ``--runs`` interleaved runs (this machine's speed drifts within
minutes, so only side-by-side ratios are stable); their ratios are medians of the run-by-run
ratios. Prints which build runs the rules (see arena/native.py).

    python -m benchmarks.bench_loop [--runs 5] [--seconds 0.4] [--play-blocks 40]
        [--play-games 5] [--only loop ten play]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from arena import native
from arena.cli.play import PlayRun
from arena.games import Action, get_game
from arena.match import MatchSpec, run_match
from arena.players import RandomPlayer, play_local
from arena.runtime import botproc
from arena.runtime.manifest import load_bot
from arena.runtime.pool import BotPool

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = ROOT / "benchmarks" / "minimal_bot.py"
SEATS = 4
GAMES = ("take5", "ten", "phase10")


def cpu_per_action(play: Callable[[int], int], seconds: float, first_seed: int) -> float:
    """CPU seconds per action of ``play(seed) -> actions`` over at least ``seconds``."""
    actions = games = 0
    cpu0 = time.process_time()
    while time.process_time() - cpu0 < seconds:
        actions += play(first_seed + games)
        games += 1
    return (time.process_time() - cpu0) / actions


# -- 1. run_match with in-process seats vs the plain loop ------------------------------------


def plain_loop(game: str) -> Callable[[int], int]:
    spec = get_game(game)
    players = [RandomPlayer(s) for s in range(SEATS)]  # kept from game to game, as a pool is

    def play(seed: int) -> int:
        return len(play_local(spec, seed, players).replay.actions)

    return play


def arena_loop(game: str, pool: BotPool) -> Callable[[int], int]:
    bots = tuple(load_bot("builtin:random") for _ in range(SEATS))

    def play(seed: int) -> int:
        return len(run_match(MatchSpec(f"bench-{seed}", game, seed, bots), pool).actions)

    return play


def loop_rows(runs: int, seconds: float) -> list[tuple[str, float, float, float]]:
    """Per game: (game, plain µs/action, run_match µs/action, ratio)."""
    rows = []
    with BotPool() as pool:
        for game in GAMES:
            plain, arena = plain_loop(game), arena_loop(game, pool)
            arena(0)  # warm up (imports, caches)
            plains, arenas = [], []
            for r in range(runs):
                plains.append(cpu_per_action(plain, seconds, 1000 * r))
                arenas.append(cpu_per_action(arena, seconds, 1000 * r))
            ratio = statistics.median(a / p for a, p in zip(arenas, plains, strict=True))
            rows.append(
                (game, statistics.median(plains) * 1e6, statistics.median(arenas) * 1e6, ratio)
            )
    return rows


# -- 2. Ten's observation vs a rules step ----------------------------------------------------


def recorded_games(game: str, count: int) -> list[tuple[int, list[tuple[int, Action]]]]:
    spec = get_game(game)
    players = [RandomPlayer(s) for s in range(SEATS)]
    return [(seed, list(play_local(spec, seed, players).replay.actions)) for seed in range(count)]


def replay_seconds(
    game: str, games: Sequence[tuple[int, list[tuple[int, Action]]]], observe: bool
) -> tuple[float, int]:
    """CPU seconds to replay ``games`` (to_move, legal, apply; with the mover's observation
    first if ``observe``), and the number of actions."""
    spec = get_game(game)
    actions = 0
    cpu0 = time.process_time()
    for seed, played in games:
        state = spec.new(seed, SEATS)
        for seat, action in played:
            state.to_move()
            if observe:
                state.observation(seat)
            state.legal(seat)
            state.apply(seat, action)
        actions += len(played)
    return time.process_time() - cpu0, actions


def observation_row(runs: int, seconds: float) -> tuple[float, float, float]:
    """(rules step µs, observation µs, observation / step) for Ten."""
    games = recorded_games("ten", 200)
    step_s, actions = replay_seconds("ten", games, observe=False)
    repeat = max(1, int(seconds / max(step_s, 1e-6)))
    steps, observations = [], []
    for _ in range(runs):
        bare = with_obs = 0.0
        for _ in range(repeat):  # interleaved pass by pass
            bare += replay_seconds("ten", games, observe=False)[0]
            with_obs += replay_seconds("ten", games, observe=True)[0]
        steps.append(bare / (repeat * actions))
        observations.append((with_obs - bare) / (repeat * actions))
    ratio = statistics.median(o / s for o, s in zip(observations, steps, strict=True))
    return statistics.median(steps) * 1e6, statistics.median(observations) * 1e6, ratio


# -- 3. arena play with 4 stdio bots vs a bare loop ------------------------------------------


class BareLoop:
    """4 persistent bots over plain pipes; per decision the act message, a blocking read each.

    With ``protocol``, it sends what the protocol has the arena send besides (``start`` and
    ``end`` each game, each ``act`` with its ``step`` and ``time``), and nothing else: the
    protocol's own cost, apart from the arena's machinery (a reference, not the goal's)."""

    def __init__(self, command: Sequence[str], seats: int, protocol: bool = False) -> None:
        self.bots = [
            subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            for _ in range(seats)
        ]
        for bot in self.bots:
            assert bot.stdin is not None and bot.stdout is not None
            bot.stdin.write(b'{"type":"hello","protocol":1}\n')
            bot.stdin.flush()
            bot.stdout.readline()
        self.next_id = 0
        self.protocol = protocol

    def send(self, seat: int, message: dict[str, Any]) -> None:
        stdin = self.bots[seat].stdin
        assert stdin is not None
        stdin.write(orjson.dumps(message) + b"\n")
        stdin.flush()

    def play(self, game: str, seed: int) -> int:
        """One game; the number of decisions."""
        state = get_game(game).new(seed, len(self.bots))
        clock = {"decision_ms": 1000, "bank_ms": 10000}
        if self.protocol:
            for seat in range(len(self.bots)):
                start = {"type": "start", "match": f"m-{seed}", "game": game, "seat": seat}
                start |= {"seats": len(self.bots), "players": ["minimal"] * len(self.bots)}
                self.send(seat, start | {"options": dict(state.options), "time": clock})
        cursors = [0] * len(self.bots)
        decisions = 0
        while not state.is_over():
            asked = []
            for seat in state.to_move():
                legal = state.legal(seat)
                self.next_id += 1
                message = {
                    "type": "act",
                    "id": self.next_id,
                    "observation": state.observation(seat),
                    "legal": legal,
                    "events": state.events_for(seat, cursors[seat]),
                }
                if self.protocol:
                    message |= {"step": decisions, "time": clock}
                cursors[seat] = len(state.log)
                self.send(seat, message)
                asked.append((seat, legal))
            for seat, legal in asked:
                stdout = self.bots[seat].stdout
                assert stdout is not None
                reply: dict[str, Any] = orjson.loads(stdout.readline())
                state.apply(seat, legal[reply["index"]])
                decisions += 1
        if self.protocol:
            result = state.result().to_json()
            for seat in range(len(self.bots)):
                end = {"type": "end", "match": f"m-{seed}", "result": result}
                end |= {"ranks": result["ranks"], "faulted": []}
                self.send(seat, end | {"events": state.events_for(seat, cursors[seat])})
        return decisions

    def close(self) -> None:
        for bot in self.bots:
            assert bot.stdin is not None
            bot.stdin.close()
        for bot in self.bots:
            bot.wait(10)


def timed(play: Callable[[int], object], seeds: range) -> tuple[float, float]:
    """Wall and CPU seconds (this process, all its threads) to play the games ``seeds``."""
    wall, cpu = time.perf_counter(), time.process_time()
    for seed in seeds:
        play(seed)
    return time.perf_counter() - wall, time.process_time() - cpu


class PlayFigures(NamedTuple):
    bare: float
    """Games per second of the bare loop (all its games over all its time)."""
    protocol: float
    """... of the bare loop speaking the whole protocol (start, end, step, time)."""
    played: float
    """... of arena play's path."""
    ratio: float
    """arena play / bare loop, games per second over all the blocks (the goal's figure)."""
    interval: tuple[float, float]
    """The ratio's 95% interval, a bootstrap over the blocks (2,000 resamples)."""
    block_ratios: tuple[float, float, float]
    """The blocks' own ratios: lowest, median, highest."""
    protocol_ratio: tuple[float, float, float]
    """The bare loop speaking the whole protocol / the bare loop: ratio, 95% interval."""
    machinery_ratio: tuple[float, float, float]
    """arena play / the bare loop speaking the whole protocol: ratio, 95% interval."""
    unspun: float
    """... of arena play's path with spinning off."""
    unspun_ratio: tuple[float, float, float]
    """arena play with spinning off / the bare loop: ratio, 95% interval."""
    parent_ms: tuple[float, float, float, float]
    """This process's CPU milliseconds per game: bare loop, with the protocol, arena play,
    arena play with spinning off."""
    sandbox: str


def ratio_interval(
    pairs: Sequence[tuple[float, float]], resamples: int = 2000
) -> tuple[float, float]:
    """95% bootstrap interval of sum(first) / sum(second) over blocks of seconds."""
    rng = random.Random(15)
    ratios = []
    for _ in range(resamples):
        drawn = rng.choices(pairs, k=len(pairs))
        ratios.append(sum(b for b, _ in drawn) / sum(a for _, a in drawn))
    ratios.sort()
    return ratios[int(0.025 * resamples)], ratios[int(0.975 * resamples) - 1]


def ratio_of(pairs: Sequence[tuple[float, float]]) -> tuple[float, float, float]:
    """sum(first) / sum(second) over the blocks, and its 95% interval."""
    return (sum(b for b, _ in pairs) / sum(a for _, a in pairs), *ratio_interval(pairs))


def play_row(blocks: int, games: int) -> PlayFigures:
    """Take 5 with 4 stdio bots: the bare loop, the bare loop speaking the whole protocol, and
    arena play's path, in alternating blocks of ``games`` games (the same seeds each; the order
    turns from block to block), so that the machine's drift falls on all three alike."""
    command = [sys.executable, str(MINIMAL)]
    bare, spoken = BareLoop(command, SEATS), BareLoop(command, SEATS, protocol=True)
    bots = tuple(load_bot(str(MINIMAL)) for _ in range(SEATS))
    walls: list[list[float]] = []
    cpus: list[list[float]] = []
    with open(os.devnull, "w") as null, contextlib.ExitStack() as stack:
        run = stack.enter_context(PlayRun("take5", bots, out=null))
        run.play(0)  # start the bots outside the timing
        spin = botproc._spin

        def unspun(seed: int) -> object:
            botproc._spin = 0.0
            try:
                return run.play(seed)
            finally:
                botproc._spin = spin

        loops: list[Callable[[int], object]] = [
            lambda seed: bare.play("take5", seed),
            lambda seed: spoken.play("take5", seed),
            run.play,
            unspun,
        ]
        for block in range(blocks):
            seeds = range(1 + block * games, 1 + (block + 1) * games)
            got: dict[int, tuple[float, float]] = {}
            for k in range(4):  # 0 1 2 3, 1 2 3 0, ...
                which = (block + k) % 4
                got[which] = timed(loops[which], seeds)
            walls.append([got[k][0] for k in range(4)])
            cpus.append([got[k][1] for k in range(4)])
    bare.close()
    spoken.close()
    played = blocks * games
    goal = [(b, a) for b, _, a, _ in walls]
    ratios = sorted(b / a for b, a in goal)
    total = [sum(w[k] for w in walls) for k in range(4)]
    return PlayFigures(
        played / total[0],
        played / total[1],
        played / total[2],
        total[0] / total[2],
        ratio_interval(goal),
        (ratios[0], statistics.median(ratios), ratios[-1]),
        ratio_of([(b, p) for b, p, _, _ in walls]),
        ratio_of([(p, a) for _, p, a, _ in walls]),
        played / total[3],
        ratio_of([(b, u) for b, _, _, u in walls]),
        tuple(sum(c[k] for c in cpus) / played * 1e3 for k in range(4)),  # type: ignore[arg-type]
        str(run.sandbox["method"]) if run.sandbox else "none",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="interleaved runs per figure")
    parser.add_argument("--seconds", type=float, default=0.4, help="CPU seconds per run (1, 2)")
    parser.add_argument("--play-games", type=int, default=5, help="games per block (3)")
    parser.add_argument("--play-blocks", type=int, default=40, help="alternating blocks (3)")
    parser.add_argument("--only", nargs="+", choices=("loop", "ten", "play"), default=None)
    args = parser.parse_args()
    only = set(args.only or ("loop", "ten", "play"))
    print(f"{native.describe()}; median of {args.runs} interleaved runs")
    if "loop" in only:
        print(f"\n1. run_match, {SEATS} in-process seats (builtin:random) vs the plain loop")
        print(f"{'game':<8} {'plain µs/action':>16} {'run_match µs/action':>20} {'ratio':>6}")
        for game, plain, arena, ratio in loop_rows(args.runs, args.seconds):
            print(f"{game:<8} {plain:>16.2f} {arena:>20.2f} {ratio:>6.2f}  (target <= 2)")
    if "ten" in only:
        step, observation, ratio = observation_row(args.runs, args.seconds)
        print(f"\n2. Ten, {SEATS} seats: observation vs a rules step (to_move, legal, apply)")
        print(
            f"rules step {step:.2f} µs, observation {observation:.2f} µs, "
            f"ratio {ratio:.2f}  (target <= 2)"
        )
    if "play" in only:
        got = play_row(args.play_blocks, args.play_games)
        low, high = got.interval
        print(
            f"\n3. Take 5, 4 stdio bots ({MINIMAL.name}): arena play vs a bare loop, "
            f"{args.play_blocks} alternating blocks of {args.play_games} games"
        )
        print(
            f"bare loop {got.bare:.1f} games/s, arena play {got.played:.1f} games/s "
            f"(sandbox {got.sandbox}), ratio {got.ratio:.3f} [95% {low:.3f}, {high:.3f}]  "
            "(target >= 0.8)"
        )
        print(
            "blocks' own ratios: lowest {:.2f}, median {:.2f}, highest {:.2f}".format(
                *got.block_ratios
            )
        )
        print(
            f"reference: the bare loop speaking the whole protocol (start, end, step, time) "
            f"{got.protocol:.1f} games/s; it / the bare loop "
            "{:.3f} [95% {:.3f}, {:.3f}]; arena play / it {:.3f} [95% {:.3f}, {:.3f}]".format(
                *got.protocol_ratio, *got.machinery_ratio
            )
        )
        print(
            f"reference: arena play with spinning off {got.unspun:.1f} games/s; "
            "it / the bare loop {:.3f} [95% {:.3f}, {:.3f}]".format(*got.unspun_ratio)
        )
        print(
            "CPU of this process per game: bare loop {:.2f} ms, with the protocol {:.2f} ms, "
            "arena play {:.2f} ms, spinning off {:.2f} ms".format(*got.parent_ms)
        )


if __name__ == "__main__":
    main()
