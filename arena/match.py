"""The match loop: one game between bots, played through a :class:`~arena.runtime.pool.BotPool`.

Every seat in ``state.to_move()`` is asked at once and the answers are applied in seat order.
A seat that faults is recorded with its fault, its remaining decisions are the first legal
action (the match's fallback, never the game's), it is ranked below every seat that did not
fault, and its process is stopped so the pool starts a fresh one for its next match.
Each seat's CPU time and peak memory over all its bot's processes are recorded
(:mod:`arena.runtime.usage`); a bot killed for going past the league's caps has a ``resources`` fault.
The game seed and hidden cards never reach a bot: a bot sees only its own observation, its legal
list, and the events addressed to it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games import JSON, Action, get_game
from arena.games.base import competition_ranks
from arena.replay import Replay
from arena.runtime.botproc import Answer, Connection, Fault, FaultKind, collect
from arena.runtime.manifest import BotSpec
from arena.runtime.pool import BotPool
from arena.runtime.usage import Tracker, Usage, tracker_of
from arena.runtime.usage import begin as begin_usage
from arena.runtime.usage import end as end_usage


@dataclass(frozen=True)
class MatchSpec:
    """What to play: ``bots[i]`` sits in seat ``i``."""

    match_id: str
    """Sent to the bots; must not reveal the seed."""
    game: str
    seed: int
    bots: tuple[BotSpec, ...]
    options: Mapping[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True)
class SeatFault:
    """A fault in a match: which seat, at which step (actions applied before it), and why."""

    seat: int
    step: int
    kind: FaultKind
    message: str
    stderr_tail: str

    def to_json(self) -> dict[str, JSON]:
        return {
            "seat": self.seat,
            "step": self.step,
            "status": self.kind.value,
            "message": self.message,
            "stderr_tail": self.stderr_tail,
        }


@dataclass(frozen=True)
class MatchRecord:
    """Everything about one played match, as plain JSON via :meth:`to_json`."""

    match_id: str
    game: str
    seed: int
    options: Mapping[str, JSON]
    seats: tuple[Mapping[str, JSON], ...]
    """Per seat: ``bot`` (its source), ``name`` (manifest), ``said`` (name in hello), ``version``."""
    actions: tuple[tuple[int, Action], ...]
    """Every (seat, action) in the order applied, fallback actions included."""
    fallback_steps: tuple[int, ...]
    """Indices into ``actions`` that the fallback chose for a faulted seat."""
    debug: tuple[tuple[int, int, str], ...]
    """(step, seat, note) for every debug note kept."""
    faults: tuple[SeatFault, ...]
    result: Mapping[str, JSON]
    """The game's own result: scores, ranks and details."""
    ranks: tuple[int, ...]
    """Final places after faulted seats are put last."""
    decisions: tuple[Mapping[str, JSON], ...]
    """Per seat: ``count``, ``total_s``, ``max_s`` of its answered decisions."""
    seconds: float
    usage: tuple[Usage | None, ...] = ()
    """Per seat: CPU seconds and peak memory of all the bot's processes during the match
    (None for an in-process agent, or a bot that did not start); empty in older records."""

    def to_json(self) -> dict[str, JSON]:
        return {
            "match_id": self.match_id,
            "game": self.game,
            "seed": self.seed,
            "options": dict(self.options),
            "seats": [dict(s) for s in self.seats],
            "actions": [[seat, action] for seat, action in self.actions],
            "fallback_steps": list(self.fallback_steps),
            "debug": [list(d) for d in self.debug],
            "faults": [f.to_json() for f in self.faults],
            "result": dict(self.result),
            "ranks": list(self.ranks),
            "decisions": [dict(d) for d in self.decisions],
            "seconds": self.seconds,
            "usage": [u.to_json() if u is not None else None for u in self.usage],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> MatchRecord:
        """The record that :meth:`to_json` wrote."""
        return cls(
            match_id=data["match_id"],
            game=data["game"],
            seed=data["seed"],
            options=dict(data["options"]),
            seats=tuple(dict(s) for s in data["seats"]),
            actions=tuple((int(seat), action) for seat, action in data["actions"]),
            fallback_steps=tuple(data["fallback_steps"]),
            debug=tuple((int(step), int(seat), str(note)) for step, seat, note in data["debug"]),
            faults=tuple(
                SeatFault(
                    f["seat"], f["step"], FaultKind(f["status"]), f["message"], f["stderr_tail"]
                )
                for f in data["faults"]
            ),
            result=dict(data["result"]),
            ranks=tuple(data["ranks"]),
            decisions=tuple(dict(d) for d in data["decisions"]),
            seconds=data["seconds"],
            usage=tuple(
                Usage.from_json(u) if u is not None else None for u in data.get("usage") or ()
            ),
        )

    def replay(self) -> Replay:
        return Replay(self.game, len(self.seats), self.seed, self.options, self.actions)


def demote_faulted(ranks: Sequence[int], faulted: set[int]) -> tuple[int, ...]:
    """Places with every faulted seat below every other; faulted seats share the last places."""
    keys = [(1, 0) if seat in faulted else (0, rank) for seat, rank in enumerate(ranks)]
    return competition_ranks(keys)


def time_left(limit: float) -> int:
    return max(0, int(limit * 1000))


def run_match(spec: MatchSpec, pool: BotPool) -> MatchRecord:
    """Play one match to the end with the pool's bots and return its record. Never hangs."""
    began = time.monotonic()
    game = get_game(spec.game)
    n = len(spec.bots)
    state = game.new(spec.seed, n, spec.options)
    limits = pool.limits.time
    slots = [
        sum(1 for b in spec.bots[:seat] if b.source == bot.source)
        for seat, bot in enumerate(spec.bots)
    ]
    conns: list[Connection | None] = []
    faults: list[SeatFault] = []
    said: list[str] = []
    versions: list[str] = []

    trackers: list[Tracker | None] = [None] * n
    used: list[Usage | None] = [None] * n

    def fault(seat: int, problem: Fault) -> None:
        tracker = trackers[seat]
        if tracker is not None:  # its usage up to now; a bot killed for its budget says so
            if tracker.breach is not None:
                problem = Fault(FaultKind.RESOURCES, tracker.breach, problem.stderr_tail)
            used[seat] = end_usage([tracker])[0]
            trackers[seat] = None
        faults.append(
            SeatFault(seat, len(actions), problem.kind, problem.message, problem.stderr_tail)
        )
        if conns[seat] is not None:
            conns[seat] = None
            pool.discard(spec.bots[seat], slots[seat])

    actions: list[tuple[int, Action]] = []
    for seat, bot in enumerate(spec.bots):
        got = pool.get(bot, slots[seat])
        conns.append(got if not isinstance(got, Fault) else None)
        said.append(got.name if not isinstance(got, Fault) else "")
        versions.append(got.version if not isinstance(got, Fault) else "")
        if isinstance(got, Fault):
            fault(seat, got)
    trackers[:] = [tracker_of(conn) for conn in conns]
    begin_usage(trackers, pool.limits.budget)

    def over_budget() -> list[int]:
        """Seats whose bot was killed for its budget and is not yet faulted for it."""
        return [s for s, t in enumerate(trackers) if t is not None and t.breach is not None]

    for seat, conn in enumerate(conns):
        start = {
            "type": "start",
            "match": spec.match_id,
            "game": spec.game,
            "seat": seat,
            "seats": n,
            "players": [b.name for b in spec.bots],
            "options": dict(state.options),
            "time": {"decision_ms": time_left(limits.decision), "bank_ms": time_left(limits.bank)},
        }
        if conn is not None and (problem := conn.notify(start)):
            fault(seat, problem)

    cursors = [0] * n
    bank = [limits.bank] * n
    decision_ms = time_left(limits.decision)
    fallback: list[int] = []
    debug: list[tuple[int, int, str]] = []
    debug_left = [pool.limits.debug_total] * n
    times: list[list[float]] = [[] for _ in range(n)]
    while not state.is_over():
        movers = state.to_move()
        legal = {seat: state.legal(seat) for seat in movers}
        asking: list[tuple[int, Connection]] = []
        for seat in movers:
            conn = conns[seat]
            if conn is None:
                continue
            message: dict[str, Any] = {
                "type": "act",
                "id": 0,
                "step": len(actions),
                "observation": state.observation(seat),
                "legal": legal[seat],
                "events": state.events_for(seat, cursors[seat]),
                "time": {"decision_ms": decision_ms, "bank_ms": time_left(bank[seat])},
            }
            cursors[seat] = len(state.log)
            conn.ask(message, legal[seat], time.monotonic() + limits.decision + bank[seat])
            asking.append((seat, conn))
        replies = collect([conn for _, conn in asking])
        answers = {seat: reply for (seat, _), reply in zip(asking, replies, strict=True)}
        for seat in over_budget():  # its answer, if any, is not applied
            fault(seat, Fault(FaultKind.RESOURCES, "", stderr_of(conns[seat])))
            answers.pop(seat, None)
        for seat in movers:
            answer = answers.get(seat)
            if isinstance(answer, Answer):
                times[seat].append(answer.seconds)
                bank[seat] -= max(0.0, answer.seconds - limits.decision)
                if answer.debug and debug_left[seat] > 0:
                    note = answer.debug[: debug_left[seat]]
                    debug_left[seat] -= len(note)
                    debug.append((len(actions), seat, note))
                action = legal[seat][answer.index]
            else:
                if answer is not None:
                    fault(seat, answer)
                fallback.append(len(actions))
                action = legal[seat][0]
            state.apply(seat, action)
            actions.append((seat, action))

    for seat, usage in enumerate(end_usage(trackers)):
        if trackers[seat] is not None:
            used[seat] = usage
    for seat in over_budget():  # killed after the last decision: still its fault
        fault(seat, Fault(FaultKind.RESOURCES, "", stderr_of(conns[seat])))
    result = state.result()
    faulted = {f.seat for f in faults}
    ranks = demote_faulted(result.ranks, faulted)
    for seat, conn in enumerate(conns):
        if conn is None:
            continue
        end = {
            "type": "end",
            "match": spec.match_id,
            "result": result.to_json(),
            "ranks": list(ranks),
            "faulted": sorted(faulted),
            "events": state.events_for(seat, cursors[seat]),
        }
        if conn.notify(end) is not None:
            # Gone before bye: the match is decided, so this is no fault; restart it next time.
            pool.discard(spec.bots[seat], slots[seat])
    return MatchRecord(
        match_id=spec.match_id,
        game=spec.game,
        seed=spec.seed,
        options=dict(state.options),
        seats=tuple(
            {"bot": b.source, "name": b.name, "said": said[s], "version": versions[s] or b.version}
            for s, b in enumerate(spec.bots)
        ),
        actions=tuple(actions),
        fallback_steps=tuple(fallback),
        debug=tuple(debug),
        faults=tuple(faults),
        result=result.to_json(),
        ranks=ranks,
        decisions=tuple(
            {"count": len(t), "total_s": round(sum(t), 6), "max_s": round(max(t, default=0), 6)}
            for t in times
        ),
        seconds=round(time.monotonic() - began, 6),
        usage=tuple(used),
    )


def stderr_of(conn: Connection | None) -> str:
    return conn.stderr_tail() if conn is not None else ""
