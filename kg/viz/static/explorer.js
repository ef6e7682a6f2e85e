// paperkg explorer: draws the embedded view payload with sigma.js and wires search, legend, filters
// and the details panel.  Every datum reaches the page through textContent or a checked href, never
// through HTML parsing, because abstracts and names are untrusted text.
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("kg-data").textContent);
  const { Graph, Sigma, NodePointProgram, drawDiscNodeHover, drawDiscNodeLabel } = KGVendor;
  const LABELS = data.labels;
  const ENTITY = new Set(LABELS.filter((l) => l !== "Paper" && l !== "Bound"));
  const VEIL = "rgba(255, 255, 255, 0.82)";  // over the whole graph while a node is in focus
  const FOCUS_EDGE = "#7a8394";
  const EDGE = "#c5cad3";

  // Nodes are GL points (one vertex each, no instancing): Chromium's software WebGL (SwiftShader)
  // draws instanced shapes one instance at a time, about 15x slower than 10k points.  A point
  // sprite is a square already, so squares just fill it; the same shader serves picking.
  const SQUARE_FRAGMENT = `precision mediump float;
varying vec4 v_color;
varying float v_border;
void main(void) { gl_FragColor = v_color; }
`;
  class NodeSquareProgram extends NodePointProgram {
    getDefinition() {
      return { ...super.getDefinition(), FRAGMENT_SHADER_SOURCE: SQUARE_FRAGMENT };
    }
  }

  const nodes = data.nodes.map((r, i) => ({
    i, id: r[0], label: LABELS[r[1]], name: r[2], x: r[3], y: r[4], support: r[5],
    y0: r[6], y1: r[7], aliases: r[8], papers: r[9], props: r[10], community: r.length > 11 ? r[11] : null,
  }));
  // a community view (kg view --by community): nodes take their community's colour, not their type's
  const GROUPS = data.communities || null;
  const PALETTE = ["#4C8EDA", "#F79767", "#57C7E3", "#F16667", "#8DCC93", "#C990C0", "#FFC454", "#DA7194",
    "#569480", "#A5ABB6", "#ECB5C9", "#6DCE9E", "#FF756E", "#D9C8AE", "#68BDF6", "#B28DFF"];
  const colourOf = (n) => (GROUPS ? PALETTE[n.community % PALETTE.length] : data.style[n.label].color);
  const edges = data.edges.map((r, i) => ({
    i, s: r[0], t: r[1], type: data.edgeTypes[r[2]], support: r[3], total: r[4], evidence: r[5],
  }));
  const incident = nodes.map(() => []);
  for (const e of edges) { incident[e.s].push(e); incident[e.t].push(e); }

  const years = nodes.flatMap((n) => (n.y0 === null ? [] : [n.y0, n.y1]));
  const yearMin = years.length ? Math.min(...years) : null;
  const yearMax = years.length ? Math.max(...years) : null;

  const state = {
    hiddenTypes: new Set(), yearLo: yearMin, yearHi: yearMax, minSupport: 1, topN: nodes.length,
    ego: null, selected: null, hovered: null,
    edgesDrawn: 0, focused: null,  // what the edge and focus layers last drew (for tests and benches)
  };

  // ---- graph and renderer ------------------------------------------------------------------
  const graph = new Graph({ type: "directed", allowSelfLoops: false });
  for (const n of nodes) {
    graph.addNode(String(n.i), {
      x: n.x, y: n.y, label: short(n.label === "Bound" ? boundText(n) : n.name), color: colourOf(n),
      size: 2.5 + 1.6 * Math.log2(1 + Math.max(n.support, incident[n.i].length / 4)),
      type: data.style[n.label].shape === "square" ? "square" : "circle",
    });
  }
  // Edges are not given to sigma: the edge layer below draws them (see drawEdges).

  function visible(n) {
    if (state.ego) return state.ego.has(n.i) && !state.hiddenTypes.has(n.label);
    if (state.hiddenTypes.has(n.label) || n.i >= state.topN) return false;
    if (ENTITY.has(n.label) && n.support < state.minSupport) return false;
    if (yearMin !== null && (state.yearLo > yearMin || state.yearHi < yearMax)) {
      if (n.y0 === null || n.y1 < state.yearLo || n.y0 > state.yearHi) return false;
    }
    return true;
  }
  const shown = new Uint8Array(nodes.length);
  let shownCount = 0;
  // visibility is settled before sigma exists, so its first render is the final one
  function applyFilters() {
    shownCount = 0;
    for (const n of nodes) { shown[n.i] = visible(n) ? 1 : 0; shownCount += shown[n.i]; }
  }
  state.selected = data.view.centre;
  applyFilters();

  const sigma = new Sigma(graph, document.getElementById("graph"), {
    nodeProgramClasses: { circle: NodePointProgram, square: NodeSquareProgram },
    // While the user drags or zooms a large view, skip what costs most per frame.  sigma draws no
    // edges here, but this setting also makes it render once more when a drag ends (drawEdges).
    hideEdgesOnMove: edges.length > 5000,
    hideLabelsOnMove: nodes.length > 2000,
    labelRenderedSizeThreshold: nodes.length < 1000 ? 0 : 7,
    // The reducer only applies the filters; focus is drawn on its own layer (drawFocus) so that
    // hovering never re-processes or re-draws the whole graph.  sigma hands reducers a copy.
    nodeReducer: (key, attrs) => {
      if (!shown[Number(key)]) attrs.hidden = true;
      return attrs;
    },
  });

  // sigma sizes its layers when the window resizes; layers added after its first render are sized
  // here once, like its labels layer (device pixels, drawn in CSS pixels)
  function addLayer(id, where) {
    sigma.createCanvasContext(id, where);
    const canvases = sigma.getCanvases();
    const layer = canvases[id], like = canvases.labels;
    layer.width = like.width; layer.height = like.height;
    layer.style.width = like.style.width; layer.style.height = like.style.height;
    const context = layer.getContext("2d");
    context.scale(like.width / sigma.getDimensions().width, like.height / sigma.getDimensions().height);
    return context;
  }
  function fillNode(context, p) {
    context.fillStyle = p.color;
    context.beginPath();
    if (p.type === "square") context.rect(p.x - p.size, p.y - p.size, 2 * p.size, 2 * p.size);
    else context.arc(p.x, p.y, p.size, 0, 2 * Math.PI);
    context.fill();
  }

  // ---- edge layer: every shown edge as one 2D-canvas path, under the nodes ---------------------
  // Chromium's software WebGL rasterises GL lines about 10x slower than a 2D canvas strokes the
  // same 30k segments, so sigma gets the nodes only and this layer draws the edges after each
  // render, except while the camera moves in a large view (as sigma's hideEdgesOnMove would).
  const edgeContext = addLayer("edgeLines", { beforeLayer: "nodes" });
  sigma.getCanvases().edges.style.display = "none";  // sigma's WebGL edge layer stays empty: not composited
  const viewX = new Float32Array(nodes.length);
  const viewY = new Float32Array(nodes.length);
  function moving() {
    // the test sigma's own render uses to hide edges and labels
    const mouse = sigma.getMouseCaptor();
    return sigma.getCamera().isAnimated() || mouse.isMoving || mouse.draggedEvents > 0 || !!mouse.currentWheelDirection;
  }
  function drawEdges() {
    const hide = sigma.getSetting("hideEdgesOnMove") && moving();
    if (hide && state.edgesDrawn === 0) return;  // a blank layer left alone is not re-composited
    const { width, height } = sigma.getDimensions();
    edgeContext.clearRect(0, 0, width, height);
    state.edgesDrawn = 0;
    if (hide) return;
    for (const n of nodes) {
      if (!shown[n.i]) continue;
      const p = sigma.framedGraphToViewport(sigma.getNodeDisplayData(String(n.i)));
      viewX[n.i] = p.x; viewY[n.i] = p.y;
    }
    edgeContext.strokeStyle = EDGE;
    edgeContext.lineWidth = 1;
    edgeContext.beginPath();
    for (const e of edges) {
      if (!shown[e.s] || !shown[e.t]) continue;
      edgeContext.moveTo(viewX[e.s], viewY[e.s]);
      edgeContext.lineTo(viewX[e.t], viewY[e.t]);
      state.edgesDrawn += 1;
    }
    edgeContext.stroke();
  }

  // ---- focus layer: the hovered or selected node's neighbourhood over a veil -------------------
  // A 2D canvas between sigma's labels and its hover layer: the veil dims every node, edge and
  // label below it, then the neighbourhood is drawn again on top.  Its cost is the neighbourhood's
  // size, so hovering a node in a 10k-node view costs the same as in a 10-node one.
  const focusContext = addLayer("focus", { afterLayer: "labels" });
  const focus = () => state.hovered ?? state.selected;
  function drawFocus() {
    const f = focus();
    const none = f === null || !shown[f];
    if (none && state.focused === null) return;  // already blank
    const { width, height } = sigma.getDimensions();
    focusContext.clearRect(0, 0, width, height);
    state.focused = null;
    if (none) return;
    const settings = sigma.getSettings();
    const at = (i) => {
      const d = sigma.getNodeDisplayData(String(i));
      return { ...d, ...sigma.framedGraphToViewport(d), size: sigma.scaleSize(d.size) };
    };
    const centre = at(f);
    const around = new Map();
    focusContext.fillStyle = VEIL;
    focusContext.fillRect(0, 0, width, height);
    focusContext.strokeStyle = FOCUS_EDGE;
    focusContext.lineWidth = 1.4;
    focusContext.beginPath();
    for (const e of incident[f]) {
      const j = e.s === f ? e.t : e.s;
      if (!shown[j]) continue;
      if (!around.has(j)) around.set(j, at(j));
      const p = around.get(j);
      focusContext.moveTo(centre.x, centre.y);
      focusContext.lineTo(p.x, p.y);
    }
    focusContext.stroke();
    for (const p of around.values()) fillNode(focusContext, p);
    for (const p of around.values()) drawDiscNodeLabel(focusContext, p, settings);
    drawDiscNodeHover(focusContext, centre, settings);  // label box and shadow, as sigma marks a hovered node
    fillNode(focusContext, centre);
    state.focused = [f, ...around.keys()];
  }
  // ---- community labels: each community's name at the centre of its shown members ------------
  const groupContext = GROUPS ? addLayer("communityLabels", { afterLayer: "labels" }) : null;  // under the focus veil
  state.groupLabels = [];
  const MAX_GROUP_LABELS = 20;
  function drawGroups() {
    if (!GROUPS) return;
    const { width, height } = sigma.getDimensions();
    groupContext.clearRect(0, 0, width, height);
    const sums = GROUPS.map(() => [0, 0, 0]);
    for (const n of nodes) {
      if (!shown[n.i]) continue;
      const p = sigma.framedGraphToViewport(sigma.getNodeDisplayData(String(n.i)));
      const s = sums[n.community]; s[0] += p.x; s[1] += p.y; s[2] += 1;
    }
    groupContext.font = "bold 14px sans-serif";
    groupContext.textAlign = "center";
    groupContext.lineWidth = 4;
    groupContext.strokeStyle = "rgba(255, 255, 255, 0.9)";
    state.groupLabels = [];
    GROUPS.forEach((g, k) => {
      const [x, y, count] = sums[k];
      // the largest communities only, and not pairs: a hundred labels would bury the ones that matter
      if (count < 3 || k >= MAX_GROUP_LABELS) return;
      const text = short(g.label);
      groupContext.strokeText(text, x / count, y / count);
      groupContext.fillStyle = PALETTE[k % PALETTE.length];
      groupContext.fillText(text, x / count, y / count);
      state.groupLabels.push(text);
    });
  }
  sigma.on("afterRender", () => { drawEdges(); drawGroups(); drawFocus(); });

  function showStatus() {
    document.getElementById("status").textContent =
      `${shownCount.toLocaleString()} of ${nodes.length.toLocaleString()} nodes shown` +
      (data.view.total > nodes.length ? ` (graph has ${data.view.total.toLocaleString()})` : "");
    updateLegend();
  }
  function refresh() {
    applyFilters();
    sigma.refresh({ skipIndexation: true });
    showStatus();
  }

  // ---- DOM helpers: text only ----------------------------------------------------------------
  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }
  function safeHref(url) {
    try {
      const u = new URL(url);
      return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
    } catch { return null; }
  }
  function paperItem(ref) {
    const [id, title, year, url] = data.papers[ref];
    const li = el("li");
    const href = safeHref(url);
    const name = title || id;
    if (href) {
      const a = el("a", name);
      a.href = href; a.target = "_blank"; a.rel = "noopener noreferrer";
      li.appendChild(a);
    } else li.appendChild(el("span", name));
    if (year) li.appendChild(el("span", ` (${year})`));
    return li;
  }
  // Python offsets count code points, JavaScript strings count UTF-16 units.
  function utf16(text, offset) { return Array.from(text).slice(0, offset).join("").length; }
  function sentenceQuote([sid, start, end, pref], type) {
    const text = data.sentences[sid];
    const q = el("blockquote");
    const body = document.createTextNode(text);
    q.appendChild(body);
    const a = utf16(text, start), b = utf16(text, end);
    if (a >= 0 && a < b && b <= text.length) {
      const range = document.createRange();
      range.setStart(body, a); range.setEnd(body, b);
      range.surroundContents(el("mark"));
    }
    const paper = data.papers[pref];
    q.appendChild(el("span", `${type} · ${paper[1] || paper[0]}${paper[2] ? ` (${paper[2]})` : ""}`, "source"));
    return q;
  }
  function nodeButton(j) {
    const b = el("button", `${nodes[j].name}`, "link");
    b.type = "button";
    b.addEventListener("click", () => focusNode(j));
    return b;
  }
  // canvas labels are cut short; the details panel shows the whole name
  function short(text) { return text.length > 48 ? `${text.slice(0, 47)}…` : text; }
  function boundText(n) { return n.props.unicode || n.props.expression || n.props.text || n.name; }

  // ---- details panel -------------------------------------------------------------------------
  function showDetails(i) {
    const box = document.getElementById("details");
    box.replaceChildren();
    if (i === null) { box.appendChild(el("p", "Click a node to see its papers and evidence.", "hint")); return; }
    const n = nodes[i];
    const h = el("h2", n.label === "Bound" ? boundText(n) : n.name);
    if (n.label === "Bound") h.className = "bound";
    box.appendChild(h);
    const badge = el("span", n.label, "badge");
    badge.style.background = data.style[n.label].color;
    const meta = el("p");
    meta.append(badge, el("span", ` support: ${n.support} paper${n.support === 1 ? "" : "s"}`));
    box.appendChild(meta);
    const egoRow = el("p");
    const hops = el("input"); hops.type = "number"; hops.min = "1"; hops.max = "4"; hops.value = "2"; hops.id = "ego-hops";
    const egoBtn = el("button", "Ego view"); egoBtn.type = "button"; egoBtn.id = "ego";
    egoBtn.addEventListener("click", () => egoView(i, Number(hops.value) || 2));
    egoRow.append(egoBtn, el("span", " hops "), hops);
    box.appendChild(egoRow);

    if (n.aliases.length) {
      box.appendChild(el("h3", "Aliases"));
      const ul = el("ul", null, "aliases");
      for (const a of n.aliases) ul.appendChild(el("li", a));
      box.appendChild(ul);
    }
    if (n.label === "Paper") {
      const p = n.props;
      const facts = [p.year, p.venue, p.decision, p.primaryArea].filter((x) => x !== undefined && x !== "");
      if (p.title && p.title !== n.name) box.appendChild(el("p", p.title));
      if (facts.length) box.appendChild(el("p", facts.join(" · ")));
      const href = p.url ? safeHref(p.url) : null;
      if (href) {
        const a = el("a", "Open paper"); a.href = href; a.target = "_blank"; a.rel = "noopener noreferrer";
        box.appendChild(a);
      } else if (p.url) box.appendChild(el("p", p.url, "url"));
      if (p.authors) box.appendChild(el("p", p.authors.join(", "), "authors"));
      if (p.results) {
        box.appendChild(el("h3", `Results (${p.results.length})`));
        const table = el("table", null, "results");
        const head = el("tr");
        for (const c of ["value", "metric", "dataset", "method", "against", "qualifier", "setting"]) head.appendChild(el("th", c));
        table.appendChild(head);
        for (const row of p.results) {
          const tr = el("tr");
          for (const cell of row) tr.appendChild(el("td", cell));
          table.appendChild(tr);
        }
        box.appendChild(table);
      }
      if (p.abstract) { box.appendChild(el("h3", "Abstract")); box.appendChild(el("p", p.abstract, "abstract")); }
    }
    if (n.label === "Result") {
      const p = n.props;
      const ul = el("ul", null, "result-facts");
      const change = p.kind === "change" ? `change${p.direction ? `, ${p.direction}` : ""}` : p.kind;
      for (const [k, v] of [["as written", p.value], ["kind", change], ["unit", p.unit], ["qualifier", p.qualifier],
        ["metric", p.metricName], ["better", p.better], ["dataset", p.datasetName], ["by", p.methodName],
        ["against", p.baselineName], ["setting", p.setting]]) if (v) ul.appendChild(el("li", `${k}: ${v}`));
      box.appendChild(ul);
    }
    if (n.label === "Bound") {
      const p = n.props;
      const ul = el("ul", null, "bound-facts");
      for (const [k, v] of [["as written", p.text], ["normalised", p.expression], ["notation", p.notation],
        ["quantity", p.quantityDetail && p.quantityDetail !== p.quantity ? `${p.quantity} (${p.quantityDetail})` : p.quantity],
        ["role", p.role], ["about", p.subject]]) if (v) ul.appendChild(el("li", `${k}: ${v}`));
      box.appendChild(ul);
      const improves = incident[i].filter((e) => e.type === "IMPROVES_ON" && e.s === i);
      if (improves.length) {
        box.appendChild(el("h3", "Improves on"));
        const list = el("ul");
        for (const e of improves) {
          const li = el("li"); const b = nodeButton(e.t); b.textContent = boundText(nodes[e.t]); b.classList.add("bound");
          li.appendChild(b); list.appendChild(li);
        }
        box.appendChild(list);
      }
    }
    const rel = incident[i].filter((e) => e.type !== "MENTIONS" && e.type !== "IMPROVES_ON");
    if (rel.length) {
      box.appendChild(el("h3", "Relations"));
      const ul = el("ul", null, "relations");
      for (const e of rel.slice(0, 100)) {
        const li = el("li");
        const other = e.s === i ? e.t : e.s;
        li.append(el("span", e.s === i ? `${e.type} → ` : `← ${e.type} `), nodeButton(other));
        if (nodes[other].label === "Bound") li.lastChild.textContent = boundText(nodes[other]);
        ul.appendChild(li);
      }
      box.appendChild(ul);
    }
    if (n.papers.length) {
      box.appendChild(el("h3", `Papers (${n.papers.length})`));
      const ul = el("ul", null, "papers");
      for (const ref of n.papers.slice(0, 50)) ul.appendChild(paperItem(ref));
      if (n.papers.length > 50) ul.appendChild(el("li", `… ${n.papers.length - 50} more`));
      box.appendChild(ul);
    }
    const withEvidence = incident[i].filter((e) => e.evidence.length)
      .sort((a, b) => (a.type === "MENTIONS" ? 0 : 1) - (b.type === "MENTIONS" ? 0 : 1));
    if (withEvidence.length) {
      box.appendChild(el("h3", "Evidence"));
      const div = el("div", null, "evidence");
      let shownCount = 0, total = 0;
      for (const e of withEvidence) {
        total += e.total;
        for (const ev of e.evidence) if (shownCount < 30) { div.appendChild(sentenceQuote(ev, e.type)); shownCount += 1; }
      }
      if (total > shownCount) div.appendChild(el("p", `… ${total - shownCount} more`, "hint"));
      box.appendChild(div);
    }
  }

  // ---- selection, ego views, camera ------------------------------------------------------------
  function select(i) {
    state.selected = i;
    showDetails(i);
    drawFocus();
  }
  function focusNode(i) {
    const n = nodes[i];
    if (!shown[i]) {
      // reveal the node rather than jump to an invisible spot
      state.hiddenTypes.delete(n.label);
      if (state.ego && !state.ego.has(i)) leaveEgo();
      state.topN = Math.max(state.topN, i + 1);
      if (ENTITY.has(n.label)) state.minSupport = Math.min(state.minSupport, n.support);
      state.yearLo = yearMin; state.yearHi = yearMax;
      syncControls();
      refresh();
    }
    select(i);
    const pos = sigma.getNodeDisplayData(String(i));
    if (pos) sigma.getCamera().animate({ x: pos.x, y: pos.y, ratio: 0.25 }, { duration: 300 });
  }
  function egoView(i, hops) {
    const seen = new Set([i]);
    let frontier = [i];
    for (let h = 0; h < hops; h++) {
      const next = [];
      for (const j of frontier) for (const e of incident[j]) for (const k of [e.s, e.t]) if (!seen.has(k)) { seen.add(k); next.push(k); }
      frontier = next;
    }
    state.ego = seen;
    document.getElementById("overview").hidden = false;
    refresh();
    select(i);
    sigma.getCamera().animatedReset({ duration: 200 });
  }
  function leaveEgo() {
    state.ego = null;
    document.getElementById("overview").hidden = true;
    refresh();
  }
  document.getElementById("overview").addEventListener("click", leaveEgo);
  document.getElementById("fit").addEventListener("click", () => sigma.getCamera().animatedReset({ duration: 200 }));

  // a drag that passes over nodes pans the camera; it does not hover them
  sigma.on("enterNode", ({ node }) => {
    if (sigma.getMouseCaptor().isMouseDown) return;
    state.hovered = Number(node);
    drawFocus();
  });
  sigma.on("leaveNode", () => {
    if (state.hovered === null) return;
    state.hovered = null;
    drawFocus();
  });
  sigma.on("clickNode", ({ node }) => select(Number(node)));
  sigma.on("clickStage", () => select(null));

  // ---- legend and filters ----------------------------------------------------------------------
  const legend = document.getElementById("legend");
  const legendCounts = new Map();
  for (const label of LABELS) {
    const total = nodes.filter((n) => n.label === label).length;
    if (!total) continue;
    const b = el("button"); b.type = "button"; b.dataset.label = label; b.setAttribute("aria-pressed", "true");
    const sw = el("span", null, `swatch ${data.style[label].shape}`);
    sw.style.background = GROUPS ? "#9aa0aa" : data.style[label].color;  // in a community view colour means community
    const count = el("span", null, "count");
    b.append(sw, el("span", label), count);
    b.addEventListener("click", () => {
      if (state.hiddenTypes.has(label)) state.hiddenTypes.delete(label); else state.hiddenTypes.add(label);
      refresh();
    });
    legend.appendChild(b);
    legendCounts.set(label, { button: b, count, total });
  }
  function updateLegend() {
    const seen = new Map();
    for (const n of nodes) if (shown[n.i]) seen.set(n.label, (seen.get(n.label) || 0) + 1);
    for (const [label, { button, count, total }] of legendCounts) {
      button.setAttribute("aria-pressed", String(!state.hiddenTypes.has(label)));
      count.textContent = `${(seen.get(label) || 0).toLocaleString()} / ${total.toLocaleString()}`;
    }
  }
  // the communities' summaries, under the legend: what each area is about
  if (GROUPS) {
    const box = el("section", null, "communities");
    box.id = "communities";
    box.setAttribute("aria-label", "Communities");
    box.appendChild(el("h2", `${GROUPS.length.toLocaleString()} communities`));
    GROUPS.forEach((g, k) => {
      const item = el("details");
      const head = el("summary");
      const sw = el("span", null, "swatch circle"); sw.style.background = PALETTE[k % PALETTE.length];
      head.append(sw, el("span", ` ${g.label}`), el("span", ` ${g.papers} papers`, "count"));
      item.appendChild(head);
      const list = el("dl");
      const years = g.first_year === null ? null : (g.first_year === g.last_year ? `${g.first_year}` : `${g.first_year}–${g.last_year}, peak ${g.peak_year}`);
      for (const [term, value] of [["Entities", g.entities], ["Methods", g.top_methods.join(", ")], ["Problems", g.top_problems.join(", ")],
        ["Datasets", g.top_datasets.join(", ")], ["Years", years]]) {
        if (value === null || value === "") continue;
        list.append(el("dt", term), el("dd", value));
      }
      item.appendChild(list);
      box.appendChild(item);
    });
    legend.after(box);
  }
  const yearLoInput = document.getElementById("year-lo");
  const yearHiInput = document.getElementById("year-hi");
  const minSupportInput = document.getElementById("min-support");
  const topNInput = document.getElementById("top-n");
  const topNValue = document.getElementById("top-n-value");
  topNInput.max = String(nodes.length);
  if (yearMin === null) { yearLoInput.disabled = true; yearHiInput.disabled = true; }
  function syncControls() {
    yearLoInput.value = state.yearLo ?? ""; yearHiInput.value = state.yearHi ?? "";
    minSupportInput.value = String(state.minSupport);
    topNInput.value = String(state.topN); topNValue.textContent = String(state.topN);
  }
  yearLoInput.addEventListener("change", () => { state.yearLo = Number(yearLoInput.value) || yearMin; refresh(); });
  yearHiInput.addEventListener("change", () => { state.yearHi = Number(yearHiInput.value) || yearMax; refresh(); });
  minSupportInput.addEventListener("change", () => { state.minSupport = Math.max(1, Number(minSupportInput.value) || 1); refresh(); });
  topNInput.addEventListener("input", () => { state.topN = Number(topNInput.value); topNValue.textContent = topNInput.value; });
  topNInput.addEventListener("change", refresh);

  // ---- fuzzy search over names and aliases -----------------------------------------------------
  const fold = (s) => s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  const index = nodes.flatMap((n) => [n.name, ...n.aliases].map((s, k) => ({ i: n.i, text: s, key: fold(s), alias: k > 0 })));
  function score(q, key) {
    if (key === q) return 100;
    if (key.startsWith(q)) return 80 - Math.min(20, key.length - q.length) / 2;
    const at = key.indexOf(q);
    if (at >= 0) return 60 - Math.min(20, at) / 2;
    let k = 0, gaps = 0;
    for (const ch of key) { if (ch === q[k]) { k += 1; if (k === q.length) break; } else if (k > 0) gaps += 1; }
    if (k === q.length) return 40 - Math.min(30, gaps);
    if (q.length >= 4 && Math.abs(key.length - q.length) <= 2 && editDistance(q, key) <= Math.floor(q.length / 4)) return 30;
    return 0;
  }
  function editDistance(a, b) {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const cur = [i];
      for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
    return prev[b.length];
  }
  const search = document.getElementById("search");
  const results = document.getElementById("results");
  let hits = [], active = 0;
  function runSearch() {
    const q = fold(search.value.trim());
    results.replaceChildren();
    hits = [];
    if (!q) return;
    const best = new Map();
    for (const entry of index) {
      const s = score(q, entry.key);
      if (s > 0 && (!best.has(entry.i) || best.get(entry.i).s < s)) best.set(entry.i, { ...entry, s });
    }
    hits = [...best.values()].sort((a, b) => b.s - a.s || nodes[b.i].support - nodes[a.i].support).slice(0, 12);
    active = 0;
    hits.forEach((h, k) => {
      const n = nodes[h.i];
      const li = el("li", n.name);
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", String(k === active));
      const t = el("span", n.label, "type"); t.style.background = data.style[n.label].color;
      li.appendChild(t);
      if (h.alias) li.appendChild(el("span", `alias: ${h.text}`, "alias"));
      li.addEventListener("mousedown", (ev) => { ev.preventDefault(); choose(k); });
      results.appendChild(li);
    });
  }
  function choose(k) {
    if (!hits[k]) return;
    const i = hits[k].i;
    results.replaceChildren();
    hits = [];
    focusNode(i);
  }
  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") { ev.preventDefault(); choose(active); }
    else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      if (!hits.length) return;
      active = (active + (ev.key === "ArrowDown" ? 1 : hits.length - 1)) % hits.length;
      [...results.children].forEach((li, k) => li.setAttribute("aria-selected", String(k === active)));
    } else if (ev.key === "Escape") { results.replaceChildren(); hits = []; }
  });
  search.addEventListener("blur", () => results.replaceChildren());

  // ---- start -------------------------------------------------------------------------------------
  syncControls();
  if (data.view.centre !== null) showDetails(data.view.centre);  // the file itself is the ego view
  showStatus();
  drawEdges();
  drawGroups();
  drawFocus();
  window.kgExplorer = { sigma, graph, state, nodes, edges, focusNode, egoView, refresh };
  requestAnimationFrame(() => { window.kgPainted = performance.now(); document.body.dataset.ready = "true"; });
})();
