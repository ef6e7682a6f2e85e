// paperkg explorer: draws the embedded view payload with sigma.js and wires search, legend, filters
// and the details panel.  Every datum reaches the page through textContent or a checked href, never
// through HTML parsing, because abstracts and names are untrusted text.
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("kg-data").textContent);
  const { Graph, Sigma, EdgeLineProgram, NodeCircleProgram, NodeSquareProgram } = KGVendor;
  const LABELS = data.labels;
  const ENTITY = new Set(LABELS.filter((l) => l !== "Paper" && l !== "Bound"));
  const DIM_NODE = "#e4e4e4";
  const DIM_EDGE = "#f1f1f1";
  const EDGE = "#c5cad3";

  const nodes = data.nodes.map((r, i) => ({
    i, id: r[0], label: LABELS[r[1]], name: r[2], x: r[3], y: r[4], support: r[5],
    y0: r[6], y1: r[7], aliases: r[8], papers: r[9], props: r[10],
  }));
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
    ego: null, selected: null, hovered: null, focusSet: null,
  };

  // ---- graph and renderer ------------------------------------------------------------------
  const graph = new Graph({ multi: true, type: "directed", allowSelfLoops: false });
  for (const n of nodes) {
    graph.addNode(String(n.i), {
      x: n.x, y: n.y, label: short(n.label === "Bound" ? boundText(n) : n.name), color: data.style[n.label].color,
      size: 2.5 + 1.6 * Math.log2(1 + Math.max(n.support, incident[n.i].length / 4)),
      type: data.style[n.label].shape === "square" ? "square" : "circle",
    });
  }
  for (const e of edges) {
    graph.addDirectedEdgeWithKey(String(e.i), String(e.s), String(e.t), {
      size: e.type === "MENTIONS" ? 0.4 : 0.8, color: EDGE,
    });
  }

  function visible(n) {
    if (state.ego) return state.ego.has(n.i) && !state.hiddenTypes.has(n.label);
    if (state.hiddenTypes.has(n.label) || n.i >= state.topN) return false;
    if (ENTITY.has(n.label) && n.support < state.minSupport) return false;
    if (yearMin !== null && (state.yearLo > yearMin || state.yearHi < yearMax)) {
      if (n.y0 === null || n.y1 < state.yearLo || n.y0 > state.yearHi) return false;
    }
    return true;
  }
  function neighbourhood(i) {
    const set = new Set([i]);
    for (const e of incident[i]) { set.add(e.s); set.add(e.t); }
    return set;
  }
  const shown = new Uint8Array(nodes.length);
  let shownCount = 0;
  // visibility and focus are settled before sigma exists, so its first render is the final one
  function applyFilters() {
    shownCount = 0;
    for (const n of nodes) { shown[n.i] = visible(n) ? 1 : 0; shownCount += shown[n.i]; }
    const f = state.hovered ?? state.selected;
    state.focusSet = f === null ? null : neighbourhood(f);
  }
  state.selected = data.view.centre;
  applyFilters();

  const sigma = new Sigma(graph, document.getElementById("graph"), {
    nodeProgramClasses: { circle: NodeCircleProgram, square: NodeSquareProgram },
    edgeProgramClasses: { line: EdgeLineProgram },  // one-pixel GL lines: cheapest for 30k edges
    // while the user drags or zooms a large view, skip what costs most per frame
    hideEdgesOnMove: edges.length > 5000,
    hideLabelsOnMove: nodes.length > 2000,
    labelRenderedSizeThreshold: nodes.length < 1000 ? 0 : 7,
    zIndex: true,
    nodeReducer: (key, attrs) => {
      const i = Number(key);
      if (!shown[i]) return { ...attrs, hidden: true };
      if (state.focusSet && !state.focusSet.has(i)) return { ...attrs, color: DIM_NODE, label: "", zIndex: 0 };
      if (state.focusSet) return { ...attrs, zIndex: 1, highlighted: i === state.selected || i === state.hovered, forceLabel: true };
      return attrs;
    },
    edgeReducer: (key, attrs) => {
      const e = edges[Number(key)];
      if (!shown[e.s] || !shown[e.t]) return { ...attrs, hidden: true };
      const f = state.hovered ?? state.selected;
      if (f !== null && e.s !== f && e.t !== f) return { ...attrs, color: DIM_EDGE, zIndex: 0 };
      if (f !== null) return { ...attrs, color: "#7a8394", size: attrs.size + 0.6, zIndex: 1 };
      return attrs;
    },
  });

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
      if (p.abstract) { box.appendChild(el("h3", "Abstract")); box.appendChild(el("p", p.abstract, "abstract")); }
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
    refresh();
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

  sigma.on("enterNode", ({ node }) => { state.hovered = Number(node); refresh(); });
  sigma.on("leaveNode", () => { state.hovered = null; refresh(); });
  sigma.on("clickNode", ({ node }) => select(Number(node)));
  sigma.on("clickStage", () => select(null));

  // ---- legend and filters ----------------------------------------------------------------------
  const legend = document.getElementById("legend");
  const legendCounts = new Map();
  for (const label of LABELS) {
    const total = nodes.filter((n) => n.label === label).length;
    if (!total) continue;
    const b = el("button"); b.type = "button"; b.dataset.label = label; b.setAttribute("aria-pressed", "true");
    const sw = el("span", null, `swatch ${data.style[label].shape}`); sw.style.background = data.style[label].color;
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
  window.kgExplorer = { sigma, graph, state, nodes, edges, focusNode, egoView, refresh };
  requestAnimationFrame(() => { window.kgPainted = performance.now(); document.body.dataset.ready = "true"; });
})();
