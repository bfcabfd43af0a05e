"""The match loop: one game between bots, played through a :class:`~arena.runtime.pool.BotPool`.

Every seat in ``state.to_move()`` is asked at once and the answers are applied in seat order.
A seat that faults is recorded with its fault, its remaining decisions are the first legal
action (the match's fallback, never the game's), it is ranked below every seat that did not
fault, and its process is stopped so the pool starts a fresh one for its next match.
Each seat's CPU time and peak memory over all its bot's processes are recorded
(:mod:`arena.runtime.usage`); a bot killed for going past the league's caps has a ``resources`` fault.
The game seed and hidden cards never reach a bot: a bot sees only its own observation, its legal
list, and the events addressed to it.

An in-process agent that reads only ``legal`` (:class:`~arena.runtime.botproc.LegalOnly`:
``builtin:random``, ``builtin:first``) is asked through its ``pick``: no observation, events or
message is built for it, and a match of such seats alone runs a leaner loop
(:meth:`Table.play_quick`). The record is the same either way, byte for byte.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

from arena.games import JSON, Action, State, get_game
from arena.games.base import competition_ranks
from arena.replay import Replay
from arena.runtime.botproc import (
    Answer,
    Connection,
    Fault,
    FaultKind,
    LocalConnection,
    RunLimits,
    collect,
)
from arena.runtime.manifest import BotSpec
from arena.runtime.pool import BotPool
from arena.runtime.usage import Tracker, Usage, tracker_of
from arena.runtime.usage import begin as begin_usage
from arena.runtime.usage import end as end_usage


@mypyc_attr(native_class=False)  # compiled, it could not be unpickled (frozen)
@dataclass(frozen=True)
class MatchSpec:
    """What to play: ``bots[i]`` sits in seat ``i``."""

    match_id: str
    """Sent to the bots; must not reveal the seed."""
    game: str
    seed: int
    bots: tuple[BotSpec, ...]
    options: Mapping[str, JSON] = field(default_factory=dict)


@mypyc_attr(native_class=False)  # compiled, it could not be unpickled (frozen)
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


@mypyc_attr(native_class=False)  # compiled, it could not be unpickled (frozen)
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


def outside(index: int, legal: Sequence[Any]) -> Fault:
    """The fault of a picked index outside ``legal`` (as :func:`check_reply` words it)."""
    return Fault(
        FaultKind.ILLEGAL_ACTION, f"index {index} is outside legal, which has {len(legal)} actions"
    )


def time_left(limit: float) -> int:
    return max(0, int(limit * 1000))


def slot_of(bots: Sequence[BotSpec], number: int) -> int:
    """Which of its bot's processes seat ``number`` gets: the count of earlier seats of that bot."""
    return sum(1 for bot in bots[:number] if bot.source == bots[number].source)


class Seat:
    """One seat of a match in play: its bot's connection and what the match counts for it.

    The time bank (decision time beyond the per-decision limit is taken from it), the debug budget
    (characters of notes still kept), the events sent so far, the answer times, and the CPU and
    memory of its bot's processes. ``conn`` is None if the bot did not start, and from its fault on
    (its decisions then fall back to the first legal action).
    """

    def __init__(self, number: int, bot: BotSpec, slot: int, limits: RunLimits) -> None:
        self.number = number
        self.bot = bot
        self.slot = slot
        """Which of the pool's processes of ``bot`` (a bot seated twice runs twice)."""
        self.conn: Connection | None = None
        self.pick: Callable[[Sequence[Any]], int] | None = None
        """The agent's ``pick`` when it is in-process and reads only ``legal`` (then it is never
        sent ``act``); None otherwise, and from its fault on."""
        self.said = ""
        """The name its bot gave in ``hello``."""
        self.version = ""
        self.tracker: Tracker | None = None
        """What its bot's processes use, while the match counts it."""
        self.usage: Usage | None = None
        self.cursor = 0
        """How much of the game's log this seat has been sent."""
        self.bank = limits.time.bank
        self.debug_left = limits.debug_total
        self.times: list[float] = []

    def over_budget(self) -> bool:
        """Whether its bot was killed for its CPU or memory budget and not yet faulted for it."""
        return self.tracker is not None and self.tracker.breach is not None

    def picked(self, legal: Sequence[Any], decision: float) -> int | Fault | None:
        """Ask a :class:`~arena.runtime.botproc.LegalOnly` agent: the index it picked (its time
        counted as an answer's), the fault of an index outside ``legal`` (as ``act`` replying
        with it would be), or None once it has faulted (the fallback then plays)."""
        pick = self.pick
        if pick is None:
            return None
        began = time.monotonic()
        index = pick(legal)
        took = time.monotonic() - began
        if not 0 <= index < len(legal):
            return outside(index, legal)
        self.times.append(took)
        if took > decision:
            self.bank -= took - decision
        return index

    def answered(self, answer: Answer, decision: float) -> str | None:
        """Count an answer's time (beyond ``decision`` seconds it is taken from the bank), and
        return the part of its debug note that the budget keeps (None: nothing kept)."""
        self.times.append(answer.seconds)
        self.bank -= max(0.0, answer.seconds - decision)
        if not answer.debug or self.debug_left <= 0:
            return None
        note = answer.debug[: self.debug_left]
        self.debug_left -= len(note)
        return note

    def to_json(self) -> dict[str, JSON]:
        """The seat as the record shows it."""
        version = self.version or self.bot.version
        return {
            "bot": self.bot.source,
            "name": self.bot.name,
            "said": self.said,
            "version": version,
        }

    def decisions(self) -> dict[str, JSON]:
        """How many decisions it answered, and how long they took."""
        times = self.times
        return {
            "count": len(times),
            "total_s": round(sum(times), 6),
            "max_s": round(max(times, default=0), 6),
        }


class Table:
    """A match in play: the game, its seats, and what the record keeps as the match goes."""

    def __init__(self, spec: MatchSpec, pool: BotPool) -> None:
        self.spec = spec
        self.pool = pool
        self.limits = pool.limits.time
        self.state = get_game(spec.game).new(spec.seed, len(spec.bots), spec.options)
        self.seats = [
            Seat(number, bot, slot_of(spec.bots, number), pool.limits)
            for number, bot in enumerate(spec.bots)
        ]
        self.actions: list[tuple[int, Action]] = []
        self.fallback: list[int] = []
        self.debug: list[tuple[int, int, str]] = []
        self.faults: list[SeatFault] = []
        self.decision_ms = time_left(self.limits.decision)
        self.watched: list[Seat] = []
        """The seats whose bot's usage is counted against a cap of the budget (only those can be
        killed for it); set by :meth:`start`."""

    def fault(self, seat: Seat, problem: Fault) -> None:
        """Record the seat's fault, and stop its bot (the pool starts a fresh one next match)."""
        if seat.tracker is not None:  # its usage up to now; a bot killed for its budget says so
            if seat.tracker.breach is not None:
                problem = Fault(FaultKind.RESOURCES, seat.tracker.breach, problem.stderr_tail)
            seat.usage = end_usage([seat.tracker])[0]
            seat.tracker = None
        self.faults.append(
            SeatFault(
                seat.number, len(self.actions), problem.kind, problem.message, problem.stderr_tail
            )
        )
        seat.pick = None
        if seat.conn is not None:
            seat.conn = None
            self.pool.discard(seat.bot, seat.slot)

    def fault_over_budget(self) -> list[int]:
        """Fault every seat whose bot was killed for its budget; their numbers."""
        if not self.watched:  # no cap, or no process bot: nothing to look at each decision
            return []
        late = [seat for seat in self.watched if seat.over_budget()]
        for seat in late:
            self.fault(seat, Fault(FaultKind.RESOURCES, "", stderr_of(seat.conn)))
        return [seat.number for seat in late]

    def start(self) -> None:
        """Get each seat's bot from the pool, count its usage from now, and send ``start``."""
        self.pool.begin_match()
        for seat in self.seats:
            got = self.pool.get(seat.bot, seat.slot)
            if isinstance(got, Fault):
                self.fault(seat, got)
            else:
                seat.conn, seat.said, seat.version = got, got.name, got.version
                if isinstance(got, LocalConnection):
                    seat.pick = getattr(got.agent, "pick", None)
        for seat in self.seats:
            seat.tracker = tracker_of(seat.conn)
        budget = self.pool.limits.budget
        begin_usage([seat.tracker for seat in self.seats], budget)
        if budget.cpu_seconds_per_match or budget.memory_mb_per_bot:
            self.watched = [seat for seat in self.seats if seat.tracker is not None]
        for seat in self.seats:
            start = {
                "type": "start",
                "match": self.spec.match_id,
                "game": self.spec.game,
                "seat": seat.number,
                "seats": len(self.seats),
                "players": [b.name for b in self.spec.bots],
                "options": dict(self.state.options),
                "time": {
                    "decision_ms": time_left(self.limits.decision),
                    "bank_ms": time_left(self.limits.bank),
                },
            }
            if seat.conn is not None and (problem := seat.conn.notify(start)):
                self.fault(seat, problem)

    def ask(self, seat: Seat, conn: Connection, legal: list[Action]) -> None:
        """Send the seat its ``act`` request: what it sees, its legal list, its new events."""
        state = self.state
        message: dict[str, Any] = {
            "type": "act",
            "id": 0,
            "step": len(self.actions),
            "observation": state.observation(seat.number),
            "legal": legal,
            "events": state.events_for(seat.number, seat.cursor),
            "time": {
                "decision_ms": self.decision_ms,
                "bank_ms": max(0, int(seat.bank * 1000)),  # time_left, inlined: every ask
            },
        }
        seat.cursor = len(state.log)
        conn.ask(message, legal, time.monotonic() + self.limits.decision + seat.bank)

    def decide(self) -> None:
        """One decision: every seat to move is asked at once; answers apply in seat order."""
        state, seats = self.state, self.seats
        movers = state.to_move()
        legal = [state.legal(number) for number in movers]
        asked: list[int] = []  # places in ``movers`` of the seats whose bots are asked
        conns: list[Connection] = []
        for k, number in enumerate(movers):
            seat = seats[number]
            if seat.conn is not None and seat.pick is None:
                self.ask(seat, seat.conn, legal[k])
                asked.append(k)
                conns.append(seat.conn)
        answers: list[Answer | Fault | int | None] = [None] * len(movers)
        if conns:
            for k, reply in zip(asked, collect(conns), strict=True):
                answers[k] = reply
        for k, number in enumerate(movers):  # in-process agents last, as collect has them
            if seats[number].pick is not None:
                answers[k] = seats[number].picked(legal[k], self.limits.decision)
        for number in self.fault_over_budget():  # its answer, if any, is not applied
            if number in movers:
                answers[movers.index(number)] = None
        for k, number in enumerate(movers):
            answer = answers[k]
            if type(answer) is int:
                action = legal[k][answer]
            elif isinstance(answer, Answer):
                note = seats[number].answered(answer, self.limits.decision)
                if note is not None:
                    self.debug.append((len(self.actions), number, note))
                action = legal[k][answer.index]
            else:
                if isinstance(answer, Fault):
                    self.fault(seats[number], answer)
                self.fallback.append(len(self.actions))
                action = legal[k][0]
            state.apply(number, action)
            self.actions.append((number, action))

    def quick(self) -> bool:
        """Whether every seat is a :class:`~arena.runtime.botproc.LegalOnly` agent (or has
        faulted) and none is a process whose usage is counted: :meth:`play_quick` applies."""
        return all(
            (seat.pick is not None or seat.conn is None) and seat.tracker is None
            for seat in self.seats
        )

    def play_quick(self) -> None:
        """The rest of the match when :meth:`quick`: :meth:`decide`'s loop with nothing to send,
        collect or sample, and :meth:`Seat.picked` written out (the same actions, times,
        faults and fallbacks; each mover's legal list is made before any of them applies)."""
        state, seats, actions = self.state, self.seats, self.actions
        to_move, legal_of, apply, is_over = state.to_move, state.legal, state.apply, state.is_over
        decision = self.limits.decision
        clock = time.monotonic
        picks = [seat.pick for seat in seats]
        times = [seat.times for seat in seats]
        while not is_over():
            chosen: list[tuple[int, Action]] = []
            missed: dict[int, int | Fault | None] | None = None
            for number in to_move():
                legal = legal_of(number)
                pick = picks[number]
                if pick is not None:
                    began = clock()
                    index = pick(legal)
                    took = clock() - began
                    if 0 <= index < len(legal):
                        times[number].append(took)
                        if took > decision:
                            seats[number].bank -= took - decision
                        chosen.append((number, legal[index]))
                        continue
                missed = missed or {}
                missed[number] = None if pick is None else outside(index, legal)
                picks[number] = None
                chosen.append((number, legal[0]))
            if missed is None:  # the common case, kept lean
                for number, action in chosen:
                    apply(number, action)
                actions += chosen
                continue
            for move in chosen:
                number = move[0]
                if number in missed:
                    self.play_fallback(number, missed[number])
                apply(number, move[1])
                actions.append(move)

    def play_fallback(self, number: int, got: int | Fault | None) -> None:
        """Seat ``number`` has no answer to apply: record its fault if it just faulted, and
        that the fallback plays this step."""
        if isinstance(got, Fault):
            self.fault(self.seats[number], got)
        self.fallback.append(len(self.actions))

    def finish(self, began: float) -> MatchRecord:
        """Stop counting usage, send ``end`` with the result, and return the match's record."""
        for seat, usage in zip(self.seats, end_usage([s.tracker for s in self.seats]), strict=True):
            if seat.tracker is not None:
                seat.usage = usage
        self.fault_over_budget()  # killed after the last decision: still its fault
        result = self.state.result()
        faulted = {f.seat for f in self.faults}
        ranks = demote_faulted(result.ranks, faulted)
        shared = result.to_json()
        # one copy for every LegalOnly seat (they read none of it); each other seat its own
        for seat in self.seats:
            if seat.conn is None:
                continue
            end = {
                "type": "end",
                "match": self.spec.match_id,
                "result": shared if seat.pick is not None else result.to_json(),
                "ranks": list(ranks),
                "faulted": sorted(faulted),
                # a LegalOnly agent reads no events: none are built for it
                "events": []
                if seat.pick is not None
                else self.state.events_for(seat.number, seat.cursor),
            }
            if seat.conn.notify(end) is not None:
                # Gone before bye: the match is decided, so this is no fault; restart it next time.
                self.pool.discard(seat.bot, seat.slot)
        return MatchRecord(
            match_id=self.spec.match_id,
            game=self.spec.game,
            seed=self.spec.seed,
            options=dict(self.state.options),
            seats=tuple(seat.to_json() for seat in self.seats),
            actions=tuple(self.actions),
            fallback_steps=tuple(self.fallback),
            debug=tuple(self.debug),
            faults=tuple(self.faults),
            result=result.to_json(),
            ranks=ranks,
            decisions=tuple(seat.decisions() for seat in self.seats),
            seconds=round(time.monotonic() - began, 6),
            usage=tuple(seat.usage for seat in self.seats),
        )


def run_match(spec: MatchSpec, pool: BotPool) -> MatchRecord:
    """Play one match to the end with the pool's bots and return its record. Never hangs."""
    return play_match(spec, pool)[0]


def play_match(spec: MatchSpec, pool: BotPool) -> tuple[MatchRecord, State]:
    """:func:`run_match`, and the game's final state (its log included), for a caller that
    shows the game as it went without playing it again from the record."""
    began = time.monotonic()
    table = Table(spec, pool)
    table.start()
    if table.quick():
        table.play_quick()
    while not table.state.is_over():
        table.decide()
    return table.finish(began), table.state


def stderr_of(conn: Connection | None) -> str:
    return conn.stderr_tail() if conn is not None else ""
