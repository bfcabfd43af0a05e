// The replay viewer: draws the frame of one step from the page's embedded JSON.
// Every string from the data is put in the page with textContent, never as HTML.
//
// The page carries either the match's record, which the game's model replays here
// (static/models/GAME.js, through static/models/replay.js; frames.record_viewer), or, for a game
// without a model, every frame's table built by the Python viewer (frames.build_viewer).
(function () {
  "use strict";
  var root = document.getElementById("viewer");
  var source = document.getElementById("replay-data");
  if (!root || !source) return;
  var packed = JSON.parse(source.textContent);
  if (packed !== null && typeof packed === "object" && typeof packed.record === "string") {
    inflate(packed.record).then(function (text) {
      offer(text);
      var data = fromRecord(packed, JSON.parse(text));
      if (data) start(data);
    }).catch(function (e) { stopped("this match cannot be replayed: " + e.message); });
    return;
  }
  if (typeof packed === "string") {
    // A long game's data comes compressed with bzip2, as base64 (frames.pack; static/bzip2.js).
    var bytes = Uint8Array.from(atob(packed), function (c) { return c.charCodeAt(0); });
    packed = JSON.parse(new TextDecoder("utf-8").decode(window.arenaBunzip2(bytes)));
  }
  var plain = unintern(packed);
  var tables = null;
  plain.omniAt = function (i) { return (tables = tables || decodePatches(plain.omni))[i]; };
  plain.steps = plain.moves.length;
  start(plain);

  // The record: zlib-compressed JSON as base64, undone by the browser's own inflate.
  function inflate(base64) {
    var bytes = Uint8Array.from(atob(base64), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text();
  }
  // The page's record link downloads the record the page carries (no file beside the page;
  // a server that renders records on demand still answers the link's own address).
  function offer(text) {
    var link = document.getElementById("record-link");
    if (link) link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  }
  // Why there is no replay (or where it stops), shown above the viewer.
  function stopped(message) {
    var notice = document.getElementById("replay-error");
    if (notice) { notice.textContent = message; notice.hidden = false; }
    root.setAttribute("data-ready", "error");
  }
  // The viewer's data from a record replayed by its game's model: the seed comes as text from
  // the page (a record's seed may pass 2^53, which JSON.parse would round).
  function fromRecord(page, record) {
    var replay = window.arenaReplay(page.game, page.seed, record.seats.length, record.options, record.actions);
    if (!replay.steps) { stopped(replay.error); return null; }
    if (replay.error) stopped(replay.error);
    var last = replay.steps - 1;
    var fallback = {};
    (record.fallback_steps || []).forEach(function (i) { fallback[i + 1] = true; });
    return {
      game: page.game,
      names: page.names,
      faces: page.faces,
      steps: replay.steps,
      omniAt: replay.tableAt,
      seats: record.seats.map(function () { return []; }),  // a seat sees the table masked
      events: replay.events,
      moves: replay.moves.map(function (m, i) { return m && fallback[i] ? m.concat([1]) : m; }),
      faults: (record.faults || []).map(function (f) {
        return { frame: Math.min(f.step + 1, last), seat: f.seat, status: f.status, message: f.message, stderr: f.stderr_tail };
      }),
      notes: (record.debug || []).map(function (d) { return { frame: Math.min(d[0] + 1, last), seat: d[1], note: d[2] }; }),
    };
  }

  // The compact form (frames.Interner): each distinct path and text is stored once, by its
  // number; a patch is one flat list (path, value for a replacement; ~path, start, count,
  // items for a splice, ~path being -1 - path); a step's events flat (audience, text) pairs.
  function unintern(data) {
    function ops(flat) {
      var out = [];
      for (var i = 0; i < flat.length;) {
        if (flat[i] >= 0) { out.push([data.paths[flat[i]], flat[i + 1]]); i += 2; }
        else { out.push([data.paths[-1 - flat[i]], flat[i + 1], flat[i + 2], flat[i + 3]]); i += 4; }
      }
      return out;
    }
    data.omni = data.omni.map(ops);
    data.seats = data.seats.map(function (changes) {
      return changes.map(function (c) { return [c[0], ops(c[1])]; });
    });
    data.events = data.events.map(function (step) {
      var out = [];
      for (var i = 0; i < step.length; i += 2) out.push([step[i], data.texts[step[i + 1]]]);
      return out;
    });
    data.moves = data.moves.map(function (m) {
      return m === null ? null : [m[0], data.texts[m[1]]].concat(m.slice(2));
    });
    return data;
  }

  // Each view is stored as patches against the same view one step earlier (frames.diff):
  // [path, value] replaces, [path, start, count, items] splices a list of plain values.
  function copy(value) { return Array.isArray(value) ? value.slice() : Object.assign({}, value); }
  function spliced(list, op) { return list.slice(0, op[1]).concat(op[3], list.slice(op[1] + op[2])); }
  function applyPatch(value, patch) {
    patch.forEach(function (op) {
      var path = op[0];
      if (path.length === 0) { value = op.length === 2 ? op[1] : spliced(value, op); return; }
      var top = copy(value);
      var node = top;
      for (var i = 0; i < path.length - 1; i++) {
        node[path[i]] = copy(node[path[i]]);
        node = node[path[i]];
      }
      var key = path[path.length - 1];
      node[key] = op.length === 2 ? op[1] : spliced(node[key], op);
      value = top;
    });
    return value;
  }
  function decodePatches(patches) {
    var out = [], value = null;
    patches.forEach(function (p) { value = applyPatch(value, p); out.push(value); });
    return out;
  }

  // data: names, faces, steps, omniAt(i) (the omniscient table of frame i), seats (per seat,
  // [frame, patch] where its own table is not the omniscient one masked), events, moves,
  // faults, notes.
  function start(data) {
    var steps = data.steps;
    // A private zone of another seat, as that seat's own table shows it (tables.hidden).
    function hidden(zone) {
      var copy = Object.assign({}, zone);
      if (zone.hide === "count") {
        var n = 0;
        zone.lines.forEach(function (line) { n += line.length; });
        copy.lines = [["~" + n]];
      } else if (zone.hide === "unknown") {
        copy.lines = [["~?"]];
      } else {
        copy.lines = [];
      }
      return copy;
    }
    // The omniscient table with the other seats' private zones hidden (tables.mask).
    function mask(table, seat) {
      var copy = Object.assign({}, table);
      copy.seats = table.seats.map(function (panel) {
        if (panel.seat === seat) return panel;
        if (!panel.zones.some(function (z) { return "hide" in z; })) return panel;
        var p = Object.assign({}, panel);
        p.zones = panel.zones.map(function (z) { return "hide" in z ? hidden(z) : z; });
        return p;
      });
      return copy;
    }
    var frames = { all: { at: data.omniAt } };
    // A seat's frame is the masked omniscient frame of the same step, patched at the steps
    // listed for the seat ([step, patch]: only where the seat's own table differs).
    data.seats.forEach(function (changes, seat) {
      var cache = null, at = {};
      changes.forEach(function (c) { at[c[0]] = c[1]; });
      frames[String(seat)] = {
        at: function (i) {
          if (cache && cache[0] === i) return cache[1];
          var value = applyPatch(mask(data.omniAt(i), seat), at[i] || []);
          cache = [i, value];
          return value;
        }
      };
    });
    function frameAt(v, i) { return frames[v].at(i); }

    var step = 0, view = "all", timer = null;
    var board = document.getElementById("board");
    var slider = document.getElementById("step");
    slider.max = String(steps - 1);  // fewer than the record's actions if its replay stops
    var label = document.getElementById("step-label");
    var moveLine = document.getElementById("move");
    var alerts = document.getElementById("alerts");
    var eventList = document.getElementById("events");
    var playButton = root.querySelector("[data-go=play]");
    var permalink = document.getElementById("permalink");

    function el(tag, className, text) {
      var node = document.createElement(tag);
      if (className) node.className = className;
      if (text !== undefined && text !== null) node.textContent = String(text);
      return node;
    }
    function seatName(seat) {
      var name = data.names[seat];
      return "seat " + seat + (name ? " (" + name + ")" : "");
    }
    // A card is a code: its face comes from data.faces; "~N" is a face-down pile of N cards.
    function drawCard(code) {
      code = String(code);
      var face = Object.prototype.hasOwnProperty.call(data.faces, code) ? data.faces[code] : null;
      if (!face && code.charAt(0) === "~") {
        var count = code.slice(1);
        face = [count === "?" ? "?" : count, "back", count === "1" ? "card" : "cards"];
      }
      if (!face) face = [code, "plain", ""];
      var node = el("span", "card " + face[1]);
      node.appendChild(el("span", "face", face[0]));
      if (face[2]) node.appendChild(el("span", "cap", face[2]));
      node.setAttribute("role", "img");
      node.setAttribute("aria-label", (face[1] === "back" ? "face down: " : "") + face[0] + (face[2] ? " " + face[2] : ""));
      node.title = face[0] + (face[2] ? " (" + face[2] + ")" : "");
      return node;
    }
    function drawZone(zone) {
      var box = el("div", "zone");
      box.appendChild(el("h4", null, zone.title));
      if (zone.note) box.appendChild(el("p", "muted", zone.note));
      zone.lines.forEach(function (line) {
        var row = el("div", "line");
        line.forEach(function (card) { row.appendChild(drawCard(card)); });
        box.appendChild(row);
      });
      return box;
    }
    function drawFacts(facts) {
      var list = el("dl", "facts small");
      facts.forEach(function (f) { list.appendChild(el("dt", null, f[0])); list.appendChild(el("dd", null, f[1])); });
      return list;
    }
    function draw() {
      var table = frameAt(view, step);
      board.textContent = "";
      board.appendChild(drawFacts(table.facts));
      var shared = el("div", "zones");
      table.zones.forEach(function (z) { shared.appendChild(drawZone(z)); });
      board.appendChild(shared);
      var seatsBox = el("div", "seats");
      table.seats.forEach(function (panel) {
        var box = el("section", "seat");
        if (panel.turn) box.classList.add("turn");
        if (String(panel.seat) === view) box.classList.add("me");
        box.appendChild(el("h3", null, seatName(panel.seat)));
        box.appendChild(drawFacts(panel.facts));
        panel.zones.forEach(function (z) { box.appendChild(drawZone(z)); });
        seatsBox.appendChild(box);
      });
      board.appendChild(seatsBox);

      var move = data.moves[step];
      moveLine.textContent = "";
      if (move === null) {
        moveLine.textContent = "The deal, before the first action.";
      } else {
        // [seat, action as text, 1 if the match's fallback chose it for a faulted seat]
        moveLine.appendChild(el("strong", null, seatName(move[0])));
        moveLine.appendChild(document.createTextNode(": "));
        moveLine.appendChild(el("span", "action", move[1]));
        if (move[2]) moveLine.appendChild(el("span", "badge bad", "fallback for a faulted seat"));
      }
      alerts.textContent = "";
      data.faults.forEach(function (f) {
        if (f.frame !== step) return;
        var box = el("div", "alert bad");
        box.appendChild(el("strong", null, "Fault: " + f.status + ", " + seatName(f.seat)));
        box.appendChild(el("p", null, f.message));
        if (f.stderr) box.appendChild(el("pre", "stderr", f.stderr));
        alerts.appendChild(box);
      });
      data.notes.forEach(function (n) {
        if (n.frame !== step) return;
        if (view !== "all" && String(n.seat) !== view) return;
        var box = el("div", "alert note");
        box.appendChild(el("strong", null, "Debug note from " + seatName(n.seat)));
        box.appendChild(el("pre", "debug", n.note));
        alerts.appendChild(box);
      });
      eventList.textContent = "";
      data.events[step].forEach(function (pair) {
        var audience = pair[0];
        if (view !== "all" && audience !== -1 && String(audience) !== view) return;
        var item = el("li", audience === -1 ? null : "private", pair[1]);
        if (audience !== -1) item.appendChild(el("span", "muted", " (seen by seat " + audience + " only)"));
        eventList.appendChild(item);
      });
      if (!eventList.children.length) eventList.appendChild(el("li", "muted", "no events"));
      slider.value = String(step);
      label.textContent = "Step " + step + " of " + (steps - 1);
      remember();
    }
    // The address names the step and the point of view (#step=120&seat=2, or seat=all), so a
    // link opens the replay there; moving through the replay replaces it (no history entries).
    function hashFor() { return "#step=" + step + "&seat=" + view; }
    function remember() {
      var hash = hashFor();
      if (permalink) permalink.setAttribute("href", hash);
      if (!location.hash && step === 0 && view === "all") return;  // opened plainly, not moved yet
      if (location.hash !== hash) history.replaceState(null, "", hash);
    }
    function fromHash() {
      var params = {};
      location.hash.replace(/^#/, "").split("&").forEach(function (part) {
        var kv = part.split("=");
        if (kv.length === 2) params[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1]);
      });
      if ("seat" in params && (params.seat === "all" || Object.prototype.hasOwnProperty.call(frames, params.seat))) {
        view = params.seat === "all" ? "all" : String(parseInt(params.seat, 10));
        root.querySelectorAll("input[name=view]").forEach(function (r) { r.checked = r.value === view; });
      }
      if ("step" in params && /^\d+$/.test(params.step)) {
        step = Math.max(0, Math.min(steps - 1, parseInt(params.step, 10)));
      }
    }
    function go(to) {
      step = Math.max(0, Math.min(steps - 1, to));
      draw();
    }
    function toggle() {
      if (timer) { clearInterval(timer); timer = null; playButton.setAttribute("aria-pressed", "false"); return; }
      playButton.setAttribute("aria-pressed", "true");
      timer = setInterval(function () { if (step >= steps - 1) toggle(); else go(step + 1); }, 600);
    }
    function setView(value) {
      if (!(value in frames)) return;
      view = value;
      root.querySelectorAll("input[name=view]").forEach(function (r) { r.checked = r.value === value; });
      draw();
    }
    root.querySelectorAll("[data-go]").forEach(function (button) {
      button.addEventListener("click", function () {
        var what = button.getAttribute("data-go");
        if (what === "first") go(0);
        else if (what === "prev") go(step - 1);
        else if (what === "next") go(step + 1);
        else if (what === "last") go(steps - 1);
        else toggle();
      });
    });
    slider.addEventListener("input", function () { go(parseInt(slider.value, 10)); });
    root.querySelectorAll("input[name=view]").forEach(function (radio) {
      radio.addEventListener("change", function () { if (radio.checked) setView(radio.value); });
    });
    document.addEventListener("keydown", function (event) {
      var target = event.target;
      if (target && (target.tagName === "INPUT" && target.type !== "range" && target.type !== "radio")) return;
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      var handled = true;
      if (event.key === "ArrowRight" || event.key === "ArrowDown" && target === slider) go(step + 1);
      else if (event.key === "ArrowLeft" || event.key === "ArrowUp" && target === slider) go(step - 1);
      else if (event.key === "Home") go(0);
      else if (event.key === "End") go(steps - 1);
      else if (event.key === " " && target.tagName !== "BUTTON") toggle();
      else if (event.key === "0") setView("all");
      else if (/^[1-9]$/.test(event.key)) setView(String(parseInt(event.key, 10) - 1));
      else handled = false;
      if (handled) event.preventDefault();
    });
    // Buttons that jump to the steps with a fault or a debug note (the first few of each).
    var marks = document.getElementById("marks");
    function addMarks(label, items, kind) {
      if (!items.length) return;
      var box = el("p", null, label + ": ");
      items.slice(0, 30).forEach(function (item) {
        var b = el("button", "mark " + kind, String(item.frame));
        b.type = "button";
        b.title = "step " + item.frame + ", " + seatName(item.seat);
        b.addEventListener("click", function () { go(item.frame); });
        box.appendChild(b);
      });
      if (items.length > 30) box.appendChild(el("span", "muted", " and " + (items.length - 30) + " more"));
      marks.appendChild(box);
    }
    if (marks) {
      addMarks("Faults at steps", data.faults, "bad");
      addMarks("Debug notes at steps", data.notes, "note");
    }
    window.addEventListener("hashchange", function () {
      if (location.hash === hashFor()) return;
      fromHash();
      draw();
    });
    fromHash();
    root.setAttribute("data-ready", "true");
    draw();
  }
})();
