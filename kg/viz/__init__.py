"""GraphDocument -> one self-contained, offline HTML explorer (sigma.js + graphology, WebGL).

Everything is inlined: the view payload as JSON, our explorer script and style, and the renderer
bundle that ``kg/viz/js`` builds from npm (``npm ci && npm run build``) into
``kg/viz/static/vendor.js`` with its licence texts.  A Content-Security-Policy admits only these
exact scripts (by hash) and no network, so an injected tag in an abstract could not run or fetch.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from collections.abc import Iterable
from importlib import resources
from typing import Any

from kg.errors import ExplorerUnavailable, KGError
from kg.records import GraphDocument
from kg.viz.payload import build_payload

BUILD_HINT = "run `npm ci && npm run build` in kg/viz/js to bundle the renderer"
GET_HINT = (
    "install paperkg from its wheel (`python -m build` bundles the renderer; `pip install dist/paperkg-*.whl`), "
    "or in a clone run `make kg/viz/static/vendor.js` (needs Node.js and npm); then `kg view OUT` writes the explorer"
)


def render(
    graph: GraphDocument,
    *,
    entity: str | None = None,
    hops: int = 2,
    types: Iterable[str] | None = None,
    min_support: int = 1,
    years: tuple[int | None, int | None] | None = None,
    max_nodes: int = 2000,
    title: str = "paperkg explorer",
    communities: dict[str, Any] | None = None,
) -> str:
    """Return the explorer for ``graph`` as one HTML string; the caller writes the file.

    ``entity`` (a node id, name or alias) makes an ego view of ``hops`` hops around it; otherwise
    the overview keeps the ``max_nodes`` best-supported nodes.  ``types`` keeps only those labels,
    ``min_support`` drops entities seen in fewer papers, ``years`` is an inclusive ``(from, to)``;
    ``communities`` (see ``build_payload``) places, colours and labels nodes by community.

    Example:
        >>> from kg.records import GraphDocument, Node
        >>> doc = GraphDocument(nodes=(Node("method:a", "Method", "A <b>", papers=("p1",)),), edges=())
        >>> page = render(doc)
        >>> page.startswith("<!doctype html>") and "A <b>" not in page
        True
    """
    payload = build_payload(
        graph, entity=entity, hops=hops, types=types, min_support=min_support, years=years, max_nodes=max_nodes,
        communities=communities,
    )
    return assemble(payload, title=title)


def assemble(payload: dict[str, Any], *, title: str) -> str:
    """Inline ``payload`` and the static assets into the page template."""
    static = resources.files("kg.viz") / "static"
    vendor_file = static / "vendor.js"
    if not vendor_file.is_file():
        raise ExplorerUnavailable(f"the explorer's renderer bundle {vendor_file} is not installed, so no explorer.html; {GET_HINT}")
    vendor = vendor_file.read_text(encoding="utf-8")
    app = (static / "explorer.js").read_text(encoding="utf-8")
    for name, code in (("vendor.js", vendor), ("explorer.js", app)):
        if re.search(r"</script|<!--", code, re.IGNORECASE):
            raise KGError(f"{name} contains '</script' or '<!--' and cannot be inlined; {BUILD_HINT}")
    csp = "; ".join(
        (
            "default-src 'none'",
            f"script-src {_hash(vendor)} {_hash(app)}",
            "style-src 'unsafe-inline'",
            "img-src data: blob:",
            "base-uri 'none'",
            "form-action 'none'",
        )
    )
    parts = {
        "CSP": csp,
        "TITLE": html.escape(title),
        "CSS": (static / "explorer.css").read_text(encoding="utf-8"),
        "DATA": embed_json(payload),
        "VENDOR": vendor,
        "APP": app,
    }
    template = (static / "template.html").read_text(encoding="utf-8")
    return re.sub(r"<!--KG:(\w+)-->", lambda m: parts[m.group(1)], template)


def embed_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` survive unescaped.

    Example:
        >>> embed_json({"t": "</script><b>"})
        '{"t":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def _hash(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


__all__ = ["render"]
