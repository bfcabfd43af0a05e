"""Ten: 1-5 seats, push-your-luck drawing, auctions of wilds, runs of 1..9 per colour.

Cards are named by short codes, and cards with the same code are interchangeable:

- ``"R5"``: a number card (colour ``R`` red, ``B`` blue, ``O`` orange, ``G`` green; number 1-9);
- ``"R*"``: a colour wild (its colour, any number);
- ``"*5"``: a numbered wild (its number, any colour);
- ``"#"``: the full wild (any colour, any number);
- ``"$3"``: a currency card of value 3.

Actions, by the ``decision`` the observation names:

- ``"draw"`` (the active seat, after each card that did not bust it): ``"draw"`` (only while the
  draw pile is not empty), ``"take_numbers"`` or ``"take_currency"``;
- ``"bid"`` (one chance per seat in an auction of a wild): ``"pass"`` or ``{"bid": k}`` with
  ``k`` above the high bid and at most what the seat can pay;
- ``"buy"`` (a buy phase): ``"none"`` or ``{"buy": "R5"}`` naming a market card by its code;
- ``"pay"`` (one unit at a time until the price is covered): ``"token"`` (a currency token,
  worth 1), ``"bust"`` (a bust token, worth 3, no change) or ``{"card": "R5"}`` (a collected
  card, worth 1, discarded).

A decision whose legal list would hold a single action is taken automatically and logged with
``"auto": true`` (the first draw of a turn, a pass by a seat that cannot outbid, a buy phase with
nothing to buy, a payment with only one kind of unit left). The rules as implemented, with every
ruling, are in ``seeds/ten.md``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, Final

from arena.games.base import (
    JSON,
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
    snap_bool,
    snap_cards,
    snap_choice,
    snap_int,
    snap_ints,
    snap_list,
    snap_optional_int,
    snapshot_fields,
)

COLOURS: Final = ("R", "B", "O", "G")
COLOUR_NAMES: Final = {"R": "red", "B": "blue", "O": "orange", "G": "green"}
NUMBERS: Final = tuple(range(1, 10))
NUMBER_COPIES: Final = {1: 3, 2: 3, 3: 3, 4: 3, 5: 3, 6: 3, 7: 1, 8: 1, 9: 1}
"""Number cards per colour: three each of 1..6, one each of 7, 8, 9."""
COLOUR_WILDS_PER_COLOUR: Final = 2
FULL_WILD: Final = "#"
BUST_LIMIT: Final = 11
"""A bust: numbers minus currency reach this, or currency alone reaches it."""
BUST_TOKEN_VALUE: Final = 3

# ---- PROVISIONAL DATA -------------------------------------------------------------------------
# The published sources do not give these; RULES.md fixes them as provisional data. Change them
# here and nowhere else (seeds/ten.md repeats them).
CURRENCY_COUNTS: Final = {1: 6, 2: 6, 3: 5, 4: 5, 5: 5}
"""The 27 currency cards: how many of each value 1..5."""
MARK_FOUR_PLUS_NUMBERS: Final = (1, 2, 3)
"""Numbers of which one card per colour carries the "4+" mark (removed with 1-3 seats)."""
MARK_FOUR_PLUS_CURRENCY: Final = {1: 2, 2: 2, 3: 2, 4: 1, 5: 1}
"""Currency cards with the "4+" mark, by value (8 cards)."""
MARK_THREE_NUMBERS: Final = (4, 5, 6)
"""Numbers of which one card per colour carries the "3" mark (removed with 1-2 seats)."""
MARK_THREE_CURRENCY: Final = {1: 2, 2: 1, 3: 1, 4: 2, 5: 2}
"""Currency cards with the "3" mark, by value (8 cards)."""
# ---- END OF PROVISIONAL DATA ------------------------------------------------------------------


class Kind(StrEnum):
    NUMBER = "number"
    COLOUR_WILD = "colour_wild"
    NUMBER_WILD = "number_wild"
    FULL_WILD = "full_wild"
    CURRENCY = "currency"


@dataclass(frozen=True)
class Card:
    """What a card code means."""

    code: str
    kind: Kind
    colour: str | None = None
    number: int = 0
    """The number of a number card or numbered wild (its price in the market); 0 otherwise."""
    value: int = 0
    """The value of a currency card; 0 otherwise."""

    @property
    def is_wild(self) -> bool:
        return self.kind in (Kind.COLOUR_WILD, Kind.NUMBER_WILD, Kind.FULL_WILD)


def card_table() -> dict[str, Card]:
    """Every card code of the game and its meaning."""
    table: dict[str, Card] = {}
    for colour in COLOURS:
        for number in NUMBERS:
            code = f"{colour}{number}"
            table[code] = Card(code, Kind.NUMBER, colour, number)
        table[f"{colour}*"] = Card(f"{colour}*", Kind.COLOUR_WILD, colour)
    for number in NUMBERS:
        table[f"*{number}"] = Card(f"*{number}", Kind.NUMBER_WILD, None, number)
    table[FULL_WILD] = Card(FULL_WILD, Kind.FULL_WILD)
    for value in CURRENCY_COUNTS:
        table[f"${value}"] = Card(f"${value}", Kind.CURRENCY, value=value)
    return table


CARDS: Final = card_table()


def full_deck() -> list[str]:
    """The 129 cards, in a fixed order."""
    deck: list[str] = []
    for colour in COLOURS:
        for number, copies in NUMBER_COPIES.items():
            deck += [f"{colour}{number}"] * copies
        deck += [f"{colour}*"] * COLOUR_WILDS_PER_COLOUR
    deck += [f"*{number}" for number in NUMBERS]
    deck.append(FULL_WILD)
    for value, copies in CURRENCY_COUNTS.items():
        deck += [f"${value}"] * copies
    return deck


def marked_cards(numbers: Iterable[int], currency: Mapping[int, int]) -> list[str]:
    """The cards carrying one player-count mark: one per colour of each number, and currency."""
    cards = [f"{colour}{number}" for colour in COLOURS for number in numbers]
    for value, copies in currency.items():
        cards += [f"${value}"] * copies
    return cards


def deck_for(seats: int) -> list[str]:
    """The cards in play: all 129 for 4-5 seats; without "4+" for 3 (109); without "3" too for 1-2
    (89)."""
    removed: list[str] = []
    if seats <= 3:
        removed += marked_cards(MARK_FOUR_PLUS_NUMBERS, MARK_FOUR_PLUS_CURRENCY)
    if seats <= 2:
        removed += marked_cards(MARK_THREE_NUMBERS, MARK_THREE_CURRENCY)
    to_remove = Counter(removed)
    deck: list[str] = []
    for code in full_deck():
        if to_remove[code]:
            to_remove[code] -= 1
        else:
            deck.append(code)
    return deck


# -- scoring ------------------------------------------------------------------------------------


MAX_FILLS: Final = COLOUR_WILDS_PER_COLOUR + 1


def run_scores(filled: int) -> tuple[int, ...]:
    """Points of one colour for each number of free wilds from 0 to :data:`MAX_FILLS`: the
    longest run of consecutive numbers, ``filled`` being a bit mask of the numbers held (bit 0 =
    1) and the wilds standing for missing numbers; a run of all nine scores 10. One pass over the
    runs serves every count (a run with ``g`` gaps counts for every count of at least ``g``)."""
    longest = [0] * (MAX_FILLS + 1)  # by the number of gaps in the run
    for start in range(9):
        gaps = 0
        for stop in range(start, 9):
            if not filled >> stop & 1:
                gaps += 1
                if gaps > MAX_FILLS:
                    break
            longest[gaps] = max(longest[gaps], stop - start + 1)
    scores: list[int] = []
    best = 0
    for length in longest:
        best = max(best, length)
        scores.append(best + 1 if best == 9 else best)
    return tuple(scores)


RUN_SCORES: Final = tuple([run_scores(mask) for mask in range(512)])
"""``RUN_SCORES[mask][fills]``, precomputed."""


def score_cards(cards: Iterable[str]) -> int:
    """A seat's points under the best assignment of its wilds.

    Colour wilds fill any number of their colour; the full wild fills any number of any colour;
    each numbered wild stands as its number in one colour. The numbered wilds are split among the
    colours by a dynamic programme over subsets (exact; at most 9 of them).
    """
    masks = dict.fromkeys(COLOURS, 0)
    colour_wilds = dict.fromkeys(COLOURS, 0)
    numbered: list[int] = []
    full = 0
    for code in cards:
        card = CARDS[code]
        if card.kind is Kind.NUMBER:
            assert card.colour is not None
            masks[card.colour] |= 1 << (card.number - 1)
        elif card.kind is Kind.COLOUR_WILD:
            assert card.colour is not None
            colour_wilds[card.colour] += 1
        elif card.kind is Kind.NUMBER_WILD:
            numbered.append(card.number)
        elif card.kind is Kind.FULL_WILD:
            full += 1
    if not numbered and not full:
        return sum(RUN_SCORES[masks[c]][min(colour_wilds[c], MAX_FILLS)] for c in COLOURS)
    count = len(numbered)
    subset_bits = [0] * (1 << count)
    for subset in range(1, 1 << count):
        low = subset & -subset
        subset_bits[subset] = subset_bits[subset ^ low] | 1 << (numbered[low.bit_length() - 1] - 1)
    everything = (1 << count) - 1
    best: dict[tuple[int, int], int] = {(0, 0): 0}
    for colour in COLOURS:
        mask, wilds = masks[colour], colour_wilds[colour]
        extra_choices = (0, 1) if full else (0,)
        following: dict[tuple[int, int], int] = {}
        for (used, full_used), points in best.items():
            free = everything & ~used
            subset = free
            while True:
                filled = mask | subset_bits[subset]
                for extra in extra_choices:
                    if extra and full_used:
                        continue
                    key = (used | subset, full_used | extra)
                    total = points + RUN_SCORES[filled][min(wilds + extra, MAX_FILLS)]
                    if total > following.get(key, -1):
                        following[key] = total
                if subset == 0:
                    break
                subset = (subset - 1) & free
        best = following
    return max(best.values())


def rank_seats(points: list[int], currency: list[int], collected: list[int]) -> tuple[int, ...]:
    """Most points; then more currency tokens; then fewer collected cards; then a shared place."""
    return competition_ranks(
        [(-p, -c, n) for p, c, n in zip(points, currency, collected, strict=True)]
    )


# -- the state ----------------------------------------------------------------------------------


class Decision(StrEnum):
    DRAW = "draw"
    BID = "bid"
    PAY = "pay"
    BUY = "buy"


class Seen:
    """What :meth:`TenState.observation` keeps from one call to the next, so that it does not
    count the draw pile and score every seat's cards each time: the draw pile and each seat's
    collected cards as last seen, with what was worked out from them. Never part of the
    position: each use checks it against the state first, and a copy of a state (``clone``,
    ``deepcopy``) starts with an empty one."""

    def __init__(self, seats: int) -> None:
        self.pile: list[str] = []
        self.counts: dict[str, int] = {}
        """How many of each code ``pile`` holds, sorted by code."""
        self.held: list[list[str]] = [[] for _ in range(seats + 2)]
        """Each seat's collected cards, then the market, then the discard pile, as last seen."""
        self.held_sorted: list[list[str]] = [[] for _ in range(seats + 2)]
        self.points: list[int] = [score_cards([])] * seats
        """Each seat's points for its cards in :attr:`held`."""

    def __deepcopy__(self, memo: dict[int, object]) -> Seen:
        return Seen(len(self.points))

    def sorted_cards(self, key: int, cards: list[str]) -> list[str]:
        """``cards`` (held at ``key``: see :attr:`held`) sorted, in a new list; sorted again
        only when they changed since the last call."""
        if cards != self.held[key]:
            self.held[key] = list(cards)
            self.held_sorted[key] = sorted(cards)
        return list(self.held_sorted[key])


class TenState(State):
    game = "ten"

    def __init__(self, seed: int, seats: int, options: Mapping[str, JSON]) -> None:
        super().__init__(seed, seats, options)
        self.cap: int = self.options["token_cap"]
        self.deck: list[str] = deck_for(seats)
        self.draw_pile: list[str] = list(self.deck)
        """The face-down pile; the top card is the last element."""
        self.rng.shuffle(self.draw_pile)
        self.tableau: list[str] = []
        self.market: list[str] = []
        self.discard: list[str] = []
        self.collected: list[list[str]] = [[] for _ in range(seats)]
        """The cards each seat holds, face up: number cards and wilds."""
        self.currency: list[int] = [min(self.options["start_tokens"], self.cap)] * seats
        self.busts: list[int] = [0] * seats
        self.active = 0
        self.decision: Decision | None = None
        self.turn = 0
        # the auction of a wild
        self.wild: str | None = None
        self.bidders: list[int] = []
        """Seats still to bid, the next first."""
        self.high_bid = 0
        self.high_bidder: int | None = None
        # a payment
        self.payer: int | None = None
        self.owed = 0
        self.purchase: str | None = None
        """The card being paid for (a won wild or a bought market card)."""
        # a buy phase
        self.buyer: int | None = None
        self.final_buyers: list[int] | None = None
        """Seats still to have their final buy phase, once the draw pile is empty."""
        self.over = False
        self._seen = Seen(seats)
        self.emit(
            {
                "type": "setup",
                "seats": seats,
                "cards": len(self.deck),
                "currency": list(self.currency),
            }
        )
        self._start_turn(0)

    # -- what a seat can pay --------------------------------------------------------------

    def can_pay(self, seat: int) -> int:
        """The most ``seat`` can pay: tokens, bust tokens at 3 each, collected cards at 1 each."""
        return self.currency[seat] + BUST_TOKEN_VALUE * self.busts[seat] + len(self.collected[seat])

    def pay_units(self, seat: int) -> list[Action]:
        units: list[Action] = []
        if self.currency[seat]:
            units.append("token")
        if self.busts[seat]:
            units.append("bust")
        units += [{"card": code} for code in sorted(set(self.collected[seat]))]
        return units

    def buyable(self, seat: int) -> list[str]:
        """Market cards ``seat`` may buy: affordable, and no number card of that code held."""
        held = set(self.collected[seat])
        funds = self.can_pay(seat)
        return sorted(
            code for code in set(self.market) if code not in held and CARDS[code].number <= funds
        )

    def _gain(self, seat: int, amount: int) -> int:
        """Give ``seat`` up to ``amount`` currency tokens, never above the cap; the number taken."""
        taken = max(0, min(amount, self.cap - self.currency[seat]))
        self.currency[seat] += taken
        return taken

    def _gains_to_others(self, amount: int) -> list[int]:
        gains = [0] * self.seats
        for seat in range(self.seats):
            if seat != self.active:
                gains[seat] = self._gain(seat, amount)
        return gains

    # -- a turn ---------------------------------------------------------------------------

    def _start_turn(self, seat: int) -> None:
        self.active = seat
        self.turn += 1
        self.emit({"type": "turn", "seat": seat, "turn": self.turn})
        self._draw()

    def _draw(self) -> None:
        card = self.draw_pile.pop()
        self.emit({"type": "draw", "seat": self.active, "card": card, "left": len(self.draw_pile)})
        if CARDS[card].is_wild:
            self._open_auction(card)
            return
        self.tableau.append(card)
        numbers, currency = self.tableau_sums()
        if currency >= BUST_LIMIT:
            self._bust("currency")
        elif numbers - currency >= BUST_LIMIT:
            self._bust("number")
        else:
            self.decision = Decision.DRAW

    def tableau_sums(self) -> tuple[int, int]:
        """(sum of number cards, sum of currency cards) in the tableau."""
        numbers = currency = 0
        for code in self.tableau:
            card = CARDS[code]
            numbers += card.number
            currency += card.value
        return numbers, currency

    def _split_tableau(self) -> tuple[list[str], list[str], int]:
        numbers = [c for c in self.tableau if CARDS[c].kind is Kind.NUMBER]
        currency = [c for c in self.tableau if CARDS[c].kind is Kind.CURRENCY]
        self.tableau = []
        self.discard += currency
        return numbers, currency, sum(CARDS[c].value for c in currency)

    def _bust(self, kind: str) -> None:
        numbers, currency, total = self._split_tableau()
        self.busts[self.active] += 1
        self.market += numbers
        gains = self._gains_to_others(total) if kind == "number" else [0] * self.seats
        self.emit(
            {
                "type": "bust",
                "seat": self.active,
                "kind": kind,
                "to_market": numbers,
                "discarded": currency,
                "gains": gains,
            }
        )
        self._end_turn()

    def _take_numbers(self) -> None:
        numbers, currency, total = self._split_tableau()
        self.collected[self.active] += numbers
        gains = self._gains_to_others(total)
        self.emit(
            {
                "type": "take_numbers",
                "seat": self.active,
                "cards": numbers,
                "discarded": currency,
                "gains": gains,
            }
        )
        self._open_buy(self.active)

    def _take_currency(self) -> None:
        numbers, currency, total = self._split_tableau()
        gains = [0] * self.seats
        gains[self.active] = self._gain(self.active, total)
        self.market += numbers
        self.emit(
            {
                "type": "take_currency",
                "seat": self.active,
                "to_market": numbers,
                "discarded": currency,
                "gains": gains,
            }
        )
        self._end_turn()

    def _end_turn(self) -> None:
        self.decision = None
        if self.draw_pile:
            self._start_turn((self.active + 1) % self.seats)
            return
        self.final_buyers = [(self.active + 1 + k) % self.seats for k in range(self.seats)]
        self.emit({"type": "final_buys", "last": self.active})
        self._next_final_buy()

    def _next_final_buy(self) -> None:
        assert self.final_buyers is not None
        if self.final_buyers:
            self._open_buy(self.final_buyers.pop(0))
        else:
            self._finish()

    # -- buy phases -----------------------------------------------------------------------

    def _open_buy(self, seat: int) -> None:
        self.buyer = seat
        if self.buyable(seat):
            self.decision = Decision.BUY
            return
        self.emit({"type": "no_buy", "seat": seat, "auto": True})
        self._close_buy()

    def _close_buy(self) -> None:
        self.buyer = None
        self.decision = None
        if self.final_buyers is not None:
            self._next_final_buy()
        else:
            self._end_turn()

    # -- auctions -------------------------------------------------------------------------

    def _open_auction(self, wild: str) -> None:
        self.wild = wild
        self.bidders = [(self.active + 1 + k) % self.seats for k in range(self.seats)]
        self.high_bid = 0
        self.high_bidder = None
        self.emit({"type": "auction", "seat": self.active, "wild": wild})
        self._next_bidder()

    def _next_bidder(self) -> None:
        while self.bidders:
            seat = self.bidders[0]
            if self.can_pay(seat) > self.high_bid:
                self.decision = Decision.BID
                return
            self.bidders.pop(0)
            self.emit({"type": "pass", "seat": seat, "auto": True})
        self._close_auction()

    def _close_auction(self) -> None:
        wild = self.wild
        assert wild is not None
        if self.high_bidder is None:
            self.discard.append(wild)
            self.wild = None
            self.emit({"type": "auction_void", "wild": wild})
            self._resume_draw()
            return
        self.emit(
            {"type": "auction_won", "seat": self.high_bidder, "wild": wild, "price": self.high_bid}
        )
        self.wild = None
        self._open_payment(self.high_bidder, self.high_bid, wild)

    def _resume_draw(self) -> None:
        """After an auction the active seat goes on: it may draw again (if cards are left) or
        stop with the tableau as it stands."""
        self.decision = Decision.DRAW

    # -- payments -------------------------------------------------------------------------

    def _open_payment(self, payer: int, price: int, card: str) -> None:
        self.payer = payer
        self.owed = price
        self.purchase = card
        self.decision = Decision.PAY
        self._pay_forced()

    def _pay_forced(self) -> None:
        """Pay the units the payer has no choice about, then close the payment when covered."""
        assert self.payer is not None
        while self.owed > 0:
            units = self.pay_units(self.payer)
            if len(units) != 1:
                return
            self._pay_unit(units[0], auto=True)
        self._close_payment()

    def _pay_unit(self, unit: Action, auto: bool) -> None:
        seat = self.payer
        assert seat is not None
        event: Event = {"type": "pay", "seat": seat, "auto": auto}
        if unit == "token":
            self.currency[seat] -= 1
            value = 1
            event["unit"] = "token"
        elif unit == "bust":
            self.busts[seat] -= 1
            value = BUST_TOKEN_VALUE
            event["unit"] = "bust"
        else:
            code = unit["card"]
            self.collected[seat].remove(code)
            self.discard.append(code)
            value = 1
            event["unit"] = "card"
            event["card"] = code
        self.owed = max(0, self.owed - value)
        event["owed"] = self.owed
        self.emit(event)

    def _close_payment(self) -> None:
        payer, card = self.payer, self.purchase
        assert payer is not None and card is not None
        self.collected[payer].append(card)
        self.payer = None
        self.purchase = None
        self.owed = 0
        self.emit({"type": "paid", "seat": payer, "card": card})
        if CARDS[card].is_wild:
            self._resume_draw()
        else:
            self._close_buy()

    # -- the end --------------------------------------------------------------------------

    def points(self) -> list[int]:
        return [score_cards(cards) for cards in self.collected]

    def _finish(self) -> None:
        self.over = True
        self.decision = None
        result = self.result()
        self.emit({"type": "game_end", "scores": list(result.scores), "ranks": list(result.ranks)})

    # -- the interface --------------------------------------------------------------------

    def deciding_seat(self) -> int | None:
        if self.over or self.decision is None:
            return None
        if self.decision is Decision.DRAW:
            return self.active
        if self.decision is Decision.BID:
            return self.bidders[0]
        if self.decision is Decision.PAY:
            return self.payer
        return self.buyer

    def to_move(self) -> list[int]:
        seat = self.deciding_seat()
        return [] if seat is None else [seat]

    def legal(self, seat: int) -> list[Action]:
        if seat != self.deciding_seat():
            return []
        if self.decision is Decision.DRAW:
            stops: list[Action] = ["take_numbers", "take_currency"]
            return ["draw", *stops] if self.draw_pile else stops
        if self.decision is Decision.BID:
            top = self.can_pay(seat)
            return ["pass", *({"bid": k} for k in range(self.high_bid + 1, top + 1))]
        if self.decision is Decision.PAY:
            return self.pay_units(seat)
        return ["none", *({"buy": code} for code in self.buyable(seat))]

    def apply(self, seat: object, action: Action) -> None:
        if type(seat) is not int:
            raise self.illegal(seat, action, "no such seat")
        if self.over:
            raise self.illegal(seat, action, "the game is over")
        deciding = self.deciding_seat()
        if seat != deciding:
            raise self.illegal(seat, action, f"seat {deciding} is to decide, not seat {seat}")
        if not well_formed(action) or action not in self.legal(seat):
            raise self.illegal(seat, action, f"not one of the legal actions for {self.decision}")
        if self.decision is Decision.DRAW:
            if action == "draw":
                self._draw()
            elif action == "take_numbers":
                self._take_numbers()
            else:
                self._take_currency()
        elif self.decision is Decision.BID:
            self.bidders.pop(0)
            if action == "pass":
                self.emit({"type": "pass", "seat": seat, "auto": False})
            else:
                self.high_bid = action["bid"]
                self.high_bidder = seat
                self.emit({"type": "bid", "seat": seat, "bid": self.high_bid})
            self._next_bidder()
        elif self.decision is Decision.PAY:
            self._pay_unit(action, auto=False)
            self._pay_forced()
        elif action == "none":
            self.emit({"type": "no_buy", "seat": seat, "auto": False})
            self._close_buy()
        else:
            code = action["buy"]
            self.market.remove(code)
            self.emit({"type": "buy", "seat": seat, "card": code, "price": CARDS[code].number})
            self._open_payment(seat, CARDS[code].number, code)

    def _unseen(self) -> dict[str, int]:
        """How many of each card the draw pile holds, by code in order: what every seat knows
        of it. Counted once, then kept up to date from the cards drawn since (the pile only
        loses cards from its top); whatever else happened to the pile, it is counted again.
        The answer depends only on the pile, never on what was asked before."""
        pile = self.draw_pile
        seen = self._seen
        before = seen.pile
        left = len(pile)
        counts = seen.counts
        if left <= len(before) and pile == before[:left]:
            for code in before[left:]:
                count = counts[code] - 1
                if count:
                    counts[code] = count
                else:
                    del counts[code]  # the others keep their (sorted) order
            if left < len(before):
                seen.pile = before[:left]
        else:
            counts = dict(sorted(Counter(pile).items()))
            seen.counts = counts
            seen.pile = list(pile)
        return dict(counts)

    def _held(self, seat: int) -> tuple[list[str], int]:
        """``seat``'s collected cards sorted, and their points: worked out again only when its
        cards changed since the last call."""
        cards = self.collected[seat]
        seen = self._seen
        if cards != seen.held[seat]:
            seen.points[seat] = score_cards(cards)
        return seen.sorted_cards(seat, cards), seen.points[seat]

    def observation(self, seat: int) -> dict[str, JSON]:
        numbers, currency = self.tableau_sums()
        deciding = self.deciding_seat()
        held = [self._held(s) for s in range(self.seats)]
        return {
            "seat": seat,
            "decision": str(self.decision) if deciding == seat and not self.over else None,
            "seats": self.seats,
            "active": self.active,
            "turn": self.turn,
            "draw_pile": len(self.draw_pile),
            "unseen": self._unseen(),
            "tableau": list(self.tableau),
            "tableau_numbers": numbers,
            "tableau_currency": currency,
            "market": self._seen.sorted_cards(self.seats, self.market),
            "discard": self._seen.sorted_cards(self.seats + 1, self.discard),
            "currency": list(self.currency),
            "busts": list(self.busts),
            "collected": [cards for cards, _ in held],
            "points": [points for _, points in held],
            "auction": None
            if self.decision is not Decision.BID
            else {
                "wild": self.wild,
                "high_bid": self.high_bid,
                "high_bidder": self.high_bidder,
                "to_bid": list(self.bidders),
            },
            "payment": None
            if self.payer is None
            else {"payer": self.payer, "owed": self.owed, "card": self.purchase},
            "buyer": self.buyer,
            "final_buys": self.final_buyers is not None,
            "can_pay": [self.can_pay(s) for s in range(self.seats)],
            "token_cap": self.cap,
        }

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        if not self.over:
            raise GameOverError("the game is not over")
        points = self.points()
        held = [len(cards) for cards in self.collected]
        return Result(
            tuple(points),
            rank_seats(points, self.currency, held),
            {
                "currency": list(self.currency),
                "busts": list(self.busts),
                "collected": held,
                "turns": self.turn,
            },
        )

    def snapshot(self) -> dict[str, JSON]:
        return {
            **self.snapshot_head(),
            "active": self.active,
            "turn": self.turn,
            "decision": None if self.decision is None else str(self.decision),
            "draw_pile": list(self.draw_pile),
            "tableau": list(self.tableau),
            "market": list(self.market),
            "discard": list(self.discard),
            "collected": [list(cards) for cards in self.collected],
            "currency": list(self.currency),
            "busts": list(self.busts),
            "wild": self.wild,
            "bidders": list(self.bidders),
            "high_bid": self.high_bid,
            "high_bidder": self.high_bidder,
            "payer": self.payer,
            "owed": self.owed,
            "purchase": self.purchase,
            "buyer": self.buyer,
            "final_buyers": None if self.final_buyers is None else list(self.final_buyers),
            "over": self.over,
        }

    SNAPSHOT_KEYS: ClassVar[tuple[str, ...]] = (
        "active",
        "turn",
        "decision",
        "draw_pile",
        "tableau",
        "market",
        "discard",
        "collected",
        "currency",
        "busts",
        "wild",
        "bidders",
        "high_bid",
        "high_bidder",
        "payer",
        "owed",
        "purchase",
        "buyer",
        "final_buyers",
        "over",
    )

    def restore(self, snapshot: dict[str, JSON]) -> None:
        data = snapshot_fields(self.game, snapshot, self.SNAPSHOT_KEYS)
        last = self.seats - 1
        self.active = snap_int(data["active"], "active", 0, last)
        self.turn = snap_int(data["turn"], "turn", 1)
        decision = data["decision"]
        self.decision = (
            None
            if decision is None
            else Decision(snap_choice(decision, "decision", [str(d) for d in Decision]))
        )
        self.draw_pile = snap_cards(data["draw_pile"], "draw_pile", CARDS)
        self.tableau = snap_cards(data["tableau"], "tableau", CARDS)
        self.market = snap_cards(data["market"], "market", CARDS)
        self.discard = snap_cards(data["discard"], "discard", CARDS)
        self.collected = [
            snap_cards(c, f"collected[{s}]", CARDS)
            for s, c in enumerate(snap_list(data["collected"], "collected", self.seats))
        ]
        self.currency = snap_ints(data["currency"], "currency", 0, self.cap, self.seats)
        self.busts = snap_ints(data["busts"], "busts", 0, None, self.seats)
        wild = data["wild"]
        self.wild = None if wild is None else snap_cards([wild], "wild", CARDS)[0]
        self.bidders = snap_ints(data["bidders"], "bidders", 0, last)
        self.high_bid = snap_int(data["high_bid"], "high_bid")
        self.high_bidder = snap_optional_int(data["high_bidder"], "high_bidder", 0, last)
        self.payer = snap_optional_int(data["payer"], "payer", 0, last)
        self.owed = snap_int(data["owed"], "owed")
        purchase = data["purchase"]
        self.purchase = None if purchase is None else snap_cards([purchase], "purchase", CARDS)[0]
        self.buyer = snap_optional_int(data["buyer"], "buyer", 0, last)
        final = data["final_buyers"]
        self.final_buyers = None if final is None else snap_ints(final, "final_buyers", 0, last)
        self.over = snap_bool(data["over"], "over")
        held = [c for cards in self.collected for c in cards]
        extra = [c for c in (self.wild, self.purchase) if c is not None]
        found = [*self.draw_pile, *self.tableau, *self.market, *self.discard, *held, *extra]
        check_conserved(self.game, found, self.deck)
        self._check_restored()

    def _check_restored(self) -> None:
        """What the rules keep true between decisions, so that a restored state plays on."""

        def wrong(what: str) -> SnapshotError:
            return SnapshotError(f"ten snapshot: {what}")

        if self.over != (self.decision is None):
            raise wrong("a game not over has a decision, and only such a game")
        if (self.decision is Decision.BID) != (self.wild is not None) or (
            self.decision is Decision.BID and not self.bidders
        ):
            raise wrong("a wild is auctioned exactly when seats are to bid on it")
        if (self.decision is Decision.PAY) != (self.payer is not None) or (
            (self.payer is None) != (self.purchase is None)
        ):
            raise wrong("a payer and the card paid for are set exactly while paying")
        if self.decision is Decision.BUY and self.buyer is None:
            raise wrong("a buy decision needs a buyer")
        if self.payer is None and self.owed:
            raise wrong("nothing is owed outside a payment")
        if self.payer is not None and not 0 < self.owed <= self.can_pay(self.payer):
            raise wrong(f"seat {self.payer} owes {self.owed}, not 1..what it can pay")
        if any(CARDS[c].kind is Kind.CURRENCY for cards in self.collected for c in cards):
            raise wrong("currency cards are never collected")

    def position(self) -> str:
        return (
            f"turn {self.turn} of seat {self.active}, {self.decision or 'no decision'}, "
            f"tableau [{' '.join(self.tableau)}], {len(self.draw_pile)} cards to draw"
        )

    def resample_hidden(self, seat: int, rng: random.Random) -> TenState:
        """Only the order of the draw pile is hidden (from every seat): shuffle it again."""
        other = self.clone()
        rng.shuffle(other.draw_pile)
        return other

    @staticmethod
    def describe(event: Event) -> str:
        kind = event["type"]
        seat = f"seat {event.get('seat')}"
        if kind == "setup":
            return (
                f"Ten for {event['seats']} seats: {event['cards']} cards, "
                f"{event['currency'][0]} currency tokens each"
            )
        if kind == "turn":
            return f"Turn {event['turn']}: {seat}"
        if kind == "draw":
            return f"{seat} draws {card_name(event['card'])} ({event['left']} left)"
        if kind == "bust":
            return (
                f"{seat} busts on {event['kind']} and takes a bust token; "
                f"to the market: {cards_text(event['to_market'])}; gains {event['gains']}"
            )
        if kind == "take_numbers":
            return (
                f"{seat} takes the numbers {cards_text(event['cards'])}; "
                f"the others gain {event['gains']}"
            )
        if kind == "take_currency":
            return (
                f"{seat} takes the currency ({event['gains'][event['seat']]} tokens); "
                f"to the market: {cards_text(event['to_market'])}"
            )
        if kind == "auction":
            return f"Auction of {card_name(event['wild'])}"
        if kind == "bid":
            return f"  {seat} bids {event['bid']}"
        if kind == "pass":
            return f"  {seat} passes" + (" (cannot outbid)" if event["auto"] else "")
        if kind == "auction_won":
            return f"{seat} wins {card_name(event['wild'])} for {event['price']}"
        if kind == "auction_void":
            return f"Everyone passes: {card_name(event['wild'])} is discarded"
        if kind == "pay":
            what = {"token": "a currency token", "bust": "a bust token"}.get(
                event["unit"], f"the card {event.get('card')}"
            )
            return f"  {seat} pays with {what} ({event['owed']} still owed)"
        if kind == "paid":
            return f"{seat} takes {card_name(event['card'])}"
        if kind == "buy":
            return f"{seat} buys {card_name(event['card'])} for {event['price']}"
        if kind == "no_buy":
            return f"{seat} buys nothing" + (" (nothing it may buy)" if event["auto"] else "")
        if kind == "final_buys":
            return (
                "The draw pile is empty: one more buy phase for every seat, "
                f"from the left of seat {event['last']} round to it"
            )
        if kind == "game_end":
            return f"Game over: points {event['scores']}, places {event['ranks']}"
        return str(event)


def well_formed(action: Action) -> bool:
    """A string, or a one-key dict whose value is an int (not a bool) or a string."""
    if isinstance(action, str):
        return True
    if not isinstance(action, dict) or len(action) != 1:
        return False
    (value,) = action.values()
    return type(value) is int or type(value) is str


def card_name(code: str) -> str:
    card = CARDS[code]
    if card.kind is Kind.NUMBER:
        return f"{COLOUR_NAMES[card.colour or '']} {card.number}"
    if card.kind is Kind.COLOUR_WILD:
        return f"the {COLOUR_NAMES[card.colour or '']} wild"
    if card.kind is Kind.NUMBER_WILD:
        return f"the wild {card.number}"
    if card.kind is Kind.FULL_WILD:
        return "the # wild"
    return f"currency {card.value}"


def cards_text(codes: list[str]) -> str:
    return " ".join(codes) if codes else "nothing"


SPEC: GameSpec = GameSpec(
    name="ten",
    title="Ten",
    min_seats=1,
    max_seats=5,
    options=(
        OptionSpec("start_tokens", int, 5, "currency tokens each seat starts with", minimum=0),
        OptionSpec("token_cap", int, 10, "no seat holds more currency tokens than this", minimum=0),
    ),
    state_class=TenState,
    summary="Draw without busting, auction the wilds, buy from the market; "
    "longest run per colour scores.",
    rules_file="ten.md",
)
