// Phase 10's model for the match-page replay viewer: the state transitions of
// arena/games/phase10.py (+ phase10_groups.py), the event texts of Phase10State.describe, the move
// words of arena.boards.phase10_action and the omniscient table of arena/site/tables.py
// (phase10_table, Phase10Keeper). Each action is checked as the rules check it, so that a
// damaged record stops where and as the Python viewer's does (a stored record is audited).
// The RNG is used exactly where the Python uses it: a shuffle of the deck at each hand's deal and
// of the discard pile when the draw pile runs out.
(function () {
  "use strict";
  var models = (window.arenaModels = window.arenaModels || {});

  // -- cards, phases, groups (phase10_groups.py) ------------------------------------------------

  var COLOURS = ["R", "B", "G", "Y"];
  var COLOUR_NAMES = { R: "red", B: "blue", G: "green", Y: "yellow" };
  var WILD = "W";
  var SKIP = "S";
  var TOP = 12;
  var HAND_SIZE = 10;
  var DRAW = "draw";
  var TAKE = "take";
  var END = "end";
  var STEP_DRAW = "draw";
  var STEP_PLAY = "play";
  var STEP_LAY = "lay";
  var DASH = "\u2013"; // tables.fact's "–" for None, and a run's "lo–hi"

  // The phases: [kind, least size] per group.
  var PHASES = {
    1: [["set", 3], ["set", 3]],
    2: [["set", 3], ["run", 4]],
    3: [["set", 4], ["run", 4]],
    4: [["run", 7]],
    5: [["run", 8]],
    6: [["run", 9]],
    7: [["set", 4], ["set", 4]],
    8: [["colour", 7]],
    9: [["set", 5], ["set", 2]],
    10: [["set", 5], ["set", 3]],
  };
  var PHASE_LIST = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

  function fullDeck() {
    var deck = [];
    for (var c = 0; c < COLOURS.length; c++) {
      for (var n = 1; n <= TOP; n++) deck.push(COLOURS[c] + n, COLOURS[c] + n);
    }
    for (var w = 0; w < 8; w++) deck.push(WILD);
    for (var s = 0; s < 4; s++) deck.push(SKIP);
    return deck;
  }

  // card_order as one number: by colour, then number; Wilds, then Skips, last.
  var ORDER = {};
  COLOURS.forEach(function (c, i) {
    for (var n = 1; n <= TOP; n++) ORDER[c + n] = i * 16 + n;
  });
  ORDER[WILD] = 4 * 16;
  ORDER[SKIP] = 5 * 16;

  function byOrder(a, b) {
    return ORDER[a] - ORDER[b];
  }

  function sortCards(cards) {
    return cards.slice().sort(byOrder); // stable, as Python's sorted (equal keys: equal cards)
  }

  function isNatural(card) {
    return card.length > 1;
  }

  function number(card) {
    return card.length > 1 ? +card.slice(1) : 0;
  }

  function colour(card) {
    return card.length > 1 ? card[0] : "";
  }

  // Penalty points of a card left in hand: 1..9 → 5, 10..12 → 10, Skip → 15, Wild → 25.
  function points(card) {
    if (card === WILD) return 25;
    if (card === SKIP) return 15;
    return number(card) <= 9 ? 5 : 10;
  }

  function handPoints(hand) {
    var sum = 0;
    for (var i = 0; i < hand.length; i++) sum += points(hand[i]);
    return sum;
  }

  function describePhase(phase) {
    return PHASES[phase]
      .map(function (need) {
        if (need[0] === "colour") return need[1] + " cards of one colour";
        return need[0] + " of " + need[1];
      })
      .join(" + ");
  }

  // A group on the table (or being laid): key is the set's number, the run's lowest number or
  // the colour group's colour index 1..4.
  function newGroup(owner, kind, key, cards) {
    return { owner: owner, kind: kind, key: key, cards: cards };
  }

  function high(group) {
    return group.key + group.cards.length - 1;
  }

  function copyGroup(g) {
    return newGroup(g.owner, g.kind, g.key, g.cards.slice());
  }

  // Whether card may join a set of key, a colour group of colour key or be a run's value key.
  function fitsGroup(kind, key, card) {
    if (card === SKIP) return false;
    if (card === WILD) return kind === "run" ? 1 <= key && key <= TOP : true;
    if (kind === "colour") return colour(card) === COLOURS[key - 1];
    return number(card) === key;
  }

  // -- text as Python prints it --------------------------------------------------------------

  function py(value) {
    if (value === null || value === undefined) return "None";
    if (value === true) return "True";
    if (value === false) return "False";
    if (Array.isArray(value)) return "[" + value.map(py).join(", ") + "]";
    if (typeof value === "string") {
      return value.indexOf("'") >= 0 && value.indexOf('"') < 0 ? '"' + value + '"' : "'" + value + "'";
    }
    if (typeof value === "object") {
      return "{" + Object.keys(value).map(function (k) { return py(k) + ": " + py(value[k]); }).join(", ") + "}";
    }
    return String(value);
  }

  function str(value) {
    return typeof value === "string" ? value : py(value);
  }

  // -- options (SPEC.options, OptionSpec.validate) -----------------------------------------------

  var OPTIONS = [
    // name, kind, default, nullable, minimum, maximum, choices
    ["max_turns", "int", 60, true, 1, null, null],
    ["max_hands", "int", 60, true, 1, null, null],
    ["final_discard", "bool", false, false, null, null, null],
    ["skip_next", "bool", false, false, null, null, null],
    ["natural_per_phase", "bool", false, false, null, null, null],
    ["all_advance", "bool", false, false, null, null, null],
    ["phases", "str", "all", false, null, null, ["all", "even", "odd"]],
    ["first_phases", "int", null, true, 1, 10, null],
    ["pick_phase", "bool", false, false, null, null, null],
    ["hit_others_same_turn", "bool", true, false, null, null, null],
    ["tiebreak", "str", "out", false, null, null, ["out", "lay"]],
  ];

  // The messages are OptionSpec's and GameSpec's, so a record the rules refuse is refused in
  // the same words.
  function parseOption(spec, text) {
    var low = text.trim().toLowerCase();
    if (spec[3] && (low === "none" || low === "null" || low === "")) return null;
    if (spec[1] === "bool") {
      if (["true", "yes", "on", "1"].indexOf(low) >= 0) return true;
      if (["false", "no", "off", "0"].indexOf(low) >= 0) return false;
      throw new Error("option " + py(spec[0]) + " must be true or false, not " + py(text));
    }
    if (!/^[+-]?\d+$/.test(low)) {
      throw new Error("option " + py(spec[0]) + " must be a whole number, not " + py(text));
    }
    return parseInt(low, 10);
  }

  function validateOption(spec, value) {
    var name = "option " + py(spec[0]);
    if (typeof value === "string" && spec[1] !== "str") value = parseOption(spec, value);
    if (value === null) {
      if (spec[3]) return null;
      throw new Error(name + " may not be empty");
    }
    if (spec[1] === "bool") {
      if (typeof value !== "boolean") throw new Error(name + " must be true or false, not " + py(value));
      return value;
    }
    if (spec[1] === "int") {
      if (typeof value !== "number" || !Number.isInteger(value)) {
        throw new Error(name + " must be a whole number, not " + py(value));
      }
      if (spec[4] !== null && value < spec[4]) {
        throw new Error(name + " must be at least " + spec[4] + ", not " + value);
      }
      if (spec[5] !== null && value > spec[5]) {
        throw new Error(name + " must be at most " + spec[5] + ", not " + value);
      }
      return value;
    }
    if (typeof value !== "string") throw new Error(name + " must be a string, not " + py(value));
    if (spec[6] && spec[6].indexOf(value) < 0) {
      throw new Error(name + " must be one of " + spec[6].join(", ") + "; not " + py(value));
    }
    return value;
  }

  // All options with defaults filled in (GameSpec.validate_options).
  function validateOptions(options) {
    var given = options || {};
    if (typeof given !== "object" || Array.isArray(given)) {
      throw new Error("phase10 options are a table of option names and values, not " + py(given));
    }
    var known = OPTIONS.map(function (s) { return s[0]; });
    Object.keys(given).forEach(function (name) {
      if (known.indexOf(name) < 0) {
        throw new Error("phase10 has no option " + py(name) + " (options: " + known.join(", ") + ")");
      }
    });
    var out = {};
    OPTIONS.forEach(function (spec) {
      var name = spec[0];
      out[name] = Object.prototype.hasOwnProperty.call(given, name) ? validateOption(spec, given[name]) : spec[2];
    });
    return out;
  }

  // The phases played, in order: all, or only the even or odd ones, then only the first N.
  function phaseSequence(parity, first) {
    var phases = PHASE_LIST.filter(function (p) {
      return parity === "all" || (p % 2 === 0) === (parity === "even");
    });
    return first !== null ? phases.slice(0, first) : phases;
  }

  // -- the state -------------------------------------------------------------------------------

  function emit(st, text, audience) {
    st.log.push([audience === undefined ? -1 : audience, text]);
  }

  function nextSeat(st, seat) {
    var active = st.active;
    var at = active.indexOf(seat);
    if (at < 0) {
      // the dealer may sit out a tie-break hand
      for (var i = 0; i < active.length; i++) if (active[i] > seat) return active[i];
      return active[0];
    }
    return active[(at + 1) % active.length];
  }

  function startHand(st) {
    st.hand_no += 1;
    st.dealer = (st.dealer + 1) % st.seats;
    var deck = fullDeck();
    st.rng.shuffle(deck);
    st.hands = [];
    for (var s = 0; s < st.seats; s++) st.hands.push([]);
    var at = 0;
    for (var i = 0; i < st.active.length; i++) {
      st.hands[st.active[i]] = sortCards(deck.slice(at, at + HAND_SIZE));
      at += HAND_SIZE;
    }
    deck = deck.slice(at);
    st.discard_pile = [deck.pop()];
    st.draw_pile = deck;
    st.table = [];
    st.laid = [];
    st.skip_waiting = [];
    st.known = [];
    for (var k = 0; k < st.seats; k++) {
      st.laid.push(null);
      st.skip_waiting.push(false);
      st.known.push([]);
    }
    st.laying = null;
    st.turns = 0;
    var upcard = st.discard_pile[st.discard_pile.length - 1];
    var phases = [];
    for (var p = 0; p < st.seats; p++) phases.push(phaseNow(st, p));
    emit(
      st,
      (st.tiebreak !== null ? "Tie-break hand" : "Hand") + " " + st.hand_no + ": seat " + st.dealer +
        " deals to " + py(st.active) + ", upcard " + upcard + ", phases " + py(phases)
    );
    for (var d = 0; d < st.active.length; d++) {
      var seat = st.active[d];
      emit(st, "Dealt " + st.hands[seat].join(" "), seat);
    }
    var first = nextSeat(st, st.dealer);
    if (upcard === SKIP) {
      emit(st, "seat " + first + " loses a turn (the first upcard is a Skip)");
      first = nextSeat(st, first);
    }
    beginTurn(st, first);
  }

  function beginTurn(st, seat) {
    if (st.max_turns !== null && st.turns >= st.max_turns * st.active.length) {
      st.turn_capped_hands += 1;
      emit(st, "Turn cap: hand " + st.hand_no + " ends after " + st.turns + " turns");
      endHand(st, null);
      return;
    }
    st.turns += 1;
    st.turn = seat;
    st.step = STEP_DRAW;
    st.laid_this_turn = false;
    if (!canDraw(st) && !canTake(st)) {
      st.blocked_hands += 1;
      emit(st, "Hand " + st.hand_no + " ends: seat " + seat + " can draw from neither pile");
      endHand(st, null);
    }
  }

  function canDraw(st) {
    return st.draw_pile.length > 0 || st.discard_pile.length > 1;
  }

  function canTake(st) {
    return st.discard_pile.length > 0 && st.discard_pile[st.discard_pile.length - 1] !== SKIP;
  }

  function endTurn(st) {
    var seat = nextSeat(st, st.turn);
    while (st.skip_waiting[seat]) {
      st.skip_waiting[seat] = false;
      emit(st, "seat " + seat + " loses a turn (a Skip)");
      seat = nextSeat(st, seat);
    }
    beginTurn(st, seat);
  }

  // The phase seat plays for this hand (in pick-a-phase: null, any it lacks).
  function phaseNow(st, seat) {
    if (st.tiebreak !== null) {
      return st.tiebreak.indexOf(seat) >= 0 ? st.sequence[st.sequence.length - 1] : null;
    }
    if (st.pick_phase) return null;
    var done = st.done[seat];
    for (var i = 0; i < st.sequence.length; i++) {
      if (done.indexOf(st.sequence[i]) < 0) return st.sequence[i];
    }
    return null;
  }

  // The phases seat may lay down this hand.
  function phasesOpen(st, seat) {
    if (st.tiebreak !== null || !st.pick_phase) {
      var now = phaseNow(st, seat);
      return now === null ? [] : [now];
    }
    return st.sequence.filter(function (p) { return st.done[seat].indexOf(p) < 0; });
  }

  function handEndText(st, out, scored, advanced, tiebreak) {
    var text =
      "Hand " + st.hand_no + " over (" + (out === null ? "nobody out" : "seat " + out + " out") +
      "): points " + py(scored) + ", totals " + py(st.totals) + ", advancing " + py(advanced);
    if (tiebreak) text += ", tie-break won by seat " + py(st.tiebreak_winner);
    return text;
  }

  function endHand(st, out) {
    var scored = [];
    for (var s = 0; s < st.seats; s++) {
      scored.push(st.active.indexOf(s) >= 0 ? handPoints(st.hands[s]) : 0);
    }
    if (st.tiebreak !== null) {
      if (st.tiebreak_by === "out" || st.tiebreak_winner === null) st.tiebreak_winner = out;
      emit(st, handEndText(st, out, scored, [], true));
      finish(st);
      return;
    }
    var advanced = [];
    for (var i = 0; i < st.active.length; i++) {
      var seat = st.active[i];
      st.totals[seat] += scored[seat];
      var phase = st.laid[seat];
      if (st.all_advance) phase = phaseNow(st, seat);
      if (phase !== null) {
        st.done[seat].push(phase);
        advanced.push(seat);
      }
    }
    emit(st, handEndText(st, out, scored, advanced, false));
    var finishers = [];
    for (var f = 0; f < st.seats; f++) {
      if (st.done[f].length === st.sequence.length) finishers.push(f);
    }
    if (finishers.length) {
      var best = Math.min.apply(null, finishers.map(function (x) { return st.totals[x]; }));
      var tied = finishers.filter(function (x) { return st.totals[x] === best; });
      if (tied.length > 1) {
        st.tiebreak = tied;
        st.active = tied.slice();
        emit(st, "Seats " + py(tied) + " tie on " + best + " points: a tie-break hand");
        startHand(st);
      } else {
        finish(st);
      }
    } else if (st.max_hands !== null && st.hand_no >= st.max_hands) {
      st.capped = "hands";
      emit(st, "Hand cap: the game ends after hand " + st.hand_no);
      finish(st);
    } else {
      startHand(st);
    }
  }

  // Places from sort keys where a smaller key is better; equal keys share a place.
  function lessKey(a, b) {
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
    return false;
  }

  function result(st) {
    var winner = st.tiebreak_winner;
    var tied = st.tiebreak || [];
    var keys = [];
    for (var s = 0; s < st.seats; s++) {
      var loser = tied.indexOf(s) >= 0 && s !== winner && winner !== null ? 1 : 0;
      keys.push([-st.done[s].length, st.totals[s], loser]);
    }
    var ranks = keys.map(function (key) {
      var place = 1;
      for (var i = 0; i < keys.length; i++) if (lessKey(keys[i], key)) place += 1;
      return place;
    });
    return { scores: st.totals.slice(), ranks: ranks };
  }

  function finish(st) {
    st.over = true;
    var res = result(st);
    emit(
      st,
      "Game over" + (st.capped ? " (hand cap reached)" : "") + ": phases " +
        py(st.done.map(function (d) { return d.length; })) + ", totals " + py(res.scores) +
        ", places " + py(res.ranks)
    );
  }

  // -- whether an action is legal (Phase10State._allows) ---------------------------------------
  // A stored record was played by the rules and audited, so every action of it is legal; a
  // damaged one is refused at its first illegal action, in the rules' words, as the Python
  // viewer does. Each action is checked alone (is it in the list _compute_legal would give?),
  // the lay-down's steps with the same feasibility search (phase10_groups.fits).

  // The pool: the hand projected on what the phase's groups count: [wilds, count of 1..12] or
  // [wilds, red, blue, green, yellow] (pool_of).
  function poolOf(cards, colours) {
    var counts = [];
    for (var i = 0; i < (colours ? COLOURS.length + 1 : TOP + 1); i++) counts.push(0);
    for (var c = 0; c < cards.length; c++) {
      var card = cards[c];
      if (card === WILD) counts[0] += 1;
      else if (card !== SKIP) counts[colours ? COLOURS.indexOf(colour(card)) + 1 : number(card)] += 1;
    }
    return counts;
  }

  function byColour(phase) {
    return PHASES[phase][0][0] === "colour";
  }

  function sum(list) {
    var total = 0;
    for (var i = 0; i < list.length; i++) total += list[i];
    return total;
  }

  // A requirement (Req): [kind, key, more, natural]: more cards (at least) from key (the set's
  // number, the colour's index, or the run's next value; 0 = any), one of them natural or not.
  function reqKeys(req, pool) {
    if (req[1]) return [req[1]];
    var keys = [];
    for (var k = 1; k < pool.length; k++) keys.push(k);
    return keys;
  }

  function taken(pool, wilds, used) {
    var counts = pool.slice();
    counts[0] -= wilds;
    for (var i = 0; i < used.length; i++) counts[used[i][0]] -= used[i][1];
    return counts;
  }

  // Whether one last group can be completed from pool leaving keep cards (last_fits).
  function lastFits(req, pool, keep) {
    var total = sum(pool), wilds = pool[0], keys = reqKeys(req, pool), more = req[2];
    if (more === 0 && !req[3]) return total >= keep;
    if (req[0] !== "run") {
      var want = Math.max(more, 1);
      if (total - want < keep) return false;
      return keys.some(function (k) { return pool[k] + wilds >= want && (pool[k] >= 1 || !req[3]); });
    }
    for (var i = 0; i < keys.length; i++) {
      var start = keys[i], missing = 0, natural = false;
      for (var value = start; value <= TOP; value++) {
        if (pool[value]) natural = true;
        else missing += 1;
        var length = value - start + 1;
        if (missing > wilds || total - length < keep) break;
        if (length >= more && (natural || !req[3])) return true;
      }
    }
    return false;
  }

  // The subsets of items of each size, in the order of itertools.combinations (order does not
  // matter to the answer; any() over them).
  function subsets(items, out, from, chosen) {
    out.push(chosen.slice());
    for (var i = from; i < items.length; i++) {
      chosen.push(items[i]);
      subsets(items, out, i + 1, chosen);
      chosen.pop();
    }
    return out;
  }

  // The pools left by each least way of completing one group (completions).
  function completions(req, pool) {
    var wilds = pool[0], keys = reqKeys(req, pool), more = req[2], out = [];
    if (more === 0 && !req[3]) return [pool];
    if (req[0] !== "run") {
      var want = Math.max(more, 1);
      keys.forEach(function (k) {
        for (var used = req[3] ? 1 : 0; used <= Math.min(want, pool[k]); used++) {
          if (want - used <= wilds) out.push(taken(pool, want - used, [[k, used]]));
        }
      });
      return out;
    }
    keys.forEach(function (start) {
      for (var stop = start + Math.max(more, 1) - 1; stop <= TOP; stop++) {
        var places = stop - start + 1, have = [];
        for (var v = start; v <= stop; v++) if (pool[v]) have.push(v);
        var longer = stop > start + more - 1;
        subsets(have, [], 0, []).forEach(function (chosen) {
          if ((req[3] && !chosen.length) || (longer && chosen.indexOf(stop) < 0)) return;
          if (places - chosen.length <= wilds) {
            out.push(taken(pool, places - chosen.length, chosen.map(function (x) { return [x, 1]; })));
          }
        });
      }
    });
    return out;
  }

  var FITS = new Map(); // fits is a pure function of its arguments: memoised, as in Python

  // Whether every group of reqs can be completed from pool, leaving keep cards (fits).
  function fits(reqs, pool, keep) {
    if (!reqs.length) return sum(pool) >= keep;
    if (reqs.length === 1) return lastFits(reqs[0], pool, keep);
    var key = JSON.stringify([reqs, pool, keep]);
    var known = FITS.get(key);
    if (known !== undefined) return known;
    var rest = reqs.slice(1);
    var answer = completions(reqs[0], pool).some(function (left) { return fits(rest, left, keep); });
    if (FITS.size > 65536) FITS.clear();
    FITS.set(key, answer);
    return answer;
  }

  // fits; with natural_per_phase the natural flags mean "one natural is still needed somewhere".
  function fitsPhase(reqs, pool, keep, naturalPerPhase) {
    if (!naturalPerPhase || !reqs.some(function (r) { return r[3]; })) return fits(reqs, pool, keep);
    var plain = reqs.map(function (r) { return [r[0], r[1], r[2], false]; });
    return reqs.some(function (r, i) {
      return fits(plain.slice(0, i).concat([r], plain.slice(i + 1)), pool, keep);
    });
  }

  function naturals(group) {
    return group.cards.filter(isNatural).length;
  }

  // Cards a seat must keep after laying down or hitting (one for the final discard).
  function keepCards(st) {
    return st.final_discard ? 1 : 0;
  }

  // Cards the pool must keep back: each Skip in hand already keeps a card (Skips are no pool).
  function poolKeep(st, hand) {
    return Math.max(0, keepCards(st) - hand.filter(function (c) { return c === SKIP; }).length);
  }

  // What the lay-down (phase, groups, open) still needs, and whether a natural card is in it.
  function reqsOf(st, phase, groups, open) {
    var needs = PHASES[phase];
    var cards = [];
    groups.forEach(function (g) { cards = cards.concat(g.cards); });
    if (open !== null) cards = cards.concat(open.cards);
    var naturalIn = cards.some(isNatural);
    var reqs = [];
    var rest;
    if (open !== null) {
      var need = needs[groups.length];
      var next = open.kind === "run" ? high(open) + 1 : open.key;
      reqs.push([open.kind, next, Math.max(0, need[1] - open.cards.length), naturals(open) === 0]);
      rest = needs.slice(groups.length + 1);
    } else {
      rest = needs.slice(groups.length);
    }
    rest.forEach(function (n) { reqs.push([n[0], 0, n[1], true]); });
    if (st.natural_per_phase) {
      reqs = reqs.map(function (r) { return [r[0], r[1], r[2], !naturalIn]; });
    }
    return [reqs, naturalIn];
  }

  function feasible(st, phase, groups, open, hand) {
    var found = reqsOf(st, phase, groups, open);
    if (!found[0].length && !found[1]) return false; // no natural card at all (only per phase)
    return fitsPhase(found[0], poolOf(hand, byColour(phase)), poolKeep(st, hand), st.natural_per_phase);
  }

  function isInt(value) {
    return typeof value === "number" && Number.isInteger(value);
  }

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  // The action's keys are exactly these (same_json compares dicts by their keys).
  function keysAre(action, names) {
    var keys = Object.keys(action);
    return keys.length === names.length && names.every(function (n) { return n in action; });
  }

  function skipTargets(st, seat) {
    if (st.skip_next) return [nextSeat(st, seat)];
    return st.active.filter(function (s) { return s !== seat && !st.skip_waiting[s]; });
  }

  // A discard among that card's discards (_discards): a Skip names its victim when one may be.
  function allowsDiscard(st, seat, hand, action) {
    var card = action.discard;
    if (typeof card !== "string" || hand.indexOf(card) < 0) return false;
    if (card !== SKIP) return keysAre(action, ["discard"]);
    var targets = hand.length > 1 ? skipTargets(st, seat) : [];
    if (!targets.length) return keysAre(action, ["discard"]);
    return keysAre(action, ["discard", "target"]) && isInt(action.target) && targets.indexOf(action.target) >= 0;
  }

  // A hit among _hit_actions: the card from the hand, at an end of the group it fits.
  function allowsHit(st, seat, hand, action) {
    var group = isInt(action.hit) ? st.table[action.hit] : undefined;
    var card = action.card;
    if (group === undefined || typeof card !== "string" || hand.indexOf(card) < 0) return false;
    if (hand.length - 1 < keepCards(st)) return false;
    if (st.laid_this_turn && !st.hit_others_same_turn && group.owner !== seat) return false;
    if (group.kind !== "run") return keysAre(action, ["hit", "card"]) && fitsGroup(group.kind, group.key, card);
    if (!keysAre(action, ["hit", "card", "end"])) return false;
    if (action.end === "low") return fitsGroup("run", group.key - 1, card);
    if (action.end === "high") return fitsGroup("run", high(group) + 1, card);
    return false;
  }

  function allowsPlay(st, seat, action) {
    var hand = st.hands[seat];
    if (!isObject(action)) return false;
    if ("discard" in action) return allowsDiscard(st, seat, hand, action);
    if (st.laid[seat] === null) {
      var phase = action.lay;
      return keysAre(action, ["lay"]) && isInt(phase) && phasesOpen(st, seat).indexOf(phase) >= 0 &&
        feasible(st, phase, [], null, hand);
    }
    return "hit" in action && allowsHit(st, seat, hand, action);
  }

  // Opening the next group of the phase being laid (_lay_actions, no group open).
  function allowsOpen(st, seat, hand, action) {
    var lay = st.laying;
    var need = PHASES[lay.phase][lay.groups.length];
    if (!isObject(action) || !keysAre(action, [need[0]])) return false;
    var key = action[need[0]];
    if (need[0] === "colour") {
      if (typeof key !== "string" || COLOURS.indexOf(key) < 0) return false;
      key = COLOURS.indexOf(key) + 1;
    } else {
      var last = need[0] === "run" ? TOP - need[1] + 1 : TOP;
      if (!isInt(key) || key < 1 || key > last) return false;
    }
    return feasible(st, lay.phase, lay.groups, newGroup(seat, need[0], key, []), hand);
  }

  // Adding to the open group, or closing it (_lay_actions, a group open).
  function allowsGrow(st, hand, action) {
    var lay = st.laying, group = lay.open;
    if (action === END) {
      var need = PHASES[lay.phase][lay.groups.length];
      var naturalOk = st.natural_per_phase || naturals(group) > 0;
      return group.cards.length >= need[1] && naturalOk &&
        feasible(st, lay.phase, lay.groups.concat([group]), null, hand);
    }
    if (!isObject(action) || !keysAre(action, ["add"])) return false;
    var card = action.add;
    if (typeof card !== "string" || hand.indexOf(card) < 0) return false;
    var slot = group.kind === "run" ? high(group) + 1 : group.key;
    if (!fitsGroup(group.kind, slot, card)) return false;
    var rest = hand.slice();
    rest.splice(rest.indexOf(card), 1);
    var grown = newGroup(group.owner, group.kind, group.key, group.cards.concat([card]));
    return feasible(st, lay.phase, lay.groups, grown, rest);
  }

  function allows(st, seat, action) {
    if (st.step === STEP_DRAW) return (action === DRAW && canDraw(st)) || (action === TAKE && canTake(st));
    if (st.step === STEP_PLAY) return allowsPlay(st, seat, action);
    var hand = st.hands[seat];
    return st.laying.open === null ? allowsOpen(st, seat, hand, action) : allowsGrow(st, hand, action);
  }

  // The position in words (Phase10State.position), for IllegalActionError's message.
  function position(st) {
    var pile = st.discard_pile;
    return "hand " + st.hand_no + ", seat " + st.turn + " to " + st.step + ", discard top " +
      (pile.length ? pile[pile.length - 1] : "-") + ", hand [" + st.hands[st.turn].join(" ") + "], " +
      st.table.length + " groups down";
  }

  function illegal(st, seat, action, reason) {
    return new Error("illegal action " + py(action) + " for seat " + seat + " in phase10: " + reason +
      " (position: " + position(st) + ")");
  }

  // -- applying --------------------------------------------------------------------------------

  function removeCard(list, card) {
    var at = list.indexOf(card);
    if (at >= 0) list.splice(at, 1);
  }

  // Take card out of the seat's hand (it goes on the table or the discard pile).
  function giveUp(st, seat, card) {
    removeCard(st.hands[seat], card);
    removeCard(st.known[seat], card);
  }

  function draw(st, seat) {
    if (!st.draw_pile.length) {
      var top = st.discard_pile.pop();
      st.draw_pile = st.discard_pile;
      st.rng.shuffle(st.draw_pile);
      st.discard_pile = [top];
      emit(st, "The discard pile is shuffled into a new draw pile of " + st.draw_pile.length + " cards");
    }
    var card = st.draw_pile.pop();
    st.hands[seat].push(card);
    emit(st, "seat " + seat + " draws from the draw pile");
    emit(st, "seat " + seat + " drew " + card, seat);
    afterDraw(st, seat);
  }

  function take(st, seat) {
    var card = st.discard_pile.pop();
    st.hands[seat].push(card);
    st.known[seat].push(card);
    emit(st, "seat " + seat + " takes " + card + " from the discard pile");
    afterDraw(st, seat);
  }

  function afterDraw(st, seat) {
    st.hands[seat].sort(byOrder);
    st.step = STEP_PLAY;
  }

  function groupsText(groups) {
    return groups.map(function (g) { return g.cards.join(" "); }).join("; ");
  }

  function closeGroup(st, seat) {
    var lay = st.laying;
    lay.groups.push(lay.open);
    lay.open = null;
    if (lay.groups.length < PHASES[lay.phase].length) return;
    st.laying = null;
    st.step = STEP_PLAY;
    for (var i = 0; i < lay.groups.length; i++) st.table.push(lay.groups[i]);
    st.laid[seat] = lay.phase;
    st.laid_this_turn = true;
    emit(
      st,
      "seat " + seat + " lays down phase " + lay.phase + " (" + describePhase(lay.phase) + "): " +
        groupsText(lay.groups)
    );
    if (st.tiebreak !== null && st.tiebreak_by === "lay") {
      st.tiebreak_winner = seat;
      endHand(st, null);
    } else if (!st.hands[seat].length) {
      goOut(st, seat);
    }
  }

  function hit(st, seat, action) {
    var group = st.table[action.hit];
    var card = action.card;
    giveUp(st, seat, card);
    if (action.end === "low") {
      group.key -= 1;
      group.cards.unshift(card);
    } else {
      group.cards.push(card);
    }
    var end = "end" in action ? " (" + str(action.end) + " end)" : "";
    emit(st, "seat " + seat + " hits " + card + " on group " + action.hit + end);
    if (!st.hands[seat].length) goOut(st, seat);
  }

  function discard(st, seat, action) {
    var card = action.discard;
    giveUp(st, seat, card);
    st.discard_pile.push(card);
    var target = action.target === undefined ? null : action.target;
    emit(st, "seat " + seat + " discards " + card + (target !== null ? " onto seat " + target : ""));
    if (target !== null) st.skip_waiting[target] = true;
    if (!st.hands[seat].length) goOut(st, seat);
    else endTurn(st);
  }

  function goOut(st, seat) {
    emit(st, "seat " + seat + " goes out");
    endHand(st, seat);
  }

  function applyAction(st, seat, action) {
    if (action === DRAW) {
      draw(st, seat);
    } else if (action === TAKE) {
      take(st, seat);
    } else if (action === END) {
      closeGroup(st, seat);
    } else if ("lay" in action) {
      st.laying = { phase: action.lay, groups: [], open: null };
      st.step = STEP_LAY;
    } else if ("add" in action) {
      giveUp(st, seat, action.add);
      st.laying.open.cards.push(action.add);
    } else if ("hit" in action) {
      hit(st, seat, action);
    } else if ("discard" in action) {
      discard(st, seat, action);
    } else {
      // opening a group: {"set": n}, {"run": lo} or {"colour": c}
      var kind = Object.keys(action)[0];
      var key = action[kind];
      var index = kind === "colour" ? COLOURS.indexOf(key) + 1 : key;
      st.laying.open = newGroup(seat, kind, index, []);
    }
  }

  // -- words (arena.boards.phase10_action, _words) ---------------------------------------------

  function pyJson(value) {
    // json.dumps of a number, bool or None (what _words gives for them)
    if (value === null || value === undefined) return "null";
    return JSON.stringify(value);
  }

  function words(value) {
    if (typeof value === "string") return value.split("_").join(" ");
    if (Array.isArray(value)) return value.length ? value.map(words).join(" ") : "none";
    if (value !== null && typeof value === "object") {
      return Object.keys(value)
        .map(function (k) { return k.split("_").join(" ") + " " + words(value[k]); })
        .join(", ");
    }
    return pyJson(value);
  }

  // -- the omniscient table (tables.phase10_table of the snapshot) -----------------------------

  function fact(label, value) {
    if (value === null || value === undefined) value = DASH;
    else if (value === true) value = "yes";
    else if (value === false) value = "no";
    return [label, String(value)];
  }

  function groupTitle(g, gid) {
    var what;
    if (g.kind === "set") what = "set of " + g.key + "s";
    else if (g.kind === "run") what = "run " + g.key + DASH + high(g);
    else what = COLOUR_NAMES[COLOURS[g.key - 1]] + " colour group";
    return (gid !== null ? "#" + gid + " " : "") + what + ", seat " + g.owner;
  }

  function groupZones(st) {
    var zones = st.table.map(function (g, i) {
      return { title: groupTitle(g, i), lines: [g.cards.slice()] };
    });
    var lay = st.laying;
    if (lay !== null) {
      var groups = lay.open !== null ? lay.groups.concat([lay.open]) : lay.groups;
      groups.forEach(function (g) {
        zones.push({ title: "laying phase " + lay.phase + ": " + groupTitle(g, null), lines: [g.cards.slice()] });
      });
    }
    return zones;
  }

  function panel(st, s, turn) {
    return {
      seat: s,
      facts: [
        fact("Phases done", st.done[s].join(", ") || "none"),
        fact("Phase laid this hand", st.laid[s] || "not yet"),
        fact("Points", st.totals[s]),
      ],
      zones: [{ title: "Hand", lines: [st.hands[s].slice()], hide: "count" }],
      turn: turn === s,
    };
  }

  function table(st, seats) {
    var discardPile = st.discard_pile;
    var top = discardPile.length ? discardPile[discardPile.length - 1] : null;
    var turn = st.over ? null : st.turn;
    var piles = ["~" + st.draw_pile.length];
    if (top !== null) piles.push(top);
    var zones = [{ title: "Draw pile and discard", lines: [piles] }].concat(groupZones(st));
    var panels = [];
    for (var s = 0; s < seats; s++) panels.push(panel(st, s, turn));
    return {
      facts: [fact("Hand", st.hand_no), fact("Turn of seat", turn), fact("Dealer", st.dealer)],
      zones: zones,
      seats: panels,
    };
  }

  // -- copies ----------------------------------------------------------------------------------

  function copyLists(lists) {
    return lists.map(function (l) { return l.slice(); });
  }

  function clone(st) {
    var out = {};
    for (var k in st) out[k] = st[k];
    out.rng = st.rng.clone();
    out.sequence = st.sequence.slice();
    out.done = copyLists(st.done);
    out.totals = st.totals.slice();
    out.active = st.active.slice();
    out.tiebreak = st.tiebreak === null ? null : st.tiebreak.slice();
    out.hands = copyLists(st.hands);
    out.draw_pile = st.draw_pile.slice();
    out.discard_pile = st.discard_pile.slice();
    out.table = st.table.map(copyGroup);
    out.laid = st.laid.slice();
    out.skip_waiting = st.skip_waiting.slice();
    out.known = copyLists(st.known);
    out.laying = st.laying === null ? null : {
      phase: st.laying.phase,
      groups: st.laying.groups.map(copyGroup),
      open: st.laying.open === null ? null : copyGroup(st.laying.open),
    };
    out.log = [];
    return out;
  }

  // -- the model -------------------------------------------------------------------------------

  models.phase10 = {
    start: function (seed, seats, options) {
      if (!Number.isInteger(seats) || seats < 2 || seats > 6) {
        throw new Error("phase10 is played by 2 to 6 seats, not " + py(seats));
      }
      if (!/^\d+$/.test(String(seed))) {
        throw new Error("a seed is a non-negative whole number, not " + String(seed));
      }
      var o = validateOptions(options);
      if (o.pick_phase && o.all_advance) throw new Error("pick_phase and all_advance cannot be combined");
      var st = {
        seats: seats,
        rng: window.arenaRandom(String(seed)),
        log: [],
        sequence: phaseSequence(o.phases, o.first_phases),
        max_turns: o.max_turns,
        max_hands: o.max_hands,
        final_discard: o.final_discard,
        skip_next: o.skip_next,
        natural_per_phase: o.natural_per_phase,
        all_advance: o.all_advance,
        pick_phase: o.pick_phase,
        hit_others_same_turn: o.hit_others_same_turn,
        tiebreak_by: o.tiebreak,
        done: [],
        totals: [],
        hand_no: 0,
        dealer: -1,
        active: [],
        tiebreak: null,
        tiebreak_winner: null,
        hands: [],
        draw_pile: [],
        discard_pile: [],
        table: [],
        laid: [],
        skip_waiting: [],
        known: [],
        turn: 0,
        step: STEP_DRAW,
        laying: null,
        laid_this_turn: false,
        turns: 0,
        over: false,
        capped: null,
        turn_capped_hands: 0,
        blocked_hands: 0,
      };
      for (var s = 0; s < seats; s++) {
        st.done.push([]);
        st.totals.push(0);
        st.active.push(s);
      }
      startHand(st);
      var events = st.log;
      st.log = [];
      return [st, events];
    },

    words: function (st, seat, action) {
      if (action === DRAW) return "draw from the draw pile";
      if (action === TAKE) {
        var pile = st.discard_pile;
        return "take " + (pile.length ? pile[pile.length - 1] : "None") + " from the discard pile";
      }
      return words(action);
    },

    apply: function (st, seat, action) {
      if (!Number.isInteger(seat)) throw illegal(st, seat, action, "no such seat");
      if (st.over) throw illegal(st, seat, action, "the game is over");
      if (seat !== st.turn) throw illegal(st, seat, action, "it is seat " + st.turn + "'s turn");
      if (!allows(st, seat, action)) {
        throw illegal(st, seat, action, "not among the legal actions to " + st.step);
      }
      st.log = [];
      applyAction(st, seat, action);
      var events = st.log;
      st.log = [];
      return events;
    },

    table: table,
    clone: clone,
  };
})();
