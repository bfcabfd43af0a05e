"""Phase 10: 2-6 seats lay down ten phases of sets, runs and colour groups, in order.

Cards as JSON are strings: ``"R7"`` is red 7 (colours R red, B blue, G green, Y yellow; numbers
1..12), ``"W"`` a Wild, ``"S"`` a Skip. The observation's ``decision`` says which actions apply:

``"draw"`` (start of a turn)
    ``"draw"`` takes the top of the draw pile; ``"take"`` takes the top of the discard pile
    (never a Skip).
``"play"`` (after drawing)
    ``{"lay": k}`` starts laying down phase ``k`` (only offered when the whole phase can be laid
    from the hand; once started the lay-down must be finished, and every step keeps that
    possible). ``{"hit": g, "card": c}`` adds card ``c`` to table group ``g`` (its ``id``); for a
    run the action also names the end, ``"end": "low"`` or ``"high"``. ``{"discard": c}`` ends
    the turn; a Skip names its victim, ``{"discard": "S", "target": seat}``, or has no
    ``target`` when no seat may be skipped (or when the Skip is the seat's last card).
``"lay"`` (building the phase, group by group, in the phase's order)
    With no group open: ``{"set": n}`` opens a set of number ``n``, ``{"run": lo}`` a run
    starting at ``lo``, ``{"colour": "R"}`` a colour group. With a group open: ``{"add": c}``
    puts card ``c`` into it (a run grows upward: the card takes the next value, so a Wild there
    stands for that value); ``"end"`` closes it. Closing the last group lays the phase down.

Every list is complete and deduplicated (two identical cards are one choice): every complete
lay-down the hand allows is reachable through these steps, and no step leads to a dead end.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, Final

from arena.games.base import (
    JSON,
    Action,
    Event,
    GameOverError,
    GameSpec,
    OptionError,
    OptionSpec,
    Result,
    SnapshotError,
    State,
    check_conserved,
    competition_ranks,
    snap_bool,
    snap_cards,
    snap_choice,
    snap_int,
    snap_ints,
    snap_list,
    snap_optional_int,
    snapshot_fields,
)
from arena.games.phase10_groups import (
    COLOURS,
    HAND_SIZE,
    ORDER,
    PHASES,
    SKIP,
    TOP,
    Group,
    Kind,
    Req,
    by_colour,
    describe_phase,
    fits_group,
    fits_phase,
    full_deck,
    hit_ends,
    is_natural,
    points,
    pool_of,
    sort_cards,
)

DRAW: Final = "draw"
TAKE: Final = "take"


class Step(StrEnum):
    """The decision the seat to move faces (the observation's ``decision``)."""

    DRAW = "draw"
    PLAY = "play"
    LAY = "lay"


END: Final = "end"


def phase_sequence(parity: str, first: int | None) -> tuple[int, ...]:
    """The phases played, in order: all, or only the even or odd ones, then only the first N."""
    phases = [p for p in PHASES if parity == "all" or (p % 2 == 0) == (parity == "even")]
    return tuple(phases[:first] if first is not None else phases)


def same_json(a: JSON, b: JSON) -> bool:
    """Equal as JSON values: same types all the way down (so ``true`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def is_listed(action: JSON, legal: list[Action]) -> bool:
    return any(same_json(action, a) for a in legal)


def hand_points(hand: list[str]) -> int:
    return sum(points(c) for c in hand)


@dataclass
class LayDown:
    """A phase being laid down: the groups closed so far and the one open, if any."""

    phase: int
    groups: list[Group] = field(default_factory=list)
    open: Group | None = None

    def cards(self) -> list[str]:
        laid = [c for g in self.groups for c in g.cards]
        return laid + (list(self.open.cards) if self.open else [])

    def to_json(self) -> dict[str, JSON]:
        return {
            "phase": self.phase,
            "groups": [g.to_json(None) for g in self.groups],
            "open": self.open.to_json(None) if self.open else None,
        }


class Phase10State(State):
    game = "phase10"

    def __init__(self, seed: int, seats: int, options: Mapping[str, JSON]) -> None:
        super().__init__(seed, seats, options)
        o = self.options
        if o["pick_phase"] and o["all_advance"]:
            raise OptionError("pick_phase and all_advance cannot be combined")
        self.sequence = phase_sequence(o["phases"], o["first_phases"])
        self.max_turns: int | None = o["max_turns"]
        self.max_hands: int | None = o["max_hands"]
        self.final_discard: bool = o["final_discard"]
        self.skip_next: bool = o["skip_next"]
        self.natural_per_phase: bool = o["natural_per_phase"]
        self.all_advance: bool = o["all_advance"]
        self.pick_phase: bool = o["pick_phase"]
        self.hit_others_same_turn: bool = o["hit_others_same_turn"]
        self.tiebreak_by: str = o["tiebreak"]
        self.done: list[list[int]] = [[] for _ in range(seats)]
        """The phases each seat has completed, in the order completed."""
        self.totals = [0] * seats
        self.hand_no = 0
        self.dealer = -1
        self.active = list(range(seats))
        self.tiebreak: list[int] | None = None
        self.tiebreak_winner: int | None = None
        self.hands: list[list[str]] = [[] for _ in range(seats)]
        self.draw_pile: list[str] = []
        self.discard_pile: list[str] = []
        self.table: list[Group] = []
        self.laid: list[int | None] = [None] * seats
        """The phase each seat laid down this hand (None: not down)."""
        self.skip_waiting = [False] * seats
        self.known: list[list[str]] = [[] for _ in range(seats)]
        """Cards each seat took from the discard pile this hand and still holds (public)."""
        self.turn = 0
        self.step = Step.DRAW
        self.laying: LayDown | None = None
        self.laid_this_turn = False
        self.turns = 0
        self.over = False
        self.capped: str | None = None
        self.turn_capped_hands = 0
        self.blocked_hands = 0
        self._legal: list[Action] | None = None
        self._start_hand()

    # -- the hand -------------------------------------------------------------------------

    def _next_seat(self, seat: int) -> int:
        at = self.active.index(seat) if seat in self.active else -1
        if at < 0:  # the dealer may sit out a tie-break hand
            return next((s for s in self.active if s > seat), self.active[0])
        return self.active[(at + 1) % len(self.active)]

    def _start_hand(self) -> None:
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % self.seats
        deck = full_deck()
        self.rng.shuffle(deck)
        self.hands = [[] for _ in range(self.seats)]
        for seat in self.active:
            self.hands[seat] = sort_cards(deck[:HAND_SIZE])
            del deck[:HAND_SIZE]
        self.discard_pile = [deck.pop()]
        self.draw_pile = deck
        self.table = []
        self.laid = [None] * self.seats
        self.skip_waiting = [False] * self.seats
        self.known = [[] for _ in range(self.seats)]
        self.laying = None
        self.turns = 0
        upcard = self.discard_pile[-1]
        self.emit(
            {
                "type": "hand",
                "hand": self.hand_no,
                "dealer": self.dealer,
                "seats": list(self.active),
                "upcard": upcard,
                "tiebreak": self.tiebreak is not None,
                "phases": [self._phase_now(s) for s in range(self.seats)],
            }
        )
        for seat in self.active:
            self.emit({"type": "deal", "hand": self.hand_no, "cards": list(self.hands[seat])}, seat)
        first = self._next_seat(self.dealer)
        if upcard == SKIP:
            self.emit({"type": "skipped", "seat": first, "reason": "upcard"})
            first = self._next_seat(first)
        self._begin_turn(first)

    def _begin_turn(self, seat: int) -> None:
        if self.max_turns is not None and self.turns >= self.max_turns * len(self.active):
            self.turn_capped_hands += 1
            self.emit({"type": "cap", "kind": "turns", "hand": self.hand_no, "turns": self.turns})
            self._end_hand(None)
            return
        self.turns += 1
        self.turn = seat
        self.step = Step.DRAW
        self.laid_this_turn = False
        if not self._can_draw() and not self._can_take():
            self.blocked_hands += 1
            self.emit({"type": "blocked", "hand": self.hand_no, "seat": seat})
            self._end_hand(None)

    def _can_draw(self) -> bool:
        return bool(self.draw_pile) or len(self.discard_pile) > 1

    def _can_take(self) -> bool:
        return bool(self.discard_pile) and self.discard_pile[-1] != SKIP

    def _end_turn(self) -> None:
        seat = self._next_seat(self.turn)
        while self.skip_waiting[seat]:
            self.skip_waiting[seat] = False
            self.emit({"type": "skipped", "seat": seat, "reason": "skip"})
            seat = self._next_seat(seat)
        self._begin_turn(seat)

    def _phase_now(self, seat: int) -> int | None:
        """The phase ``seat`` plays for this hand (in pick-a-phase: None, any it lacks)."""
        if self.tiebreak is not None:
            return self.sequence[-1] if seat in self.tiebreak else None
        if self.pick_phase:
            return None
        return next((p for p in self.sequence if p not in self.done[seat]), None)

    def _phases_open(self, seat: int) -> list[int]:
        """The phases ``seat`` may lay down this hand."""
        if self.tiebreak is not None or not self.pick_phase:
            now = self._phase_now(seat)
            return [] if now is None else [now]
        return [p for p in self.sequence if p not in self.done[seat]]

    def _end_hand(self, out: int | None) -> None:
        scored = [hand_points(self.hands[s]) if s in self.active else 0 for s in range(self.seats)]
        if self.tiebreak is not None:
            if self.tiebreak_by == "out" or self.tiebreak_winner is None:
                self.tiebreak_winner = out
            self.emit(
                {
                    "type": "hand_end",
                    "hand": self.hand_no,
                    "out": out,
                    "points": scored,
                    "totals": list(self.totals),
                    "advanced": [],
                    "tiebreak_winner": self.tiebreak_winner,
                }
            )
            self._finish()
            return
        advanced = []
        for seat in self.active:
            self.totals[seat] += scored[seat]
            phase = self.laid[seat]
            if self.all_advance:
                phase = self._phase_now(seat)
            if phase is not None:
                self.done[seat].append(phase)
                advanced.append(seat)
        self.emit(
            {
                "type": "hand_end",
                "hand": self.hand_no,
                "out": out,
                "points": scored,
                "totals": list(self.totals),
                "advanced": advanced,
            }
        )
        finishers = [s for s in range(self.seats) if len(self.done[s]) == len(self.sequence)]
        if finishers:
            best = min(self.totals[s] for s in finishers)
            tied = [s for s in finishers if self.totals[s] == best]
            if len(tied) > 1:
                self.tiebreak = tied
                self.active = list(tied)
                self.emit({"type": "tiebreak", "seats": list(tied), "total": best})
                self._start_hand()
            else:
                self._finish()
        elif self.max_hands is not None and self.hand_no >= self.max_hands:
            self.capped = "hands"
            self.emit({"type": "cap", "kind": "hands", "hand": self.hand_no})
            self._finish()
        else:
            self._start_hand()

    def _finish(self) -> None:
        self.over = True
        result = self.result()
        self.emit(
            {
                "type": "game_end",
                "scores": list(result.scores),
                "ranks": list(result.ranks),
                "phases": [len(d) for d in self.done],
                "capped": self.capped,
            }
        )

    # -- legal actions --------------------------------------------------------------------

    def _keep(self) -> int:
        """Cards a seat must keep after laying down or hitting (one for the final discard)."""
        return 1 if self.final_discard else 0

    def _pool_keep(self, hand: list[str]) -> int:
        """Cards the pool must keep back: Skips are never laid and are not in the pool, so each
        Skip in hand already keeps a card."""
        return max(0, self._keep() - hand.count(SKIP))

    def _reqs(self, lay: LayDown) -> tuple[tuple[Req, ...], bool]:
        """What the lay-down still needs, and whether any natural card is in it yet."""
        needs = PHASES[lay.phase]
        natural_in = any(is_natural(c) for c in lay.cards())
        reqs: list[Req] = []
        if lay.open is not None:
            need = needs[len(lay.groups)]
            group = lay.open
            nxt = group.high + 1 if group.kind is Kind.RUN else group.key
            lacking = group.naturals() == 0
            reqs.append(Req(group.kind, nxt, max(0, need.size - len(group.cards)), lacking))
            rest = needs[len(lay.groups) + 1 :]
        else:
            rest = needs[len(lay.groups) :]
        reqs.extend(Req(n.kind, 0, n.size, True) for n in rest)
        if self.natural_per_phase:
            reqs = [Req(r.kind, r.key, r.more, not natural_in) for r in reqs]
        return tuple(reqs), natural_in

    def _feasible(self, lay: LayDown, hand: list[str]) -> bool:
        reqs, natural_in = self._reqs(lay)
        if not reqs and not natural_in:
            return False  # a phase with no natural card at all (possible only per phase)
        pool = pool_of(hand, by_colour(lay.phase))
        return fits_phase(reqs, pool, self._pool_keep(hand), self.natural_per_phase)

    def _lay_actions(self, hand: list[str]) -> list[Action]:
        lay = self.laying
        assert lay is not None
        need_index = len(lay.groups)
        actions: list[Action] = []
        if lay.open is None:
            need = PHASES[lay.phase][need_index]
            if need.kind is Kind.RUN:
                keys = range(1, TOP - need.size + 2)
            elif need.kind is Kind.SET:
                keys = range(1, TOP + 1)
            else:
                keys = range(1, len(COLOURS) + 1)
            for key in keys:
                trial = LayDown(lay.phase, lay.groups, Group(self.turn, need.kind, key, []))
                if self._feasible(trial, hand):
                    if need.kind is Kind.COLOUR:
                        actions.append({"colour": COLOURS[key - 1]})
                    else:
                        actions.append({str(need.kind): key})
            return actions
        group = lay.open
        slot = group.high + 1 if group.kind is Kind.RUN else group.key
        for card in dict.fromkeys(hand):
            if not fits_group(group.kind, slot, card):
                continue
            rest = list(hand)
            rest.remove(card)
            grown = Group(group.owner, group.kind, group.key, [*group.cards, card])
            if self._feasible(LayDown(lay.phase, lay.groups, grown), rest):
                actions.append({"add": card})
        need = PHASES[lay.phase][need_index]
        natural_ok = self.natural_per_phase or group.naturals() > 0
        if len(group.cards) >= need.size and natural_ok:
            closed = LayDown(lay.phase, [*lay.groups, group], None)
            if self._feasible(closed, hand):
                actions.append(END)
        return actions

    def _hit_actions(self, seat: int, hand: list[str]) -> list[Action]:
        if len(hand) - 1 < self._keep():
            return []
        actions: list[Action] = []
        for gid, group in enumerate(self.table):
            if self.laid_this_turn and not self.hit_others_same_turn and group.owner != seat:
                continue
            for card in dict.fromkeys(hand):
                for end in hit_ends(group, card):
                    action: dict[str, JSON] = {"hit": gid, "card": card}
                    if end is not None:
                        action["end"] = end
                    actions.append(action)
        return actions

    def _discard_actions(self, seat: int, hand: list[str]) -> list[Action]:
        actions: list[Action] = []
        for card in dict.fromkeys(hand):
            actions.extend(self._discards(seat, hand, card))
        return actions

    def _discards(self, seat: int, hand: list[str], card: str) -> list[Action]:
        """The discard actions of one card of the hand."""
        if card != SKIP:
            return [{"discard": card}]
        targets = self._skip_targets(seat) if len(hand) > 1 else []
        actions: list[Action] = [] if targets else [{"discard": SKIP}]
        actions.extend({"discard": SKIP, "target": t} for t in targets)
        return actions

    def _skip_targets(self, seat: int) -> list[int]:
        if self.skip_next:
            return [self._next_seat(seat)]
        return [s for s in self.active if s != seat and not self.skip_waiting[s]]

    def _compute_legal(self) -> list[Action]:
        seat = self.turn
        hand = self.hands[seat]
        if self.step is Step.DRAW:
            return ([DRAW] if self._can_draw() else []) + ([TAKE] if self._can_take() else [])
        if self.step is Step.LAY:
            return self._lay_actions(hand)
        actions: list[Action] = []
        if self.laid[seat] is None:
            actions.extend(
                {"lay": p} for p in self._phases_open(seat) if self._feasible(LayDown(p), hand)
            )
        else:
            actions.extend(self._hit_actions(seat, hand))
        actions.extend(self._discard_actions(seat, hand))
        return actions

    def to_move(self) -> list[int]:
        return [] if self.over else [self.turn]

    def legal(self, seat: int) -> list[Action]:
        if self.over or seat != self.turn:
            return []
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _allows(self, seat: int, action: Action) -> bool:
        """Whether ``action`` is among the legal actions of ``seat`` (the seat to move).

        A discard, when the legal actions were not asked for (a replay), is looked up among
        that card's discards alone: the whole list would check first whether the seat's phase
        can be laid, a search that costs more than the rest of the step. The answer is the
        same (tests/site compare the two at every step of random games)."""
        if self._legal is None and self.step is Step.PLAY and isinstance(action, dict):
            card = action.get("discard")
            if card is not None:
                hand = self.hands[seat]
                if type(card) is not str or card not in hand:
                    return False
                return is_listed(action, self._discards(seat, hand, card))
        return is_listed(action, self.legal(seat))

    # -- applying -------------------------------------------------------------------------

    def apply(self, seat: object, action: Action) -> None:
        if type(seat) is not int:
            raise self.illegal(seat, action, "no such seat")
        if self.over:
            raise self.illegal(seat, action, "the game is over")
        if seat != self.turn:
            raise self.illegal(seat, action, f"it is seat {self.turn}'s turn")
        if not self._allows(seat, action):
            raise self.illegal(seat, action, f"not among the legal actions to {self.step.value}")
        self._legal = None
        hand = self.hands[seat]
        if action == DRAW:
            self._draw(seat)
        elif action == TAKE:
            card = self.discard_pile.pop()
            hand.append(card)
            self.known[seat].append(card)
            self.emit({"type": "take", "seat": seat, "card": card})
            self._after_draw(seat)
        elif action == END:
            self._close_group(seat)
        elif "lay" in action:
            self.laying = LayDown(action["lay"])
            self.step = Step.LAY
        elif "add" in action:
            assert self.laying is not None and self.laying.open is not None
            self._give_up(seat, action["add"])
            self.laying.open.cards.append(action["add"])
        elif "hit" in action:
            self._hit(seat, action)
        elif "discard" in action:
            self._discard(seat, action)
        else:  # opening a group: {"set": n}, {"run": lo} or {"colour": c}
            assert self.laying is not None
            ((kind, key),) = action.items()
            index = COLOURS.index(key) + 1 if kind == "colour" else key
            self.laying.open = Group(seat, Kind(kind), index, [])

    def _give_up(self, seat: int, card: str) -> None:
        """Take ``card`` out of the seat's hand (it goes on the table or the discard pile)."""
        self.hands[seat].remove(card)
        if card in self.known[seat]:
            self.known[seat].remove(card)

    def _draw(self, seat: int) -> None:
        if not self.draw_pile:
            top = self.discard_pile.pop()
            self.draw_pile = self.discard_pile
            self.rng.shuffle(self.draw_pile)
            self.discard_pile = [top]
            self.emit({"type": "reshuffle", "cards": len(self.draw_pile)})
        card = self.draw_pile.pop()
        self.hands[seat].append(card)
        self.emit({"type": "draw", "seat": seat})
        self.emit({"type": "drew", "seat": seat, "card": card}, seat)
        self._after_draw(seat)

    def _after_draw(self, seat: int) -> None:
        self.hands[seat] = sort_cards(self.hands[seat])
        self.step = Step.PLAY

    def _close_group(self, seat: int) -> None:
        lay = self.laying
        assert lay is not None and lay.open is not None
        lay.groups.append(lay.open)
        lay.open = None
        if len(lay.groups) < len(PHASES[lay.phase]):
            return
        self.laying = None
        self.step = Step.PLAY
        first = len(self.table)
        self.table.extend(lay.groups)
        self.laid[seat] = lay.phase
        self.laid_this_turn = True
        self.emit(
            {
                "type": "lay",
                "seat": seat,
                "phase": lay.phase,
                "groups": [g.to_json(first + i) for i, g in enumerate(lay.groups)],
            }
        )
        if self.tiebreak is not None and self.tiebreak_by == "lay":
            self.tiebreak_winner = seat
            self._end_hand(None)
        elif not self.hands[seat]:
            self._go_out(seat)

    def _hit(self, seat: int, action: dict[str, JSON]) -> None:
        group = self.table[action["hit"]]
        card = action["card"]
        self._give_up(seat, card)
        if action.get("end") == "low":
            group.key -= 1
            group.cards.insert(0, card)
        else:
            group.cards.append(card)
        event: dict[str, JSON] = {"type": "hit", "seat": seat, "group": action["hit"], "card": card}
        if "end" in action:
            event["end"] = action["end"]
        self.emit(event)
        if not self.hands[seat]:
            self._go_out(seat)

    def _discard(self, seat: int, action: dict[str, JSON]) -> None:
        card = action["discard"]
        self._give_up(seat, card)
        self.discard_pile.append(card)
        target = action.get("target")
        self.emit({"type": "discard", "seat": seat, "card": card, "target": target})
        if target is not None:
            self.skip_waiting[target] = True
        if not self.hands[seat]:
            self._go_out(seat)
        else:
            self._end_turn()

    def _go_out(self, seat: int) -> None:
        self.emit({"type": "out", "seat": seat, "hand": self.hand_no})
        self._end_hand(seat)

    # -- what seats see -------------------------------------------------------------------

    def observation(self, seat: int) -> dict[str, JSON]:
        deciding = not self.over and seat == self.turn
        return {
            "decision": self.step.value if deciding else None,
            "seat": seat,
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "turn": None if self.over else self.turn,
            "turns": self.turns,
            "sequence": list(self.sequence),
            "active": list(self.active),
            "tiebreak": None if self.tiebreak is None else list(self.tiebreak),
            "hand": list(self.hands[seat]),
            "table": [g.to_json(i) for i, g in enumerate(self.table)],
            "laying": None if self.laying is None else self.laying.to_json(),
            "discard_top": self.discard_pile[-1] if self.discard_pile else None,
            "discard_size": len(self.discard_pile),
            "draw_size": len(self.draw_pile),
            "phase": [self._phase_now(s) for s in range(self.seats)],
            "completed": [list(d) for d in self.done],
            "hand_sizes": [len(h) for h in self.hands],
            "totals": list(self.totals),
            "laid": list(self.laid),
            "skip_waiting": list(self.skip_waiting),
            "known": [sort_cards(k) for k in self.known],
        }

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        if not self.over:
            raise GameOverError("the game is not over")
        winner = self.tiebreak_winner
        tied = self.tiebreak or []
        keys = [
            (
                -len(self.done[s]),
                self.totals[s],
                1 if s in tied and s != winner and winner is not None else 0,
            )
            for s in range(self.seats)
        ]
        details: dict[str, JSON] = {
            "hands": self.hand_no,
            "phases": [len(d) for d in self.done],
            "capped": self.capped,
            "turn_capped_hands": self.turn_capped_hands,
            "blocked_hands": self.blocked_hands,
            "tiebreak": None
            if self.tiebreak is None
            else {"seats": list(self.tiebreak), "winner": self.tiebreak_winner},
        }
        return Result(tuple(self.totals), competition_ranks(keys), details)

    def snapshot(self) -> dict[str, JSON]:
        return {
            **self.snapshot_head(),
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "turn": self.turn,
            "step": self.step.value,
            "turns": self.turns,
            "active": list(self.active),
            "tiebreak": None if self.tiebreak is None else list(self.tiebreak),
            "tiebreak_winner": self.tiebreak_winner,
            "hands": [list(h) for h in self.hands],
            "draw_pile": list(self.draw_pile),
            "discard_pile": list(self.discard_pile),
            "table": [g.to_json(i) for i, g in enumerate(self.table)],
            "laying": None if self.laying is None else self.laying.to_json(),
            "laid": list(self.laid),
            "done": [list(d) for d in self.done],
            "totals": list(self.totals),
            "skip_waiting": list(self.skip_waiting),
            "known": [list(k) for k in self.known],
            "over": self.over,
            "capped": self.capped,
            "laid_this_turn": self.laid_this_turn,
            "turn_capped_hands": self.turn_capped_hands,
            "blocked_hands": self.blocked_hands,
        }

    SNAPSHOT_KEYS: ClassVar[tuple[str, ...]] = (
        "hand_no",
        "dealer",
        "turn",
        "step",
        "turns",
        "active",
        "tiebreak",
        "tiebreak_winner",
        "hands",
        "draw_pile",
        "discard_pile",
        "table",
        "laying",
        "laid",
        "done",
        "totals",
        "skip_waiting",
        "known",
        "over",
        "capped",
        "laid_this_turn",
        "turn_capped_hands",
        "blocked_hands",
    )

    def restore(self, snapshot: dict[str, JSON]) -> None:
        data = snapshot_fields(self.game, snapshot, self.SNAPSHOT_KEYS)
        n, last = self.seats, self.seats - 1
        cards = ORDER
        self.hand_no = snap_int(data["hand_no"], "hand_no", 1)
        self.dealer = snap_int(data["dealer"], "dealer", 0, last)
        self.turn = snap_int(data["turn"], "turn", 0, last)
        self.step = Step(snap_choice(data["step"], "step", [str(s) for s in Step]))
        self.turns = snap_int(data["turns"], "turns")
        self.active = snap_ints(data["active"], "active", 0, last)
        tiebreak = data["tiebreak"]
        self.tiebreak = None if tiebreak is None else snap_ints(tiebreak, "tiebreak", 0, last)
        self.tiebreak_winner = snap_optional_int(
            data["tiebreak_winner"], "tiebreak_winner", 0, last
        )
        self.hands = [
            snap_cards(h, f"hands[{s}]", cards)
            for s, h in enumerate(snap_list(data["hands"], "hands", n))
        ]
        self.draw_pile = snap_cards(data["draw_pile"], "draw_pile", cards)
        self.discard_pile = snap_cards(data["discard_pile"], "discard_pile", cards)
        self.table = [
            group_from_json(g, f"table[{i}]", i, n)
            for i, g in enumerate(snap_list(data["table"], "table"))
        ]
        self.laying = None if data["laying"] is None else laydown_from_json(data["laying"], n)
        phases = list(self.sequence)
        self.laid = [
            None if p is None else snap_int(p, f"laid[{s}]", 1, 10)
            for s, p in enumerate(snap_list(data["laid"], "laid", n))
        ]
        self.done = [
            snap_ints(d, f"done[{s}]", 1, 10)
            for s, d in enumerate(snap_list(data["done"], "done", n))
        ]
        self.totals = snap_ints(data["totals"], "totals", 0, None, n)
        self.skip_waiting = [
            snap_bool(w, f"skip_waiting[{s}]")
            for s, w in enumerate(snap_list(data["skip_waiting"], "skip_waiting", n))
        ]
        self.known = [
            snap_cards(k, f"known[{s}]", cards)
            for s, k in enumerate(snap_list(data["known"], "known", n))
        ]
        self.over = snap_bool(data["over"], "over")
        capped = data["capped"]
        self.capped = None if capped is None else snap_choice(capped, "capped", ["hands"])
        self.laid_this_turn = snap_bool(data["laid_this_turn"], "laid_this_turn")
        self.turn_capped_hands = snap_int(data["turn_capped_hands"], "turn_capped_hands")
        self.blocked_hands = snap_int(data["blocked_hands"], "blocked_hands")
        self._legal = None
        on_table = [c for g in self.table for c in g.cards]
        laying = self.laying.cards() if self.laying is not None else []
        held = [c for hand in self.hands for c in hand]
        found = [*held, *self.draw_pile, *self.discard_pile, *on_table, *laying]
        check_conserved(self.game, found, full_deck())
        self._check_restored(phases)

    def _check_restored(self, phases: list[int]) -> None:
        """What the rules keep true between decisions, so that a restored state plays on."""

        def wrong(what: str) -> SnapshotError:
            return SnapshotError(f"phase10 snapshot: {what}")

        if not self.active or self.active != sorted(set(self.active)):
            raise wrong("active must list the seats in play, in order, at least one")
        if self.tiebreak is not None and self.tiebreak != self.active:
            raise wrong("in a tie-break hand the seats in play are the tied seats")
        for seat in range(self.seats):
            if any(p not in phases for p in self.done[seat]) or len(set(self.done[seat])) != len(
                self.done[seat]
            ):
                raise wrong(f"done[{seat}] must list phases of the sequence, each once")
            laid = self.laid[seat]
            if laid is not None and laid not in phases:
                raise wrong(f"laid[{seat}] must be a phase of the sequence")
            rest = list(self.hands[seat])
            for card in self.known[seat]:
                if card not in rest:
                    raise wrong(f"known[{seat}] holds {card}, which hands[{seat}] does not")
                rest.remove(card)
            if seat not in self.active and self.hands[seat]:
                raise wrong(f"seat {seat} sits out this hand, yet holds cards")
        if (self.step is Step.LAY) != (self.laying is not None):
            raise wrong("a phase is being laid exactly when the step is lay")
        if self.laying is not None:
            phase = self.laying.phase
            if phase not in self._phases_open(self.turn) or len(self.laying.groups) >= len(
                PHASES[phase]
            ):
                raise wrong(f"seat {self.turn} cannot be laying down phase {phase}")
            needs = PHASES[phase]
            groups = list(self.laying.groups)
            if self.laying.open is not None:
                groups.append(self.laying.open)
            for i, group in enumerate(groups):
                if group.kind is not needs[i].kind:
                    raise wrong(f"group {i} being laid is no {needs[i].kind}")
        if self.over:
            return
        if self.turn not in self.active:
            raise wrong(f"seat {self.turn} is to move but sits out this hand")
        if self.step is Step.DRAW and not (self._can_draw() or self._can_take()):
            raise wrong("the seat to draw can draw from neither pile")
        if self.step is not Step.DRAW and not self.hands[self.turn]:
            raise wrong("the seat to play holds no card")
        if self.capped is not None or self.tiebreak_winner is not None:
            raise wrong("capped or a tie-break winner, yet not over")

    def position(self) -> str:
        top = self.discard_pile[-1] if self.discard_pile else "-"
        hand = " ".join(self.hands[self.turn])
        return (
            f"hand {self.hand_no}, seat {self.turn} to {self.step.value}, discard top {top}, "
            f"hand [{hand}], {len(self.table)} groups down"
        )

    def resample_hidden(self, seat: int, rng: random.Random) -> Phase10State:
        copy = self.clone()
        others = [s for s in copy.active if s != seat]
        pool = list(copy.draw_pile)
        unknown: dict[int, int] = {}
        for s in others:
            rest = list(copy.hands[s])
            for card in copy.known[s]:  # cards publicly taken stay where everyone saw them go
                rest.remove(card)
            unknown[s] = len(rest)
            pool.extend(rest)
        rng.shuffle(pool)
        for s in others:
            copy.hands[s] = sort_cards([*copy.known[s], *pool[: unknown[s]]])
            del pool[: unknown[s]]
        copy.draw_pile = pool
        copy._legal = None
        return copy

    @staticmethod
    def describe(event: Event) -> str:
        kind = event["type"]
        seat = f"seat {event.get('seat')}"
        if kind == "hand":
            word = "Tie-break hand" if event["tiebreak"] else "Hand"
            return (
                f"{word} {event['hand']}: seat {event['dealer']} deals to {event['seats']}, "
                f"upcard {event['upcard']}, phases {event['phases']}"
            )
        if kind == "deal":
            return f"Dealt {' '.join(event['cards'])}"
        if kind == "skipped":
            why = "the first upcard is a Skip" if event["reason"] == "upcard" else "a Skip"
            return f"{seat} loses a turn ({why})"
        if kind == "draw":
            return f"{seat} draws from the draw pile"
        if kind == "drew":
            return f"{seat} drew {event['card']}"
        if kind == "take":
            return f"{seat} takes {event['card']} from the discard pile"
        if kind == "reshuffle":
            return f"The discard pile is shuffled into a new draw pile of {event['cards']} cards"
        if kind == "lay":
            groups = "; ".join(" ".join(g["cards"]) for g in event["groups"])
            return f"{seat} lays down phase {event['phase']} ({describe_phase(event['phase'])}): {groups}"
        if kind == "hit":
            end = f" ({event['end']} end)" if "end" in event else ""
            return f"{seat} hits {event['card']} on group {event['group']}{end}"
        if kind == "discard":
            target = f" onto seat {event['target']}" if event["target"] is not None else ""
            return f"{seat} discards {event['card']}{target}"
        if kind == "out":
            return f"{seat} goes out"
        if kind == "cap":
            if event["kind"] == "turns":
                return f"Turn cap: hand {event['hand']} ends after {event['turns']} turns"
            return f"Hand cap: the game ends after hand {event['hand']}"
        if kind == "blocked":
            return f"Hand {event['hand']} ends: {seat} can draw from neither pile"
        if kind == "hand_end":
            out = "nobody out" if event["out"] is None else f"seat {event['out']} out"
            extra = ""
            if "tiebreak_winner" in event:
                extra = f", tie-break won by seat {event['tiebreak_winner']}"
            return (
                f"Hand {event['hand']} over ({out}): points {event['points']}, "
                f"totals {event['totals']}, advancing {event['advanced']}{extra}"
            )
        if kind == "tiebreak":
            return f"Seats {event['seats']} tie on {event['total']} points: a tie-break hand"
        if kind == "game_end":
            capped = " (hand cap reached)" if event["capped"] else ""
            return (
                f"Game over{capped}: phases {event['phases']}, totals {event['scores']}, "
                f"places {event['ranks']}"
            )
        return str(event)


def group_from_json(data: JSON, where: str, gid: int | None, seats: int) -> Group:
    """A table group (or one being laid) from its JSON form (:meth:`Group.to_json`), checked."""
    if not isinstance(data, dict):
        raise SnapshotError(f"snapshot: {where} must be an object, not {type(data).__name__}")
    owner = snap_int(data.get("owner"), f"{where}.owner", 0, seats - 1)
    kind = Kind(snap_choice(data.get("kind"), f"{where}.kind", [str(k) for k in Kind]))
    cards = snap_cards(data.get("cards"), f"{where}.cards", ORDER)
    if kind is Kind.SET:
        key = snap_int(data.get("n"), f"{where}.n", 1, TOP)
    elif kind is Kind.RUN:
        key = snap_int(data.get("lo"), f"{where}.lo", 1, TOP)
    else:
        key = COLOURS.index(snap_choice(data.get("c"), f"{where}.c", COLOURS)) + 1
    group = Group(owner, kind, key, cards)
    if group.to_json(gid) != data:
        raise SnapshotError(f"snapshot: {where} is not a group as the game writes it: {data!r}")
    slots = [group.key + i if kind is Kind.RUN else group.key for i in range(len(cards))]
    if not all(fits_group(kind, slot, card) for slot, card in zip(slots, cards, strict=True)):
        raise SnapshotError(f"snapshot: {where} holds a card that does not belong in it")
    return group


def laydown_from_json(data: JSON, seats: int) -> LayDown:
    """A phase being laid from its JSON form (:meth:`LayDown.to_json`), checked."""
    if not isinstance(data, dict) or sorted(data) != ["groups", "open", "phase"]:
        raise SnapshotError(
            f"snapshot: laying must be an object of phase, groups and open: {data!r}"
        )
    phase = snap_int(data["phase"], "laying.phase", 1, len(PHASES))
    groups = [
        group_from_json(g, f"laying.groups[{i}]", None, seats)
        for i, g in enumerate(snap_list(data["groups"], "laying.groups"))
    ]
    opened = data["open"]
    group = None if opened is None else group_from_json(opened, "laying.open", None, seats)
    return LayDown(phase, groups, group)


SPEC: GameSpec = GameSpec(
    name="phase10",
    title="Phase 10",
    min_seats=2,
    max_seats=6,
    options=(
        OptionSpec(
            "max_turns",
            int,
            60,
            "a hand ends with nobody out after this many turns per seat in it (none: no cap)",
            minimum=1,
            nullable=True,
        ),
        OptionSpec(
            "max_hands",
            int,
            60,
            "the game ends after this many hands, tie-break hands aside (none: no cap)",
            minimum=1,
            nullable=True,
        ),
        OptionSpec(
            "final_discard",
            bool,
            False,
            "going out needs a final discard: hits and lay-downs must leave a card in hand",
        ),
        OptionSpec(
            "skip_next",
            bool,
            False,
            "the Estonian seed's reading: a Skip always skips the next seat",
        ),
        OptionSpec(
            "natural_per_phase",
            bool,
            False,
            "one natural card per phase suffices (default: one per group)",
        ),
        OptionSpec(
            "all_advance",
            bool,
            False,
            "every seat advances every hand; lowest total after the last phase wins",
        ),
        OptionSpec(
            "phases",
            str,
            "all",
            "play all phases, or only the even or only the odd ones",
            choices=("all", "even", "odd"),
        ),
        OptionSpec(
            "first_phases",
            int,
            None,
            "play only the first N phases of the sequence (none: all of them)",
            minimum=1,
            maximum=10,
            nullable=True,
        ),
        OptionSpec(
            "pick_phase",
            bool,
            False,
            "each hand a seat may lay down any phase it has not completed yet",
        ),
        OptionSpec(
            "hit_others_same_turn",
            bool,
            True,
            "false is the Estonian seed's reading: on the turn a seat lays down its phase it "
            "may hit only its own groups",
        ),
        OptionSpec(
            "tiebreak",
            str,
            "out",
            "who wins a tie-break hand: the first seat out, or (the Estonian seed) the first "
            "to lay down the phase",
            choices=("out", "lay"),
        ),
    ),
    state_class=Phase10State,
    summary="Lay down ten phases of sets, runs and colour groups in order; fewest points break ties.",
    rules_file="phase10.md",
)
