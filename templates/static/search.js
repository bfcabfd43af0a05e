// Search over every match of the league: loads the index (matches/search/*.js, written by the
// site build) with script elements, which also work from a folder opened from disk, and
// filters it here. Every string from the index is put in the page with textContent.
(function () {
  "use strict";
  var box = document.getElementById("search");
  if (!box) return;
  var form = document.getElementById("search-form");
  var input = document.getElementById("search-q");
  var status = document.getElementById("search-status");
  var results = document.getElementById("search-results");
  var root = box.getAttribute("data-root") || "";
  var chunks = parseInt(box.getAttribute("data-chunks"), 10) || 0;
  var size = parseInt(box.getAttribute("data-chunk"), 10) || 1000;
  // results to a page (data-page overrides it, for the tests)
  function pageSize() { return parseInt(box.getAttribute("data-page"), 10) || 50; }
  var meta = null, rows = [], loaded = 0, loading = false, pending = null, page = 0, found = [];

  window.arenaSearchBots = function (value) { meta = value; };
  window.arenaSearchChunk = function (value) {
    var k = value[0];
    value[1].forEach(function (row, i) { rows[k * size + i] = row; });
  };
  function load(done) {
    if (loaded === chunks + 1) { done(); return; }
    pending = done;
    if (loading) return;
    loading = true;
    status.textContent = "Loading the index of every match…";
    var names = ["bots.js"];
    for (var k = 0; k < chunks; k++) names.push("chunk-" + k + ".js");
    names.forEach(function (name) {
      var s = document.createElement("script");
      s.src = root + "matches/search/" + name;
      s.onload = function () { loaded++; if (loaded === names.length && pending) { var p = pending; pending = null; p(); } };
      s.onerror = function () { status.textContent = "The search index could not be loaded (" + name + ")."; };
      document.body.appendChild(s);
    });
  }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function bot(id) { return meta.bots[String(id)] || ["bot " + id, ""]; }
  // What a row can be found by: lower-case words and phrases, joined.
  function haystack(row) {
    var g = typeof row[2] === "number" ? row[2] : -1;
    var parts = [row[1], "batch " + row[3], "#" + row[0]];
    if (g >= 0) { parts.push(meta.games[g], meta.titles[g]); } else { parts.push(String(row[2])); }
    row[4].forEach(function (id) { var b = bot(id); parts.push(b[0], b[1]); });
    if (row[7].length) parts.push("fault faulted");
    row[8].forEach(function (k) { parts.push(k); });
    return parts.join("\u0000").toLowerCase();
  }
  function search(query) {
    var words = query.toLowerCase().trim().split(/\s+/).filter(Boolean);
    // "batch 3" is one word for the search
    var terms = [];
    for (var i = 0; i < words.length; i++) {
      if (words[i] === "batch" && i + 1 < words.length && /^\d+$/.test(words[i + 1])) {
        terms.push({ batch: parseInt(words[i + 1], 10) }); i++;
      } else terms.push(words[i]);
    }
    var out = [];
    for (var r = rows.length - 1; r >= 0; r--) {
      var row = rows[r];
      if (!row) continue;
      var hay = null, ok = true;
      for (var t = 0; t < terms.length && ok; t++) {
        if (typeof terms[t] === "object") { ok = row[3] === terms[t].batch; continue; }
        if (hay === null) hay = haystack(row);
        ok = hay.indexOf(terms[t]) >= 0;
      }
      if (ok) out.push(row);
    }
    return out;
  }
  function pagePath(row) {
    return root + "matches/m/" + (row[9] ? row[9] : row[1]) + ".html";
  }
  function drawRow(row) {
    var tr = el("tr", row[7].length ? "faulted" : null);
    tr.appendChild(el("td", null, row[0]));
    var g = typeof row[2] === "number" ? meta.titles[row[2]] : String(row[2]);
    tr.appendChild(el("td", null, g));
    tr.appendChild(el("td", null, row[3]));
    var cell = el("td"), list = el("ol", "places");
    var seats = row[5].map(function (rank, seat) { return [rank, seat]; });
    seats.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    seats.forEach(function (pair) {
      var seat = pair[1], b = bot(row[4][seat]);
      var li = el("li");
      li.appendChild(el("span", "place", pair[0]));
      li.appendChild(document.createTextNode(" "));
      var a = el("a", "bot", b[0]);
      a.href = root + "bots/" + Number(row[4][seat]) + ".html";
      li.appendChild(a);
      if (b[1]) li.appendChild(el("span", "muted version", " " + b[1]));
      var score = row[6][seat];
      var phases = row[10];
      var note = phases ? " (" + phases[seat] + " phase" + (phases[seat] === 1 ? "" : "s") + ", " + score + " pts)" : " (" + score + ")";
      li.appendChild(el("span", "muted", note));
      if (row[7].indexOf(seat) >= 0) { li.appendChild(document.createTextNode(" ")); li.appendChild(el("span", "badge bad", "fault")); }
      list.appendChild(li);
    });
    cell.appendChild(list);
    tr.appendChild(cell);
    tr.appendChild(el("td", null, row[8].length ? row[8].join(", ") : "–"));
    var link = el("a", null, row[1]);
    link.href = pagePath(row);
    var td = el("td");
    td.appendChild(link);
    tr.appendChild(td);
    return tr;
  }
  function pager() {
    var nav = el("nav", "pager");
    nav.setAttribute("aria-label", "Pages of results");
    var pages = Math.max(1, Math.ceil(found.length / pageSize()));
    function button(label, to, rel) {
      var b = el("button", "page", label);
      b.type = "button";
      b.setAttribute("data-page", rel);
      b.disabled = to < 0 || to >= pages || to === page;
      b.addEventListener("click", function () { page = to; show(); });
      nav.appendChild(b);
    }
    button("← newer", page - 1, "prev");
    nav.appendChild(el("span", "muted", " page " + (page + 1) + " of " + pages + " "));
    button("older →", page + 1, "next");
    return nav;
  }
  function show() {
    results.textContent = "";
    var query = input.value.trim();
    if (!query) { status.textContent = ""; return; }
    status.textContent = found.length + " match" + (found.length === 1 ? "" : "es") + " found among " + rows.filter(Boolean).length + ".";
    if (!found.length) return;
    var paged = found.length > pageSize();
    if (paged) results.appendChild(pager());
    var wrap = el("div", "scroll");
    var table = el("table", "matches search-results");
    var head = el("thead"), hr = el("tr");
    ["#", "Game", "Batch", "Places (1st first)", "Faults", "Match"].forEach(function (h) {
      var th = el("th", null, h); th.scope = "col"; hr.appendChild(th);
    });
    head.appendChild(hr);
    table.appendChild(head);
    var body = el("tbody");
    found.slice(page * pageSize(), (page + 1) * pageSize()).forEach(function (row) { body.appendChild(drawRow(row)); });
    table.appendChild(body);
    wrap.appendChild(table);
    results.appendChild(wrap);
    if (paged) results.appendChild(pager());
  }
  function run() {
    var query = input.value;
    var hash = query.trim() ? "#q=" + encodeURIComponent(query.trim()) : "#search";
    if (location.hash !== hash) history.replaceState(null, "", hash);
    if (!query.trim()) { found = []; show(); return; }
    load(function () { page = 0; found = search(query); show(); });
  }
  form.addEventListener("submit", function (event) { event.preventDefault(); run(); });
  var timer = null;
  input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 200); });
  var m = /^#q=(.*)$/.exec(location.hash);
  if (m) { input.value = decodeURIComponent(m[1]); run(); }
  box.setAttribute("data-ready", "true");
})();
