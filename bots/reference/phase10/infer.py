"""Reading the other seats' hands from what they did since the deal: a particle filter per seat.

The bundled heuristic plays by fixed rules (:mod:`.model`), so every turn of a seat not yet down
says something of its hand: whether it took the discard pile's top (it takes one that raises its
progress measure), that it could not lay its phase down (it lays as soon as it can), that it held
no Skip when it discarded another card (it throws a Skip first), and which card it threw (the one
whose loss costs its progress least). One turn says little; every turn since the deal, with the
cards drawn unseen in between, says more (measured: see benchmarks/REPORT-reference-phase10.md).

For each other seat the filter keeps ``PARTICLES`` guesses of the cards of its hand this seat
cannot see (the cards it took from the discard pile are known and kept apart, as the rules'
``known``). Each event moves every guess as the rules move the hand (a blind draw adds a card
dealt at random from those unseen), and a guess by which the heuristic would have done something
else is weighted by ``MISFIT`` (not ruled out: the model of a bot may be wrong, and a guess's
drawn cards are themselves guesses). A card the seat was seen to play that a guess lacks replaces
one of the guess's cards at random (and costs ``MISFIT``). The guesses are drawn again by weight
when their effective number falls under half.

Only the default rules (``fast.supported``) and the hand in play are read; seats already down
are moved but not weighed (their choices depend on the table more than on the hand). The filter
never decides anything by itself: :func:`deal` uses the guesses to deal the search's worlds from
the cards actually unseen at the decision, and fills what they lack at random.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from . import model
from .fast import can_lay
from .rules.phase10_groups import SKIP, WILD, full_deck

PARTICLES = 48
"""Guesses kept per other seat."""
MISFIT = 0.1
"""The weight of a guess by which the heuristic would have acted otherwise."""
HAND_SIZE = 10
MIXED = {p for p, needs in model.SETS_AND_RUNS.items() if len({kind for kind, _ in needs}) > 1}
"""The phases of a set and a run (the heuristic's measure is not monotone in the cards there)."""
COLOUR_PHASE = 8
DECK = Counter(full_deck())


class Reader:
    """What one seat (``seat``) has read of the other hands in the hand in play."""

    def __init__(self, seat: int, rng: random.Random, particles: int = PARTICLES) -> None:
        self.seat = seat
        self.rng = rng
        self.size = particles
        self.read = 0
        """Events read so far."""
        self.ready = False
        """Whether a hand's deal has been read (and nothing since went off track)."""
        self.guesses: dict[int, list[list[str]]] = {}
        self.weights: dict[int, list[float]] = {}
        self.known: dict[int, list[str]] = {}
        self.hidden: Counter[str] = Counter()
        """Cards whose place this seat does not know: the draw pile and the others' unknown cards."""
        self._hidden_list: list[str] | None = None
        self.pile: list[str] = []
        self.draw_size = 0
        self.phase: list[int | None] = []
        self.down: set[int] = set()
        """The seats that have laid their phase down this hand."""
        self.others: list[int] = []
        """The other seats dealt in this hand."""

    # -- reading events -------------------------------------------------------------------

    def update(self, events: Sequence[Mapping[str, Any]]) -> None:
        """Read the events not read yet (``events``: every event the seat saw, in order)."""
        for event in events[self.read :]:
            try:
                self._read(event)
            except (ValueError, KeyError, IndexError, TypeError):
                self.ready = False  # off track (an event this reader does not model): guess no more
        self.read = len(events)

    def _read(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "hand":
            self._new_hand(event)
            return
        if kind == "deal":
            self._deal(event["cards"])
            return
        if not self.ready:
            return
        seat = event.get("seat")
        if kind == "reshuffle":
            top = self.pile.pop()
            self.hidden.update(self.pile)
            self._changed()
            self.pile = [top]
            self.draw_size = int(event["cards"])
        elif kind == "drew" and seat == self.seat:
            self._seen(event["card"])
        elif kind == "draw":
            self._drawn(seat)
        elif kind == "take":
            self._taken(seat, event["card"])
        elif kind == "lay":
            cards = [c for g in event["groups"] for c in g["cards"]]
            self._played(seat, cards)
            self.down.add(seat)
        elif kind == "hit":
            self._played(seat, [event["card"]])
        elif kind == "discard":
            self._discarded(seat, event["card"])
        elif kind in ("hand_end", "game_end"):
            self.ready = False

    def _new_hand(self, event: Mapping[str, Any]) -> None:
        self.ready = False
        self.phase = list(event["phases"])
        self.pile = [event["upcard"]]
        self.down = set()
        self.others = [s for s in event["seats"] if s != self.seat]
        self.draw_size = len(DECK) - HAND_SIZE * len(event["seats"]) - 1

    def _deal(self, cards: list[str]) -> None:
        self.hidden = DECK - Counter(cards) - Counter(self.pile)
        self._changed()
        self.known = {s: [] for s in self.others}
        self.guesses = {}
        self.weights = {}
        pool = self.hidden_list()
        for s in self.others:
            self.guesses[s] = [self.rng.sample(pool, HAND_SIZE) for _ in range(self.size)]
            self.weights[s] = [1.0] * self.size
        self.ready = True

    def _seen(self, card: str) -> None:
        """``card`` left the unseen cards for a place this seat knows."""
        if self.hidden[card] <= 0:
            raise ValueError(card)
        self.hidden[card] -= 1
        self._changed()
        for s in self.others:
            for guess in self.guesses[s]:
                if guess.count(card) > self.hidden[card]:
                    guess[guess.index(card)] = self.fresh(guess)

    def _drawn(self, seat: int) -> None:
        self.draw_size -= 1
        if seat == self.seat:
            return
        if seat not in self.down and self._could_take():
            self._weigh(seat, lambda hand: not self._wants_top(seat, hand))
        for guess in self.guesses[seat]:
            guess.append(self.fresh(guess))

    def _taken(self, seat: int, card: str) -> None:
        if seat != self.seat:
            if seat not in self.down and self.draw_size + len(self.pile) > 1:  # it could draw
                self._weigh(seat, lambda hand: self._wants_top(seat, hand))
            self.known[seat].append(card)
        self.pile.pop()

    def _played(self, seat: int, cards: list[str]) -> None:
        """``seat`` put ``cards`` from its hand on the table."""
        if seat == self.seat:
            return
        for card in cards:
            self._gone(seat, card)

    def _discarded(self, seat: int, card: str) -> None:
        if seat != self.seat:
            if card not in self.known[seat]:
                self._held(seat, card)
            if seat not in self.down:
                self._weigh(seat, lambda hand: self._throws(seat, hand, card))
            self._gone(seat, card)
        self.pile.append(card)

    def _held(self, seat: int, card: str) -> None:
        """``seat`` was seen to hold ``card`` (not one it took): every guess without it gets it
        in place of one of its cards, at random."""
        for guess in self.guesses[seat]:
            if card not in guess:
                guess[self.rng.randrange(len(guess))] = card

    def _gone(self, seat: int, card: str) -> None:
        """A card of ``seat``'s hand left it for a place everyone sees."""
        known = self.known[seat]
        if card in known:
            known.remove(card)
            return
        self._held(seat, card)
        for guess in self.guesses[seat]:
            guess.remove(card)
        self._seen(card)

    # -- the heuristic's rules, on a guessed hand ------------------------------------------

    def _could_take(self) -> bool:
        return bool(self.pile) and self.pile[-1] != SKIP and self.draw_size + len(self.pile) > 1

    def _wants_top(self, seat: int, hand: list[str]) -> bool:
        """Whether the heuristic at ``seat``, not down, holding ``hand``, takes the discard
        pile's top rather than draw."""
        top = self.pile[-1]
        if top == WILD:
            return True
        phase = self.phase[seat]
        if phase is None:
            return False
        cards = model.in_order(hand)
        progress = model._progress  # unmemoised: guessed hands rarely repeat
        before = progress(phase, cards) + 0.05
        if phase not in MIXED and progress(phase, (*cards, top)) <= before:
            return False  # more cards never lower the measure outside set-and-run phases
        for drop in dict.fromkeys(cards):
            if progress(phase, (*(c for c in cards if c != drop), top)) > before:
                return True
        return False

    def _throws(self, seat: int, hand: list[str], card: str) -> bool:
        """Whether the heuristic, not down, holding ``hand`` after its draw, would discard
        ``card`` (it did not lay down, so it could not)."""
        phase = self.phase[seat]
        if phase is None:
            return True
        if can_lay(phase, hand):
            return False
        if card == SKIP or SKIP in hand:
            return card == SKIP
        if card not in hand:
            return False
        cards = model.in_order(hand)

        def keep_value(c: str) -> tuple[float, int]:
            rest = list(cards)
            rest.remove(c)
            wild = 100.0 if c == WILD else 0.0
            return wild - model._progress(phase, tuple(rest)), -model.points(c)

        thrown = keep_value(card)
        if phase in MIXED or phase == COLOUR_PHASE:
            others = [c for c in dict.fromkeys(cards) if c != card]
        else:  # the measure reads numbers only: one card of each number will do
            others = list({model.NUMBER[c]: c for c in cards if c != card}.values())
        return all(keep_value(c) >= thrown for c in others)

    def _weigh(self, seat: int, agrees: Any) -> None:
        known = self.known[seat]
        weights = self.weights[seat]
        for i, guess in enumerate(self.guesses[seat]):
            if not agrees([*known, *guess]):
                weights[i] *= MISFIT
        self._resample(seat)

    def _resample(self, seat: int) -> None:
        weights = self.weights[seat]
        total = sum(weights)
        if total <= 0:
            weights[:] = [1.0] * len(weights)
            return
        effective = total * total / sum(w * w for w in weights)
        if effective >= len(weights) / 2:
            return
        guesses = self.guesses[seat]
        picked = self.rng.choices(range(len(guesses)), weights=weights, k=len(guesses))
        self.guesses[seat] = [list(guesses[i]) for i in picked]
        self.weights[seat] = [1.0] * len(guesses)

    # -- unseen cards ----------------------------------------------------------------------

    def _changed(self) -> None:
        self._hidden_list = None

    def hidden_list(self) -> list[str]:
        if self._hidden_list is None:
            self._hidden_list = list(self.hidden.elements())
        return self._hidden_list

    def fresh(self, guess: list[str]) -> str:
        """A card dealt at random from the unseen cards ``guess`` does not already hold."""
        pool = self.hidden_list()
        for _ in range(64):
            card = self.rng.choice(pool)
            if guess.count(card) < self.hidden[card]:
                return card
        rest = list((self.hidden - Counter(guess)).elements())
        return self.rng.choice(rest)

    # -- dealing the search's worlds ---------------------------------------------------------

    def guess(self, seat: int, rng: random.Random) -> list[str]:
        """One guess of ``seat``'s unknown cards, drawn by weight."""
        guesses = self.guesses[seat]
        return rng.choices(guesses, weights=self.weights[seat])[0]


def deal(
    reader: Reader | None,
    pool: list[str],
    unknown: Sequence[int],
    seat: int,
    rng: random.Random,
) -> tuple[list[list[str]], list[str]]:
    """Each seat's unknown cards (none for ``seat``) and the draw pile, dealt from ``pool`` (every
    card this seat cannot place): from the reader's guesses where it has them (the cards a guess
    holds that are still in the pool), the rest at random."""
    left = list(pool)
    rng.shuffle(left)
    dealt: list[list[str]] = [[] for _ in unknown]
    if reader is None or not reader.ready:
        at = 0
        for s, count in enumerate(unknown):
            if s != seat:
                dealt[s] = left[at : at + count]
                at += count
        return dealt, left[at:]
    counts = Counter(left)
    order = [s for s, count in enumerate(unknown) if s != seat and count]
    rng.shuffle(order)
    for s in order:
        if s not in reader.guesses:
            continue
        hand = dealt[s]
        for card in reader.guess(s, rng):
            if len(hand) < unknown[s] and counts[card] > 0:
                counts[card] -= 1
                hand.append(card)
    rest = list(counts.elements())
    rng.shuffle(rest)
    for s, count in enumerate(unknown):
        if s != seat:
            need = count - len(dealt[s])
            dealt[s] += rest[:need]
            del rest[:need]
    return dealt, rest
