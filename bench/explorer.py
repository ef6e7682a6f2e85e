"""Explorer benchmark: file size, time to first paint and frame times in headless Chromium.

Builds synthetic GraphDocuments shaped like the paper graph (30% papers with ~1.2 kB abstracts,
Zipf-popular entities with aliases, 3 edges per node, every edge with an evidence sentence),
renders each (payload + page, as ``kg.viz.render`` does) and opens it from file:// with the network blocked.

First paint: navigation start to the first animation frame after sigma has drawn.  Frame times:
``requestAnimationFrame`` deltas while the mouse drags the graph around and then zooms with the
wheel.  The 0-node row is an empty explorer: the page's own frame cost on this machine, which
the other rows include.  Hover latency: with the camera reset and the page idle, the mouse moves
from an empty spot onto a node (``--hovers`` nodes spread over the view); from that mousemove
event's timestamp to the second animation frame after sigma's ``enterNode``, i.e. until the
frame that shows the highlight has been produced.

    python bench/explorer.py                 # 1k, 5k, 10k nodes
    python bench/explorer.py --sizes 2000 --steps 60 --keep out/
    python bench/explorer.py --graph /tmp/iclr --sizes 10000   # a view of a real built graph
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import tempfile
import time
from pathlib import Path

from kg.records import ENTITY_LABELS, Edge, Evidence, GraphDocument, Node
from kg.viz import assemble
from kg.viz.payload import build_payload

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-extensions", "--no-first-run"]
WORDS = ("graph neural network training robust sample efficient policy gradient convex regret bound "
         "transformer attention sparse kernel online learning variance reduction diffusion benchmark").split()

RECORD = """() => {
  window.kgDeltas = [];
  window.kgRecording = true;
  let last = performance.now();
  const tick = (now) => { window.kgDeltas.push(now - last); last = now; if (window.kgRecording) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
}"""

HOVER_SETUP = """(count) => {
  const s = window.kgExplorer.sigma;
  window.kgHover = { t0: 0, latencies: [] };
  document.addEventListener("mousemove", (e) => { window.kgHover.t0 = e.timeStamp; }, true);
  s.on("enterNode", () => {
    const t0 = window.kgHover.t0;
    requestAnimationFrame(() => requestAnimationFrame(() => window.kgHover.latencies.push(performance.now() - t0)));
  });
  const { width, height } = s.getDimensions();
  const inside = (p) => p.x > 20 && p.y > 20 && p.x < width - 20 && p.y < height - 20;
  // whole pixels, and only nodes that picking finds all around the point (mouse events are rounded)
  const around = (p, key) => [-1, 0, 1].every((dx) => [-1, 0, 1].every((dy) => s.getNodeAtPosition({ x: p.x + dx, y: p.y + dy }) === key));
  const found = s.getGraph().nodes().map((key) => {
    const p = s.graphToViewport(s.getGraph().getNodeAttributes(key));
    return [key, { x: Math.round(p.x), y: Math.round(p.y) }];
  }).filter(([key, p]) => inside(p) && around(p, key));
  const targets = Array.from({ length: Math.min(count, found.length) }, (_, k) => found[Math.floor(k * found.length / count)][1]);
  let empty = null;
  for (let y = 20; y < height - 20 && !empty; y += 7) for (let x = 20; x < width - 20 && !empty; x += 7)
    if (around({ x, y }, null)) empty = { x, y };
  return { targets, empty };
}"""
IDLE = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def synthetic(n: int, *, seed: int = 0) -> GraphDocument:
    """A paper-graph-shaped document with ``n`` nodes and about ``3 n`` edges."""
    rnd = random.Random(seed)
    n_papers = max(1, int(n * 0.3))
    n_entities = n - n_papers
    sentences = {}
    papers = []
    for p in range(n_papers):
        pid = f"paper:{p:06d}"
        sents = [" ".join(rnd.choices(WORDS, k=22)).capitalize() + "." for _ in range(8)]
        sentences[pid] = sents
        papers.append(pid)
    entities = [(f"{ENTITY_LABELS[e % len(ENTITY_LABELS)].lower()}:e{e}", ENTITY_LABELS[e % len(ENTITY_LABELS)],
                 f"{rnd.choice(WORDS)} {rnd.choice(WORDS)} {e}") for e in range(n_entities)]
    cum = list(itertools.accumulate(1 / (r + 1) for r in range(n_entities)))
    edges: dict[tuple[str, str, str], list[Evidence]] = {}
    supporters: dict[str, set[str]] = {eid: set() for eid, _, _ in entities}
    target_edges = 3 * n
    while len(edges) < target_edges:
        pid = rnd.choice(papers)
        # every entity is mentioned once (so all n nodes are in the view), then Zipf popularity
        k = len(edges) if len(edges) < n_entities else rnd.choices(range(n_entities), cum_weights=cum)[0]
        eid, _label, name = entities[k]
        j = rnd.randrange(len(sentences[pid]))
        offset = sum(len(s) + 1 for s in sentences[pid][:j])  # the abstract joins sentences with spaces
        ev = Evidence(pid, offset, offset + 12, offset, offset + len(sentences[pid][j]), "synthetic", 1.0)
        if len(edges) < n_entities or rnd.random() < 0.8:
            key = (pid, "MENTIONS", eid)
        else:
            other = entities[rnd.randrange(n_entities)][0]
            if other == eid:
                continue
            key = (eid, rnd.choice(("USES", "EVALUATED_ON", "OUTPERFORMS")), other)
        edges.setdefault(key, []).append(ev)
        supporters[eid].add(pid)
    nodes = [Node(pid, "Paper", f"Paper {pid}", papers=(pid,), mentions=1,
                  properties={"title": f"On {' '.join(rnd.choices(WORDS, k=6))}", "year": 2026, "venue": "ICLR",
                              "url": f"https://openreview.net/forum?id={pid[6:]}", "abstract": " ".join(sentences[pid])})
             for pid in papers]
    nodes += [Node(eid, label, name, aliases=(name.upper(),), papers=tuple(sorted(supporters[eid])),
                   mentions=len(supporters[eid])) for eid, label, name in entities]
    out_edges = [Edge(s, t, typ, tuple(ev)) for (s, typ, t), ev in edges.items()]
    return GraphDocument(nodes=tuple(sorted(nodes, key=lambda x: x.id)),
                         edges=tuple(sorted(out_edges, key=lambda e: e.key)))


def measure(page, path: Path, steps: int, hovers: int) -> tuple[float, list[float], list[float]]:
    """First paint in ms, frame deltas while the mouse drags the graph and zooms, hover latencies in ms."""
    attempted = []
    page.route("**/*", lambda r: (attempted.append(r.request.url), r.abort()) if not r.request.url.startswith("file://")
               else r.continue_())
    page.goto(path.as_uri())
    page.wait_for_function("window.kgPainted !== undefined", timeout=300_000)
    first_paint = page.evaluate("window.kgPainted")
    box = page.locator("#graph").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.evaluate(RECORD)
    page.mouse.down()
    for k in range(steps):
        page.mouse.move(cx + 200 * math.sin(k / steps * 2 * math.pi), cy + 150 * math.sin(k / steps * 4 * math.pi))
    page.mouse.up()
    for k in range(steps):
        page.mouse.wheel(0, -120 if k < steps // 2 else 120)
    deltas = page.evaluate("() => { window.kgRecording = false; return window.kgDeltas.slice(1); }")
    latencies = hover_latencies(page, box, hovers)
    if attempted:
        raise SystemExit(f"network requests attempted: {attempted}")
    return first_paint, deltas, latencies


def hover_latencies(page, box: dict, count: int) -> list[float]:
    """Milliseconds from the mouse landing on a node to the frame after its highlight, per node."""
    # the last wheel notch may still be animating the camera; it would move the nodes under the mouse
    page.wait_for_function("() => !window.kgExplorer.sigma.getCamera().isAnimated()", timeout=60_000)
    page.evaluate("window.kgExplorer.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 })")
    page.wait_for_timeout(1000)
    page.evaluate(IDLE)
    spots = page.evaluate(HOVER_SETUP, count)
    if not spots["targets"] or spots["empty"] is None:
        return []
    for k, target in enumerate(spots["targets"]):
        page.mouse.move(round(box["x"]) + spots["empty"]["x"], round(box["y"]) + spots["empty"]["y"])
        page.wait_for_function("() => window.kgExplorer.state.hovered === null", timeout=60_000)
        page.evaluate(IDLE)
        page.wait_for_timeout(300)  # let the leave settle, so each hover starts from an idle page
        page.mouse.move(round(box["x"]) + target["x"], round(box["y"]) + target["y"])
        page.wait_for_function("(k) => window.kgHover.latencies.length > k", arg=k, timeout=60_000)
    return page.evaluate("window.kgHover.latencies")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 10000])
    parser.add_argument("--steps", type=int, default=30, help="mouse moves, then as many wheel notches")
    parser.add_argument("--hovers", type=int, default=15, help="nodes to hover for the latency")
    parser.add_argument("--keep", type=Path, help="write the explorer files here")
    parser.add_argument("--graph", type=Path, help="a `kg build` output folder: measure overviews of this real graph "
                        "(the top --sizes nodes by support) instead of synthetic ones")
    args = parser.parse_args()
    real = None
    if args.graph:
        import kg

        real = kg.open(args.graph).document

    from playwright.sync_api import sync_playwright

    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for n in [0, *args.sizes]:  # 0 nodes: the page's own frame cost, the floor for the rest
            doc = (real or synthetic(n)) if n else GraphDocument(nodes=(), edges=())
            t0 = time.perf_counter()
            payload = build_payload(doc, max_nodes=n)
            page_html = assemble(payload, title="paperkg explorer")
            render_s = time.perf_counter() - t0
            out = (args.keep or Path(tmp)) / f"explorer-{n}.html"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(page_html, encoding="utf-8")
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            first_paint, deltas, latencies = measure(page, out, args.steps, args.hovers)
            page.close()
            rows.append((len(payload["nodes"]), len(payload["edges"]), f"{out.stat().st_size / 1e6:.1f}", f"{render_s:.1f}", f"{first_paint / 1000:.2f}",
                         *percentiles(deltas), f"{1000 / statistics.mean(deltas):.1f}", *percentiles(latencies)))
        browser.close()

    header = ("nodes", "edges", "file MB", "render s", "first paint s", "frame ms p50", "frame ms p95", "fps",
              "hover ms p50", "hover ms p95")
    print(" | ".join(f"{h:>13}" for h in header))
    print("-|-".join("-" * 13 for _ in header))
    for row in rows:
        print(" | ".join(f"{v:>13}" for v in row))


def percentiles(values: list[float]) -> tuple[str, str]:
    """p50 and p95 in whole milliseconds, or dashes when nothing was measured."""
    if not values:
        return "-", "-"
    ordered = sorted(values)
    return f"{statistics.median(ordered):.0f}", f"{ordered[int(0.95 * (len(ordered) - 1))]:.0f}"


if __name__ == "__main__":
    main()
