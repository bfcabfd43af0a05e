"""Take 5 (6 nimmt!): 2-10 seats, simultaneous tricks, lowest total of bull heads wins.

Actions: while choosing a card (``decision == "card"``) an action is the card's number; a seat
whose card is too low for every row chooses a row to take (``decision == "row"``), and the action
is the row's index 0-3.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import ClassVar, Final

from arena.games.base import (
    JSON,
    PUBLIC,
    Action,
    Event,
    GameOverError,
    GameSpec,
    OptionSpec,
    Result,
    SnapshotError,
    State,
    check_conserved,
    competition_ranks,
    draw,
    snap_bool,
    snap_int,
    snap_ints,
    snap_list,
    snap_optional_int,
    snapshot_fields,
)

DECK_SIZE: Final = 104
HAND_SIZE: Final = 10
ROWS: Final = 4
ROW_LIMIT: Final = 5
"""A row holds at most five cards; the sixth takes it."""


def bull_heads(card: int) -> int:
    """The penalty heads of a card: 55 → 7, multiple of 11 → 5, of 10 → 3, of 5 → 2, else 1."""
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


HEADS: Final[tuple[int, ...]] = (0, *tuple(bull_heads(c) for c in range(1, DECK_SIZE + 1)))


def cards_in_play(seats: int, tactics: bool) -> list[int]:
    """The cards used each round: all 104, or 1..10·n+4 in the tactics variant."""
    top = HAND_SIZE * seats + ROWS if tactics else DECK_SIZE
    return list(range(1, top + 1))


def choose_row(rows: list[list[int]], card: int, professional: bool) -> tuple[int, str] | None:
    """Where ``card`` must go: (row index, ``"right"`` or ``"left"``), or None if it is too low.

    A card goes after the highest row end still lower than it. In the professional variant it
    may also go before a row's first card when it is lower; the smallest difference over both
    ends decides.
    """
    best: tuple[int, str] | None = None
    best_gap = DECK_SIZE + 1
    for index, row in enumerate(rows):
        last = row[-1]
        if last < card and card - last < best_gap:
            best, best_gap = (index, "right"), card - last
        if professional:
            first = row[0]
            if card < first and first - card < best_gap:
                best, best_gap = (index, "left"), first - card
    return best


def rank_totals(totals: list[int]) -> tuple[int, ...]:
    """Lowest total wins; equal totals share the place."""
    return competition_ranks(totals)


class Take5State(State):
    game = "take5"
    event_fields = {  # noqa: RUF012  # read only (ClassVar in State)
        "round": ("round", "rows"),
        "deal": ("round", "hand"),
        "reveal": ("round", "trick", "cards"),
        "place": ("seat", "card", "row", "end"),
        "choose_row": ("seat", "row"),
        "take": ("seat", "card", "row", "cards", "heads", "reason"),
        "round_end": ("round", "heads", "totals"),
        "game_end": ("scores", "ranks", "capped"),
    }

    def __init__(self, seed: int, seats: int, options: Mapping[str, JSON]) -> None:
        super().__init__(seed, seats, options)
        self.end_score: int = self.options["end_score"]
        self.more_than: bool = self.options["more_than"]
        self.tactics: bool = self.options["tactics"]
        self.professional: bool = self.options["professional"]
        self.max_rounds: int | None = self.options["max_rounds"]
        self.deck: list[int] = cards_in_play(seats, self.tactics)
        self.round = 0
        self.trick = 0
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.rows: list[list[int]] = []
        self.chosen: list[int | None] = [None] * seats
        self.waiting = seats
        """How many seats have still to choose a card in this trick."""
        self.taken: list[list[int]] = [[] for _ in range(seats)]
        """Cards each seat took this round (public: everyone saw them taken)."""
        self.totals: list[int] = [0] * seats
        self.round_heads: list[int] = [0] * seats
        self.queue: list[int] = []
        """The revealed cards of the current trick still to be placed, highest first (the next
        card to place is the last); a card's seat is its index in ``revealed``."""
        self.revealed: list[int] = []
        self.row_chooser: int | None = None
        self.over = False
        self.capped = False
        self._deal()

    # -- the round ------------------------------------------------------------------------

    def _deal(self) -> None:
        self.round += 1
        self.trick = 1
        n = self.seats
        cards = draw(self.rng, self.deck, n * HAND_SIZE + ROWS)
        for seat in range(n):
            self.hands[seat] = sorted(cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE])
        starts = cards[n * HAND_SIZE :]
        self.rows = [[c] for c in starts]
        self.taken = [[] for _ in range(n)]
        self.round_heads = [0] * n
        self.record(PUBLIC, "round", self.round, [list(r) for r in self.rows])
        for seat in range(n):
            self.record(seat, "deal", self.round, list(self.hands[seat]))

    def _take_row(self, seat: int, index: int, card: int, reason: str) -> None:
        row = self.rows[index]
        heads = sum(HEADS[c] for c in row)
        self.taken[seat].extend(row)
        self.round_heads[seat] += heads
        self.totals[seat] += heads
        self.rows[index] = [card]
        self.record(PUBLIC, "take", seat, card, index, row, heads, reason)

    def _resolve(self) -> None:
        """Place the revealed cards lowest first; stop if a seat must choose a row."""
        queue = self.queue
        rows = self.rows
        professional = self.professional
        revealed = self.revealed
        while queue:
            card = queue[-1]
            seat = revealed.index(card)
            if professional:
                where = choose_row(rows, card, True)
                if where is None:
                    self.row_chooser = seat
                    return
                index, end = where
            else:  # the common case, unrolled for speed: after the highest end below the card
                r0, r1, r2, r3 = rows
                index, end, best = -1, "right", 0
                last = r0[-1]
                if last < card:
                    index, best = 0, last
                last = r1[-1]
                if best < last < card:
                    index, best = 1, last
                last = r2[-1]
                if best < last < card:
                    index, best = 2, last
                last = r3[-1]
                if best < last < card:
                    index = 3
                if index < 0:
                    self.row_chooser = seat
                    return
            queue.pop()
            row = rows[index]
            if len(row) >= ROW_LIMIT:
                self._take_row(seat, index, card, "sixth")
                continue
            if end == "right":
                row.append(card)
            else:
                row.insert(0, card)
            self.record(PUBLIC, "place", seat, card, index, end)
        self._end_trick()

    def _end_trick(self) -> None:
        self.row_chooser = None
        if self.trick < HAND_SIZE:
            self.trick += 1
            return
        self.record(PUBLIC, "round_end", self.round, list(self.round_heads), list(self.totals))
        reached = [
            t > self.end_score if self.more_than else t >= self.end_score for t in self.totals
        ]
        if any(reached):
            self._finish()
        elif self.max_rounds is not None and self.round >= self.max_rounds:
            self.capped = True
            self._finish()
        else:
            self._deal()

    def _finish(self) -> None:
        self.over = True
        result = self.result()
        self.record(PUBLIC, "game_end", list(result.scores), list(result.ranks), self.capped)

    def to_place(self) -> list[list[int]]:
        """The revealed cards still to place in this trick, as [card, seat], lowest first."""
        return [[card, self.revealed.index(card)] for card in reversed(self.queue)]

    def undealt(self) -> list[int]:
        """The cards of this round's deck that nobody holds and no row or pile shows."""
        seen: set[int] = set()
        for cards in (*self.hands, *self.rows, *self.taken):
            seen.update(cards)
        seen.update(c for c in self.chosen if c is not None)
        seen.update(self.queue)
        return [c for c in self.deck if c not in seen]

    # -- the interface --------------------------------------------------------------------

    def to_move(self) -> list[int]:
        if self.over:
            return []
        if self.row_chooser is not None:
            return [self.row_chooser]
        return [s for s, c in enumerate(self.chosen) if c is None]

    def legal(self, seat: int) -> list[Action]:
        if self.over:
            return []
        if self.row_chooser is not None:
            return list(range(ROWS)) if seat == self.row_chooser else []
        if self.chosen[seat] is not None:
            return []
        return list(self.hands[seat])

    def apply(self, seat: object, action: Action) -> None:
        if type(seat) is not int:
            raise self.illegal(seat, action, "no such seat")
        if self.row_chooser is None and not self.over:
            chosen = self.chosen
            if 0 <= seat < self.seats and chosen[seat] is None and type(action) is int:
                hand = self.hands[seat]
                if action in hand:
                    hand.remove(action)
                    chosen[seat] = action
                    self.waiting -= 1
                    if not self.waiting:
                        self._reveal()
                    return
        self._apply_other(seat, action)

    def _reveal(self) -> None:
        revealed: list[int] = self.chosen  # type: ignore[assignment]  # every seat has chosen
        self.revealed = revealed
        self.record(PUBLIC, "reveal", self.round, self.trick, list(revealed))
        self.queue = sorted(revealed, reverse=True)
        self.chosen = [None] * self.seats
        self.waiting = self.seats
        self._resolve()

    def _apply_other(self, seat: int, action: Action) -> None:
        """A row choice, or an illegal action explained."""
        if self.over:
            raise self.illegal(seat, action, "the game is over")
        if self.row_chooser is not None:
            if seat != self.row_chooser:
                raise self.illegal(seat, action, f"seat {self.row_chooser} is choosing a row")
            if type(action) is not int or not 0 <= action < ROWS:
                raise self.illegal(seat, action, "a row is chosen by its index 0-3")
            card = self.queue.pop()
            self.record(PUBLIC, "choose_row", seat, action)
            self._take_row(seat, action, card, "too_low")
            self._resolve()
            return
        if not 0 <= seat < self.seats:
            raise self.illegal(seat, action, "no such seat")
        if self.chosen[seat] is not None:
            raise self.illegal(seat, action, "this seat has already chosen its card")
        raise self.illegal(seat, action, "the card is not in the seat's hand")

    def observation(self, seat: int) -> dict[str, JSON]:
        if self.over:
            decision = None
        elif self.row_chooser is not None:
            decision = "row" if seat == self.row_chooser else None
        else:
            decision = "card" if self.chosen[seat] is None else None
        obs: dict[str, JSON] = {
            "decision": decision,
            "seat": seat,
            "round": self.round,
            "trick": self.trick,
            "hand": list(self.hands[seat]),
            "rows": [list(r) for r in self.rows],
            "round_heads": list(self.round_heads),
            "totals": list(self.totals),
            "taken": [list(t) for t in self.taken],
            "chosen": self.chosen[seat],
        }
        if self.row_chooser is not None:
            obs["revealed"] = list(self.revealed)
            obs["to_place"] = self.to_place()
        return obs

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        if not self.over:
            raise GameOverError("the game is not over")
        return Result(
            tuple(self.totals),
            rank_totals(self.totals),
            {"rounds": self.round, "capped": self.capped},
        )

    def snapshot(self) -> dict[str, JSON]:
        return {
            **self.snapshot_head(),
            "round": self.round,
            "trick": self.trick,
            "hands": [list(h) for h in self.hands],
            "rows": [list(r) for r in self.rows],
            "undealt": self.undealt(),
            "chosen": list(self.chosen),
            "taken": [list(t) for t in self.taken],
            "round_heads": list(self.round_heads),
            "totals": list(self.totals),
            "to_place": self.to_place(),
            "revealed": list(self.revealed),
            "row_chooser": self.row_chooser,
            "over": self.over,
            "capped": self.capped,
        }

    SNAPSHOT_KEYS: ClassVar[tuple[str, ...]] = (
        "round",
        "trick",
        "hands",
        "rows",
        "undealt",
        "chosen",
        "taken",
        "round_heads",
        "totals",
        "to_place",
        "revealed",
        "row_chooser",
        "over",
        "capped",
    )

    def restore(self, snapshot: dict[str, JSON]) -> None:
        data = snapshot_fields(self.game, snapshot, self.SNAPSHOT_KEYS)
        n = self.seats
        top = self.deck[-1]
        self.round = snap_int(data["round"], "round", 1)
        self.trick = snap_int(data["trick"], "trick", 1, HAND_SIZE)
        self.hands = [
            snap_ints(h, f"hands[{s}]", 1, top)
            for s, h in enumerate(snap_list(data["hands"], "hands", n))
        ]
        self.rows = [
            snap_ints(r, f"rows[{i}]", 1, top)
            for i, r in enumerate(snap_list(data["rows"], "rows", ROWS))
        ]
        undealt = snap_ints(data["undealt"], "undealt", 1, top)
        self.chosen = [
            snap_optional_int(c, f"chosen[{s}]", 1, top)
            for s, c in enumerate(snap_list(data["chosen"], "chosen", n))
        ]
        self.taken = [
            snap_ints(t, f"taken[{s}]", 1, top)
            for s, t in enumerate(snap_list(data["taken"], "taken", n))
        ]
        self.round_heads = snap_ints(data["round_heads"], "round_heads", 0, None, n)
        self.totals = snap_ints(data["totals"], "totals", 0, None, n)
        self.revealed = snap_ints(data["revealed"], "revealed", 1, top)
        pairs = [
            snap_ints(p, f"to_place[{i}]", 0, top, 2)
            for i, p in enumerate(snap_list(data["to_place"], "to_place"))
        ]
        self.row_chooser = snap_optional_int(data["row_chooser"], "row_chooser", 0, n - 1)
        self.over = snap_bool(data["over"], "over")
        self.capped = snap_bool(data["capped"], "capped")
        self.queue = [card for card, _ in reversed(pairs)]
        self.waiting = self.chosen.count(None)
        queue = self.queue
        chosen = [c for c in self.chosen if c is not None]
        found = [
            c
            for cards in (*self.hands, *self.rows, *self.taken, chosen, queue, undealt)
            for c in cards
        ]
        check_conserved(self.game, found, self.deck)
        self._check_restored(pairs)

    def _check_restored(self, pairs: list[list[int]]) -> None:
        """What the rules keep true between decisions, so that a restored state plays on."""

        def wrong(what: str) -> SnapshotError:
            return SnapshotError(f"take5 snapshot: {what}")

        if len(self.revealed) not in (0, self.seats):
            raise wrong(f"revealed holds one card per seat (or none), not {len(self.revealed)}")
        for card, seat in pairs:
            if seat >= len(self.revealed) or self.revealed[seat] != card:
                raise wrong(f"to_place names {card} as seat {seat}'s card, revealed does not")
        if [card for card, _ in pairs] != sorted(card for card, _ in pairs):
            raise wrong("to_place is not lowest card first")
        for index, row in enumerate(self.rows):
            if not 1 <= len(row) <= ROW_LIMIT or row != sorted(row):
                raise wrong(f"row {index} must hold 1 to {ROW_LIMIT} cards, lowest first")
        for seat, hand in enumerate(self.hands):
            if hand != sorted(hand):
                raise wrong(f"hands[{seat}] is not sorted")
            if sum(HEADS[c] for c in self.taken[seat]) != self.round_heads[seat]:
                raise wrong(f"round_heads[{seat}] is not the heads of taken[{seat}]")
            if self.round_heads[seat] > self.totals[seat]:
                raise wrong(f"round_heads[{seat}] exceeds totals[{seat}]")
        if self.capped and not self.over:
            raise wrong("capped, yet not over")
        if self.over:
            if (
                any(self.hands)
                or pairs
                or self.row_chooser is not None
                or self.waiting < self.seats
            ):
                raise wrong("over, yet cards are still to play")
            return
        left = HAND_SIZE - self.trick + 1
        if self.row_chooser is not None:
            if self.waiting < self.seats or not pairs or pairs[0][1] != self.row_chooser:
                raise wrong("row_chooser must own the lowest card to place, with no card chosen")
            left -= 1
        elif pairs or not self.waiting:
            raise wrong("cards to place with no row to choose, or every card chosen unrevealed")
        for seat, hand in enumerate(self.hands):
            if len(hand) + (self.chosen[seat] is not None) != left:
                raise wrong(f"seat {seat} holds {len(hand)} cards in trick {self.trick}")

    def position(self) -> str:
        rows = " | ".join(" ".join(map(str, r)) for r in self.rows)
        return f"round {self.round} trick {self.trick}, rows [{rows}]"

    def resample_hidden(self, seat: int, rng: random.Random) -> Take5State:
        copy = self.clone()
        others = [s for s in range(self.seats) if s != seat]
        pool = copy.undealt()
        for s in others:
            pool.extend(copy.hands[s])
            if copy.chosen[s] is not None:
                pool.append(copy.chosen[s])  # type: ignore[arg-type]
        rng.shuffle(pool)
        for s in others:
            size = len(copy.hands[s])
            copy.hands[s] = sorted(pool[:size])
            del pool[:size]
            if copy.chosen[s] is not None:
                copy.chosen[s] = pool.pop()
        return copy

    @staticmethod
    def describe(event: Event) -> str:
        kind = event["type"]
        if kind == "round":
            rows = ", ".join(str(r[0]) for r in event["rows"])
            return f"Round {event['round']}: rows start with {rows}"
        if kind == "deal":
            return f"Dealt {event['hand']}"
        if kind == "reveal":
            cards = ", ".join(f"seat {s}: {c}" for s, c in enumerate(event["cards"]))
            return f"Trick {event['trick']} revealed: {cards}"
        if kind == "place":
            return f"seat {event['seat']} places {event['card']} on row {event['row']}" + (
                " (left end)" if event["end"] == "left" else ""
            )
        if kind == "choose_row":
            return f"seat {event['seat']} chooses row {event['row']}"
        if kind == "take":
            why = "sixth card" if event["reason"] == "sixth" else "card too low"
            return (
                f"seat {event['seat']} takes row {event['row']} {event['cards']} "
                f"({event['heads']} heads, {why}); {event['card']} starts it"
            )
        if kind == "round_end":
            return f"Round {event['round']} over: heads {event['heads']}, totals {event['totals']}"
        if kind == "game_end":
            capped = " (round cap reached)" if event["capped"] else ""
            return f"Game over{capped}: totals {event['scores']}, places {event['ranks']}"
        return str(event)


SPEC: GameSpec = GameSpec(
    name="take5",
    title="Take 5 (6 nimmt!)",
    min_seats=2,
    max_seats=10,
    options=(
        OptionSpec(
            "end_score",
            int,
            66,
            "the game ends after the round in which a seat reaches this many heads",
            minimum=1,
        ),
        OptionSpec(
            "more_than",
            bool,
            False,
            "the Greek seed's reading: the game ends only when a seat has more than end_score",
        ),
        OptionSpec(
            "tactics", bool, False, "use only cards 1..10*seats+4, so every card in play is known"
        ),
        OptionSpec(
            "professional",
            bool,
            False,
            "a card may also go before a row's first card "
            "when lower; the smallest difference over both ends decides",
        ),
        OptionSpec(
            "max_rounds",
            int,
            None,
            "stop after this many rounds (none: no cap)",
            minimum=1,
            nullable=True,
        ),
    ),
    state_class=Take5State,
    summary="Simultaneous tricks onto four rows; the sixth card takes the row; fewest heads wins.",
    rules_file="take5.md",
)
