// calltrace view: draws what `calltrace abstract` and `calltrace graph`
// draw, for the setting of the controls. Every setting was computed when
// the page was written (src/emit/view/*_states.rs): this script only picks
// the precomputed set of nodes, lays it out (a tidy tree top-down for the
// abstracted tree, layers for the graph) and draws it as SVG. Names go into
// the page as text only, never as markup.
"use strict";

const DATA = JSON.parse(document.getElementById("data").textContent);
const SVG = "http://www.w3.org/2000/svg";
// The module fills of src/emit/graph/tree_dot.rs, in the same order.
const PALETTE = [
  "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
  "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f", "#fbb4ae", "#b3cde3", "#decbe4", "#fed9a6",
  "#ffffcc", "#e5d8bd", "#fddaec", "#f2f2f2", "#b3e2cd", "#fdcdac", "#cbd5e8", "#f4cae4",
  "#e6f5c9", "#fff2ae", "#f1e2cc", "#cccccc",
];
const TG = DATA.tree_grid;
const GG = DATA.graph_grid;
const LINE = 14;
const GAP_X = 14;
const GAP_Y = 44;
// As src/emit/graph/tree_dot.rs: a tree with more nodes than this at one
// depth is drawn left to right.
const WIDE_LEVEL = 12;

// ---- state and the URL fragment ---------------------------------------

function defaults() {
  return {
    command: "abstract", pattern: 0, against: -1,
    threshold: 0, merge: false, fold: false, minTotal: 0, maxNodes: 0, keep: false,
    gMinTotal: GG.min_total_default, gMinEdge: GG.min_edge_default, focus: 0, root: 0,
    search: "", select: "", expand: [], notes: [],
  };
}

let state = defaults();
const collapsed = new Set();

/// A share as a fraction: `0.5%` or `0.005`.
function share(s) {
  const t = String(s).trim();
  return t.endsWith("%") ? parseFloat(t) / 100 : parseFloat(t);
}

/// Index of the value `v` in `list` (shares compared as numbers), or -1.
function indexOfShare(list, v) {
  return list.findIndex((x) => x !== null && Math.abs(share(x) - share(v)) < 1e-9);
}

function decode(s) {
  try { return decodeURIComponent(s.replace(/\+/g, " ")); } catch (e) { return s; }
}

/// The state a fragment such as `command=abstract&threshold=0.9&merge-modules` names.
function parseFragment(hash) {
  const s = defaults();
  const pairs = hash.replace(/^#/, "").split("&").filter((p) => p.length > 0);
  for (const p of pairs) {
    const i = p.indexOf("=");
    const key = decode(i < 0 ? p : p.slice(0, i));
    const value = i < 0 ? null : decode(p.slice(i + 1));
    applyFlag(s, key, value);
  }
  return s;
}

function pick(s, flag, list, value, set) {
  const i = indexOfShare(list, value);
  if (i < 0) s.notes.push(`--${flag} ${value} is not one of the values this page computed: ${list.filter((x) => x !== null).join(", ")}`);
  else set(i);
}

function applyFlag(s, key, value) {
  const graph = s.command === "graph";
  const byName = (list, v) => list.indexOf(v) + 1;
  switch (key) {
    case "command": s.command = value === "graph" ? "graph" : "abstract"; break;
    case "pattern": s.pattern = Math.max(0, DATA.patterns.findIndex((p) => p.name === value)); break;
    case "against": s.against = DATA.patterns.findIndex((p) => p.name === value); break;
    case "view": if (value !== "contexts") s.notes.push("only --view contexts is drawn here"); break;
    case "threshold": pick(s, key, TG.threshold, value, (i) => { s.threshold = i; }); break;
    case "merge-modules": s.merge = true; break;
    case "fold-recursion": s.fold = true; break;
    case "modules": break;
    case "keep": s.keep = TG.keep.length > 0; break;
    case "max-nodes": {
      const i = TG.max_nodes.indexOf(parseInt(value, 10));
      if (i < 0) s.notes.push(`--max-nodes ${value} is not one of ${TG.max_nodes.filter((x) => x !== null).join(", ")}`);
      else s.maxNodes = i;
      break;
    }
    case "min-total":
      if (graph) pick(s, key, GG.min_total, value, (i) => { s.gMinTotal = i; });
      else pick(s, key, TG.min_total, value, (i) => { s.minTotal = i; });
      break;
    case "min-edge": pick(s, key, GG.min_edge, value, (i) => { s.gMinEdge = i; }); break;
    case "focus": s.focus = byName(GG.focus, value); if (!s.focus) s.notes.push(`--focus ${value} was not given to calltrace view`); break;
    case "root": s.root = byName(GG.root, value); if (!s.root) s.notes.push(`--root ${value} was not given to calltrace view`); break;
    case "search": s.search = value || ""; break;
    case "select": s.select = value || ""; break;
    case "expand": if (value) s.expand.push(value); break;
    default: s.notes.push(`unknown flag --${key}`);
  }
}

/// The flags of the state, as `[name, value or null]`, in command-line order.
function flags(s) {
  const f = [];
  if (s.command === "abstract") {
    const method = s.threshold || s.merge || s.fold || s.minTotal || s.maxNodes || s.keep;
    if (method) f.push(["view", "contexts"]);
    if (s.threshold) f.push(["threshold", TG.threshold[s.threshold]]);
    if (s.merge) f.push(["merge-modules", null]);
    if (s.fold) f.push(["fold-recursion", null]);
    if (s.minTotal) f.push(["min-total", TG.min_total[s.minTotal]]);
    if (s.maxNodes) f.push(["max-nodes", String(TG.max_nodes[s.maxNodes])]);
    if (s.keep) for (const k of TG.keep) f.push(["keep", k]);
  } else {
    if (s.gMinTotal !== GG.min_total_default) f.push(["min-total", GG.min_total[s.gMinTotal]]);
    if (s.gMinEdge !== GG.min_edge_default) f.push(["min-edge", GG.min_edge[s.gMinEdge]]);
    if (s.focus) f.push(["focus", GG.focus[s.focus - 1]]);
    if (s.root) f.push(["root", GG.root[s.root - 1]]);
  }
  return f;
}

function fragment(s) {
  const parts = [`command=${s.command}`];
  for (const [k, v] of flags(s)) parts.push(v === null ? k : `${k}=${encodeURIComponent(v)}`);
  if (DATA.patterns.length > 1) parts.push(`pattern=${encodeURIComponent(DATA.patterns[s.pattern].name)}`);
  if (s.against >= 0) parts.push(`against=${encodeURIComponent(DATA.patterns[s.against].name)}`);
  if (s.search) parts.push(`search=${encodeURIComponent(s.search)}`);
  if (s.select) parts.push(`select=${encodeURIComponent(s.select)}`);
  for (const e of s.expand) parts.push(`expand=${encodeURIComponent(e)}`);
  return "#" + parts.join("&");
}

function quote(a) {
  return /^[A-Za-z0-9_\/.,:%=+@-]+$/.test(a) ? a : "'" + a.replace(/'/g, "'\\''") + "'";
}

/// The `calltrace` command line the picture stands for.
function commandLine(s) {
  const p = DATA.patterns[s.pattern];
  const args = ["calltrace", s.command];
  if (DATA.binary !== null) args.push(DATA.binary);
  args.push("--trace", p.trace);
  if (s.command === "abstract") args.push("--modules", TG.modules);
  for (const [k, v] of flags(s)) {
    args.push("--" + k);
    if (v !== null) args.push(v);
  }
  args.push("-o", s.command === "abstract" ? "abstract.dot" : "graph.dot");
  return args.map(quote).join(" ");
}

// ---- the precomputed sets ----------------------------------------------

/// Row numbers set in a base64 bitset.
function bitsOf(b64) {
  const bytes = atob(b64);
  const out = [];
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    for (let b = 0; b < 8; b++) if (c & (1 << b)) out.push(i * 8 + b);
  }
  return out;
}

function treeRows(s, p) {
  const keeps = TG.keep.length > 0 ? 2 : 1;
  let i = s.threshold;
  i = i * 2 + (s.merge ? 1 : 0);
  i = i * 2 + (s.fold ? 1 : 0);
  i = i * TG.min_total.length + s.minTotal;
  i = i * TG.max_nodes.length + s.maxNodes;
  i = i * keeps + (s.keep ? 1 : 0);
  return bitsOf(p.tree.lists[p.tree.states[i]]);
}

function graphSets(s, p) {
  let i = s.gMinTotal;
  i = i * GG.min_edge.length + s.gMinEdge;
  i = i * (GG.focus.length + 1) + s.focus;
  i = i * (GG.root.length + 1) + s.root;
  const [nodes, edges] = p.graph.lists[p.graph.states[i]];
  return [bitsOf(nodes), bitsOf(edges)];
}

// ---- details ---------------------------------------------------------------

function details(title, items) {
  const aside = document.getElementById("details");
  aside.textContent = "";
  const h = document.createElement("h2");
  h.textContent = title;
  aside.appendChild(h);
  const dl = document.createElement("dl");
  for (const [k, v] of items) {
    if (v === "" || v === undefined) continue;
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    if (v instanceof Node) dd.appendChild(v); else dd.textContent = v;
    dl.append(dt, dd);
  }
  aside.appendChild(dl);
  return aside;
}

function shareList(items) {
  const ul = document.createElement("ul");
  for (const [name, pct] of items) {
    const li = document.createElement("li");
    li.textContent = `${pct.toFixed(1)}%  ${name}`;
    ul.appendChild(li);
  }
  return ul;
}

function button(label, onClick) {
  const b = document.createElement("button");
  b.textContent = label;
  b.addEventListener("click", onClick);
  return b;
}

function treeDetails(s, p, n, kids, table) {
  const [, func, title, line, module, total, , tip] = table[n.id];
  const [, loc, perCall] = p.funcs[func];
  const children = (kids.get(n.id) || []).map((c) => [table[c][2], 100 * table[c][5] / Math.max(1, total)]);
  children.sort((a, b) => b[1] - a[1]);
  const aside = details(title, [
    ["chain", tip], ["file:line", loc], ["calls, total, self", line],
    ["per call (every call of the function)", perCall],
    ["module", module >= 0 ? p.tree.modules[module] : ""],
    ["children's shares of its total", children.length ? shareList(children) : ""],
  ]);
  if (kids.has(n.id)) {
    aside.appendChild(button(collapsed.has(n.id) ? "expand subtree" : "collapse subtree", () => {
      if (collapsed.has(n.id)) collapsed.delete(n.id); else collapsed.add(n.id);
      render();
    }));
  }
  const merged = table[n.id][8];
  if (merged >= 0) {
    const into = p.tree.merged[merged].map(([f, l]) => `${p.funcs[f][0]} (${l})`);
    const dt = document.createElement("p");
    dt.textContent = `merged into it (--merge-modules): ${into.join(", ")}`;
    aside.appendChild(dt);
    const open = state.expand.includes(title);
    aside.appendChild(button(open ? "hide merged functions" : "show merged functions", () => {
      state.expand = open ? state.expand.filter((t) => t !== title) : [...state.expand, title];
      writeFragment();
      render();
    }));
  }
  if (s.merge && module >= 0) {
    aside.appendChild(button("expand module (--merge-modules off)", () => {
      state.merge = false;
      state.search = "";
      state.highlightModule = module;
      update();
    }));
  }
}

/// The details of a function merged into a node.
function mergedDetails(p, n) {
  const [name, loc, perCall] = p.funcs[n.func];
  details(name, [
    ["merged into", n.into], ["file:line", loc], ["calls, total, self", n.lines[0]],
    ["per call (every call of the function)", perCall],
  ]);
}

function graphDetails(s, p, n, edges) {
  const [func, label] = p.graph.nodes[n.id];
  const [name, loc, perCall] = p.funcs[func];
  const total = p.graph.nodes[n.id][3];
  const callees = edges.filter((e) => e[0] === n.id && e[1] !== n.id)
    .map((e) => [p.funcs[p.graph.nodes[e[1]][0]][0], 100 * edgeTotal(e, total)]);
  details(name, [
    ["file:line", loc], ["total, self, calls", label.replace(/\n/g, "; ")],
    ["per call", perCall],
    ["callees' shares of its total", callees.length ? shareList(callees) : ""],
  ]);
}

/// An edge's share of its caller, from its label (`25.00%\n3×`).
function edgeTotal(e) {
  const m = /^([0-9.]+)%/.exec(e[2]);
  return m ? parseFloat(m[1]) / 100 : 0;
}

// ---- controls ----------------------------------------------------------------

function control(parent, label, input) {
  const l = document.createElement("label");
  l.append(label, input);
  parent.appendChild(l);
  return input;
}

function select(options, value, onChange) {
  const sel = document.createElement("select");
  options.forEach((o, i) => {
    const opt = document.createElement("option");
    opt.value = i;
    opt.textContent = o;
    sel.appendChild(opt);
  });
  sel.value = value;
  sel.addEventListener("change", () => onChange(parseInt(sel.value, 10)));
  return sel;
}

function checkbox(checked, onChange) {
  const c = document.createElement("input");
  c.type = "checkbox";
  c.checked = checked;
  c.addEventListener("change", () => onChange(c.checked));
  return c;
}

function set(change) {
  return (v) => {
    change(v);
    collapsed.clear();
    state.highlightModule = undefined;
    state.select = "";
    document.getElementById("details").textContent = "";
    update();
  };
}

function buildControls() {
  const bar = document.getElementById("controls");
  bar.textContent = "";
  const s = state;
  const row = (cls) => { const d = document.createElement("div"); d.className = cls; bar.appendChild(d); return d; };
  const top = row("row");
  control(top, "command ", select(["abstract", "graph"], s.command === "graph" ? 1 : 0, set((i) => { s.command = i ? "graph" : "abstract"; })));
  if (DATA.patterns.length > 1) {
    const names = DATA.patterns.map((p) => p.name);
    control(top, "pattern ", select(names, s.pattern, set((i) => { s.pattern = i; })));
    control(top, "compare with ", select(["(none)", ...names], s.against + 1, set((i) => { s.against = i - 1; })));
  }
  const search = control(top, "search ", document.createElement("input"));
  search.type = "search";
  search.value = s.search;
  search.addEventListener("input", () => { s.search = search.value; highlight(); writeFragment(); });
  const f = row("row flags");
  if (s.command === "abstract") {
    const th = control(f, "--threshold ", document.createElement("input"));
    Object.assign(th, { type: "range", min: 0, max: TG.threshold.length - 1, step: 1, value: s.threshold, id: "threshold" });
    const shown = document.createElement("output");
    shown.textContent = s.threshold ? TG.threshold[s.threshold] : "off";
    f.appendChild(shown);
    th.addEventListener("input", () => { shown.textContent = th.value > 0 ? TG.threshold[th.value] : "off"; });
    th.addEventListener("change", () => set((v) => { s.threshold = v; })(parseInt(th.value, 10)));
    control(f, "--merge-modules ", checkbox(s.merge, set((v) => { s.merge = v; })));
    control(f, "--fold-recursion ", checkbox(s.fold, set((v) => { s.fold = v; })));
    control(f, "--min-total ", select(TG.min_total.map((v) => v || "off"), s.minTotal, set((i) => { s.minTotal = i; })));
    control(f, "--max-nodes ", select(TG.max_nodes.map((v) => (v === null ? "off" : String(v))), s.maxNodes, set((i) => { s.maxNodes = i; })));
    if (TG.keep.length) control(f, `--keep ${TG.keep.join(" ")} `, checkbox(s.keep, set((v) => { s.keep = v; })));
  } else {
    control(f, "--min-total ", select(GG.min_total, s.gMinTotal, set((i) => { s.gMinTotal = i; })));
    control(f, "--min-edge ", select(GG.min_edge, s.gMinEdge, set((i) => { s.gMinEdge = i; })));
    if (GG.focus.length) control(f, "--focus ", select(["(none)", ...GG.focus], s.focus, set((i) => { s.focus = i; })));
    if (GG.root.length) control(f, "--root ", select(["(none)", ...GG.root], s.root, set((i) => { s.root = i; })));
  }
  const cmd = row("row command");
  const code = document.createElement("code");
  code.id = "command";
  code.textContent = commandLine(s);
  cmd.appendChild(code);
  const copy = button("copy", () => { if (navigator.clipboard) navigator.clipboard.writeText(code.textContent); });
  cmd.appendChild(copy);
  const status = row("row status");
  status.id = "status";
  for (const n of s.notes) {
    const d = document.createElement("div");
    d.className = "note";
    d.textContent = n;
    status.appendChild(d);
  }
}

/// Marks the nodes whose title contains the search text (or whose module
/// was just expanded).
function highlight() {
  const q = state.search.toLowerCase();
  const p = DATA.patterns[state.pattern];
  let count = 0;
  for (const g of document.querySelectorAll("g.node")) {
    const title = g.querySelector("title").textContent.toLowerCase();
    const id = parseInt(g.getAttribute("data-id"), 10);
    const module = state.command === "abstract" ? p.tree.nodes[id][4] : -2;
    const hit = (q !== "" && title.includes(q)) || (state.highlightModule !== undefined && module === state.highlightModule);
    g.classList.toggle("match", hit);
    if (hit) count++;
  }
  const status = document.getElementById("found");
  if (status) status.textContent = q || state.highlightModule !== undefined ? `${count} matching` : "";
}

function writeFragment() {
  const f = fragment(state);
  if (location.hash === f) return;
  try {
    history.replaceState(null, "", f);
  } catch (e) {
    location.hash = f; // where a browser refuses replaceState on file://
  }
}

function render() {
  const p = DATA.patterns[state.pattern];
  const began = performance.now();
  const drawn = state.command === "abstract" ? drawTree(state, p) : drawGraph(state, p);
  const ms = performance.now() - began;
  const status = document.getElementById("status");
  const info = document.createElement("div");
  info.id = "found";
  status.querySelectorAll("#found, #count").forEach((e) => e.remove());
  const count = document.createElement("div");
  count.id = "count";
  count.textContent = `${drawn} nodes drawn in ${ms.toFixed(0)} ms`;
  count.setAttribute("data-ms", ms.toFixed(1));
  // Since the page began to load: reading the data included.
  count.setAttribute("data-since-load", performance.now().toFixed(1));
  status.append(count, info);
  highlight();
}

function update() {
  state.notes = [];
  buildControls();
  writeFragment();
  render();
}

/// Opens the details of the first node titled as the fragment's `select`.
function selectNode() {
  if (!state.select) return;
  for (const g of document.querySelectorAll("g.node")) {
    if (g.querySelector("title").textContent === state.select) {
      g.dispatchEvent(new MouseEvent("click"));
      return;
    }
  }
}

function start() {
  state = parseFragment(location.hash);
  buildControls();
  render();
  selectNode();
}

window.addEventListener("hashchange", () => {
  if (location.hash !== fragment(state)) { collapsed.clear(); start(); }
});
// draw.js follows this file in the page: start once both have run.
document.addEventListener("DOMContentLoaded", start);
