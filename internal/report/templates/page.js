(function () {
  var root = document.currentScript && document.currentScript.closest(".lb-run");
  if (!root) return;
  // Sort the All measurements table by the clicked column: numbers by data-v ("—"
  // last), text by the locale's order; a second click reverses.
  root.querySelectorAll("table.lb-sortable").forEach(function (table) {
    var hint = root.querySelector(".lb-sort-hint");
    if (hint) hint.hidden = false;
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.tabIndex = 0;
      th.classList.add("lb-sort");
      function sort() {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.forEach(function (r, i) { r._i = i; });
        rows.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col];
          var xv = x.getAttribute("data-v"), yv = y.getAttribute("data-v");
          var c;
          if (th.classList.contains("lb-num")) {
            if (xv === null || yv === null) return xv === yv ? a._i - b._i : (xv === null ? 1 : -1);
            c = parseFloat(xv) - parseFloat(yv);
          } else {
            c = x.textContent.localeCompare(y.textContent);
          }
          return (asc ? c : -c) || a._i - b._i;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });
  // Copy the launch command. Where the browser refuses (no permission, no secure
  // context, an old browser), say so and select the command for the reader to copy.
  root.querySelectorAll(".lb-copy").forEach(function (btn) {
    btn.hidden = false;
    var label = btn.textContent;
    var status = btn.parentNode.querySelector(".lb-copy-status");
    var code = btn.parentNode.querySelector("code");
    var say = function (text) { if (status) status.textContent = text; };
    var done = function () { say(""); btn.textContent = btn.getAttribute("data-copied"); setTimeout(function () { btn.textContent = label; }, 1500); };
    var refused = function () {
      var range = document.createRange();
      range.selectNodeContents(code);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      say(btn.getAttribute("data-refused"));
    };
    var legacy = function (text) {
      var ta = document.createElement("textarea");
      ta.value = text; document.body.appendChild(ta); ta.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) {}
      ta.remove();
      if (ok) done(); else refused();
    };
    btn.addEventListener("click", function () {
      var text = code.textContent;
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, refused);
      } else {
        legacy(text);
      }
    });
  });
})();
