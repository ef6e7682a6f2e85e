"""Neo4j Browser support: a ``.grass`` style, a ``:play`` guide of the canned queries, a favourites zip.

What Neo4j Browser 5 offers, and what we use:

* ``:style URL`` loads a Graph Style Sheet; ``paperkg.grass`` is generated from
  :data:`kg.schema.style.STYLE` so the Browser and the HTML explorer colour labels alike.
* ``:play URL`` shows an HTML guide whose ``<slide>`` elements become pages and whose
  ``<pre class="runnable">`` blocks copy into the editor on click. The Browser fetches it
  cross-origin (with a CORS preflight), so the host must be in
  ``browser.remote_content_hostname_whitelist``, whose default already holds ``localhost``
  (Browser 5.24 checked against this server kept to the default, so we use ``localhost`` URLs),
  and the server must answer the preflight. Neo4j's own HTTP server serves only the Browser's jar, so
  :func:`serve` is a small static server that sends them.
* Saved Cypher (favourites) imports ``.cypher`` files or a zip of them, the first comment line
  being the name: ``paperkg-queries.zip``.

    kg browser OUT                              # write OUT/neo4j-browser/ and serve it on :8001
    :style http://localhost:8001/paperkg.grass  # then, in the Browser
    :play http://localhost:8001/guide.html
"""

from __future__ import annotations

import functools
import html
import io
import json
import zipfile
from collections.abc import Iterable, Mapping
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from kg.records import GraphDocument
from kg.schema.style import STYLE

DEFAULT_PORT = 8001


def grass(style: Mapping[str, Mapping[str, str]] = STYLE) -> str:
    """Graph Style Sheet: colour and ``{name}`` caption per label (Paper names are titles).

    Example:
        >>> print(grass({"Paper": {"color": "#4C8EDA"}}).splitlines()[2])
        node.Paper { color: #4C8EDA; border-color: #3C71AE; text-color-internal: #FFFFFF; caption: "{name}"; }
    """
    lines = [
        'node { diameter: 50px; color: #A5ABB6; border-color: #9AA1AC; border-width: 2px; '
        'text-color-internal: #FFFFFF; font-size: 10px; caption: "{name}"; }',
        'relationship { color: #A5ABB6; shaft-width: 1px; font-size: 8px; padding: 3px; '
        'text-color-external: #000000; text-color-internal: #FFFFFF; caption: "<type>"; }',
    ]
    for label, s in style.items():
        lines.append(
            f"node.{label} {{ color: {s['color']}; border-color: {_darker(s['color'])}; "
            'text-color-internal: #FFFFFF; caption: "{name}"; }'
        )
    return "\n".join(lines) + "\n"


def _darker(color: str) -> str:
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return "#{:02X}{:02X}{:02X}".format(*(int(c * 0.8) for c in (r, g, b)))


def examples(graph: GraphDocument) -> dict[str, str]:
    """For each label, the id of its best-supported node: a parameter value that returns rows."""
    best: dict[str, Any] = {}
    for node in graph.nodes:
        if node.label not in best or node.support > best[node.label].support:
            best[node.label] = node
    return {label: node.id for label, node in best.items()}


def _param_value(param: Any, example_ids: Mapping[str, str]) -> Any:
    if not param.required:
        return param.default
    for label in param.labels:
        if label in example_ids:
            return example_ids[label]
    return {"int": 10, "float": 0.5, "bool": True}.get(param.type, "")


def guide_html(queries: Iterable[Any], example_ids: Mapping[str, str] | None = None,
               style_url: str = f"http://localhost:{DEFAULT_PORT}/paperkg.grass") -> str:
    """A Browser guide: one slide per canned query with its summary, parameters and Cypher.

    ``queries`` are :class:`kg.queries.Query` objects; every string is HTML-escaped.  ``style_url`` is
    where the guide tells the Browser to fetch the style (``kg browser``'s server by default).

    Example:
        >>> from kg.queries import list_queries
        >>> page = guide_html(list_queries()[:1])
        >>> page.startswith('<article class="guide">') and page.count("<slide") == 2
        True
    """
    example_ids = example_ids or {}
    queries = list(queries)
    e = html.escape
    index = "".join(f"<li><b>{e(q.name)}</b>: {e(q.summary)}</li>" for q in queries)
    slides = [
        '<slide class="row-fluid"><div class="col-sm-3"><h3>paperkg</h3>'
        '<p class="lead">Canned queries over the knowledge graph of ML paper abstracts.</p></div>'
        '<div class="col-sm-9"><p>Each next slide sets the parameters (click the first block, run it), '
        "then the query (click, run). Reference parameters take node ids such as "
        "<code>problem:online facility location</code>.</p>"
        f"<p>Style: click and run</p><pre class=\"code runnable\">:style {e(style_url)}</pre>"
        f"<ol>{index}</ol></div></slide>"
    ]
    for q in queries:
        params = {p.name: _param_value(p, example_ids) for p in q.params}
        declared = "".join(f"<li><code>{e(str(p))}</code></li>" for p in q.params) or "<li>none</li>"
        returns = ", ".join(c.name for c in q.returns)
        slides.append(
            f'<slide class="row-fluid"><div class="col-sm-3"><h3>{e(q.name)}</h3>'
            f'<p class="lead">{e(q.summary)}</p><p>Returns: {e(returns)}</p></div>'
            f'<div class="col-sm-9"><p>Parameters:</p><ul>{declared}</ul>'
            f'<pre class="code runnable">:params {e(json.dumps(params, ensure_ascii=False))}</pre>'
            f'<pre class="pre-scrollable code runnable">{e(q.cypher.strip())}</pre></div></slide>'
        )
    return '<article class="guide"><carousel class="deck container-fluid">' + "".join(slides) + "</carousel></article>\n"


def favourites_zip(queries: Iterable[Any]) -> bytes:
    """A zip of ``.cypher`` files for the Browser's Saved Cypher import: first line names the query."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for q in queries:
            params = ", ".join(str(p) for p in q.params) or "none"
            text = f"// paperkg {q.name}: {q.summary}\n// params: {params}\n{q.cypher}"
            z.writestr(zipfile.ZipInfo(f"paperkg/{q.name}.cypher", (2026, 1, 1, 0, 0, 0)), text)
    return buffer.getvalue()


def write(directory: Path, graph: GraphDocument | None, queries: list[Any]) -> list[Path]:
    """Write ``guide.html``, ``paperkg.grass`` and ``paperkg-queries.zip`` of ``queries`` (the canned
    queries, ``kg.api.list_queries``) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "guide.html": guide_html(queries, examples(graph) if graph else None).encode(),
        "paperkg.grass": grass().encode(),
        "paperkg-queries.zip": favourites_zip(queries),
    }
    for name, data in files.items():
        (directory / name).write_bytes(data)
    return [directory / name for name in files]


class _CorsHandler(SimpleHTTPRequestHandler):
    """Static files with the CORS header the Browser's cross-origin fetch of a guide needs."""

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, OPTIONS")
        super().end_headers()

    def do_OPTIONS(self) -> None:  # noqa: N802 - the Browser's fetch sends a CORS preflight first
        self.send_response(204)
        self.end_headers()


def serve(directory: Path, host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> ThreadingHTTPServer:
    """A static server for ``directory`` with CORS headers; call ``serve_forever()`` on it."""
    return ThreadingHTTPServer((host, port), functools.partial(_CorsHandler, directory=str(directory)))
