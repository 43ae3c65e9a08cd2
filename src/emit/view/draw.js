// calltrace view, the drawing half: lays out the precomputed set of nodes
// (a tidy tree for the abstracted tree, top-down or left to right as
// tree_dot.rs decides; layers for the hot graph), colours it (modules,
// temperatures, or differences between two patterns) and draws it as SVG.
// view.js holds the state, the controls and the details panel.
// One script with view.js in the page, so its "use strict" covers this file.

// ---- drawing -------------------------------------------------------------

const measure = document.createElement("canvas").getContext("2d");
measure.font = "10px Helvetica, Arial, sans-serif";

function textWidth(t) {
  return measure.measureText(t).width;
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

/// A drawn node: `{id, title, lines, fill, font, pen, shape, bold, w, h, x, y}`.
function box(id, title, lines, style) {
  const w = Math.max(...[title, ...lines].map(textWidth)) + 16;
  const h = LINE * (1 + lines.length) + 8;
  return Object.assign({ id, title, lines, w, h, x: 0, y: 0 }, style);
}

function drawNode(svg, n, onClick) {
  const g = el("g", { class: n.cls || "node", "data-id": n.id, transform: `translate(${n.x},${n.y})` }, svg);
  el("title", {}, g).textContent = n.title;
  if (n.into !== undefined) g.setAttribute("data-into", n.into);
  if (n.shape === "ellipse") {
    el("ellipse", { cx: n.w / 2, cy: n.h / 2, rx: n.w / 2, ry: n.h / 2, fill: n.fill, stroke: n.stroke || "#333", "stroke-width": n.pen || 1 }, g);
  } else {
    el("rect", { width: n.w, height: n.h, rx: 6, fill: n.fill, stroke: n.stroke || "#333", "stroke-width": n.pen || 1, "stroke-dasharray": n.dash || "" }, g);
  }
  const t = el("text", { x: n.w / 2, y: LINE + 2, fill: n.font || "#000", "font-weight": n.bold ? "bold" : "normal" }, g);
  [n.title, ...n.lines].forEach((line, i) => {
    el("tspan", { x: n.w / 2, dy: i === 0 ? 0 : LINE }, t).textContent = line;
  });
  if (n.more) el("text", { x: n.w - 6, y: n.h - 3, class: "more" }, g).textContent = "+";
  g.addEventListener("click", (ev) => {
    ev.stopPropagation();
    state.select = n.title;
    writeFragment();
    onClick(n);
  });
  return g;
}

/// A curved edge ending in an arrowhead, vertical at both ends (the
/// head is drawn as a path: the page refers to nothing, not even by id).
function arrow(svg, x1, y1, x2, y2, attrs) {
  const my = (y1 + y2) / 2;
  el("path", Object.assign({ d: `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`, class: "edge", stroke: "#555" }, attrs), svg);
  const s = y2 >= y1 ? -1 : 1;
  const fill = (attrs && attrs.stroke) || "#555";
  el("path", { d: `M${x2},${y2} l-4,${7 * s} l8,0 z`, fill, class: "head" }, svg);
}

function newSvg(width, height) {
  const canvas = document.getElementById("canvas");
  canvas.textContent = "";
  return el("svg", { xmlns: SVG, width, height, viewBox: `0 0 ${width} ${height}`, id: "drawing" }, canvas);
}

// ---- the abstracted tree ----------------------------------------------

/// Module fills as tree_dot.rs gives them: the drawn modules, in module
/// order, take the palette's colours.
function moduleFills(rows, table) {
  const used = [...new Set(rows.map((r) => table[r][4]).filter((m) => m >= 0))].sort((a, b) => a - b);
  const fills = new Map();
  used.forEach((m, i) => fills.set(m, PALETTE[i % PALETTE.length]));
  return fills;
}

/// Key of a tree row across patterns: the titles from the top down.
function pathKey(table, r) {
  const parts = [];
  for (let x = r; x >= 0; x = table[x][0]) parts.push(table[x][2]);
  return parts.reverse().join("\u0000");
}

function drawTree(s, p) {
  const table = p.tree.nodes;
  const rows = treeRows(s, p);
  const inSet = new Set(rows);
  const fills = moduleFills(rows, table);
  const rootTotal = Math.max(1, rows.filter((r) => table[r][0] < 0).reduce((a, r) => a + table[r][5], 0));
  const diff = treeDiff(s, rows, table);
  const kids = new Map();
  const tops = [];
  for (const r of rows) {
    const parent = table[r][0];
    if (parent >= 0 && inSet.has(parent)) {
      if (!kids.has(parent)) kids.set(parent, []);
      kids.get(parent).push(r);
    } else tops.push(r);
  }
  const nodes = new Map();
  const merged = mergedChildren(s, p, rows, nodes);
  for (const r of rows) {
    const [, , title, line, module, total, , tip] = table[r];
    const shareOfRoot = total / rootTotal;
    const style = line === ""
      ? { shape: "ellipse", fill: "#ffffff" }
      : { fill: fills.get(module) || "#ffffff", pen: 1 + 4 * shareOfRoot, bold: shareOfRoot >= 0.1 };
    if (diff) Object.assign(style, diff(r));
    const n = box(r, title, line === "" ? [] : [line], style);
    n.tip = tip;
    n.more = collapsed.has(r) && kids.has(r);
    nodes.set(r, n);
  }
  const visible = (r) => (merged.get(r) || []).concat(!collapsed.has(r) ? (kids.get(r) || []) : []);
  const across = wide(tops, kids);
  tidy(tops, visible, nodes, across);
  const shown = [...nodes.values()].filter((n) => n.placed);
  const width = Math.max(...shown.map((n) => n.x + n.w), 0) + 20;
  const height = Math.max(...shown.map((n) => n.y + n.h), 0) + 20;
  const svg = newSvg(width, height);
  for (const n of shown) {
    for (const c of visible(n.id)) {
      const k = nodes.get(c);
      const attrs = k.cls ? { "stroke-dasharray": "4,3" } : {};
      if (across) side(svg, n.x + n.w, n.y + n.h / 2, k.x, k.y + k.h / 2, attrs);
      else arrow(svg, n.x + n.w / 2, n.y + n.h, k.x + k.w / 2, k.y, attrs);
    }
  }
  for (const n of shown) {
    drawNode(svg, n, (m) => (m.cls ? mergedDetails(p, m) : treeDetails(s, p, m, kids, table)));
  }
  return shown.filter((n) => !n.cls).length;
}

/// The functions --merge-modules merged into each expanded node (the
/// fragment's `expand=` titles), as dashed child boxes that are not call
/// nodes of the DOT (class `merged-fn`, not `node`): row to their ids.
function mergedChildren(s, p, rows, nodes) {
  const table = p.tree.nodes;
  const out = new Map();
  for (const r of rows) {
    const [, , title, , , , , , merged] = table[r];
    if (merged < 0 || !s.expand.includes(title)) continue;
    const ids = p.tree.merged[merged].map(([f, line], i) => {
      const id = `${r}.${i}`;
      const n = box(id, p.funcs[f][0], [line], { fill: "#ffffff", dash: "4,3", cls: "merged-fn" });
      Object.assign(n, { func: f, into: title });
      nodes.set(id, n);
      return id;
    });
    out.set(r, ids);
  }
  return out;
}

/// Whether some depth of the tree has more than WIDE_LEVEL nodes.
function wide(tops, kids) {
  const count = [];
  let level = tops;
  while (level.length) {
    count.push(level.length);
    level = level.flatMap((r) => kids.get(r) || []);
  }
  return count.some((c) => c > WIDE_LEVEL);
}

/// A left-to-right edge with its arrowhead.
function side(svg, x1, y1, x2, y2, attrs) {
  const mx = (x1 + x2) / 2;
  el("path", Object.assign({ d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`, class: "edge", stroke: "#555" }, attrs), svg);
  el("path", { d: `M${x2},${y2} l-7,-4 l0,8 z`, fill: "#555", class: "head" }, svg);
}

/// Tidy tree layout, top-down (or left to right when `across`): each
/// subtree is as broad as its children side by side (or its own box), the
/// parent centred on its children.
function tidy(tops, visible, nodes, across) {
  const broad = (n) => (across ? n.h : n.w);
  const long = (n) => (across ? n.w : n.h);
  const gap = across ? 8 : GAP_X;
  const order = [];
  const stack = tops.map((r) => [r, 0]);
  while (stack.length) {
    const [r, depth] = stack.pop();
    const n = nodes.get(r);
    n.depth = depth;
    order.push(r);
    for (const c of visible(r)) stack.push([c, depth + 1]);
  }
  const span = new Map();
  const kidsSpan = (r) => visible(r).reduce((a, c) => a + span.get(c) + gap, -gap);
  for (let i = order.length - 1; i >= 0; i--) {
    const r = order[i];
    span.set(r, Math.max(broad(nodes.get(r)), kidsSpan(r)));
  }
  const level = [];
  for (const r of order) {
    const n = nodes.get(r);
    level[n.depth] = Math.max(level[n.depth] || 0, long(n));
  }
  const at = [10];
  for (let d = 1; d < level.length; d++) at[d] = at[d - 1] + level[d - 1] + GAP_Y;
  const place = (r, from) => {
    const n = nodes.get(r);
    let c = from + (span.get(r) - Math.max(kidsSpan(r), 0)) / 2;
    for (const k of visible(r)) {
      place(k, c);
      c += span.get(k) + gap;
    }
    const mid = from + (span.get(r) - broad(n)) / 2;
    if (across) { n.x = at[n.depth]; n.y = mid; } else { n.x = mid; n.y = at[n.depth]; }
    n.placed = true;
  };
  // Recursion here is as deep as the drawn tree, which the passes bound.
  let from = 10;
  for (const r of tops) {
    place(r, from);
    from += span.get(r) + gap * 2;
  }
}

// ---- the hot graph -------------------------------------------------------

function drawGraph(s, p) {
  const [rows, edgeIds] = graphSets(s, p);
  const G = p.graph;
  const diff = graphDiff(s, p, rows);
  const nodes = new Map();
  for (const r of rows) {
    const [func, label, fill] = G.nodes[r];
    const style = { fill, font: "#ffffff" };
    if (diff) Object.assign(style, diff(r));
    nodes.set(r, box(r, p.funcs[func][0], label.split("\n"), style));
  }
  const edges = edgeIds.map((e) => G.edges[e]);
  const width = layers(rows, edges, nodes);
  const height = Math.max(...[...nodes.values()].map((n) => n.y + n.h), 0) + 20;
  const svg = newSvg(width + 20, height);
  for (const [a, b, label, color, pen] of edges) {
    const from = nodes.get(a);
    const to = nodes.get(b);
    const attrs = { stroke: color, "stroke-width": pen };
    let mx, my;
    if (a === b) {
      el("path", Object.assign({ d: `M${from.x + from.w},${from.y + 8} c30,0 30,${from.h - 16} 0,${from.h - 16}`, class: "edge" }, attrs), svg);
      [mx, my] = [from.x + from.w + 26, from.y + from.h / 2];
    } else {
      const down = to.y > from.y;
      const y1 = down ? from.y + from.h : from.y;
      const y2 = down ? to.y : to.y + to.h;
      arrow(svg, from.x + from.w / 2, y1, to.x + to.w / 2, y2, attrs);
      [mx, my] = [(from.x + from.w / 2 + to.x + to.w / 2) / 2, (y1 + y2) / 2];
    }
    const t = el("text", { x: mx + 4, y: my, class: "edge-label", fill: color }, svg);
    label.split("\n").forEach((line, i) => { el("tspan", { x: mx + 4, dy: i === 0 ? 0 : 11 }, t).textContent = line; });
  }
  for (const n of nodes.values()) drawNode(svg, n, (m) => graphDetails(s, p, m, edges));
  return nodes.size;
}

/// Layered layout: back edges found by a depth-first search are turned
/// around, each node sits one layer below its lowest caller, and each
/// layer is ordered by the mean position of the callers above it.
function layers(rows, edges, nodes) {
  const out = new Map(rows.map((r) => [r, []]));
  const into = new Map(rows.map((r) => [r, 0]));
  for (const [a, b] of edges) if (a !== b) { out.get(a).push(b); into.set(b, into.get(b) + 1); }
  const starts = rows.filter((r) => into.get(r) === 0).concat(rows);
  const colour = new Map();
  const forward = new Map(rows.map((r) => [r, []]));
  for (const s of starts) {
    if (colour.has(s)) continue;
    const stack = [[s, 0]];
    colour.set(s, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const next = out.get(top[0])[top[1]++];
      if (next === undefined) { colour.set(top[0], 2); stack.pop(); continue; }
      if (colour.get(next) === 1) continue; // a back edge: ignored for layering
      forward.get(top[0]).push(next);
      if (!colour.has(next)) { colour.set(next, 1); stack.push([next, 0]); }
    }
  }
  const layer = new Map(rows.map((r) => [r, 0]));
  const indeg = new Map(rows.map((r) => [r, 0]));
  for (const r of rows) for (const b of forward.get(r)) indeg.set(b, indeg.get(b) + 1);
  const queue = rows.filter((r) => indeg.get(r) === 0);
  while (queue.length) {
    const r = queue.shift();
    for (const b of forward.get(r)) {
      layer.set(b, Math.max(layer.get(b), layer.get(r) + 1));
      indeg.set(b, indeg.get(b) - 1);
      if (indeg.get(b) === 0) queue.push(b);
    }
  }
  const byLayer = [];
  for (const r of rows) (byLayer[layer.get(r)] = byLayer[layer.get(r)] || []).push(r);
  const pos = new Map();
  let width = 0;
  let y = 10;
  for (const level of byLayer) {
    if (!level) continue;
    const callers = (r) => rows.filter((a) => forward.get(a).includes(r) && pos.has(a));
    const mean = (r) => { const c = callers(r); return c.length ? c.reduce((s, a) => s + pos.get(a), 0) / c.length : 0; };
    level.sort((a, b) => mean(a) - mean(b));
    let x = 10;
    let h = 0;
    for (const r of level) {
      const n = nodes.get(r);
      n.x = x; n.y = y; n.placed = true;
      pos.set(r, x + n.w / 2);
      x += n.w + GAP_X * 2;
      h = Math.max(h, n.h);
    }
    width = Math.max(width, x);
    y += h + GAP_Y + 10;
  }
  return width;
}

// ---- differences between two patterns ------------------------------------

/// The diff's fill: blue (less), white, red (more), as diff -o diff.dot.
function diverging(t) {
  const v = Math.max(-1, Math.min(1, isFinite(t) ? t : 0));
  const end = v >= 0 ? [0xb2, 0x18, 0x2b] : [0x21, 0x66, 0xac];
  const mix = (e) => Math.round(255 + (e - 255) * Math.abs(v)).toString(16).padStart(2, "0");
  return "#" + end.map(mix).join("");
}

function styleFor(delta, biggest, onlyHere) {
  const t = delta / Math.max(1, biggest);
  const st = { fill: diverging(t), font: Math.abs(t) > 0.6 ? "#ffffff" : "#000000" };
  if (onlyHere) Object.assign(st, { pen: 3, stroke: "#000000" });
  return st;
}

/// Colours by self-time difference against the pattern picked to compare
/// with, or null. A node is matched by its path of titles.
function treeDiff(s, rows, table) {
  if (s.against < 0 || s.against === s.pattern) return null;
  const other = DATA.patterns[s.against].tree.nodes;
  const theirs = new Map();
  for (const r of treeRows(s, DATA.patterns[s.against])) theirs.set(pathKey(other, r), other[r][6]);
  const delta = (r) => table[r][6] - (theirs.get(pathKey(table, r)) || 0);
  const biggest = Math.max(...rows.map((r) => Math.abs(delta(r))), 1);
  return (r) => styleFor(delta(r), biggest, !theirs.has(pathKey(table, r)));
}

function graphDiff(s, p, rows) {
  if (s.against < 0 || s.against === s.pattern) return null;
  const q = DATA.patterns[s.against];
  const theirs = new Map(q.graph.nodes.map((n) => [q.funcs[n[0]][0], n[4]]));
  const name = (r) => p.funcs[p.graph.nodes[r][0]][0];
  const delta = (r) => p.graph.nodes[r][4] - (theirs.get(name(r)) || 0);
  const biggest = Math.max(...rows.map((r) => Math.abs(delta(r))), 1);
  return (r) => styleFor(delta(r), biggest, !theirs.has(name(r)));
}

