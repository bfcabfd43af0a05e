// A match replayed in the browser by its game's model (static/models/GAME.js): the events and
// the move in words of every step at once, and the omniscient table of any frame on demand,
// stepped forward from the nearest checkpoint (a clone of the state every CHECKPOINT actions),
// so a long game costs one pass to open and little to seek.
(function () {
  "use strict";
  var CHECKPOINT = 256;

  // An action in plain words when its model cannot word it (as frames.action_text: JSON with
  // sorted keys, no spaces).
  function sortedJson(value) {
    if (Array.isArray(value)) return "[" + value.map(sortedJson).join(",") + "]";
    if (value !== null && typeof value === "object") {
      return "{" + Object.keys(value).sort().map(function (k) {
        return JSON.stringify(k) + ":" + sortedJson(value[k]);
      }).join(",") + "}";
    }
    return JSON.stringify(value);
  }
  // Shared with the models that word an action this way too (ten.js), looked up when used.
  window.arenaSortedJson = sortedJson;
  function actionText(action) {
    return typeof action === "string" || typeof action === "number" ? String(action) : sortedJson(action);
  }

  // game, seed (a decimal string), seats (a count), options, actions ([seat, action] pairs).
  // Returns {events, moves, steps, error, tableAt(i)}: events[i] the [audience, text] pairs of
  // step i (0: the deal), moves[i] [seat, words] (moves[0] null), error "" or why the replay
  // stopped (steps then counts the frames before it).
  window.arenaReplay = function (game, seed, seats, options, actions) {
    var model = (window.arenaModels || {})[game];
    if (!model) return { error: "this match cannot be replayed: no model of the game " + game, steps: 0 };
    var state;
    var events, moves = [null];
    try {
      var started = model.start(seed, seats, options || {});
      state = started[0];
      events = [started[1]];
    } catch (e) {
      return { error: "this match cannot be replayed: " + e.message, steps: 0 };
    }
    var checkpoints = [model.clone(state)];
    var error = "";
    for (var i = 0; i < actions.length; i++) {
      var seat = actions[i][0], action = actions[i][1], words;
      try {
        words = model.words(state, seat, action);
      } catch (e) {
        words = actionText(action);
      }
      try {
        events.push(model.apply(state, seat, action));
      } catch (e) {
        error = "the replay stops at step " + i + ": " + e.message;
        break;
      }
      moves.push([seat, words]);
      if ((i + 1) % CHECKPOINT === 0) checkpoints.push(model.clone(state));
    }
    var steps = moves.length;
    var at = -1, current = null;
    function tableAt(frame) {
      if (!(frame >= 0 && frame < steps)) throw new Error("no frame " + frame);
      if (current === null || frame < at || frame - at > CHECKPOINT) {
        var c = Math.floor(frame / CHECKPOINT);
        current = model.clone(checkpoints[c]);
        at = c * CHECKPOINT;
      }
      while (at < frame) {
        model.apply(current, actions[at][0], actions[at][1]);
        at++;
      }
      return model.table(current, seats);
    }
    return { events: events, moves: moves, steps: steps, error: error, tableAt: tableAt };
  };
})();
