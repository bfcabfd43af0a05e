// Sortable tables and the per-page filter. Text is only ever read and moved, never parsed as HTML.
(function () {
  "use strict";
  function cellValue(row, index, kind) {
    var cell = row.cells[index];
    if (!cell) return "";
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    if (kind === "num") { var n = parseFloat(raw); return isNaN(n) ? -Infinity : n; }
    return raw.toLowerCase();
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, index) {
      var button = th.querySelector("button.sort");
      if (!button) return;
      button.addEventListener("click", function () {
        var kind = th.getAttribute("data-kind") || "text";
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a, index, kind), y = cellValue(b, index, kind);
          if (x < y) return ascending ? -1 : 1;
          if (x > y) return ascending ? 1 : -1;
          return 0;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    input.addEventListener("input", function () {
      var needle = input.value.trim().toLowerCase();
      document.querySelectorAll(input.getAttribute("data-filter") + " tbody tr").forEach(function (row) {
        row.hidden = needle !== "" && row.textContent.toLowerCase().indexOf(needle) < 0;
      });
    });
  });
})();
