/* stockdesk web UI glue: no business logic here, only browser wiring the server's HTML asks for. */
(function () {
  "use strict";
  // Symbol autocomplete: an <input data-suggest="/symbols/suggest"> gets a <datalist> filled as you type.
  // A field of several symbols (data-suggest-multi) asks for the one being typed, after the last comma
  // or space, and each suggestion keeps the symbols before it.
  var SEPARATED = /^(.*[,\s\uFF0C])([^,\s\uFF0C]*)$/;
  function typedToken(input) {
    var text = input.value;
    if (!input.hasAttribute("data-suggest-multi")) return { before: "", token: text };
    var parts = text.match(SEPARATED);
    return parts ? { before: parts[1], token: parts[2] } : { before: "", token: text };
  }
  function wireSuggest(root) {
    root.querySelectorAll("input[data-suggest]:not([data-wired])").forEach(function (input) {
      input.setAttribute("data-wired", "1");
      var list = document.getElementById(input.getAttribute("list"));
      var timer = null;
      input.addEventListener("input", function () {
        clearTimeout(timer);
        timer = setTimeout(function () {
          var typed = typedToken(input);
          if (!typed.token.trim()) { if (list) list.innerHTML = ""; return; }
          var url = input.getAttribute("data-suggest") + "?q=" + encodeURIComponent(typed.token);
          fetch(url, { headers: { Accept: "application/json" } })
            .then(function (r) { return r.ok ? r.json() : []; })
            .then(function (items) {
              if (!list) return;
              list.innerHTML = "";
              items.forEach(function (item) {
                var option = document.createElement("option");
                option.value = typed.before + item.symbol;
                option.label = item.label;
                list.appendChild(option);
              });
            })
            .catch(function () {});
        }, 150);
      });
    });
  }
  // A family choice (<select data-family-switch>) shows the fieldset of the chosen family only
  // (<fieldset data-family="...">, in the same form); the server reads the chosen family's fields.
  function wireFamilySwitch(root) {
    root.querySelectorAll("select[data-family-switch]:not([data-wired])").forEach(function (select) {
      select.setAttribute("data-wired", "1");
      function show() {
        select.form.querySelectorAll("fieldset[data-family]").forEach(function (set) {
          set.hidden = set.getAttribute("data-family") !== select.value;
        });
      }
      select.addEventListener("change", show);
      show();
    });
  }
  function wire(root) {
    wireSuggest(root);
    wireFamilySwitch(root);
    if (window.StockdeskCharts) window.StockdeskCharts.renderAll(root);
  }
  document.addEventListener("DOMContentLoaded", function () { wire(document); });
  document.addEventListener("htmx:afterSettle", function (event) { wire(event.target || document); });
  // An SSE stream that ended with `done` asks the page to show its final state (a full reload of the URL
  // the server names in data-done-url), so the finished page is the same as a fresh visit.
  document.addEventListener("htmx:sseMessage", function (event) {
    var source = event.target && event.target.closest ? event.target.closest("[data-done-url]") : null;
    if (source && event.detail && event.detail.type === "done") {
      window.location.assign(source.getAttribute("data-done-url"));
    }
  });
})();
