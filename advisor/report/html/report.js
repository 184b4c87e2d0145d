/* advisor's interactive report: draws the page from the JSON in #advisor-data.
 *
 * Every piece of text that comes from the data (traffic, templates, file names) enters the
 * DOM through textContent or a data-* attribute, never as markup. Strings handed to plotly
 * (hover texts, box labels) go through plotText, which escapes what plotly would read as its
 * own pseudo-HTML. When every chart is drawn, body[data-ready] is "1"; a failure sets it to
 * "error" and logs to the console.
 */
(function () {
  "use strict";

  var payload = JSON.parse(document.getElementById("advisor-data").textContent);
  var kind = payload.kind;
  var data = payload.data || {};
  var views = data.views || {};
  var app = document.getElementById("app");
  var charts = [];
  var PLOT_CONFIG = {displaylogo: false, responsive: true};
  var COLORS = {fcfs: "#4c78a8", lpm: "#f58518", optimal: "#54a24b"};

  // --- small helpers ------------------------------------------------------------------------

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function add(parent, child) {
    parent.appendChild(child);
    return child;
  }

  function get(obj, path) {
    var parts = path.split(".");
    for (var i = 0; i < parts.length; i++) {
      if (obj === null || obj === undefined || typeof obj !== "object") return undefined;
      obj = obj[parts[i]];
    }
    return obj;
  }

  function present(value) {
    return value !== undefined && value !== null;
  }

  function grouped(n) {
    var sign = n < 0 ? "-" : "";
    var digits = String(Math.abs(Math.round(n)));
    return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function format(value, how) {
    if (!present(value)) return "n/a";
    if (how === "pct") return (value * 100).toFixed(1) + "%";
    if (how === "int") return grouped(value);
    if (how === "float") return Number(value).toFixed(3);
    return String(value);
  }

  // Plotly reads <br>, <b>, <a href> ... in its strings: escape the data's own.
  function plotText(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function wrapped(text, width, lines) {
    var out = [];
    var rows = String(text).split("\n");
    for (var i = 0; i < rows.length && out.length < lines; i++) {
      var row = rows[i];
      if (!row) continue;
      for (var j = 0; j < row.length && out.length < lines; j += width) out.push(row.slice(j, j + width));
    }
    return out.map(plotText).join("<br>");
  }

  function section(title, note) {
    var box = add(app, el("section", "card"));
    add(box, el("h2", null, title));
    if (note) add(box, el("p", "note", note));
    return box;
  }

  function figure(parent, key, value, how, label) {
    var cell = add(parent, el("div", "figure"));
    var number = add(cell, el("div", how === "text" ? "value text" : "value", format(value, how)));
    number.setAttribute("data-key", key);
    number.setAttribute("data-format", how);
    add(cell, el("div", "label", label));
  }

  function table(parent, columns, rows, sortable) {
    // columns: [{title, num}], rows: [[{text, sort}]]
    var wrap = add(parent, el("div", "table-wrap"));
    var t = add(wrap, el("table", sortable ? "sortable" : null));
    var head = add(add(t, el("thead")), el("tr"));
    columns.forEach(function (c, k) {
      var th = add(head, el("th", c.num ? "num" : null, c.title));
      if (sortable) {
        th.setAttribute("data-column", String(k));
        th.setAttribute("title", "sort by " + c.title);
        th.addEventListener("click", function () { sortBy(t, k, !!c.num); });
      }
    });
    var body = add(t, el("tbody"));
    rows.forEach(function (row) {
      var tr = add(body, el("tr"));
      row.forEach(function (cell, k) {
        var td = add(tr, el("td", columns[k].num ? "num" : null, cell.text));
        td.setAttribute("data-sort", String(present(cell.sort) ? cell.sort : cell.text));
      });
    });
    return t;
  }

  function sortBy(t, column, numeric) {
    var body = t.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var up = t.getAttribute("data-sorted") !== column + ":up";
    rows.sort(function (a, b) {
      var x = a.cells[column].getAttribute("data-sort");
      var y = b.cells[column].getAttribute("data-sort");
      var c = numeric ? Number(x) - Number(y) : (x < y ? -1 : (x > y ? 1 : 0));
      return up ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    t.setAttribute("data-sorted", column + (up ? ":up" : ":down"));
    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, k) {
      th.setAttribute("aria-sort", k === column ? (up ? "ascending" : "descending") : "none");
    });
  }

  function chart(parent, traces, layout, className) {
    var div = add(parent, el("div", className || "chart"));
    var base = {margin: {l: 60, r: 20, t: 30, b: 50}, paper_bgcolor: "#ffffff", plot_bgcolor: "#ffffff",
                font: {family: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", size: 12}};
    Object.keys(layout).forEach(function (k) { base[k] = layout[k]; });
    charts.push(Plotly.newPlot(div, traces, base, PLOT_CONFIG));
    return div;
  }

  // --- the page --------------------------------------------------------------------------------

  var TITLES = {report: "Prefix-cache advisory", analysis: "Prefix-cache analysis",
                prescription: "Prefix-cache prescription"};

  function header() {
    var top = add(app, el("header", "top"));
    add(top, el("h1", null, TITLES[kind] || "advisor"));
    var files = kind === "report" ? get(data, "input.traffic") : get(data, "input.files");
    if (files && files.length) add(top, el("p", "inputs", "traffic: " + files.join(", ")));
    if (kind === "report" && present(data.decision)) decision(top);
  }

  function decision(parent) {
    var line = add(parent, el("div", "decision"));
    var badge = add(line, el("span", "badge " + String(data.decision).replace(/[^a-z-]/g, ""), data.decision));
    badge.setAttribute("data-key", "decision");
    badge.setAttribute("data-format", "text");
    add(line, el("span", "engine-label", "engine"));
    var engine = add(line, el("span", "engine", data.engine));
    engine.setAttribute("data-key", "engine");
    engine.setAttribute("data-format", "text");
    var inp = data.input || {};
    add(line, el("span", "deployment", inp.model + " on " + inp.tp + " × " + inp.gpu + ", " +
                 inp.weight_dtype + " weights, " + inp.kv_dtype + " KV, page size " + inp.page_size));
    var reasons = (data.reasons || []);
    if (reasons.length) {
      var list = add(parent, el("ul", "reasons"));
      reasons.forEach(function (r) { add(list, el("li", null, r)); });
    }
    var refusals = data.refusals || [];
    if (refusals.length) {
      add(parent, el("h3", null, "Refusals and conditions"));
      var more = add(parent, el("ul", "reasons"));
      refusals.forEach(function (r) { add(more, el("li", null, r)); });
    }
  }

  function headline() {
    var spec = payload.headline || [];
    var shown = spec.filter(function (s) { return present(get(data, s[0])); });
    if (!shown.length) return;
    var box = section("Headline figures");
    var grid = add(box, el("div", "figures"));
    shown.forEach(function (s) { figure(grid, s[0], get(data, s[0]), s[2], s[1]); });
    if (kind === "report" && data.read_next) add(box, el("p", "note", data.read_next));
    var command = get(data, "rollout.command");
    if (command) {
      add(box, el("h3", null, "Rollout command"));
      add(box, el("pre", "command", command));
    }
  }

  // --- the prefix tree -------------------------------------------------------------------------

  function prefixTree() {
    var tree = views.tree;
    if (!tree || !tree.nodes || !tree.nodes.length) return;
    var kept = tree.token_visits ? (100 * tree.kept_token_visits / tree.token_visits).toFixed(1) : "100.0";
    var box = section("Prefix tree",
      "Each box is a run of tokens the requests share; its width is tokens × requests, its colour the " +
      "share of those token-visits a prefix cache serves ((requests − 1) / requests). Click a box to zoom " +
      "in, the leftmost box to zoom out; hover for the decoded text and the requests that share it. " +
      "Shown: " + grouped(tree.nodes.length) + " of " + grouped(tree.total_nodes) + " nodes, " + kept +
      "% of the token-visits.");
    var namespaces = {};
    tree.nodes.forEach(function (n) { namespaces[n.namespace] = true; });
    var names = Object.keys(namespaces).sort();
    var ids = ["all"], labels = ["all requests"], parents = [""], values = [0], colors = [null], hover = ["all requests"];
    if (names.length > 1) {
      names.forEach(function (name) {
        ids.push("ns:" + name); labels.push(plotText(name)); parents.push("all"); values.push(0);
        colors.push(null); hover.push(plotText(name));
      });
    }
    tree.nodes.forEach(function (n) {
      ids.push("n" + n.id);
      parents.push(n.parent === null ? (names.length > 1 ? "ns:" + n.namespace : "all") : "n" + n.parent);
      values.push(n.tokens * n.requests);
      colors.push(n.reuse);
      var short = n.text.replace(/<\|[a-z_0-9]+\|>/g, " ").replace(/\s+/g, " ").trim();
      labels.push(plotText(short.length > 40 ? short.slice(0, 39) + "…" : short || "(" + n.tokens + " tokens)"));
      hover.push("<b>" + grouped(n.tokens) + " tokens</b> (ending at token " + grouped(n.depth) + "), " +
        grouped(n.requests) + " requests, reuse " + (100 * n.reuse).toFixed(1) + "%<br>" +
        wrapped(n.text, 90, 8) + "<br><i>requests:</i> " + n.labels.map(plotText).join(", ") +
        (n.requests > n.labels.length ? ", …" : ""));
    });
    var overall = present(get(data, "traffic.lcp_hit_rate")) ? data.traffic.lcp_hit_rate : (data.hit_rate || 0);
    colors = colors.map(function (c) { return c === null ? overall : c; });
    var div = chart(box, [{
      type: "icicle", ids: ids, labels: labels, parents: parents, values: values, branchvalues: "remainder",
      hovertext: hover, hoverinfo: "text", textinfo: "label", maxdepth: 8, sort: false,
      marker: {colors: colors, colorscale: "Viridis", cmin: 0, cmax: 1, showscale: true,
               colorbar: {title: {text: "reuse"}, tickformat: ".0%"}},
      tiling: {orientation: "h"}, pathbar: {visible: true}
    }], {height: 560, margin: {l: 10, r: 10, t: 30, b: 10}}, "chart tree");
    div.setAttribute("data-chart", "icicle");
  }

  // --- the divergence explorer -----------------------------------------------------------------

  function divergence() {
    var items = (views.divergence || []).filter(function (d) { return d.pairs && d.pairs.length; });
    if (!items.length) return;
    var box = section("Divergence explorer",
      "Pick a finding: example requests that share the prompt up to the point it names, side by side and " +
      "decoded, the first differing token marked" + (items.some(function (d) { return d.pairs[0].after; })
        ? "; below them, the same requests after the prescribed rewrite." : "."));
    var pick = add(box, el("select", "finding-select"));
    pick.setAttribute("aria-label", "finding");
    items.forEach(function (d, k) {
      var option = add(pick, el("option", null, d.code + " " + d.kind + " at token " + grouped(d.token_offset) +
                                (d.pairs.length > 1 ? " (" + d.pairs.length + " examples)" : "")));
      option.value = String(k);
    });
    var message = add(box, el("p", "note finding-message"));
    var panes = add(box, el("div", "pairs"));
    function show() {
      var d = items[Number(pick.value)];
      message.textContent = d.message;
      while (panes.firstChild) panes.removeChild(panes.firstChild);
      d.pairs.forEach(function (pair, k) {
        var block = add(panes, el("div", "pair"));
        add(block, el("h3", null, "Example " + (k + 1) + ": " + (pair.aligned_from
          ? "the two agree on the " + grouped(pair.a.at - pair.aligned_from) + " tokens before token " +
            grouped(pair.a.at) + ", then part (a difference at token " + grouped(pair.shared_tokens) +
            " parted them first)"
          : "the two share " + grouped(pair.shared_tokens) + " tokens, then part")));
        sideBySide(block, pair.a, pair.b);
        if (pair.after) {
          var same = !pair.after.changed[0] && !pair.after.changed[1];
          add(block, el("h4", null, same ? "After the prescribed rewrite: neither request changes" :
            "After the prescribed rewrite: the same two share " + grouped(pair.after.shared_tokens) + " tokens"));
          sideBySide(block, pair.after.a, pair.after.b);
        }
      });
    }
    pick.addEventListener("change", show);
    show();
  }

  function sideBySide(parent, a, b) {
    var row = add(parent, el("div", "side-by-side"));
    [a, b].forEach(function (s) {
      var col = add(row, el("div", "side"));
      add(col, el("div", "side-label", s.label + " · " + grouped(s.tokens) + " tokens · first difference at token " +
                  grouped(s.at)));
      var pre = add(col, el("pre", "window"));
      add(pre, el("span", "shared", s.before));
      var mark = add(pre, el("mark", "diff"));
      // first_char counts characters (code points), as Python does; JavaScript strings
      // count UTF-16 units, so the token is split into code points first.
      var fc = s.first_char;
      var chars = Array.from(s.token);
      if (fc < chars.length) {
        if (fc > 0) add(mark, document.createTextNode(chars.slice(0, fc).join("")));
        add(mark, el("span", "diff-char", chars[fc]));
        if (fc + 1 < chars.length) add(mark, document.createTextNode(chars.slice(fc + 1).join("")));
      } else {
        mark.textContent = s.token;
      }
      add(pre, el("span", "rest", s.after));
    });
  }

  // --- capacity, engines, tenants --------------------------------------------------------------

  function capacity() {
    var sim = data.simulation;
    if (!sim || !sim.curve || !sim.curve.length) return;
    var after = views.after_fix && views.after_fix.curve;
    var box = section("Capacity curves",
      "Hit rate against the KV pool size (tokens, log scale): FCFS, the cache-aware scheduler (lpm) and the " +
      "optimal eviction bound (an eviction that knows the future), today" +
      (after ? " (solid) and after the prescribed fix (dashed)" : "") + ". The vertical line is this " +
      "deployment's SGLang pool; unlimited capacity gives the figures in the legend.");
    var traces = [];
    function lines(curve, when, dash) {
      ["fcfs", "lpm", "optimal"].forEach(function (policy) {
        var points = curve.filter(function (p) { return p.policy === policy && present(p.capacity_tokens); });
        var unlimited = curve.filter(function (p) { return p.policy === policy && !present(p.capacity_tokens); });
        var tail = unlimited.length ? " (unlimited " + format(unlimited[0].hit_rate, "pct") + ")" : "";
        traces.push({
          type: "scatter", mode: "lines+markers", name: policy + ", " + when + tail,
          x: points.map(function (p) { return p.capacity_tokens; }),
          y: points.map(function (p) { return p.hit_rate; }),
          line: {color: COLORS[policy], dash: dash, width: policy === "optimal" ? 1.5 : 2.5},
          marker: {size: 5},
          hovertemplate: policy + ", " + when + ": %{y:.1%} at %{x:,} tokens<extra></extra>"
        });
      });
    }
    lines(sim.curve, "today", "solid");
    if (after) lines(after, "after the fix", "dash");
    var pool = get(data, "cost.kv_pool_tokens");
    var shapes = [], notes = [];
    if (present(pool)) {
      shapes.push({type: "line", xref: "x", yref: "paper", x0: pool, x1: pool, y0: 0, y1: 1,
                   line: {color: "#888", dash: "dot", width: 1}});
      notes.push({x: Math.log10(pool), y: 1, xref: "x", yref: "paper", text: "SGLang pool " + grouped(pool),
                  showarrow: false, yanchor: "bottom", font: {size: 11, color: "#555"}});
    }
    var div = chart(box, traces, {
      height: 440, xaxis: {type: "log", title: {text: "KV pool (tokens)"}},
      yaxis: {title: {text: "hit rate"}, tickformat: ".0%", rangemode: "tozero"},
      shapes: shapes, annotations: notes, legend: {orientation: "v", x: 1.02, y: 1}
    });
    div.setAttribute("data-chart", "capacity");
  }

  function engines() {
    var cmp = get(data, "simulation.engines");
    if (!cmp || !cmp.setups) return;
    var box = section("Engines side by side",
      "Each engine with its own hit rules, eviction and pool on this deployment (serve mode); hit rate, " +
      "prefill tokens and TTFT with the traffic's " + cmp.arrivals + ", throughput with every request " +
      "arriving at once. Speedup is throughput over no caching's.");
    var cols = [{title: "setup"}, {title: "pool (tokens)", num: true}, {title: "hit rate", num: true},
                {title: "prefill tokens", num: true}, {title: "throughput (tokens/s)", num: true},
                {title: "TTFT p50 (s)", num: true}, {title: "TTFT p90 (s)", num: true},
                {title: "speedup", num: true}, {title: "decode share", num: true}];
    var rows = Object.keys(cmp.setups).map(function (name) {
      var r = cmp.setups[name];
      return [{text: r.label}, {text: grouped(r.pool_tokens), sort: r.pool_tokens},
              {text: format(r.hit_rate, "pct"), sort: r.hit_rate},
              {text: grouped(r.prefill_tokens), sort: r.prefill_tokens},
              {text: grouped(r.throughput_tokens_s), sort: r.throughput_tokens_s},
              {text: Number(r.ttft_p50_s).toFixed(3), sort: r.ttft_p50_s},
              {text: Number(r.ttft_p90_s).toFixed(3), sort: r.ttft_p90_s},
              {text: Number(r.speedup).toFixed(2) + "×", sort: r.speedup},
              {text: format(r.decode_share, "pct"), sort: r.decode_share}];
    });
    table(box, cols, rows, true);
  }

  function tenants() {
    var byName = kind === "report" ? get(data, "traffic.tenants") : data.tenants;
    if (!byName || !Object.keys(byName).length) return;
    var box = section("Tenants", "Click a column header to sort.");
    var atPool = get(data, "simulation.tenants") || {};
    var policies = Object.keys(atPool).sort();
    var cols = [{title: "tenant"}, {title: "requests", num: true}];
    if (kind !== "report") cols.push({title: "prompt tokens", num: true}, {title: "cached tokens", num: true});
    cols.push({title: "hit rate (unlimited)", num: true});
    policies.forEach(function (p) { cols.push({title: "hit rate at the pool, " + p, num: true}); });
    var rows = Object.keys(byName).sort().map(function (name) {
      var t = byName[name];
      var row = [{text: name}, {text: grouped(t.requests), sort: t.requests}];
      if (kind !== "report") {
        row.push({text: grouped(t.prompt_tokens), sort: t.prompt_tokens},
                 {text: grouped(t.cached_tokens), sort: t.cached_tokens});
      }
      row.push({text: format(t.hit_rate, "pct"), sort: t.hit_rate});
      policies.forEach(function (p) {
        var v = atPool[p][name];
        row.push({text: format(v, "pct"), sort: present(v) ? v : -1});
      });
      return row;
    });
    table(box, cols, rows, true).setAttribute("data-table", "tenants");
  }

  // --- findings, actions, lint -----------------------------------------------------------------

  function findings() {
    var list = kind === "report" ? get(data, "traffic.findings") : data.findings;
    if (!list || !list.length) return;
    var box = section("Traffic findings");
    var cols = [{title: "code"}, {title: "rule"}, {title: "kind"}, {title: "token", num: true},
                {title: "requests", num: true}, {title: "tokens lost", num: true}, {title: "message"}];
    table(box, cols, list.map(function (f) {
      return [{text: f.code}, {text: f.rule}, {text: f.kind || ""},
              {text: present(f.token_offset) ? grouped(f.token_offset) : "", sort: present(f.token_offset) ? f.token_offset : -1},
              {text: present(f.requests) ? grouped(f.requests) : "", sort: f.requests || 0},
              {text: present(f.tokens_lost) ? grouped(f.tokens_lost) : "", sort: f.tokens_lost || 0},
              {text: f.message || ""}];
    }), true);
  }

  function actions() {
    var list = kind === "report" ? get(data, "traffic.actions") : data.actions;
    if (!list || !list.length) return;
    var box = section("Prescribed actions", "Measured on this traffic, together and each left out in turn.");
    var cols = [{title: "action"}, {title: "code"}, {title: "description"}, {title: "hit rate after", num: true},
                {title: "tokens gained", num: true}, {title: "requests changed", num: true}];
    table(box, cols, list.map(function (a) {
      return [{text: a.kind}, {text: a.code || ""}, {text: a.description},
              {text: format(a.hit_rate_after, "pct"), sort: a.hit_rate_after},
              {text: grouped(a.tokens_gained), sort: a.tokens_gained},
              {text: grouped(a.requests_changed || 0), sort: a.requests_changed || 0}];
    }), true);
  }

  function diffs() {
    var list = (data.template_diffs || []).filter(function (d) { return d.diff; });
    if (!list.length) return;
    var box = section("Template diffs", "The changes that carry out the prescribed actions in the templates.");
    list.forEach(function (d) {
      add(box, el("h3", null, d.code + " · " + (d.path || "(no template)") + (d.note ? " · " + d.note : "")));
      add(box, el("pre", "diff-text", d.diff));
    });
  }

  function lint() {
    var list = data.lint;
    if (!list || !list.length) return;
    var excerpts = {};
    (views.lint_excerpts || []).forEach(function (e) { excerpts[e.index] = e; });
    var box = section("Template findings", "The linter's findings, each with the template lines around it.");
    list.forEach(function (f, k) {
      var item = add(box, el("div", "lint " + String(f.severity).replace(/[^a-z]/g, "")));
      add(item, el("div", "lint-head", f.code + " " + f.rule + " · " + f.severity + " · " + f.path + ":" + f.line +
                   ":" + f.column + (present(f.tokens_at_risk) ? " · " + grouped(f.tokens_at_risk) + " tokens at risk" : "")));
      add(item, el("div", "lint-message", f.message));
      var e = excerpts[k];
      if (!e) return;
      var pre = add(item, el("pre", "excerpt"));
      e.lines.forEach(function (text, j) {
        var number = e.first_line + j;
        var line = add(pre, el("span", number === e.line ? "line hit" : "line"));
        add(line, el("span", "ln", String(number)));
        add(line, document.createTextNode(text || " "));
      });
    });
  }

  function footer() {
    var tool = data.tool || {};
    add(app, el("footer", null, "advisor " + (tool.version || "") + " · every figure measured on this traffic, " +
                "simulated on it, or derived from the model and GPU catalog"));
  }

  // --- draw ----------------------------------------------------------------------------------

  try {
    header();
    headline();
    prefixTree();
    divergence();
    capacity();
    engines();
    tenants();
    findings();
    actions();
    diffs();
    lint();
    footer();
  } catch (err) {
    document.body.setAttribute("data-ready", "error");
    throw err;
  }
  Promise.all(charts).then(function () {
    document.body.setAttribute("data-charts", String(charts.length));
    document.body.dataset.ready = "1";
  }, function (err) {
    document.body.setAttribute("data-ready", "error");
    console.error("advisor: a chart failed", err);
  });
})();
