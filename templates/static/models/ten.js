// Ten for the replay viewer: the rules of arena/games/ten.py replayed in the browser (no legality
// checking beyond what a record that does not replay needs: the record was played by the arena's
// rules and audited), with the event texts of TenState.describe, the move words of
// arena.site.tables.ten_action and the omniscient table of arena.site.tables.ten_table.
// It mirrors the Python, names and rulings included; tests/site/test_models.py checks it step by
// step against the Python viewer.
(function () {
  "use strict";
  var models = (window.arenaModels = window.arenaModels || {});

  var COLOURS = ["R", "B", "O", "G"];
  var COLOUR_NAMES = { R: "red", B: "blue", O: "orange", G: "green" };
  var NUMBERS = [1, 2, 3, 4, 5, 6, 7, 8, 9];
  // Number cards per colour: three each of 1..6, one each of 7, 8, 9.
  var NUMBER_COPIES = { 1: 3, 2: 3, 3: 3, 4: 3, 5: 3, 6: 3, 7: 1, 8: 1, 9: 1 };
  var COLOUR_WILDS_PER_COLOUR = 2;
  var FULL_WILD = "#";
  var BUST_LIMIT = 11; // a bust: numbers minus currency reach this, or currency alone reaches it
  var BUST_TOKEN_VALUE = 3;
  // The provisional data of ten.py (RULES.md): the currency cards and the player-count marks.
  var CURRENCY_COUNTS = { 1: 6, 2: 6, 3: 5, 4: 5, 5: 5 };
  var MARK_FOUR_PLUS_NUMBERS = [1, 2, 3];
  var MARK_FOUR_PLUS_CURRENCY = { 1: 2, 2: 2, 3: 2, 4: 1, 5: 1 };
  var MARK_THREE_NUMBERS = [4, 5, 6];
  var MARK_THREE_CURRENCY = { 1: 2, 2: 1, 3: 1, 4: 2, 5: 2 };
  var MAX_FILLS = COLOUR_WILDS_PER_COLOUR + 1;

  var NUMBER = "number",
    COLOUR_WILD = "colour_wild",
    NUMBER_WILD = "number_wild",
    FULL = "full_wild",
    CURRENCY = "currency";
  var DRAW = "draw",
    BID = "bid",
    PAY = "pay",
    BUY = "buy";

  // The options of SPEC: name -> [default, minimum].
  var OPTIONS = { start_tokens: [5, 0], token_cap: [10, 0] };

  function keysOf(table) {
    return Object.keys(table).map(Number);
  }

  // -- the cards --------------------------------------------------------------------------

  function card(code, kind, colour, number, value) {
    return { code: code, kind: kind, colour: colour, number: number, value: value };
  }

  // Every card code of the game and its meaning (card_table).
  function cardTable() {
    var table = Object.create(null);
    COLOURS.forEach(function (colour) {
      NUMBERS.forEach(function (number) {
        table[colour + number] = card(colour + number, NUMBER, colour, number, 0);
      });
      table[colour + "*"] = card(colour + "*", COLOUR_WILD, colour, 0, 0);
    });
    NUMBERS.forEach(function (number) {
      table["*" + number] = card("*" + number, NUMBER_WILD, null, number, 0);
    });
    table[FULL_WILD] = card(FULL_WILD, FULL, null, 0, 0);
    keysOf(CURRENCY_COUNTS).forEach(function (value) {
      table["$" + value] = card("$" + value, CURRENCY, null, 0, value);
    });
    return table;
  }

  var CARDS = cardTable();

  function cardOf(code) {
    var c = typeof code === "string" ? CARDS[code] : undefined;
    if (c === undefined) throw new Error("no card of Ten is called " + JSON.stringify(code));
    return c;
  }

  function isWild(c) {
    return c.kind === COLOUR_WILD || c.kind === NUMBER_WILD || c.kind === FULL;
  }

  function repeat(code, copies) {
    var out = [];
    for (var i = 0; i < copies; i++) out.push(code);
    return out;
  }

  // The 129 cards, in a fixed order (full_deck).
  function fullDeck() {
    var deck = [];
    COLOURS.forEach(function (colour) {
      keysOf(NUMBER_COPIES).forEach(function (number) {
        deck = deck.concat(repeat(colour + number, NUMBER_COPIES[number]));
      });
      deck = deck.concat(repeat(colour + "*", COLOUR_WILDS_PER_COLOUR));
    });
    NUMBERS.forEach(function (number) {
      deck.push("*" + number);
    });
    deck.push(FULL_WILD);
    keysOf(CURRENCY_COUNTS).forEach(function (value) {
      deck = deck.concat(repeat("$" + value, CURRENCY_COUNTS[value]));
    });
    return deck;
  }

  // The cards carrying one player-count mark: one per colour of each number, and currency.
  function markedCards(numbers, currency) {
    var cards = [];
    COLOURS.forEach(function (colour) {
      numbers.forEach(function (number) {
        cards.push(colour + number);
      });
    });
    keysOf(currency).forEach(function (value) {
      cards = cards.concat(repeat("$" + value, currency[value]));
    });
    return cards;
  }

  // The cards in play: all 129 for 4-5 seats; without "4+" for 3 (109); without "3" too for
  // 1-2 (89).
  function deckFor(seats) {
    var removed = [];
    if (seats <= 3) removed = removed.concat(markedCards(MARK_FOUR_PLUS_NUMBERS, MARK_FOUR_PLUS_CURRENCY));
    if (seats <= 2) removed = removed.concat(markedCards(MARK_THREE_NUMBERS, MARK_THREE_CURRENCY));
    var toRemove = Object.create(null);
    removed.forEach(function (code) {
      toRemove[code] = (toRemove[code] || 0) + 1;
    });
    var deck = [];
    fullDeck().forEach(function (code) {
      if (toRemove[code]) toRemove[code] -= 1;
      else deck.push(code);
    });
    return deck;
  }

  // -- scoring ----------------------------------------------------------------------------

  // Points of one colour for each number of free wilds from 0 to MAX_FILLS (run_scores):
  // the longest run of consecutive numbers, the wilds standing for missing numbers; a run of
  // all nine scores 10.
  function runScores(filled) {
    var longest = [];
    for (var g = 0; g <= MAX_FILLS; g++) longest.push(0); // by the number of gaps in the run
    for (var start = 0; start < 9; start++) {
      var gaps = 0;
      for (var stop = start; stop < 9; stop++) {
        if (!((filled >> stop) & 1)) {
          gaps += 1;
          if (gaps > MAX_FILLS) break;
        }
        longest[gaps] = Math.max(longest[gaps], stop - start + 1);
      }
    }
    var scores = [];
    var best = 0;
    longest.forEach(function (length) {
      best = Math.max(best, length);
      scores.push(best === 9 ? best + 1 : best);
    });
    return scores;
  }

  var RUN_SCORES = [];
  for (var mask = 0; mask < 512; mask++) RUN_SCORES.push(runScores(mask));

  function bitLength(n) {
    return 32 - Math.clz32(n);
  }

  // A seat's points under the best assignment of its wilds (score_cards): the numbered wilds
  // are split among the colours by a dynamic programme over subsets (exact; at most 9 of them).
  function scoreCards(cards) {
    var masks = { R: 0, B: 0, O: 0, G: 0 };
    var colourWilds = { R: 0, B: 0, O: 0, G: 0 };
    var numbered = [];
    var full = 0;
    cards.forEach(function (code) {
      var c = cardOf(code);
      if (c.kind === NUMBER) masks[c.colour] |= 1 << (c.number - 1);
      else if (c.kind === COLOUR_WILD) colourWilds[c.colour] += 1;
      else if (c.kind === NUMBER_WILD) numbered.push(c.number);
      else if (c.kind === FULL) full += 1;
    });
    if (!numbered.length && !full) {
      var sum = 0;
      COLOURS.forEach(function (c) {
        sum += RUN_SCORES[masks[c]][Math.min(colourWilds[c], MAX_FILLS)];
      });
      return sum;
    }
    var count = numbered.length;
    var subsetBits = new Array(1 << count).fill(0);
    for (var subset = 1; subset < 1 << count; subset++) {
      var low = subset & -subset;
      subsetBits[subset] = subsetBits[subset ^ low] | (1 << (numbered[bitLength(low) - 1] - 1));
    }
    var everything = (1 << count) - 1;
    // (used, full_used) as used * 2 + full_used -> points
    var best = new Map([[0, 0]]);
    var extraChoices = full ? [0, 1] : [0];
    COLOURS.forEach(function (colour) {
      var mask = masks[colour],
        wilds = colourWilds[colour];
      var following = new Map();
      best.forEach(function (points, key) {
        var used = key >> 1,
          fullUsed = key & 1;
        var free = everything & ~used;
        var sub = free;
        for (;;) {
          var filled = mask | subsetBits[sub];
          for (var i = 0; i < extraChoices.length; i++) {
            var extra = extraChoices[i];
            if (extra && fullUsed) continue;
            var next = ((used | sub) << 1) | fullUsed | extra;
            var total = points + RUN_SCORES[filled][Math.min(wilds + extra, MAX_FILLS)];
            var had = following.get(next);
            if (total > (had === undefined ? -1 : had)) following.set(next, total);
          }
          if (sub === 0) break;
          sub = (sub - 1) & free;
        }
      });
      best = following;
    });
    var top = -Infinity;
    best.forEach(function (points) {
      top = Math.max(top, points);
    });
    return top;
  }

  // Places from sort keys where a smaller key is better; equal keys share a place.
  function competitionRanks(keys) {
    function less(a, b) {
      for (var i = 0; i < a.length; i++) {
        if (a[i] !== b[i]) return a[i] < b[i];
      }
      return false;
    }
    return keys.map(function (key) {
      return 1 + keys.filter(function (other) {
        return less(other, key);
      }).length;
    });
  }

  // Most points; then more currency tokens; then fewer collected cards; then a shared place.
  function rankSeats(points, currency, collected) {
    return competitionRanks(
      points.map(function (p, s) {
        return [-p, -currency[s], collected[s]];
      })
    );
  }

  // -- the event texts (TenState.describe) ------------------------------------------------

  function cardName(code) {
    var c = cardOf(code);
    if (c.kind === NUMBER) return COLOUR_NAMES[c.colour] + " " + c.number;
    if (c.kind === COLOUR_WILD) return "the " + COLOUR_NAMES[c.colour] + " wild";
    if (c.kind === NUMBER_WILD) return "the wild " + c.number;
    if (c.kind === FULL) return "the # wild";
    return "currency " + c.value;
  }

  function cardsText(codes) {
    return codes.length ? codes.join(" ") : "nothing";
  }

  // A list of ints as Python's str() writes it.
  function listText(values) {
    return "[" + values.join(", ") + "]";
  }

  function describe(event) {
    var kind = event.type;
    var seat = "seat " + (event.seat === undefined || event.seat === null ? "None" : event.seat);
    switch (kind) {
      case "setup":
        return (
          "Ten for " + event.seats + " seats: " + event.cards + " cards, " +
          event.currency[0] + " currency tokens each"
        );
      case "turn":
        return "Turn " + event.turn + ": " + seat;
      case "draw":
        return seat + " draws " + cardName(event.card) + " (" + event.left + " left)";
      case "bust":
        return (
          seat + " busts on " + event.kind + " and takes a bust token; to the market: " +
          cardsText(event.to_market) + "; gains " + listText(event.gains)
        );
      case "take_numbers":
        return (
          seat + " takes the numbers " + cardsText(event.cards) + "; the others gain " +
          listText(event.gains)
        );
      case "take_currency":
        return (
          seat + " takes the currency (" + event.gains[event.seat] + " tokens); to the market: " +
          cardsText(event.to_market)
        );
      case "auction":
        return "Auction of " + cardName(event.wild);
      case "bid":
        return "  " + seat + " bids " + event.bid;
      case "pass":
        return "  " + seat + " passes" + (event.auto ? " (cannot outbid)" : "");
      case "auction_won":
        return seat + " wins " + cardName(event.wild) + " for " + event.price;
      case "auction_void":
        return "Everyone passes: " + cardName(event.wild) + " is discarded";
      case "pay": {
        var what =
          event.unit === "token" ? "a currency token"
          : event.unit === "bust" ? "a bust token"
          : "the card " + event.card;
        return "  " + seat + " pays with " + what + " (" + event.owed + " still owed)";
      }
      case "paid":
        return seat + " takes " + cardName(event.card);
      case "buy":
        return seat + " buys " + cardName(event.card) + " for " + event.price;
      case "no_buy":
        return seat + " buys nothing" + (event.auto ? " (nothing it may buy)" : "");
      case "final_buys":
        return (
          "The draw pile is empty: one more buy phase for every seat, from the left of seat " +
          event.last + " round to it"
        );
      case "game_end":
        return "Game over: points " + listText(event.scores) + ", places " + listText(event.ranks);
    }
    throw new Error("Ten has no event " + kind);
  }

  // Every event of Ten is public (audience -1).
  function emit(state, event) {
    state.out.push([-1, describe(event)]);
  }

  // -- what a seat can pay ----------------------------------------------------------------

  // The most `seat` can pay: tokens, bust tokens at 3 each, collected cards at 1 each.
  function canPay(state, seat) {
    return state.currency[seat] + BUST_TOKEN_VALUE * state.busts[seat] + state.collected[seat].length;
  }

  function distinctSorted(codes) {
    return Array.from(new Set(codes)).sort();
  }

  function payUnits(state, seat) {
    var units = [];
    if (state.currency[seat]) units.push("token");
    if (state.busts[seat]) units.push("bust");
    distinctSorted(state.collected[seat]).forEach(function (code) {
      units.push({ card: code });
    });
    return units;
  }

  // Market cards `seat` may buy: affordable, and no number card of that code held.
  function buyable(state, seat) {
    var held = new Set(state.collected[seat]);
    var funds = canPay(state, seat);
    return distinctSorted(state.market).filter(function (code) {
      return !held.has(code) && CARDS[code].number <= funds;
    });
  }

  // Give `seat` up to `amount` currency tokens, never above the cap; the number taken.
  function gain(state, seat, amount) {
    var taken = Math.max(0, Math.min(amount, state.cap - state.currency[seat]));
    state.currency[seat] += taken;
    return taken;
  }

  function zeros(n) {
    return new Array(n).fill(0);
  }

  function gainsToOthers(state, amount) {
    var gains = zeros(state.seats);
    for (var seat = 0; seat < state.seats; seat++) {
      if (seat !== state.active) gains[seat] = gain(state, seat, amount);
    }
    return gains;
  }

  // -- a turn -----------------------------------------------------------------------------

  function startTurn(state, seat) {
    state.active = seat;
    state.turn += 1;
    emit(state, { type: "turn", seat: seat, turn: state.turn });
    draw(state);
  }

  function draw(state) {
    var code = state.draw_pile.pop();
    emit(state, { type: "draw", seat: state.active, card: code, left: state.draw_pile.length });
    if (isWild(CARDS[code])) {
      openAuction(state, code);
      return;
    }
    state.tableau.push(code);
    var sums = tableauSums(state);
    if (sums[1] >= BUST_LIMIT) bust(state, "currency");
    else if (sums[0] - sums[1] >= BUST_LIMIT) bust(state, "number");
    else state.decision = DRAW;
  }

  // [sum of number cards, sum of currency cards] in the tableau.
  function tableauSums(state) {
    var numbers = 0,
      currency = 0;
    state.tableau.forEach(function (code) {
      numbers += CARDS[code].number;
      currency += CARDS[code].value;
    });
    return [numbers, currency];
  }

  function splitTableau(state) {
    var numbers = state.tableau.filter(function (c) {
      return CARDS[c].kind === NUMBER;
    });
    var currency = state.tableau.filter(function (c) {
      return CARDS[c].kind === CURRENCY;
    });
    state.tableau = [];
    state.discard = state.discard.concat(currency);
    var total = 0;
    currency.forEach(function (c) {
      total += CARDS[c].value;
    });
    return [numbers, currency, total];
  }

  function bust(state, kind) {
    var split = splitTableau(state);
    state.busts[state.active] += 1;
    state.market = state.market.concat(split[0]);
    var gains = kind === "number" ? gainsToOthers(state, split[2]) : zeros(state.seats);
    emit(state, {
      type: "bust", seat: state.active, kind: kind, to_market: split[0], discarded: split[1],
      gains: gains,
    });
    endTurn(state);
  }

  function takeNumbers(state) {
    var split = splitTableau(state);
    state.collected[state.active] = state.collected[state.active].concat(split[0]);
    var gains = gainsToOthers(state, split[2]);
    emit(state, {
      type: "take_numbers", seat: state.active, cards: split[0], discarded: split[1], gains: gains,
    });
    openBuy(state, state.active);
  }

  function takeCurrency(state) {
    var split = splitTableau(state);
    var gains = zeros(state.seats);
    gains[state.active] = gain(state, state.active, split[2]);
    state.market = state.market.concat(split[0]);
    emit(state, {
      type: "take_currency", seat: state.active, to_market: split[0], discarded: split[1],
      gains: gains,
    });
    endTurn(state);
  }

  function endTurn(state) {
    state.decision = null;
    if (state.draw_pile.length) {
      startTurn(state, (state.active + 1) % state.seats);
      return;
    }
    state.final_buyers = [];
    for (var k = 0; k < state.seats; k++) state.final_buyers.push((state.active + 1 + k) % state.seats);
    emit(state, { type: "final_buys", last: state.active });
    nextFinalBuy(state);
  }

  function nextFinalBuy(state) {
    if (state.final_buyers.length) openBuy(state, state.final_buyers.shift());
    else finish(state);
  }

  // -- buy phases -------------------------------------------------------------------------

  function openBuy(state, seat) {
    state.buyer = seat;
    if (buyable(state, seat).length) {
      state.decision = BUY;
      return;
    }
    emit(state, { type: "no_buy", seat: seat, auto: true });
    closeBuy(state);
  }

  function closeBuy(state) {
    state.buyer = null;
    state.decision = null;
    if (state.final_buyers !== null) nextFinalBuy(state);
    else endTurn(state);
  }

  // -- auctions ---------------------------------------------------------------------------

  function openAuction(state, wild) {
    state.wild = wild;
    state.bidders = [];
    for (var k = 0; k < state.seats; k++) state.bidders.push((state.active + 1 + k) % state.seats);
    state.high_bid = 0;
    state.high_bidder = null;
    emit(state, { type: "auction", seat: state.active, wild: wild });
    nextBidder(state);
  }

  function nextBidder(state) {
    while (state.bidders.length) {
      var seat = state.bidders[0];
      if (canPay(state, seat) > state.high_bid) {
        state.decision = BID;
        return;
      }
      state.bidders.shift();
      emit(state, { type: "pass", seat: seat, auto: true });
    }
    closeAuction(state);
  }

  function closeAuction(state) {
    var wild = state.wild;
    if (state.high_bidder === null) {
      state.discard.push(wild);
      state.wild = null;
      emit(state, { type: "auction_void", wild: wild });
      resumeDraw(state);
      return;
    }
    emit(state, { type: "auction_won", seat: state.high_bidder, wild: wild, price: state.high_bid });
    state.wild = null;
    openPayment(state, state.high_bidder, state.high_bid, wild);
  }

  // After an auction the active seat goes on: it may draw again (if cards are left) or stop
  // with the tableau as it stands.
  function resumeDraw(state) {
    state.decision = DRAW;
  }

  // -- payments ---------------------------------------------------------------------------

  function openPayment(state, payer, price, code) {
    state.payer = payer;
    state.owed = price;
    state.purchase = code;
    state.decision = PAY;
    payForced(state);
  }

  // Pay the units the payer has no choice about, then close the payment when covered.
  function payForced(state) {
    while (state.owed > 0) {
      var units = payUnits(state, state.payer);
      if (units.length !== 1) return;
      payUnit(state, units[0], true);
    }
    closePayment(state);
  }

  function payUnit(state, unit, auto) {
    var seat = state.payer;
    var event = { type: "pay", seat: seat, auto: auto };
    var value;
    if (unit === "token") {
      state.currency[seat] -= 1;
      value = 1;
      event.unit = "token";
    } else if (unit === "bust") {
      state.busts[seat] -= 1;
      value = BUST_TOKEN_VALUE;
      event.unit = "bust";
    } else {
      var code = unit.card;
      var held = state.collected[seat];
      held.splice(held.indexOf(code), 1);
      state.discard.push(code);
      value = 1;
      event.unit = "card";
      event.card = code;
    }
    state.owed = Math.max(0, state.owed - value);
    event.owed = state.owed;
    emit(state, event);
  }

  function closePayment(state) {
    var payer = state.payer,
      code = state.purchase;
    state.collected[payer].push(code);
    state.payer = null;
    state.purchase = null;
    state.owed = 0;
    emit(state, { type: "paid", seat: payer, card: code });
    if (isWild(CARDS[code])) resumeDraw(state);
    else closeBuy(state);
  }

  // -- the end ----------------------------------------------------------------------------

  function points(state) {
    return state.collected.map(scoreCards);
  }

  function finish(state) {
    state.over = true;
    state.decision = null;
    var scores = points(state);
    var held = state.collected.map(function (cards) {
      return cards.length;
    });
    var ranks = rankSeats(scores, state.currency, held);
    emit(state, { type: "game_end", scores: scores, ranks: ranks });
  }

  // -- the interface ----------------------------------------------------------------------

  function decidingSeat(state) {
    if (state.over || state.decision === null) return null;
    if (state.decision === DRAW) return state.active;
    if (state.decision === BID) return state.bidders[0];
    if (state.decision === PAY) return state.payer;
    return state.buyer;
  }

  // A string, or a one-key object whose value is a whole number or a string (well_formed).
  function wellFormed(action) {
    if (typeof action === "string") return true;
    if (action === null || typeof action !== "object" || Array.isArray(action)) return false;
    var keys = Object.keys(action);
    if (keys.length !== 1) return false;
    var value = action[keys[0]];
    return Number.isInteger(value) || typeof value === "string";
  }

  function only(action, key) {
    return typeof action === "object" && Object.keys(action).length === 1 && key in action;
  }

  // Whether `action` is in legal(seat) (without building the list).
  function isLegal(state, seat, action) {
    if (!wellFormed(action)) return false;
    var decision = state.decision;
    if (decision === DRAW) {
      if (action === "draw") return state.draw_pile.length > 0;
      return action === "take_numbers" || action === "take_currency";
    }
    if (decision === BID) {
      if (action === "pass") return true;
      return only(action, "bid") && Number.isInteger(action.bid) &&
        action.bid > state.high_bid && action.bid <= canPay(state, seat);
    }
    if (decision === PAY) {
      if (action === "token") return state.currency[seat] > 0;
      if (action === "bust") return state.busts[seat] > 0;
      return only(action, "card") && state.collected[seat].indexOf(action.card) >= 0;
    }
    if (action === "none") return true;
    return only(action, "buy") && buyable(state, seat).indexOf(action.buy) >= 0;
  }

  // A JSON value as Python's repr() writes it (for the messages of the Python rules).
  function pyRepr(value) {
    if (value === null || value === undefined) return "None";
    if (typeof value === "boolean") return value ? "True" : "False";
    if (typeof value === "string") {
      var quote = value.indexOf("'") >= 0 && value.indexOf('"') < 0 ? '"' : "'";
      var body = value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r")
        .replace(/\t/g, "\\t");
      if (quote === "'") body = body.replace(/'/g, "\\'");
      return quote + body + quote;
    }
    if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
    if (typeof value === "object") {
      return "{" + Object.keys(value).map(function (key) {
        return pyRepr(key) + ": " + pyRepr(value[key]);
      }).join(", ") + "}";
    }
    return String(value);
  }

  // The short description of the position for error messages (TenState.position).
  function position(state) {
    return (
      "turn " + state.turn + " of seat " + state.active + ", " + (state.decision || "no decision") +
      ", tableau [" + state.tableau.join(" ") + "], " + state.draw_pile.length + " cards to draw"
    );
  }

  // An IllegalActionError's message.
  function illegal(state, seat, action, reason) {
    return new Error(
      "illegal action " + pyRepr(action) + " for seat " + seat + " in ten: " + reason +
      " (position: " + position(state) + ")"
    );
  }

  function apply(state, seat, action) {
    state.out = [];
    if (state.over) throw illegal(state, seat, action, "the game is over");
    var deciding = decidingSeat(state);
    if (seat !== deciding) {
      throw illegal(state, seat, action, "seat " + deciding + " is to decide, not seat " + seat);
    }
    if (!isLegal(state, seat, action)) {
      throw illegal(state, seat, action, "not one of the legal actions for " + state.decision);
    }
    if (state.decision === DRAW) {
      if (action === "draw") draw(state);
      else if (action === "take_numbers") takeNumbers(state);
      else takeCurrency(state);
    } else if (state.decision === BID) {
      state.bidders.shift();
      if (action === "pass") {
        emit(state, { type: "pass", seat: seat, auto: false });
      } else {
        state.high_bid = action.bid;
        state.high_bidder = seat;
        emit(state, { type: "bid", seat: seat, bid: state.high_bid });
      }
      nextBidder(state);
    } else if (state.decision === PAY) {
      payUnit(state, action, false);
      payForced(state);
    } else if (action === "none") {
      emit(state, { type: "no_buy", seat: seat, auto: false });
      closeBuy(state);
    } else {
      var code = action.buy;
      state.market.splice(state.market.indexOf(code), 1);
      emit(state, { type: "buy", seat: seat, card: code, price: CARDS[code].number });
      openPayment(state, seat, CARDS[code].number, code);
    }
    var out = state.out;
    state.out = [];
    return out;
  }

  // -- options and the start ----------------------------------------------------------------

  // One option's value checked as OptionSpec.validate does (a string is read as a number),
  // with its messages.
  function optionValue(name, value) {
    var minimum = OPTIONS[name][1];
    var shown = pyRepr(name);
    if (typeof value === "string") {
      var text = value.trim().toLowerCase();
      if (!/^[+-]?\d+(_\d+)*$/.test(text)) {
        throw new Error("option " + shown + " must be a whole number, not " + pyRepr(value));
      }
      value = Number(text.replace(/_/g, ""));
    }
    if (value === null || value === undefined) throw new Error("option " + shown + " may not be empty");
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw new Error("option " + shown + " must be a whole number, not " + pyRepr(value));
    }
    if (value < minimum) {
      throw new Error("option " + shown + " must be at least " + minimum + ", not " + value);
    }
    return value;
  }

  // All options with defaults filled in, each checked (GameSpec.validate_options).
  function validateOptions(options) {
    var given = options || {};
    if (typeof given !== "object" || Array.isArray(given)) {
      throw new Error("ten options are a table of option names and values, not " + pyRepr(given));
    }
    Object.keys(given).forEach(function (name) {
      if (!Object.prototype.hasOwnProperty.call(OPTIONS, name)) {
        throw new Error(
          "ten has no option " + pyRepr(name) + " (options: " + Object.keys(OPTIONS).join(", ") + ")"
        );
      }
    });
    var out = {};
    Object.keys(OPTIONS).forEach(function (name) {
      out[name] = name in given ? optionValue(name, given[name]) : OPTIONS[name][0];
    });
    return out;
  }

  function start(seed, seats, options) {
    if (!Number.isInteger(seats) || seats < 1 || seats > 5) {
      throw new Error("ten is played by 1 to 5 seats, not " + seats);
    }
    if (!/^\d+$/.test(String(seed))) {
      throw new Error("a seed is a non-negative whole number, not " + seed);
    }
    options = validateOptions(options);
    var state = {
      seed: String(seed),
      seats: seats,
      options: options,
      rng: window.arenaRandom(String(seed)),
      cap: options.token_cap,
      deck: deckFor(seats),
      draw_pile: null, // the face-down pile; the top card is the last element
      tableau: [],
      market: [],
      discard: [],
      collected: [], // the cards each seat holds, face up: number cards and wilds
      currency: [],
      busts: zeros(seats),
      active: 0,
      decision: null,
      turn: 0,
      // the auction of a wild
      wild: null,
      bidders: [], // seats still to bid, the next first
      high_bid: 0,
      high_bidder: null,
      // a payment
      payer: null,
      owed: 0,
      purchase: null, // the card being paid for (a won wild or a bought market card)
      // a buy phase
      buyer: null,
      final_buyers: null, // seats still to have their final buy phase, once the pile is empty
      over: false,
      out: [],
    };
    state.draw_pile = state.deck.slice();
    state.rng.shuffle(state.draw_pile);
    for (var s = 0; s < seats; s++) {
      state.collected.push([]);
      state.currency.push(Math.min(options.start_tokens, state.cap));
    }
    emit(state, {
      type: "setup", seats: seats, cards: state.deck.length, currency: state.currency.slice(),
    });
    startTurn(state, 0);
    var out = state.out;
    state.out = [];
    return [state, out];
  }

  function clone(state) {
    return {
      seed: state.seed,
      seats: state.seats,
      options: Object.assign({}, state.options),
      rng: state.rng.clone(),
      cap: state.cap,
      deck: state.deck, // never changed
      draw_pile: state.draw_pile.slice(),
      tableau: state.tableau.slice(),
      market: state.market.slice(),
      discard: state.discard.slice(),
      collected: state.collected.map(function (cards) {
        return cards.slice();
      }),
      currency: state.currency.slice(),
      busts: state.busts.slice(),
      active: state.active,
      decision: state.decision,
      turn: state.turn,
      wild: state.wild,
      bidders: state.bidders.slice(),
      high_bid: state.high_bid,
      high_bidder: state.high_bidder,
      payer: state.payer,
      owed: state.owed,
      purchase: state.purchase,
      buyer: state.buyer,
      final_buyers: state.final_buyers === null ? null : state.final_buyers.slice(),
      over: state.over,
      out: [],
    };
  }

  // -- the move in words (arena.site.tables.ten_action) --------------------------------------

  var TEN_COLOURS = COLOUR_NAMES;

  function tenFace(code) {
    if (code.startsWith("$")) return [code.slice(1), "ten cur", "currency"];
    if (code === "#") return ["\u2605", "ten wild", "full wild"];
    var colour = code[0],
      number = code.slice(1);
    if (colour === "*") return [number, "ten wild", "any colour"];
    var name = TEN_COLOURS[colour] || colour;
    if (number === "*") return ["\u2605", "ten c" + colour, name + " wild"];
    return [number, "ten c" + colour, name];
  }

  // A Ten card in words: R5 is "red 5", R* "red wild", # "the full wild".
  function tenWords(code) {
    var face = tenFace(code);
    if (code.startsWith("$")) return "currency " + face[0];
    if (code === "#") return "the full wild";
    if (code.startsWith("*")) return "wild " + face[0] + " (any colour)";
    return code.endsWith("*") ? face[2] : face[2] + " " + face[0];
  }

  // JSON as orjson writes it with sorted keys (nested ones too): replay.js's, which every page
  // loads with its model.
  function sortedJson(value) {
    return window.arenaSortedJson(value);
  }

  // A Python value as str() writes it (frames.action_text: for a seat out of range).
  function actionText(action) {
    if (typeof action === "string" || typeof action === "number") return String(action);
    if (typeof action === "boolean") return action ? "True" : "False";
    return sortedJson(action);
  }

  var PLAIN = {
    draw: "draws a card",
    take_numbers: "stops and takes the number cards",
    take_currency: "stops and takes the currency",
    pass: "passes",
    token: "pays a currency token",
    bust: "pays a bust token",
    none: "buys nothing",
  };

  function pyStr(value) {
    if (typeof value === "boolean") return value ? "True" : "False";
    if (value === null) return "None";
    if (typeof value === "object") throw new TypeError("no words for " + JSON.stringify(value));
    return String(value);
  }

  // A Ten action in words, with what it is about from the acting seat's observation (its
  // "auction" is set while the decision is a bid).
  function tenAction(state, action) {
    if (typeof action === "string" && Object.prototype.hasOwnProperty.call(PLAIN, action)) {
      return PLAIN[action];
    }
    if (action !== null && typeof action === "object" && !Array.isArray(action)) {
      var keys = Object.keys(action);
      if (keys.length === 1) {
        var key = keys[0],
          value = action[key];
        if (key === "bid") {
          var wild = state.decision === BID && !state.over ? state.wild : null;
          var what = wild !== null ? " for " + tenWords(wild) : "";
          return "bids " + pyStr(value) + what;
        }
        if (key === "card") return "pays with " + tenWords(pyStr(value));
        if (key === "buy") return "buys " + tenWords(pyStr(value));
      }
    }
    return sortedJson(action);
  }

  // frames.Frames.words: the drawing's words, or the action as text where they fail.
  function words(state, seat, action) {
    if (!(Number.isInteger(seat) && seat >= 0 && seat < state.seats)) return actionText(action);
    try {
      return tenAction(state, action);
    } catch (e) {
      return actionText(action); // a record that does not replay
    }
  }

  // -- the omniscient table (arena.site.tables.ten_table of the snapshot) ---------------------

  function zone(title, lines, note) {
    var out = { title: title, lines: lines.map(function (line) { return line.slice(); }) };
    if (note) out.note = note;
    return out;
  }

  function fact(label, value) {
    if (value === null || value === undefined) value = "\u2013";
    else if (typeof value === "boolean") value = value ? "yes" : "no";
    return [label, String(value)];
  }

  // The wild being auctioned or the card being paid for (ten_deals of a snapshot).
  function tenDeals(state) {
    if (state.wild !== null) {
      var high = state.high_bid || 0,
        bidder = state.high_bidder;
      var bid = bidder !== null ? "high bid " + high + " by seat " + bidder : "no bid yet";
      var waiting = state.bidders.join(", ");
      var note = bid + "; to bid: " + (waiting ? "seats " + waiting : "nobody");
      return [zone("Wild up for auction", [[state.wild]], note)];
    }
    if (state.payer !== null && state.purchase !== null) {
      return [zone("Being paid for", [[state.purchase]], "seat " + state.payer + " owes " + state.owed)];
    }
    // Always one zone, so the table's zones keep their number from step to step.
    return [zone("Auction", [[]], "none now")]; // one empty line, as zone("Auction", [])
  }

  function tenZones(state) {
    var zones = [zone("Tableau", [state.tableau]), zone("Market", [state.market.slice().sort()])];
    if (state.discard.length) zones.push(zone("Discard", [state.discard.slice().sort()]));
    return zones;
  }

  function tenPanel(s, currency, busts, collected, turn) {
    var facts = [
      fact("Points", scoreCards(collected)),
      fact("Currency tokens", currency),
      fact("Bust tokens", busts),
    ];
    var byColour = Object.create(null);
    collected.slice().sort().forEach(function (code) {
      var key = Object.prototype.hasOwnProperty.call(TEN_COLOURS, code[0]) ? code[0] : "*";
      (byColour[key] = byColour[key] || []).push(code);
    });
    var lines = Object.keys(byColour).sort().map(function (k) {
      return byColour[k];
    });
    var zones = [zone("Collected", lines, lines.length ? "" : "none")];
    return { seat: s, facts: facts, zones: zones, turn: turn };
  }

  function table(state, seats) {
    var facts = [
      fact("Turn", state.turn),
      fact("Active seat", state.active),
      fact("Cards to draw", state.draw_pile.length),
    ];
    var zones = tenDeals(state).concat(tenZones(state));
    var panels = [];
    for (var s = 0; s < seats; s++) {
      panels.push(tenPanel(s, state.currency[s], state.busts[s], state.collected[s], state.active === s));
    }
    return { facts: facts, zones: zones, seats: panels };
  }

  models.ten = { start: start, words: words, apply: apply, table: table, clone: clone };
})();
