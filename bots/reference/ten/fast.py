"""Ten on plain lists: the rules' turn structure and the bundled heuristic's choices, fast enough
for whole-game playouts within a decision.

The rules' ``TenState`` keeps cards as codes, builds an observation dict per decision and logs
every event: a whole game of three heuristic seats costs about 180 ms through it. :class:`Sim`
plays the same game on small integers (a card is its index in the sorted codes, so ids sort as
the codes do and every "first in code order" tie-break of the rules and of the heuristic holds),
counts the draw pile by number and by currency value (all a bust test needs), and keeps each
seat's collection as counts plus a packed *score key* (:func:`score_of` caches the points of a
key). Tests play random and heuristic games in the rules and here side by side and check every
position and every choice agree.

Only the rules' constants are read from ``rules``; the flow (draw, bust, take, auction, pay, buy,
the final buy phases) follows ``rules/ten.py`` step for step.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from .rules.ten import BUST_LIMIT, BUST_TOKEN_VALUE, CARDS, COLOURS, RUN_SCORES, Kind

CODES: list[str] = sorted(CARDS)
"""Card ids: the index of the code here (so ids sort as the codes do)."""
ID: dict[str, int] = {code: i for i, code in enumerate(CODES)}
N_IDS = len(CODES)
NUMBER_KIND, COLOUR_WILD, NUMBER_WILD, FULL_WILD, CURRENCY = range(5)
_KINDS = {
    Kind.NUMBER: NUMBER_KIND,
    Kind.COLOUR_WILD: COLOUR_WILD,
    Kind.NUMBER_WILD: NUMBER_WILD,
    Kind.FULL_WILD: FULL_WILD,
    Kind.CURRENCY: CURRENCY,
}
KIND: list[int] = [_KINDS[CARDS[c].kind] for c in CODES]
NUMBER: list[int] = [CARDS[c].number for c in CODES]
"""A number card's or numbered wild's number (its market price), else 0."""
VALUE: list[int] = [CARDS[c].value for c in CODES]
COLOUR: list[int] = [COLOURS.index(CARDS[c].colour) if CARDS[c].colour else -1 for c in CODES]
NUMBER_IDS: list[int] = [i for i in range(N_IDS) if KIND[i] == NUMBER_KIND]
WILD_KINDS = (COLOUR_WILD, NUMBER_WILD, FULL_WILD)

# decisions
OVER, DRAW, BID, PAY, BUY = range(5)
DECISIONS = {"draw": DRAW, "bid": BID, "pay": PAY, "buy": BUY}
# actions: draw decisions 0 draw, 1 take the numbers, 2 take the currency; bids 0 pass or k;
# buys NONE or a card id; payments TOKEN, BUST or a card id
TAKE_NUMBERS, TAKE_CURRENCY = 1, 2
NONE = TOKEN = -1
BUST = -2

CHECK_EVERY = 16
"""A playout looks at the clock every this many decisions."""

# -- a seat's points, by a packed key ----------------------------------------------------------
# bits 9c..9c+8: the numbers held in colour c; bits 36+2c, 37+2c: colour c's wilds (0-3);
# bits 44..52: the numbered wilds held; bit 53: the full wild.
CW_SHIFT = 36
NW_SHIFT = 44
FULL_BIT = 1 << 53


def card_bit(card: int) -> int:
    """What holding one (more) ``card`` adds to a key (a colour wild adds one to a count)."""
    kind = KIND[card]
    if kind == NUMBER_KIND:
        return 1 << (9 * COLOUR[card] + NUMBER[card] - 1)
    if kind == COLOUR_WILD:
        return 1 << (CW_SHIFT + 2 * COLOUR[card])
    if kind == NUMBER_WILD:
        return 1 << (NW_SHIFT + NUMBER[card] - 1)
    if kind == FULL_WILD:
        return FULL_BIT
    return 0


BIT: list[int] = [card_bit(c) for c in range(N_IDS)]
_scores: dict[int, int] = {}
POP: list[int] = [bin(m).count("1") for m in range(512)]
WINDOWS: list[tuple[int, int]] = [
    (((1 << (b + 1)) - 1) & ~((1 << a) - 1), 10 if b - a == 8 else b - a + 1)
    for a in range(9)
    for b in range(a, 9)
]
"""Every run of consecutive numbers as (its bit mask, its points)."""
SUBSETS: list[list[int]] = []
"""``SUBSETS[m]``: every subset of the mask ``m``."""
for _m in range(512):
    _subs, _s = [], _m
    while True:
        _subs.append(_s)
        if not _s:
            break
        _s = (_s - 1) & _m
    SUBSETS.append(_subs)


_runs: dict[int, tuple[int, list[tuple[int, int, int]]]] = {}


def runs_beyond(mask: int, fills: int) -> tuple[int, list[tuple[int, int, int]]]:
    """A colour's points with ``fills`` free wilds, and the runs worth more: each as (its gaps,
    how many of them numbered wilds must fill, its points), best first (cached)."""
    at = mask | fills << 9
    found = _runs.get(at)
    if found is None:
        base = RUN_SCORES[mask][min(fills, 3)]
        windows = []
        for window, points in WINDOWS:
            missing = window & ~mask
            need = POP[missing] - fills
            if points > base and need > 0:
                windows.append((missing, need, points))
        windows.sort(key=lambda w: -w[2])
        _runs[at] = found = (base, windows)
    return found


def options_of(mask: int, fills: int, numbered: int) -> dict[int, int]:
    """Per set of numbered wilds (a mask of their numbers, out of ``numbered``), the most points
    one colour (``mask`` its numbers, ``fills`` its free wilds) makes with them when that beats
    its points without them: a run is reachable when the numbered wilds fill all of its gaps
    but ``fills``. Sets that do no better than a smaller one are left out."""
    options: dict[int, int] = {}
    for missing, need, points in runs_beyond(mask, fills)[1]:
        avail = missing & numbered
        if POP[avail] < need:
            continue
        for subset in SUBSETS[avail]:
            if POP[subset] == need and options.get(subset, 0) < points:
                options[subset] = points
    if len(options) > 1:
        options = {
            subset: points
            for subset, points in options.items()
            if not any(
                other != subset and other & subset == other and value >= points
                for other, value in options.items()
            )
        }
    return options


Choices = tuple[tuple[int, int, int], ...]
_choices: dict[int, tuple[int, Choices]] = {}
_shares: dict[tuple[Choices, ...], int] = {}


def colour_choices(mask: int, fills: int, numbered: int, full: int) -> tuple[int, Choices]:
    """One colour's points with no numbered wild nor the full wild, and the ways to do better,
    best first: (the points more, the numbered wilds used, 1 if it uses the full wild), the
    full wild only if ``full`` (cached)."""
    at = mask | fills << 9 | numbered << 11 | full << 20
    found = _choices.get(at)
    if found is not None:
        return found
    base = runs_beyond(mask, fills)[0]
    better = [(v - base, used, 0) for used, v in options_of(mask, fills, numbered).items()]
    if full:
        more = runs_beyond(mask, fills + 1)[0]
        if more > base:
            better.append((more - base, 0, 1))
        better += [(v - base, used, 1) for used, v in options_of(mask, fills + 1, numbered).items()]
    better.sort(reverse=True)
    if len(_choices) > 200_000:
        _choices.clear()
    _choices[at] = found = (base, tuple(better))
    return found


def share(columns: tuple[Choices, ...]) -> int:
    """The most the wilds add over the colours (``columns``: the ways to do better of each colour
    that has one), no numbered wild used twice and the full wild once at most: if the colours'
    best ways do not clash, their sum; else a search colour by colour, best ways first, cut
    off where even the best of the colours left cannot beat the best total found (cached: many
    collections share their columns)."""
    found = _shares.get(columns)
    if found is not None:
        return found
    count = len(columns)
    rest = [0] * (count + 1)
    seen = fulls = 0
    clash = False
    for c in range(count - 1, -1, -1):
        v, used, more = columns[c][0]
        rest[c] = rest[c + 1] + v
        if used & seen or (more and fulls):
            clash = True
        seen |= used
        fulls |= more
    best = 0
    if not clash:
        best = rest[0]
    else:
        used = full_used = 0
        for column in columns:  # a first total: each colour its best way that fits
            for v, wanted, more in column:
                if not (wanted & used or (more and full_used)):
                    best += v
                    used |= wanted
                    full_used |= more
                    break
        last = count - 1

        def search(c: int, used: int, full_used: int, got: int) -> None:
            nonlocal best
            after = rest[c + 1]
            for v, wanted, more in columns[c]:
                if got + v + after <= best:
                    return
                if wanted & used or (more and full_used):
                    continue
                if c == last:
                    best = got + v
                    return
                search(c + 1, used | wanted, full_used | more, got + v)
            if c < last:  # this colour without its wilds
                if got + after > best:
                    search(c + 1, used, full_used, got)
            elif got > best:
                best = got

        if best < rest[0]:
            search(0, 0, 0, 0)
    if len(_shares) > 200_000:
        _shares.clear()
    _shares[columns] = best
    return best


def score_of(key: int) -> int:
    """The points of a collection (cached): what the rules' ``score_cards`` finds (the best
    placement of the wilds), with the numbered wilds and the full wild shared out over the
    colours by :func:`share`."""
    points = _scores.get(key)
    if points is not None:
        return points
    numbered = (key >> NW_SHIFT) & 511
    full = 1 if key & FULL_BIT else 0
    if not numbered:
        rows = [RUN_SCORES[(key >> (9 * c)) & 511] for c in range(4)]
        fills = [(key >> (CW_SHIFT + 2 * c)) & 3 for c in range(4)]
        points = sum(rows[c][fills[c]] for c in range(4))
        if full:
            points += max(rows[c][min(fills[c] + 1, 3)] - rows[c][fills[c]] for c in range(4))
    else:
        points = 0
        columns = []
        for c in range(4):
            base, better = colour_choices(
                (key >> (9 * c)) & 511, (key >> (CW_SHIFT + 2 * c)) & 3, numbered, full
            )
            points += base
            if better:
                columns.append(better)
        if columns:
            columns.sort()
            points += share(tuple(columns))
    if len(_scores) > 500_000:
        _scores.clear()
    _scores[key] = points
    return points


# -- the game ----------------------------------------------------------------------------------


class Sim:
    """A position of Ten on plain lists (see the module's docstring). ``decision`` is one of
    OVER, DRAW, BID, PAY, BUY; :meth:`deciding` is the seat to act."""

    __slots__ = (
        "active",
        "bidders",
        "busts",
        "buyer",
        "cap",
        "cnt",
        "currency",
        "decision",
        "final_buyers",
        "held",
        "high_bid",
        "high_bidder",
        "key",
        "market",
        "owed",
        "payer",
        "pile",
        "pile_cur",
        "pile_num",
        "purchase",
        "seats",
        "tab_cur",
        "tab_num",
        "tableau",
        "turn",
        "wild",
    )

    def __init__(self) -> None:
        self.seats = 0
        self.cap = 0
        self.pile: list[int] = []
        self.pile_num = [0] * 10
        """Number cards in the pile by number."""
        self.pile_cur = [0] * 6
        """Currency cards in the pile by value."""
        self.tableau: list[int] = []
        self.tab_num = 0
        self.tab_cur = 0
        self.market = [0] * N_IDS
        """Market cards by id (number cards only)."""
        self.cnt: list[list[int]] = []
        """Per seat, its collected cards by id."""
        self.held: list[int] = []
        """Per seat, how many cards it has collected."""
        self.key: list[int] = []
        """Per seat, its collection's score key."""
        self.currency: list[int] = []
        self.busts: list[int] = []
        self.active = 0
        self.turn = 0
        self.decision = OVER
        self.wild = -1
        self.bidders: list[int] = []
        self.high_bid = 0
        self.high_bidder = -1
        self.payer = -1
        self.owed = 0
        self.purchase = -1
        self.buyer = -1
        self.final_buyers: list[int] | None = None

    @classmethod
    def from_state(cls, state: Any) -> Sim:
        """The position of a rules ``TenState`` (its draw pile in its order)."""
        sim = cls()
        sim.seats = state.seats
        sim.cap = state.cap
        sim.set_pile([ID[c] for c in state.draw_pile])
        sim.tableau = [ID[c] for c in state.tableau]
        sim.tab_num, sim.tab_cur = state.tableau_sums()
        for c in state.market:
            sim.market[ID[c]] += 1
        sim.cnt = [[0] * N_IDS for _ in range(sim.seats)]
        sim.key = [0] * sim.seats
        sim.held = [0] * sim.seats
        for seat, cards in enumerate(state.collected):
            for c in cards:
                sim.add(seat, ID[c])
        sim.currency = list(state.currency)
        sim.busts = list(state.busts)
        sim.active = state.active
        sim.turn = state.turn
        sim.decision = OVER if state.decision is None else DECISIONS[str(state.decision)]
        sim.wild = -1 if state.wild is None else ID[state.wild]
        sim.bidders = list(state.bidders)
        sim.high_bid = state.high_bid
        sim.high_bidder = -1 if state.high_bidder is None else state.high_bidder
        sim.payer = -1 if state.payer is None else state.payer
        sim.owed = state.owed
        sim.purchase = -1 if state.purchase is None else ID[state.purchase]
        sim.buyer = -1 if state.buyer is None else state.buyer
        sim.final_buyers = None if state.final_buyers is None else list(state.final_buyers)
        return sim

    def set_pile(self, pile: list[int]) -> None:
        self.pile = pile
        self.pile_num = [0] * 10
        self.pile_cur = [0] * 6
        for c in pile:
            if KIND[c] == NUMBER_KIND:
                self.pile_num[NUMBER[c]] += 1
            elif KIND[c] == CURRENCY:
                self.pile_cur[VALUE[c]] += 1

    def copy(self) -> Sim:
        other = Sim.__new__(Sim)
        other.seats = self.seats
        other.cap = self.cap
        other.pile = self.pile[:]
        other.pile_num = self.pile_num[:]
        other.pile_cur = self.pile_cur[:]
        other.tableau = self.tableau[:]
        other.tab_num = self.tab_num
        other.tab_cur = self.tab_cur
        other.market = self.market[:]
        other.cnt = [c[:] for c in self.cnt]
        other.held = self.held[:]
        other.key = self.key[:]
        other.currency = self.currency[:]
        other.busts = self.busts[:]
        other.active = self.active
        other.turn = self.turn
        other.decision = self.decision
        other.wild = self.wild
        other.bidders = self.bidders[:]
        other.high_bid = self.high_bid
        other.high_bidder = self.high_bidder
        other.payer = self.payer
        other.owed = self.owed
        other.purchase = self.purchase
        other.buyer = self.buyer
        other.final_buyers = None if self.final_buyers is None else self.final_buyers[:]
        return other

    # -- collections ---------------------------------------------------------------------

    def add(self, seat: int, card: int) -> None:
        cnt = self.cnt[seat]
        if not cnt[card] or KIND[card] == COLOUR_WILD:
            self.key[seat] += BIT[card]
        cnt[card] += 1
        self.held[seat] += 1

    def remove(self, seat: int, card: int) -> None:
        cnt = self.cnt[seat]
        cnt[card] -= 1
        if not cnt[card] or KIND[card] == COLOUR_WILD:
            self.key[seat] -= BIT[card]
        self.held[seat] -= 1

    def without(self, seat: int, card: int) -> int:
        """``seat``'s score key with one ``card`` fewer."""
        if self.cnt[seat][card] > 1 and KIND[card] != COLOUR_WILD:
            return self.key[seat]
        return self.key[seat] - BIT[card]

    def can_pay(self, seat: int) -> int:
        return self.currency[seat] + BUST_TOKEN_VALUE * self.busts[seat] + self.held[seat]

    def buyable(self, seat: int) -> list[int]:
        market, cnt, funds = self.market, self.cnt[seat], self.can_pay(seat)
        return [c for c in NUMBER_IDS if market[c] and not cnt[c] and NUMBER[c] <= funds]

    def pay_units(self, seat: int) -> list[int]:
        units = []
        if self.currency[seat]:
            units.append(TOKEN)
        if self.busts[seat]:
            units.append(BUST)
        cnt = self.cnt[seat]
        units += [c for c in range(N_IDS) if cnt[c]]
        return units

    def gain(self, seat: int, amount: int) -> None:
        taken = min(amount, self.cap - self.currency[seat])
        if taken > 0:
            self.currency[seat] += taken

    def gains_to_others(self, amount: int) -> None:
        for seat in range(self.seats):
            if seat != self.active:
                self.gain(seat, amount)

    # -- the interface -------------------------------------------------------------------

    def deciding(self) -> int:
        d = self.decision
        if d == DRAW:
            return self.active
        if d == BID:
            return self.bidders[0]
        if d == PAY:
            return self.payer
        if d == BUY:
            return self.buyer
        return -1

    def legal(self) -> list[int]:
        """The deciding seat's actions, in the rules' order."""
        d, seat = self.decision, self.deciding()
        if d == DRAW:
            return [0, TAKE_NUMBERS, TAKE_CURRENCY] if self.pile else [TAKE_NUMBERS, TAKE_CURRENCY]
        if d == BID:
            return [0, *range(self.high_bid + 1, self.can_pay(seat) + 1)]
        if d == PAY:
            return self.pay_units(seat)
        if d == BUY:
            return [NONE, *self.buyable(seat)]
        return []

    def apply(self, action: int) -> None:
        """The deciding seat takes ``action`` (one of :meth:`legal`, unchecked)."""
        d = self.decision
        if d == DRAW:
            if action == 0:
                self.draw()
            elif action == TAKE_NUMBERS:
                self.take_numbers()
            else:
                self.take_currency()
        elif d == BID:
            seat = self.bidders.pop(0)
            if action:
                self.high_bid = action
                self.high_bidder = seat
            self.next_bidder()
        elif d == PAY:
            self.pay_unit(action)
            self.pay_forced()
        elif action == NONE:
            self.close_buy()
        else:
            self.market[action] -= 1
            self.open_payment(self.buyer, NUMBER[action], action)

    # -- a turn --------------------------------------------------------------------------

    def start_turn(self, seat: int) -> None:
        self.active = seat
        self.turn += 1
        self.draw()

    def draw(self) -> None:
        card = self.pile.pop()
        kind = KIND[card]
        if kind == NUMBER_KIND:
            self.pile_num[NUMBER[card]] -= 1
        elif kind == CURRENCY:
            self.pile_cur[VALUE[card]] -= 1
        else:
            self.open_auction(card)
            return
        self.tableau.append(card)
        self.tab_num += NUMBER[card]
        self.tab_cur += VALUE[card]
        if self.tab_cur >= BUST_LIMIT:
            self.bust(False)
        elif self.tab_num - self.tab_cur >= BUST_LIMIT:
            self.bust(True)
        else:
            self.decision = DRAW

    def split_tableau(self) -> tuple[list[int], int]:
        numbers = [c for c in self.tableau if KIND[c] == NUMBER_KIND]
        total = self.tab_cur
        self.tableau = []
        self.tab_num = self.tab_cur = 0
        return numbers, total

    def bust(self, number: bool) -> None:
        numbers, total = self.split_tableau()
        self.busts[self.active] += 1
        for c in numbers:
            self.market[c] += 1
        if number:
            self.gains_to_others(total)
        self.end_turn()

    def take_numbers(self) -> None:
        numbers, total = self.split_tableau()
        for c in numbers:
            self.add(self.active, c)
        self.gains_to_others(total)
        self.open_buy(self.active)

    def take_currency(self) -> None:
        numbers, total = self.split_tableau()
        self.gain(self.active, total)
        for c in numbers:
            self.market[c] += 1
        self.end_turn()

    def end_turn(self) -> None:
        self.decision = OVER
        if self.pile:
            self.start_turn((self.active + 1) % self.seats)
            return
        self.final_buyers = [(self.active + 1 + k) % self.seats for k in range(self.seats)]
        self.next_final_buy()

    def next_final_buy(self) -> None:
        assert self.final_buyers is not None
        if self.final_buyers:
            self.open_buy(self.final_buyers.pop(0))
        else:
            self.decision = OVER

    def open_buy(self, seat: int) -> None:
        self.buyer = seat
        if self.buyable(seat):
            self.decision = BUY
            return
        self.close_buy()

    def close_buy(self) -> None:
        self.buyer = -1
        self.decision = OVER
        if self.final_buyers is not None:
            self.next_final_buy()
        else:
            self.end_turn()

    def open_auction(self, wild: int) -> None:
        self.wild = wild
        self.bidders = [(self.active + 1 + k) % self.seats for k in range(self.seats)]
        self.high_bid = 0
        self.high_bidder = -1
        self.next_bidder()

    def next_bidder(self) -> None:
        bidders = self.bidders
        while bidders:
            if self.can_pay(bidders[0]) > self.high_bid:
                self.decision = BID
                return
            bidders.pop(0)
        wild = self.wild
        self.wild = -1
        if self.high_bidder < 0:
            self.decision = DRAW
            return
        self.open_payment(self.high_bidder, self.high_bid, wild)

    def open_payment(self, payer: int, price: int, card: int) -> None:
        self.payer = payer
        self.owed = price
        self.purchase = card
        self.decision = PAY
        self.pay_forced()

    def pay_forced(self) -> None:
        payer = self.payer
        while self.owed > 0:
            units = 0
            only = 0
            if self.currency[payer]:
                units, only = 1, TOKEN
            if self.busts[payer]:
                units, only = units + 1, BUST
            if units < 2 and self.held[payer]:
                cnt = self.cnt[payer]
                kinds = 0
                for c in range(N_IDS):
                    if cnt[c]:
                        kinds += 1
                        only = c
                        if kinds > 1:
                            break
                units += kinds
            if units != 1:
                return
            self.pay_unit(only)
        self.close_payment()

    def pay_unit(self, unit: int) -> None:
        seat = self.payer
        if unit == TOKEN:
            self.currency[seat] -= 1
            value = 1
        elif unit == BUST:
            self.busts[seat] -= 1
            value = BUST_TOKEN_VALUE
        else:
            self.remove(seat, unit)
            value = 1
        self.owed = max(0, self.owed - value)

    def close_payment(self) -> None:
        payer, card = self.payer, self.purchase
        self.add(payer, card)
        self.payer = -1
        self.purchase = -1
        self.owed = 0
        if KIND[card] in WILD_KINDS:
            self.decision = DRAW
        else:
            self.close_buy()

    # -- the end -------------------------------------------------------------------------

    def points(self) -> list[int]:
        return [score_of(k) for k in self.key]

    def ranks(self) -> list[int]:
        """Competition ranks: most points, then more tokens, then fewer collected cards."""
        keys = [
            (-score_of(k), -c, n)
            for k, c, n in zip(self.key, self.currency, self.held, strict=True)
        ]
        return [1 + sum(1 for other in keys if other < mine) for mine in keys]

    # -- the bundled heuristic (bots/heuristic/ten.py, same arithmetic) ------------------

    def heuristic(self) -> int:
        """The bundled heuristic's choice for the deciding seat, as an action."""
        d = self.decision
        if d == DRAW:
            return self.h_draw()
        if d == BID:
            return self.h_bid()
        if d == PAY:
            return self.h_pay()
        return self.h_buy()

    def h_stop(self, seat: int) -> tuple[int, float]:
        """The reward the heuristic would stop with, and what it reckons it is worth."""
        key = self.key[seat]
        more = key
        count = 0
        for c in self.tableau:
            if KIND[c] == NUMBER_KIND:
                more |= BIT[c]
                count += 1
        number_value = 2.0 * (score_of(more) - score_of(key)) + 0.3 * count
        number_value -= 0.15 * self.tab_cur * (self.seats - 1)
        currency_value = 0.6 * min(self.tab_cur, self.cap - self.currency[seat])
        if number_value >= currency_value:
            return TAKE_NUMBERS, number_value
        return TAKE_CURRENCY, currency_value

    def bust_chance(self) -> float:
        total = len(self.pile)
        if not total:
            return 1.0
        busting = 0
        margin = self.tab_num - self.tab_cur
        for n in range(max(1, BUST_LIMIT - margin), 10):
            busting += self.pile_num[n]
        for v in range(max(1, BUST_LIMIT - self.tab_cur), 6):
            busting += self.pile_cur[v]
        return busting / total

    def h_draw(self) -> int:
        stop, value = self.h_stop(self.active)
        if not self.pile:
            return stop
        risk = self.bust_chance()
        if not self.tableau:
            return 0
        if risk * (value + 1.0) > (1 - risk) * 1.2:
            return stop
        return 0

    def wild_gain(self, seat: int, wild: int) -> int:
        key = self.key[seat]
        return score_of(key + BIT[wild] if KIND[wild] == COLOUR_WILD else key | BIT[wild]) - (
            score_of(key)
        )

    def h_bid(self) -> int:
        seat = self.bidders[0]
        worth = self.wild_gain(seat, self.wild)
        spendable = self.currency[seat] + 3 * self.busts[seat]
        limit = min(2 * worth + 1, spendable) if worth > 0 else 0
        offer = self.high_bid + 1
        if offer <= limit and offer <= self.can_pay(seat):
            return offer
        return 0

    def h_buy(self) -> int:
        seat = self.buyer
        key = self.key[seat]
        now = score_of(key)
        funds = self.currency[seat] + 3 * self.busts[seat]
        best, best_key = NONE, (0.0, 0)
        for c in self.buyable(seat):
            price = NUMBER[c]
            if price > funds:
                continue
            points = score_of(key | BIT[c]) - now
            rank = (points - 0.25 * price, -price)
            if points > 0 and rank > best_key:
                best, best_key = c, rank
        return best

    def h_pay(self) -> int:
        seat = self.payer
        cnt = self.cnt[seat]
        now = score_of(self.key[seat])
        cheapest, least = -1, 10**9
        for c in range(N_IDS):
            if cnt[c]:
                loss = now - score_of(self.without(seat, c))
                if loss == 0:
                    return c
                if loss < least:
                    cheapest, least = c, loss
        if self.owed >= 3 and self.busts[seat]:
            return BUST
        if self.currency[seat]:
            return TOKEN
        if self.busts[seat]:
            return BUST
        return cheapest

    def play_out(self, deadline: float = math.inf) -> bool:
        """Every seat plays the heuristic to the end of the game; False if ``deadline`` (of
        ``time.perf_counter``) passed first (checked every ``CHECK_EVERY`` decisions)."""
        steps = 0
        while self.decision != OVER:
            self.apply(self.heuristic())
            steps += 1
            if steps % CHECK_EVERY == 0 and time.perf_counter() > deadline:
                return False
        return True


# -- conversions to and from the rules' actions ------------------------------------------------


def to_rules(decision: int, action: int) -> Any:
    """The rules' action for a :class:`Sim` action of ``decision``."""
    if decision == DRAW:
        return ("draw", "take_numbers", "take_currency")[action]
    if decision == BID:
        return {"bid": action} if action else "pass"
    if decision == BUY:
        return "none" if action == NONE else {"buy": CODES[action]}
    if action == TOKEN:
        return "token"
    if action == BUST:
        return "bust"
    return {"card": CODES[action]}


def from_rules(decision: int, action: Any) -> int:
    """The :class:`Sim` action for a rules action of ``decision``."""
    if decision == DRAW:
        return ("draw", "take_numbers", "take_currency").index(action)
    if decision == BID:
        return 0 if action == "pass" else int(action["bid"])
    if decision == BUY:
        return NONE if action == "none" else ID[action["buy"]]
    if action == "token":
        return TOKEN
    if action == "bust":
        return BUST
    return ID[action["card"]]


def shuffled(sim: Sim, rng: random.Random) -> Sim:
    """A copy of ``sim`` with its draw pile shuffled again (a world: only that order is
    hidden)."""
    other = sim.copy()
    rng.shuffle(other.pile)
    return other
