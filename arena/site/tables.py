"""What the replay viewer draws: one game's view (snapshot or observation) as a small table model.

The viewer in the browser is generic: it draws a :data:`Table` (facts, shared zones, one panel
per seat, each zone lines of cards). Each game has one function here that turns its own JSON
view into that model, so the game-specific knowledge stays in Python, typed and tested, and the
page carries only what is drawn.

A card in a zone is a short code (``"55"``, ``"R7"``); the page carries each game's card faces
once (:attr:`Drawing.faces`: code -> ``[text, css_class, caption]``), so a long game does not
repeat them in every frame. A code starting with ``~`` is a face-down pile: ``"~10"`` is ten
hidden cards, ``"~?"`` an unknown number.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

import orjson

from arena.games import JSON, State
from arena.games.phase10 import Phase10State
from arena.games.take5 import bull_heads
from arena.games.ten import score_cards

Card = str
Face = list[str]
Zone = dict[str, Any]
Table = dict[str, Any]
Drawer = Callable[[Mapping[str, JSON], int, "int | None"], Table]
"""(view, seats, seat): ``seat`` is None for the omniscient snapshot, else whose observation."""
Patch = list[list[Any]]
"""Operations, outermost first: ``[path, value]`` replaces what is at ``path`` (``[]``: the
root); ``[path, start, count, items]`` splices the list at ``path`` (a line of cards, a fact,
the zones): its ``count`` members from ``start`` give way to ``items``. A path is a list or a
tuple of keys and indices."""


class Keeper(Protocol):
    """One game's omniscient table kept in step with a replay: :meth:`advance` after each
    action gives the operations (:data:`Patch`) that turn the table before the action into
    the table after it, which is the game's drawing of ``state.snapshot()`` (tests/site check
    it at every step of random games)."""

    def first(self) -> Table:
        """The table of the state the keeper was made with (a copy the caller may keep)."""
        ...

    def advance(self, state: State) -> Patch:
        """The operations from the last table to the table of ``state`` (one action later)."""
        ...


KeeperMaker = Callable[[State, int], Keeper]
"""(state, seats): a keeper starting at ``state``."""
Glance = Callable[[State, int], dict[str, JSON]]
"""(state, seat): a few keys of the seat's observation, read from the state more cheaply."""


@dataclass(frozen=True)
class Drawing:
    """How the viewer draws one game: its table function and the faces of its cards, and
    optionally its own words for an action (given the acting seat's observation)."""

    table: Drawer
    faces: Callable[[], dict[str, Face]]
    words: Callable[[Mapping[str, JSON], JSON], str] | None = None
    masked_views: bool = False
    """A seat's table is always the omniscient table with the other seats' private zones
    hidden (:func:`mask`), so the viewer draws it from that and no observation is drawn
    (tests/site check it at every step of random games, for every seat)."""
    keeper: KeeperMaker | None = None
    """Keeps the omniscient table from what each action changed, without a snapshot drawn
    and compared whole at every step; None: :class:`DrawnKeeper` does that."""
    glance: Glance | None = None
    """The keys of a seat's observation that the words of its moves read, without the whole
    observation (the same values: tests/site check them at every step of random games)."""

    def keep(self, state: State, seats: int) -> Keeper:
        """A keeper of this game's omniscient table, starting at ``state``."""
        if self.keeper is not None:
            return self.keeper(state, seats)
        return DrawnKeeper(self.table, state, seats)


def diff(
    before: JSON, after: JSON, path: list[Any] | None = None, out: Patch | None = None
) -> Patch:
    """The operations that turn ``before`` into ``after`` (see :data:`Patch`).

    Dicts with the same keys, and lists of the same length whose members are dicts or lists, are
    compared member by member; other lists are spliced where they differ (a hand that gained
    one card is stored as that card, a zone laid on the table as that zone); anything else
    that differs is replaced whole.
    """
    path = [] if path is None else path
    out = [] if out is None else out
    if before != after:
        _diff(before, after, path, out)
    return out


def _diff(before: JSON, after: JSON, path: list[Any], out: Patch) -> None:
    """:func:`diff` of two values already known to differ (each pair compared once)."""
    if isinstance(before, dict) and isinstance(after, dict) and before.keys() == after.keys():
        for key, b in after.items():
            a = before[key]
            if a is not b and a != b:
                _diff(a, b, [*path, key], out)
    elif isinstance(before, list) and isinstance(after, list):
        if len(before) == len(after) and isinstance(after[0], dict | list):
            for i, (a, b) in enumerate(zip(before, after, strict=True)):
                if a is not b and a != b:
                    _diff(a, b, [*path, i], out)
        else:
            out.append(splice(before, after, path))
    else:
        out.append([path, after])


def splice(before: Sequence[Any], after: Sequence[Any], path: Sequence[Any]) -> list[Any]:
    """The splice that turns one list into the other: what lies between their common start
    and their common end."""
    start, limit = 0, min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    return [path, start, len(before) - start - end, list(after[start : len(after) - end])]


class DrawnKeeper:
    """The general keeper: the snapshot drawn whole after every action and compared with the
    table before it (:func:`diff`)."""

    def __init__(self, draw: Drawer, state: State, seats: int) -> None:
        self.draw = draw
        self.seats = seats
        self.table = draw(state.snapshot(), seats, None)

    def first(self) -> Table:
        return self.table

    def advance(self, state: State) -> Patch:
        table = self.draw(state.snapshot(), self.seats, None)
        changes = diff(self.table, table)
        self.table = table
        return changes


def zone(title: str, *lines: Sequence[Card], note: str = "", hide: str = "") -> Zone:
    """A titled group of card lines. ``hide`` marks a seat's private zone: how it looks to the
    other seats (see :func:`mask`)."""
    out: Zone = {"title": title, "lines": [list(line) for line in lines]}
    if note:
        out["note"] = note
    if hide:
        out["hide"] = hide
    return out


def back(count: int | None) -> Card:
    return f"~{'?' if count is None else count}"


COUNT, UNKNOWN, DROP = "count", "unknown", "drop"


def hidden(z: Zone) -> Zone:
    """How a private zone looks to another seat: ``count`` shows how many cards it holds,
    ``unknown`` one face-down pile of unknown size, ``drop`` nothing."""
    how = z["hide"]
    if how == COUNT:
        lines = [[back(sum(len(line) for line in z["lines"]))]]
    elif how == UNKNOWN:
        lines = [[back(None)]]
    else:
        lines = []
    return {**z, "lines": lines}


def mask(table: Table, seat: int) -> Table:
    """The omniscient table with every other seat's private zones hidden: what ``seat``'s own
    table usually is, so a seat's frame is stored as the (usually empty) patch from this.
    The viewer's ``mask`` does the same."""
    panels = []
    for panel in table["seats"]:
        if panel["seat"] != seat and any("hide" in z for z in panel["zones"]):
            panel = masked_panel(panel)
        panels.append(panel)
    return {**table, "seats": panels}


_MASKED: dict[Any, tuple[dict[str, Any], dict[str, Any]]] = {}


def masked_panel(panel: dict[str, Any]) -> dict[str, Any]:
    """``panel`` with its private zones hidden; the same object again while ``panel`` is (the
    same for every other seat, and over the steps where a drawing reuses the panel)."""
    last = _MASKED.get(panel["seat"])
    if last is not None and last[0] is panel:
        return last[1]
    zones = [hidden(z) if "hide" in z else z for z in panel["zones"]]
    out = {**panel, "zones": zones}
    _MASKED[panel["seat"]] = (panel, out)
    return out


def fact(label: str, value: JSON) -> list[str]:
    if value is None:
        value = "–"
    elif isinstance(value, bool):
        value = "yes" if value else "no"
    return [label, str(value)]


def seat_panel(
    seat: int, facts: list[list[str]], zones: list[Zone], turn: bool = False
) -> dict[str, Any]:
    return {"seat": seat, "facts": facts, "zones": zones, "turn": turn}


_LAST: dict[tuple[Any, ...], tuple[bytes, Any]] = {}


def _reuse(slot: tuple[Any, ...], args: tuple[JSON, ...], make: Callable[..., Any]) -> Any:
    """``make(*args)``, or the very object it returned last time for ``slot`` if ``args`` were
    the same then (compared as JSON text: a copy, so a list changed since cannot fool it, and
    ``1``, ``1.0`` and ``true`` stay different). A reused part is shared by every table it is in,
    so a drawn table is never changed; sharing also makes comparing tables fast."""
    key = orjson.dumps(args)
    last = _LAST.get(slot)
    if last is not None and last[0] == key:
        return last[1]
    value = make(*args)
    _LAST[slot] = (key, value)
    return value


# -- Take 5 --------------------------------------------------------------------------------


def heads(card: int) -> int:
    """Bull heads of a Take 5 card: the game's own rule."""
    return bull_heads(card)


def take5_face(card: int) -> Face:
    n = heads(card)
    return [str(card), f"t5 h{n}", f"{n} head{'s' if n > 1 else ''}"]


def take5_faces() -> dict[str, Face]:
    return {str(c): take5_face(c) for c in range(1, 105)}


def take5_card(card: int) -> Card:
    return str(card)


def take5_table(view: Mapping[str, JSON], seats: int, seat: int | None) -> Table:
    facts = [["Round", str(view["round"])], ["Trick", str(view["trick"])]]
    if seat is None:
        to_place = view["to_place"]
        chooser = view["row_chooser"]
    else:  # who chooses a row is public: the seat of the card waiting to be placed
        to_place = view.get("to_place", [])
        chooser = to_place[0][1] if to_place else None
    zones = [{"title": "Rows", "lines": [list(map(str, row)) for row in view["rows"]]}]
    if to_place:
        note = ", ".join(f"seat {s}" for _, s in to_place)
        zones.append(
            zone("Revealed, still to place", [take5_card(c) for c, _ in to_place], note=note)
        )
    panels = []
    for s in range(seats):
        if seat is None:
            hand, chosen = view["hands"][s], view["chosen"][s]
        elif s == seat:
            hand, chosen = view["hand"], view["chosen"]
        else:
            hand, chosen = None, None
        args = (s, hand, chosen, view["taken"][s], view["round_heads"][s], view["totals"][s])
        panel = _reuse(("take5 panel", s, hand is None), (*args, chooser == s), take5_panel)
        panels.append(panel)
    return {"facts": facts, "zones": zones, "seats": panels}


def take5_panel(
    s: int,
    hand: list[int] | None,
    chosen: int | None,
    taken: list[int],
    round_heads: JSON,
    totals: JSON,
    turn: bool,
) -> dict[str, Any]:
    hand_zone: Zone
    chosen_zone: Zone
    if hand is None:
        hand_zone = {"title": "Hand", "lines": [[back(None)]], "hide": UNKNOWN}
        chosen_zone = {"title": "Chosen", "lines": [], "hide": DROP}
    else:
        hand_zone = {"title": "Hand", "lines": [list(map(str, hand))], "hide": UNKNOWN}
        chosen_zone = {
            "title": "Chosen",
            "lines": [[str(chosen)] if chosen is not None else []],
            "hide": DROP,
        }
    taken_zone: Zone = {"title": "Taken this round", "lines": [list(map(str, taken))]}
    if not taken:
        taken_zone["note"] = "none"
    return {
        "seat": s,
        "facts": [["Heads this round", str(round_heads)], ["Total heads", str(totals)]],
        "zones": [hand_zone, chosen_zone, taken_zone],
        "turn": turn,
    }


# -- Ten -----------------------------------------------------------------------------------

TEN_COLOURS = {"R": "red", "B": "blue", "O": "orange", "G": "green"}


def ten_card(code: str) -> Card:
    return code


def ten_faces() -> dict[str, Face]:
    codes = ["#"] + [f"${v}" for v in range(1, 6)] + [f"*{n}" for n in range(1, 10)]
    codes += [f"{c}{n}" for c in TEN_COLOURS for n in [*range(1, 10), "*"]]
    return {code: ten_face(code) for code in codes}


def ten_face(code: str) -> Face:
    if code.startswith("$"):
        return [code[1:], "ten cur", "currency"]
    if code == "#":
        return ["★", "ten wild", "full wild"]
    colour, number = code[0], code[1:]
    if colour == "*":
        return [number, "ten wild", "any colour"]
    name = TEN_COLOURS.get(colour, colour)
    if number == "*":
        return ["★", f"ten c{colour}", f"{name} wild"]
    return [number, f"ten c{colour}", name]


def ten_table(view: Mapping[str, JSON], seats: int, seat: int | None) -> Table:
    draw = view["draw_pile"]
    draw_count = len(draw) if isinstance(draw, list) else int(draw)
    facts = [
        fact("Turn", view["turn"]),
        fact("Active seat", view["active"]),
        fact("Cards to draw", draw_count),
    ]
    zones = _reuse(("ten zones",), (view["tableau"], view["market"], view["discard"]), ten_zones)
    zones = [*ten_deals(view, seat), *zones]
    panels = [
        _reuse(
            ("ten panel", s),
            (s, view["currency"][s], view["busts"][s], view["collected"][s], view["active"] == s),
            ten_panel,
        )
        for s in range(seats)
    ]
    return {"facts": facts, "zones": zones, "seats": panels}


def ten_deals(view: Mapping[str, JSON], seat: int | None) -> list[Zone]:
    """The wild being auctioned (the high bid, who holds it and who is still to bid) or the
    card being paid for, from the snapshot (``seat`` None) or from a seat's observation."""
    if seat is None:
        wild = view.get("wild")
        auction = (
            {
                "wild": wild,
                "high_bid": view.get("high_bid"),
                "high_bidder": view.get("high_bidder"),
                "to_bid": view.get("bidders") or [],
            }
            if wild is not None
            else None
        )
        payment = (
            {"payer": view["payer"], "owed": view.get("owed"), "card": view.get("purchase")}
            if view.get("payer") is not None
            else None
        )
    else:
        auction = view.get("auction")
        payment = view.get("payment")
    if isinstance(auction, dict) and auction.get("wild") is not None:
        high, bidder = auction.get("high_bid") or 0, auction.get("high_bidder")
        bid = f"high bid {high} by seat {bidder}" if bidder is not None else "no bid yet"
        waiting = ", ".join(str(s) for s in auction.get("to_bid") or [])
        note = f"{bid}; to bid: {'seats ' + waiting if waiting else 'nobody'}"
        return [zone("Wild up for auction", [ten_card(str(auction["wild"]))], note=note)]
    if isinstance(payment, dict) and payment.get("card") is not None:
        note = f"seat {payment.get('payer')} owes {payment.get('owed')}"
        return [zone("Being paid for", [ten_card(str(payment["card"]))], note=note)]
    # Always one zone, so the table's zones keep their number from step to step and a frame
    # stores only what changed (a zone list of another length is stored whole).
    return [zone("Auction", [], note="none now")]


def ten_words(code: str) -> str:
    """A Ten card in words: ``R5`` is "red 5", ``R*`` "red wild", ``#`` "the full wild"."""
    text, _, caption = ten_face(code)
    if code.startswith("$"):
        return f"currency {text}"
    if code == "#":
        return "the full wild"
    if code.startswith("*"):
        return f"wild {text} (any colour)"
    return caption if code.endswith("*") else f"{caption} {text}"


def ten_action(view: Mapping[str, JSON], action: JSON) -> str:
    """A Ten action in words, with what it is about from the acting seat's observation."""
    plain = {
        "draw": "draws a card",
        "take_numbers": "stops and takes the number cards",
        "take_currency": "stops and takes the currency",
        "pass": "passes",
        "token": "pays a currency token",
        "bust": "pays a bust token",
        "none": "buys nothing",
    }
    if isinstance(action, str) and action in plain:
        return plain[action]
    if isinstance(action, dict) and len(action) == 1:
        ((key, value),) = action.items()
        if key == "bid":
            auction = view.get("auction")
            wild = auction.get("wild") if isinstance(auction, dict) else None
            what = f" for {ten_words(str(wild))}" if wild is not None else ""
            return f"bids {value}{what}"
        if key == "card":
            return f"pays with {ten_words(str(value))}"
        if key == "buy":
            return f"buys {ten_words(str(value))}"
    return orjson.dumps(action, option=orjson.OPT_SORT_KEYS).decode()


def ten_zones(tableau: list[str], market: list[str], discard: list[str]) -> list[Zone]:
    zones = [
        zone("Tableau", [ten_card(c) for c in tableau]),
        zone("Market", [ten_card(c) for c in sorted(market)]),
    ]
    if discard:
        zones.append(zone("Discard", [ten_card(c) for c in sorted(discard)]))
    return zones


def ten_panel(s: int, currency: JSON, busts: JSON, collected: list[str], turn: bool) -> Zone:
    seat_facts = [
        fact("Points", score_cards(collected)),
        fact("Currency tokens", currency),
        fact("Bust tokens", busts),
    ]
    by_colour: dict[str, list[Card]] = {}
    for code in sorted(collected):
        key = code[0] if code[0] in TEN_COLOURS else "*"
        by_colour.setdefault(key, []).append(ten_card(code))
    lines = [by_colour[k] for k in sorted(by_colour)]
    return seat_panel(
        s, seat_facts, [zone("Collected", *lines, note="" if lines else "none")], turn
    )


# -- Phase 10 ------------------------------------------------------------------------------

P10_COLOURS = {"R": "red", "B": "blue", "G": "green", "Y": "yellow"}


def phase10_card(code: str) -> Card:
    return code


def phase10_faces() -> dict[str, Face]:
    codes = ["W", "S"] + [f"{c}{n}" for c in P10_COLOURS for n in range(1, 13)]
    return {code: phase10_face(code) for code in codes}


def phase10_face(code: str) -> Face:
    if code == "W":
        return ["W", "p10 wild", "wild"]
    if code == "S":
        return ["S", "p10 skip", "skip"]
    return [code[1:], f"p10 c{code[0]}", P10_COLOURS.get(code[0], code[0])]


def phase10_group(group: Mapping[str, JSON]) -> Zone:
    kind = group["kind"]
    if kind == "set":
        what = f"set of {group['n']}s"
    elif kind == "run":
        what = f"run {group['lo']}–{group['hi']}"
    else:
        what = f"{P10_COLOURS.get(str(group.get('c')), group.get('c'))} colour group"
    gid = group.get("id")
    title = f"#{gid} " if gid is not None else ""
    return zone(f"{title}{what}, seat {group['owner']}", [phase10_card(c) for c in group["cards"]])


def phase10_zones(table: list[Any], laying: Mapping[str, Any] | None) -> list[Zone]:
    zones = [phase10_group(g) for g in table]
    if laying:
        groups = [*laying["groups"], *([laying["open"]] if laying.get("open") else [])]
        for g in groups:
            z = phase10_group(g)
            z["title"] = f"laying phase {laying['phase']}: {z['title']}"
            zones.append(z)
    return zones


def phase10_panel(
    s: int, done: list[Any], laid: JSON, points: JSON, hand: list[Card], turn: bool
) -> dict[str, Any]:
    seat_facts = phase10_facts(done, laid, points)
    return seat_panel(s, seat_facts, [zone("Hand", hand, hide=COUNT)], turn=turn)


def phase10_facts(done: list[Any], laid: JSON, points: JSON) -> list[list[str]]:
    return [
        fact("Phases done", ", ".join(str(p) for p in done) or "none"),
        fact("Phase laid this hand", laid or "not yet"),
        fact("Points", points),
    ]


def phase10_table(view: Mapping[str, JSON], seats: int, seat: int | None) -> Table:
    if seat is None:
        discard = view["discard_pile"]
        top = discard[-1] if discard else None
        draw_size = len(view["draw_pile"])
        done = view["done"]
        turn = None if view["over"] else view["turn"]
    else:
        top = view["discard_top"]
        draw_size = view["draw_size"]
        done = view["completed"]
        turn = view["turn"]
    facts = [
        fact("Hand", view["hand_no"]),
        fact("Turn of seat", turn),
        fact("Dealer", view["dealer"]),
    ]
    piles = phase10_piles(draw_size, top)
    # The groups on the table and the seat panels are the same in most of the tables drawn for
    # one step (the snapshot's and every seat's) and from one step to the next: reused (shared,
    # never changed once drawn) while what they are drawn from is equal.
    zones = [
        zone("Draw pile and discard", piles),
        *_reuse(("p10 groups",), (view["table"], view.get("laying")), phase10_zones),
    ]
    panels = []
    for s in range(seats):
        if seat is None:
            hand = view["hands"][s]
        elif s == seat:
            hand = view["hand"]
        else:
            hand = [back(view["hand_sizes"][s])]
        args = (s, done[s], view["laid"][s], view["totals"][s], hand, turn == s)
        panels.append(_reuse(("p10 panel", s, seat is None or s == seat), args, phase10_panel))
    return {"facts": facts, "zones": zones, "seats": panels}


class Phase10Keeper:
    """Phase 10's omniscient table kept from the state's own fields (no snapshot): within a
    hand an action changes the turn, the piles, one seat's hand, the groups on the table or
    being laid, a seat's "laid" fact, and only those parts are compared and patched; a new hand
    or the end of the game draws the whole table again and compares it (:func:`diff`).

    The groups are compared by a count (how many, how many cards in all, and the same of the
    phase being laid): within a hand groups only ever gain cards (a hit adds one, a lay adds
    groups), which tests/site check step by step over random games."""

    def __init__(self, state: State, seats: int) -> None:
        self.seats = seats
        self.hand_no = 0
        self.over = False
        self.dealer = 0
        self.turn: int | None = None
        self.draw_size = 0
        self.top: str | None = None
        self.count: list[int] = []
        self.groups: list[Zone] = []
        self.hands: list[list[str]] = []
        self.done: list[list[int]] = []
        self.laid: list[int | None] = []
        self.totals: list[int] = []
        self._take(cast(Phase10State, state))

    def _take(self, state: Phase10State) -> None:
        """Every part's inputs from ``state``, copied."""
        self.hand_no, self.over, self.dealer = state.hand_no, state.over, state.dealer
        self.turn = None if state.over else state.turn
        discard = state.discard_pile
        self.draw_size = len(state.draw_pile)
        self.top = discard[-1] if discard else None
        self.count = phase10_count(state)
        self.groups = phase10_zones(*phase10_groups_json(state))
        self.hands = [list(h) for h in state.hands]
        self.done = [list(d) for d in state.done]
        self.laid = list(state.laid)
        self.totals = list(state.totals)

    def first(self) -> Table:
        table: Table = orjson.loads(orjson.dumps(self.table()))
        return table

    def table(self) -> Table:
        """The table drawn from the parts kept (as :func:`phase10_table` draws the snapshot)."""
        facts = [fact("Hand", self.hand_no), fact("Turn of seat", self.turn)]
        facts.append(fact("Dealer", self.dealer))
        zones = [zone("Draw pile and discard", phase10_piles(self.draw_size, self.top))]
        zones.extend(self.groups)
        panels = [
            phase10_panel(
                s, self.done[s], self.laid[s], self.totals[s], self.hands[s], self.turn == s
            )
            for s in range(self.seats)
        ]
        return {"facts": facts, "zones": zones, "seats": panels}

    def advance(self, state: State) -> Patch:
        s = cast(Phase10State, state)
        if s.hand_no != self.hand_no or s.over != self.over or s.dealer != self.dealer:
            before = self.table()
            self._take(s)
            return diff(before, self.table())
        out: Patch = []
        self._turn(s.turn, out)
        self._piles(s, out)
        self._groups(s, out)
        self._hands(s.hands, out)
        self._facts(s, out)
        return out

    def _turn(self, turn: int, out: Patch) -> None:
        """The fact naming the seat to move, and the two seats' turn flags."""
        last = self.turn
        if turn != last:
            out.append([TURN_FACT, str(turn)])
            if last is not None:
                out.append([TURN_FLAGS[last], False])
            out.append([TURN_FLAGS[turn], True])
            self.turn = turn

    def _piles(self, s: Phase10State, out: Patch) -> None:
        """The draw pile's size and the discard pile's top, each where it changed."""
        draw_size = len(s.draw_pile)
        discard = s.discard_pile
        top = discard[-1] if discard else None
        if top != self.top:
            if top is None or self.top is None:
                out.append([PILES, phase10_piles(draw_size, top)])
                self.draw_size = draw_size
            else:
                out.append([PILES_TOP, phase10_card(top)])
            self.top = top
        if draw_size != self.draw_size:
            out.append([PILES_DRAW, back(draw_size)])
            self.draw_size = draw_size

    def _groups(self, s: Phase10State, out: Patch) -> None:
        """The groups on the table and being laid, drawn again when their count changed."""
        count = phase10_count(s)
        if count != self.count:
            groups = phase10_zones(*phase10_groups_json(s))
            pile = zone("Draw pile and discard", phase10_piles(self.draw_size, self.top))
            diff([pile, *self.groups], [pile, *groups], ["zones"], out)
            self.groups, self.count = groups, count

    def _hands(self, hands: list[list[str]], out: Patch) -> None:
        """Each hand that changed, as a splice of its line."""
        kept = self.hands
        for seat in range(len(hands)):
            hand = hands[seat]
            if hand != kept[seat]:
                out.append(splice(kept[seat], hand, HANDS[seat]))
                kept[seat] = list(hand)

    def _facts(self, s: Phase10State, out: Patch) -> None:
        """The seats' facts (phases done, phase laid, points), each where it changed."""
        if s.laid == self.laid and s.done == self.done and s.totals == self.totals:
            return
        for seat in range(self.seats):
            old = phase10_facts(self.done[seat], self.laid[seat], self.totals[seat])
            new = phase10_facts(s.done[seat], s.laid[seat], s.totals[seat])
            for i in range(len(new)):
                if old[i] != new[i]:
                    out.append([("seats", seat, "facts", i, 1), new[i][1]])
        self.done = [list(d) for d in s.done]
        self.laid = list(s.laid)
        self.totals = list(s.totals)


def phase10_glance(state: State, seat: int) -> dict[str, JSON]:
    """What a take's words read of the seat's observation: the discard pile's top card."""
    discard = cast(Phase10State, state).discard_pile
    return {"discard_top": discard[-1] if discard else None}


def phase10_piles(draw_size: int, top: str | None) -> list[Card]:
    """The draw pile (face down, its size) and the discard pile's top card."""
    return [back(draw_size)] if top is None else [back(draw_size), phase10_card(top)]


MOST_SEATS = 64
"""Seats the keepers' paths are made for ahead (Phase 10 seats six at most)."""
TURN_FACT = ("facts", 1, 1)
TURN_FLAGS = [("seats", s, "turn") for s in range(MOST_SEATS)]
HANDS = [("seats", s, "zones", 0, "lines", 0) for s in range(MOST_SEATS)]
PILES = ("zones", 0, "lines", 0)
PILES_DRAW, PILES_TOP = (*PILES, 0), (*PILES, 1)


def phase10_count(state: Phase10State) -> list[int]:
    """How many groups and cards are on the table and in the phase being laid."""
    cards = 0
    for g in state.table:
        cards += len(g.cards)
    out = [len(state.table), cards]
    laying = state.laying
    if laying is not None:
        cards = 0
        for g in laying.groups:
            cards += len(g.cards)
        out.extend((laying.phase, len(laying.groups), cards))
        out.append(-1 if laying.open is None else len(laying.open.cards))
    return out


def phase10_groups_json(state: Phase10State) -> tuple[list[Any], Mapping[str, Any] | None]:
    """The groups on the table and the phase being laid, as the snapshot has them."""
    table = [g.to_json(i) for i, g in enumerate(state.table)]
    return table, None if state.laying is None else state.laying.to_json()


# -- any other game ------------------------------------------------------------------------


def plain_table(view: Mapping[str, JSON], seats: int, seat: int | None) -> Table:
    """A game without a drawing function: its view as facts, one per top-level key."""
    import json

    facts = [[str(k), json.dumps(v, sort_keys=True)[:300]] for k, v in sorted(view.items())]
    return {"facts": facts, "zones": [], "seats": []}


DRAWINGS: dict[str, Drawing] = {
    "take5": Drawing(take5_table, take5_faces, masked_views=True),
    "ten": Drawing(ten_table, ten_faces, ten_action, masked_views=True),
    "phase10": Drawing(
        phase10_table,
        phase10_faces,
        masked_views=True,
        keeper=Phase10Keeper,
        glance=phase10_glance,
    ),
}


def drawing(game: str) -> Drawing:
    return DRAWINGS.get(game, Drawing(plain_table, dict))
