// Filtering and sorting only: the report reads completely without this script.
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");

  function cellKey(row, index, numeric) {
    var cell = row.cells[index];
    var text = cell ? (cell.getAttribute("data-value") || cell.textContent) : "";
    if (!numeric) {
      return text.trim().toLowerCase();
    }
    var number = parseFloat(text.replace(/[^0-9.\-]/g, ""));
    return isNaN(number) ? -1 : number;
  }

  function sortTable(table, index, numeric, head) {
    var body = table.tBodies[0];
    var descending = head.getAttribute("aria-sort") !== "descending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellKey(a, index, numeric);
      var y = cellKey(b, index, numeric);
      var order = x < y ? -1 : x > y ? 1 : 0;
      return descending ? -order : order;
    });
    Array.prototype.forEach.call(head.parentNode.cells, function (cell) {
      cell.removeAttribute("aria-sort");
    });
    head.setAttribute("aria-sort", descending ? "descending" : "ascending");
    rows.forEach(function (row) { body.appendChild(row); });
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (head, index) {
      var kind = head.getAttribute("data-sort");
      if (!kind) {
        return;
      }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.textContent = head.textContent;
      button.title = "Sort by this column";
      head.textContent = "";
      head.appendChild(button);
      button.addEventListener("click", function () {
        sortTable(table, index, kind === "num", head);
      });
    });
  });

  var problems = document.getElementById("problems");
  var groups = problems ? problems.querySelectorAll("details.group") : [];
  if (groups.length) {
    var controls = document.createElement("div");
    controls.className = "controls";
    var search = document.createElement("input");
    search.type = "search";
    search.placeholder = "Filter by URL, code or text\u2026";
    search.setAttribute("aria-label", "Filter the problem URLs");
    controls.appendChild(search);
    var shown = {};
    ["error", "warning", "notice"].forEach(function (severity) {
      var label = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox";
      box.checked = true;
      box.addEventListener("change", function () {
        shown[severity] = box.checked;
        apply();
      });
      shown[severity] = true;
      label.appendChild(box);
      label.appendChild(document.createTextNode(" " + severity + "s"));
      controls.appendChild(label);
    });
    var indexability = document.createElement("select");
    indexability.setAttribute("aria-label", "Filter by indexability");
    [["", "Any indexability"], ["not_indexable", "Not indexable"], ["indexable", "Indexable"],
     ["not_checked", "Not checked"]].forEach(function (pair) {
      var option = document.createElement("option");
      option.value = pair[0];
      option.textContent = pair[1];
      indexability.appendChild(option);
    });
    indexability.addEventListener("change", function () { apply(); });
    controls.appendChild(indexability);
    [["Expand all", true], ["Collapse all", false]].forEach(function (pair) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = pair[0];
      button.addEventListener("click", function () {
        groups.forEach(function (group) { group.open = pair[1]; });
      });
      controls.appendChild(button);
    });
    var count = document.createElement("span");
    count.className = "muted small";
    controls.appendChild(count);
    problems.insertBefore(controls, problems.querySelector(".groups"));

    var apply = function () {
      var query = search.value.trim().toLowerCase();
      var verdict = indexability.value;
      var visible = 0;
      groups.forEach(function (group) {
        var own = group.querySelector("summary").textContent.toLowerCase().indexOf(query) >= 0;
        var matches = 0;
        group.querySelectorAll("tbody tr").forEach(function (row) {
          var hit = !query || own || row.textContent.toLowerCase().indexOf(query) >= 0;
          hit = hit && (!verdict || row.getAttribute("data-indexability") === verdict);
          row.classList.toggle("hidden", !hit);
          matches += hit ? 1 : 0;
        });
        var filtered = query || verdict;
        var show = shown[group.getAttribute("data-severity")] && (!filtered || (!verdict && own) || matches > 0);
        group.classList.toggle("hidden", !show);
        if (show && filtered && matches) {
          group.open = true;
        }
        visible += show ? 1 : 0;
      });
      count.textContent = visible + " of " + groups.length + " codes shown";
    };
    search.addEventListener("input", apply);
    apply();
  }

  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (details) { details.open = true; });
  });
})();
