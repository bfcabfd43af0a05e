// Take 5 (6 nimmt!) for the replay viewer: the rules of arena/games/take5.py replayed in the
// browser (no legality checking beyond what the Python apply refuses), the omniscient table of
// arena/site/tables.py (take5_table of the snapshot), the event texts of Take5State.describe and
// the move words of arena/boards.py (take5_action). It mirrors the Python; the names are its own.
(function () {
  "use strict";
  var models = (window.arenaModels = window.arenaModels || {});

  var DECK_SIZE = 104;
  var HAND_SIZE = 10;
  var ROWS = 4;
  var ROW_LIMIT = 5; // a row holds at most five cards; the sixth takes it

  // The penalty heads of a card: 55 -> 7, multiple of 11 -> 5, of 10 -> 3, of 5 -> 2, else 1.
  function bullHeads(card) {
    if (card === 55) return 7;
    if (card % 11 === 0) return 5;
    if (card % 10 === 0) return 3;
    if (card % 5 === 0) return 2;
    return 1;
  }
  var HEADS = [0];
  for (var c = 1; c <= DECK_SIZE; c++) HEADS.push(bullHeads(c));

  function headsOf(cards) {
    var n = 0;
    for (var i = 0; i < cards.length; i++) n += HEADS[cards[i]];
    return n;
  }

  // -- Python's words for values (str, repr of a list of ints, json.dumps) ---------------------

  function isInt(value) {
    return typeof value === "number" && Number.isInteger(value);
  }

  // isinstance(value, int) in Python: a bool is an int there.
  function isPyInt(value) {
    return isInt(value) || typeof value === "boolean";
  }

  // str() of a JSON number or bool as Python writes it.
  function pyStr(value) {
    if (value === true) return "True";
    if (value === false) return "False";
    return String(value);
  }

  // str() of a list of ints: "[1, 2, 3]".
  function pyList(values) {
    return "[" + values.map(pyStr).join(", ") + "]";
  }

  // json.dumps with its default separators (", " and ": ").
  function pyDumps(value) {
    if (value === null || value === undefined) return "null";
    if (Array.isArray(value)) return "[" + value.map(pyDumps).join(", ") + "]";
    if (typeof value === "object") {
      return (
        "{" +
        Object.keys(value)
          .map(function (k) { return pyDumps(k) + ": " + pyDumps(value[k]); })
          .join(", ") +
        "}"
      );
    }
    if (typeof value === "string") {
      return JSON.stringify(value).replace(/[\u0080-\uffff]/g, function (ch) {
        return "\\u" + ("000" + ch.charCodeAt(0).toString(16)).slice(-4);
      });
    }
    return JSON.stringify(value);
  }

  // repr() of a JSON value as Python writes it (for messages: 'text', None, True, [1, 2]).
  function pyRepr(value) {
    if (value === null || value === undefined) return "None";
    if (typeof value === "boolean" || typeof value === "number") return pyStr(value);
    if (typeof value === "string") {
      var quote = value.indexOf("'") >= 0 && value.indexOf('"') < 0 ? '"' : "'";
      var body = value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t");
      if (quote === "'") body = body.replace(/'/g, "\\'");
      return quote + body + quote;
    }
    if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
    return (
      "{" +
      Object.keys(value)
        .map(function (k) { return pyRepr(k) + ": " + pyRepr(value[k]); })
        .join(", ") +
      "}"
    );
  }

  // -- the options (GameSpec.validate_options of take5's SPEC) ---------------------------------

  var OPTIONS = [
    { name: "end_score", kind: "int", default: 66, minimum: 1, nullable: false },
    { name: "more_than", kind: "bool", default: false, nullable: false },
    { name: "tactics", kind: "bool", default: false, nullable: false },
    { name: "professional", kind: "bool", default: false, nullable: false },
    { name: "max_rounds", kind: "int", default: null, minimum: 1, nullable: true },
  ];

  // OptionSpec._parse: an option given as text (the command line's form).
  function parseOption(spec, text) {
    var low = text.trim().toLowerCase();
    if (spec.nullable && (low === "none" || low === "null" || low === "")) return null;
    if (spec.kind === "bool") {
      if (["true", "yes", "on", "1"].indexOf(low) >= 0) return true;
      if (["false", "no", "off", "0"].indexOf(low) >= 0) return false;
      throw new Error("option '" + spec.name + "' must be true or false, not " + pyRepr(text));
    }
    if (!/^[+-]?\d+$/.test(low.replace(/_/g, ""))) {
      throw new Error("option '" + spec.name + "' must be a whole number, not " + pyRepr(text));
    }
    return parseInt(low.replace(/_/g, ""), 10);
  }

  // OptionSpec.validate.
  function validateOption(spec, value) {
    if (typeof value === "string") value = parseOption(spec, value);
    if (value === null || value === undefined) {
      if (spec.nullable) return null;
      throw new Error("option '" + spec.name + "' may not be empty");
    }
    if (spec.kind === "bool") {
      if (typeof value !== "boolean") {
        throw new Error("option '" + spec.name + "' must be true or false, not " + pyRepr(value));
      }
      return value;
    }
    if (!isInt(value)) {
      throw new Error("option '" + spec.name + "' must be a whole number, not " + pyRepr(value));
    }
    if (value < spec.minimum) {
      throw new Error("option '" + spec.name + "' must be at least " + spec.minimum + ", not " + value);
    }
    return value;
  }

  // All options with defaults filled in, each checked; an unknown one is refused.
  function validateOptions(options) {
    var given = options || {};
    if (typeof given !== "object" || Array.isArray(given)) {
      throw new Error("take5 options are a table of option names and values, not " + pyRepr(given));
    }
    var known = OPTIONS.map(function (o) { return o.name; });
    Object.keys(given).forEach(function (name) {
      if (known.indexOf(name) < 0) {
        throw new Error("take5 has no option " + pyRepr(name) + " (options: " + known.join(", ") + ")");
      }
    });
    var out = {};
    OPTIONS.forEach(function (spec) {
      out[spec.name] = spec.name in given ? validateOption(spec, given[spec.name]) : spec.default;
    });
    return out;
  }

  // -- the rules ------------------------------------------------------------------------------

  // The cards used each round: all 104, or 1..10*n+4 in the tactics variant.
  function cardsInPlay(seats, tactics) {
    var top = tactics ? HAND_SIZE * seats + ROWS : DECK_SIZE;
    var deck = [];
    for (var card = 1; card <= top; card++) deck.push(card);
    return deck;
  }

  // Where card must go: [row index, "right" or "left"], or null if it is too low. A card goes
  // after the highest row end still lower than it; in the professional variant it may also go
  // before a row's first card when it is lower; the smallest difference over both ends decides
  // (the first found on a tie). The Python unrolls the common case; the choice is the same.
  function chooseRow(rows, card, professional) {
    var best = null;
    var bestGap = DECK_SIZE + 1;
    for (var index = 0; index < rows.length; index++) {
      var row = rows[index];
      var last = row[row.length - 1];
      if (last < card && card - last < bestGap) {
        best = [index, "right"];
        bestGap = card - last;
      }
      if (professional) {
        var first = row[0];
        if (card < first && first - card < bestGap) {
          best = [index, "left"];
          bestGap = first - card;
        }
      }
    }
    return best;
  }

  // Lowest total wins; equal totals share the place (competition_ranks).
  function rankTotals(totals) {
    return totals.map(function (key) {
      var place = 1;
      for (var i = 0; i < totals.length; i++) if (totals[i] < key) place++;
      return place;
    });
  }

  function filled(n, make) {
    var out = [];
    for (var i = 0; i < n; i++) out.push(make());
    return out;
  }

  // What a step without events returns (most steps: a card chosen, not yet revealed); shared,
  // so frozen.
  var NO_EVENTS = Object.freeze([]);

  // A log entry: [audience, text], audience -1 for every seat (PUBLIC).
  function record(state, audience, text) {
    if (state.events === NO_EVENTS) state.events = [];
    state.events.push([audience === null ? -1 : audience, text]);
  }

  function newState(seed, seats, options) {
    if (!isInt(seats) || seats < 2 || seats > 10) {
      throw new Error("take5 is played by 2 to 10 seats, not " + pyRepr(seats));
    }
    if (!/^\d+$/.test(String(seed))) {
      throw new Error("a seed is a non-negative whole number, not " + String(seed));
    }
    var opts = validateOptions(options);
    var state = {
      seats: seats,
      rng: window.arenaRandom(String(seed)),
      endScore: opts.end_score,
      moreThan: opts.more_than,
      tactics: opts.tactics,
      professional: opts.professional,
      maxRounds: opts.max_rounds,
      deck: cardsInPlay(seats, opts.tactics),
      round: 0,
      trick: 0,
      hands: filled(seats, function () { return []; }),
      rows: [],
      chosen: filled(seats, function () { return null; }),
      waiting: seats, // how many seats have still to choose a card in this trick
      taken: filled(seats, function () { return []; }), // cards each seat took this round
      totals: filled(seats, function () { return 0; }),
      roundHeads: filled(seats, function () { return 0; }),
      // The revealed cards of the trick still to be placed, highest first (the next to place
      // is the last); a card's seat is its index in revealed.
      queue: [],
      revealed: [],
      rowChooser: null,
      over: false,
      capped: false,
      events: NO_EVENTS, // the events of the step being played
    };
    deal(state);
    return state;
  }

  // -- the round --

  function deal(state) {
    state.round += 1;
    state.trick = 1;
    var n = state.seats;
    // arena.games.base.draw: the same list as rng.sample(deck, k)
    var cards = state.rng.sample(state.deck, n * HAND_SIZE + ROWS);
    for (var seat = 0; seat < n; seat++) {
      state.hands[seat] = cards
        .slice(seat * HAND_SIZE, (seat + 1) * HAND_SIZE)
        .sort(function (a, b) { return a - b; });
    }
    state.rows = cards.slice(n * HAND_SIZE).map(function (card) { return [card]; });
    state.taken = filled(n, function () { return []; });
    state.roundHeads = filled(n, function () { return 0; });
    var starts = state.rows.map(function (r) { return String(r[0]); }).join(", ");
    record(state, null, "Round " + state.round + ": rows start with " + starts);
    for (seat = 0; seat < n; seat++) record(state, seat, "Dealt " + pyList(state.hands[seat]));
  }

  function takeRow(state, seat, index, card, reason) {
    var row = state.rows[index];
    var heads = headsOf(row);
    for (var i = 0; i < row.length; i++) state.taken[seat].push(row[i]);
    state.roundHeads[seat] += heads;
    state.totals[seat] += heads;
    state.rows[index] = [card];
    var why = reason === "sixth" ? "sixth card" : "card too low";
    record(
      state,
      null,
      "seat " + seat + " takes row " + index + " " + pyList(row) +
        " (" + heads + " heads, " + why + "); " + card + " starts it"
    );
  }

  // Place the revealed cards lowest first; stop if a seat must choose a row.
  function resolve(state) {
    var queue = state.queue;
    while (queue.length) {
      var card = queue[queue.length - 1];
      var seat = state.revealed.indexOf(card);
      var where = chooseRow(state.rows, card, state.professional);
      if (where === null) {
        state.rowChooser = seat;
        return;
      }
      var index = where[0];
      var end = where[1];
      queue.pop();
      var row = state.rows[index];
      if (row.length >= ROW_LIMIT) {
        takeRow(state, seat, index, card, "sixth");
        continue;
      }
      if (end === "right") row.push(card);
      else row.unshift(card);
      record(
        state,
        null,
        "seat " + seat + " places " + card + " on row " + index + (end === "left" ? " (left end)" : "")
      );
    }
    endTrick(state);
  }

  function endTrick(state) {
    state.rowChooser = null;
    if (state.trick < HAND_SIZE) {
      state.trick += 1;
      return;
    }
    record(
      state,
      null,
      "Round " + state.round + " over: heads " + pyList(state.roundHeads) +
        ", totals " + pyList(state.totals)
    );
    var reached = state.totals.some(function (t) {
      return state.moreThan ? t > state.endScore : t >= state.endScore;
    });
    if (reached) {
      finish(state);
    } else if (state.maxRounds !== null && state.round >= state.maxRounds) {
      state.capped = true;
      finish(state);
    } else {
      deal(state);
    }
  }

  function finish(state) {
    state.over = true;
    var capped = state.capped ? " (round cap reached)" : "";
    record(
      state,
      null,
      "Game over" + capped + ": totals " + pyList(state.totals) +
        ", places " + pyList(rankTotals(state.totals))
    );
  }

  // The revealed cards still to place in this trick, as [card, seat], lowest first.
  function toPlace(state) {
    var out = [];
    for (var i = state.queue.length - 1; i >= 0; i--) {
      out.push([state.queue[i], state.revealed.indexOf(state.queue[i])]);
    }
    return out;
  }

  // Take5State.position: a short description of the position for error messages.
  function position(state) {
    var rows = state.rows.map(function (r) { return r.join(" "); }).join(" | ");
    return "round " + state.round + " trick " + state.trick + ", rows [" + rows + "]";
  }

  function illegal(state, seat, action, reason) {
    return new Error(
      "illegal action " + pyRepr(action) + " for seat " + pyStr(seat) + " in take5: " + reason +
        " (position: " + position(state) + ")"
    );
  }

  function apply(state, seat, action) {
    state.events = NO_EVENTS;
    if (!isInt(seat)) throw illegal(state, seat, action, "no such seat");
    if (state.rowChooser === null && !state.over) {
      var chosen = state.chosen;
      if (seat >= 0 && seat < state.seats && chosen[seat] === null && isInt(action)) {
        var hand = state.hands[seat];
        var at = hand.indexOf(action);
        if (at >= 0) {
          hand.splice(at, 1);
          chosen[seat] = action;
          state.waiting -= 1;
          if (!state.waiting) reveal(state);
          return state.events;
        }
      }
    }
    applyOther(state, seat, action);
    return state.events;
  }

  function reveal(state) {
    var revealed = state.chosen; // every seat has chosen
    state.revealed = revealed;
    var cards = revealed.map(function (card, s) { return "seat " + s + ": " + card; }).join(", ");
    record(state, null, "Trick " + state.trick + " revealed: " + cards);
    state.queue = revealed.slice().sort(function (a, b) { return b - a; });
    state.chosen = filled(state.seats, function () { return null; });
    state.waiting = state.seats;
    resolve(state);
  }

  // A row choice, or an illegal action explained.
  function applyOther(state, seat, action) {
    if (state.over) throw illegal(state, seat, action, "the game is over");
    if (state.rowChooser !== null) {
      if (seat !== state.rowChooser) {
        throw illegal(state, seat, action, "seat " + state.rowChooser + " is choosing a row");
      }
      if (!isInt(action) || action < 0 || action >= ROWS) {
        throw illegal(state, seat, action, "a row is chosen by its index 0-3");
      }
      var card = state.queue.pop();
      record(state, null, "seat " + seat + " chooses row " + action);
      takeRow(state, seat, action, card, "too_low");
      resolve(state);
      return;
    }
    if (seat < 0 || seat >= state.seats) throw illegal(state, seat, action, "no such seat");
    if (state.chosen[seat] !== null) {
      throw illegal(state, seat, action, "this seat has already chosen its card");
    }
    throw illegal(state, seat, action, "the card is not in the seat's hand");
  }

  // The decision of seat's observation: "card", "row" or null.
  function decision(state, seat) {
    if (state.over) return null;
    if (state.rowChooser !== null) return seat === state.rowChooser ? "row" : null;
    return state.chosen[seat] === null ? "card" : null;
  }

  // -- the move in words (arena.boards.take5_action, through frames.action_words) -------------

  // boards._words: an action or a small object in words.
  function words(value) {
    if (typeof value === "string") return value.replace(/_/g, " ");
    if (Array.isArray(value)) return value.length ? value.map(words).join(" ") : "none";
    if (value !== null && typeof value === "object") {
      return Object.keys(value)
        .map(function (k) { return k.replace(/_/g, " ") + " " + words(value[k]); })
        .join(", ");
    }
    return pyDumps(value);
  }

  // frames.action_text: an action when the seat is no seat of the game.
  function actionText(action) {
    if (typeof action === "string" || typeof action === "number") return pyStr(action);
    if (typeof action === "boolean") return pyStr(action);
    return JSON.stringify(sortKeys(action));
  }

  function sortKeys(value) {
    if (Array.isArray(value)) return value.map(sortKeys);
    if (value !== null && typeof value === "object") {
      var out = {};
      Object.keys(value).sort().forEach(function (k) { out[k] = sortKeys(value[k]); });
      return out;
    }
    return value;
  }

  function take5Action(state, seat, action) {
    if (decision(state, seat) === "row" && isPyInt(action)) {
      var index = Number(action);
      if (index < 0) index += state.rows.length; // Python's index from the end
      if (index < 0 || index >= state.rows.length) return pyDumps(action); // IndexError
      var row = state.rows[index];
      var cards = row.length ? row.join(" ") : "-";
      return "take row " + pyStr(action) + ": " + cards + " (" + headsOf(row) + " heads)";
    }
    return isPyInt(action) ? "play card " + pyStr(action) : words(action);
  }

  function wordsOf(state, seat, action) {
    if (!(seat >= 0 && seat < state.seats)) return actionText(action);
    return take5Action(state, seat, action);
  }

  // -- the omniscient table (arena.site.tables.take5_table of the snapshot) -------------------

  function strs(cards) {
    return cards.map(String);
  }

  function take5Panel(s, hand, chosen, taken, roundHeads, totals, turn) {
    var handZone = { title: "Hand", lines: [strs(hand)], hide: "unknown" };
    var chosenZone = {
      title: "Chosen",
      lines: [chosen !== null ? [String(chosen)] : []],
      hide: "drop",
    };
    var takenZone = { title: "Taken this round", lines: [strs(taken)] };
    if (!taken.length) takenZone.note = "none";
    return {
      seat: s,
      facts: [["Heads this round", String(roundHeads)], ["Total heads", String(totals)]],
      zones: [handZone, chosenZone, takenZone],
      turn: turn,
    };
  }

  function table(state, seats) {
    var facts = [["Round", String(state.round)], ["Trick", String(state.trick)]];
    var pending = toPlace(state);
    var chooser = state.rowChooser;
    var zones = [{ title: "Rows", lines: state.rows.map(strs) }];
    if (pending.length) {
      zones.push({
        title: "Revealed, still to place",
        lines: [pending.map(function (p) { return String(p[0]); })],
        note: pending.map(function (p) { return "seat " + p[1]; }).join(", "),
      });
    }
    var panels = [];
    for (var s = 0; s < seats; s++) {
      panels.push(
        take5Panel(
          s, state.hands[s], state.chosen[s], state.taken[s],
          state.roundHeads[s], state.totals[s], chooser === s
        )
      );
    }
    return { facts: facts, zones: zones, seats: panels };
  }

  function copyLists(lists) {
    return lists.map(function (l) { return l.slice(); });
  }

  function clone(state) {
    var copy = Object.assign({}, state);
    copy.rng = state.rng.clone();
    copy.deck = state.deck.slice();
    copy.hands = copyLists(state.hands);
    copy.rows = copyLists(state.rows);
    copy.chosen = state.chosen.slice();
    copy.taken = copyLists(state.taken);
    copy.totals = state.totals.slice();
    copy.roundHeads = state.roundHeads.slice();
    copy.queue = state.queue.slice();
    copy.revealed = state.revealed.slice();
    copy.events = NO_EVENTS;
    return copy;
  }

  models.take5 = {
    start: function (seed, seats, options) {
      var state = newState(seed, seats, options);
      var events = state.events;
      state.events = NO_EVENTS;
      return [state, events];
    },
    words: wordsOf,
    apply: apply,
    table: table,
    clone: clone,
  };
})();
