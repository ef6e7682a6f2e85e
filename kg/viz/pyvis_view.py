"""Small views as pyvis networks (vis-network), for notebooks and single HTML files.

The view is selected by ``build_payload``, as the sigma explorer selects it (ego, types, support,
years, size), and drawn with the same colours and shapes (``kg.schema.style``) at the explorer's
layout positions, physics off (deterministic, and no stall on load).  Offline: pyvis 0.3.2 inlines
vis-network with ``cdn_resources="in_line"`` but its template still links Bootstrap from a CDN
(pyvis #229), so ``OfflineNetwork`` drops those two tags; the page then references no URL.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Any

from pyvis.network import Network

from kg.errors import KGError
from kg.records import GraphDocument
from kg.viz.payload import build_payload

MAX_NODES = 1500
"""pyvis (vis-network) stalls past about 1,500 nodes; bigger views belong to the sigma explorer."""
EVIDENCE_IN_TITLE = 3
_CDN_TAG = re.compile(r"<(link|script)\b[^>]*\bhttps?://[^>]*>(\s*</script>)?", re.IGNORECASE)
_SHAPES = {"circle": "dot", "square": "square"}


class OfflineNetwork(Network):
    """A pyvis ``Network`` whose HTML loads nothing from the network and renders inline in notebooks."""

    def generate_html(self, name: str = "index.html", local: bool = True, notebook: bool = False) -> str:
        self.html = _CDN_TAG.sub("", super().generate_html(name, local, notebook))
        return self.html

    def _repr_html_(self) -> str:
        """Inline in Jupyter: the page in an ``iframe`` ``srcdoc``, no file or server needed."""
        return (f'<iframe srcdoc="{html.escape(self.generate_html(notebook=True), quote=True)}" '
                f'width="100%" height="{html.escape(str(self.height))}" style="border:none"></iframe>')


def _text(value: Any) -> str:
    """Hover text: vis-network shows string titles as text, but pyvis switches every tooltip to
    innerHTML when any title contains "href"; a zero-width space keeps that switch off."""
    return str(value).replace("href", "hr\u200bef")


def _mentions(graph: GraphDocument, ids: set[str]) -> dict[str, list[str]]:
    """Up to ``EVIDENCE_IN_TITLE`` sentences in which papers name each node of ``ids``."""
    abstracts = {n.id: n.properties.get("abstract", "") for n in graph.nodes if n.label == "Paper"}
    said: dict[str, list[str]] = {}
    for e in graph.edges:
        if e.type == "MENTIONS" and e.target in ids:
            kept = said.setdefault(e.target, [])
            for ev in e.evidence:
                sentence = ev.sentence_in(abstracts.get(ev.paper, ""))
                if len(kept) < EVIDENCE_IN_TITLE and sentence and sentence not in kept:
                    kept.append(sentence)
    return said


def network(
    graph: GraphDocument,
    *,
    entity: str | None = None,
    hops: int = 1,
    types: Iterable[str] | None = None,
    min_support: int = 1,
    years: tuple[int | None, int | None] | None = None,
    max_nodes: int = 300,
    notebook: bool = False,
    height: str = "700px",
) -> OfflineNetwork:
    """The view as a pyvis network; ``write_html(path)`` writes it, a notebook shows it inline.

    Hover titles give the type, support, years and aliases of a node and up to
    ``EVIDENCE_IN_TITLE`` sentences naming it, and for an edge its type, support and evidence sentences.

    Example:
        >>> from kg.records import GraphDocument, Node
        >>> doc = GraphDocument(nodes=(Node("method:a", "Method", "A </script>", papers=("p1",)),), edges=())
        >>> page = network(doc).generate_html()
        >>> "A </script>" in page, any(f'{a}="http' in page for a in ("src", "href"))
        (False, False)
    """
    if max_nodes > MAX_NODES:
        raise KGError(f"a pyvis view of {max_nodes} nodes would stall the browser (pyvis stops being usable past "
                      f"{MAX_NODES}); choose --max-nodes {MAX_NODES} or fewer, or use the sigma explorer: "
                      "kg view OUT (without --renderer pyvis)")
    payload = build_payload(graph, entity=entity, hops=hops, types=types, min_support=min_support, years=years,
                            max_nodes=max_nodes)
    labels, style, edge_types = payload["labels"], payload["style"], payload["edgeTypes"]
    papers, sentences = payload["papers"], payload["sentences"]
    net = OfflineNetwork(height=height, width="100%", directed=True, notebook=notebook, cdn_resources="in_line")
    net.toggle_physics(False)
    centre = payload["view"]["centre"]
    xs = [row[3] for row in payload["nodes"]] or [0.0]
    ys = [row[4] for row in payload["nodes"]] or [0.0]
    spread = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    scale = 90 * len(xs) ** 0.5 / spread  # about 90 px between neighbours, whatever the layout's units
    said = _mentions(graph, {row[0] for row in payload["nodes"]})
    for i, (nid, label_index, name, x, y, support, first, last, aliases, *_) in enumerate(payload["nodes"]):
        label = labels[label_index]
        lines = [name, f"{label}, {support} paper{'s' if support != 1 else ''}"]
        if first is not None:
            lines.append(f"years {first}" + (f"-{last}" if last != first else ""))
        if aliases:
            lines.append("also: " + ", ".join(aliases[:5]))
        lines.extend(f"- {sentence}" for sentence in said.get(nid, ()))
        net.add_node(
            i, label=_text(name), title=_text("\n".join(lines)), color=style[label]["color"],
            shape=_SHAPES.get(style[label]["shape"], "dot"), x=round(x * scale, 1), y=round(y * scale, 1), size=22 if i == centre else 8 + min(support, 12),
        )
    for source, target, type_index, support, count, evidence in payload["edges"]:
        said = []
        for sentence_index, _, _, paper_index in evidence[:EVIDENCE_IN_TITLE]:
            paper_id, title, year = papers[paper_index][:3]
            said.append(f"- {sentences[sentence_index]} ({title or paper_id}{f', {year}' if year else ''})")
        more = count - len(said)
        title = "\n".join([f"{edge_types[type_index]}, {support} paper{'s' if support != 1 else ''}", *said]
                          + ([f"... and {more} more"] if more > 0 else []))
        net.add_edge(source, target, title=_text(title), color="#999999", arrows="to")
    return net
