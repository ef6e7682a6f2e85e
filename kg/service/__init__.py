"""``kg serve``: the query service over a built graph folder, read-only.

A FastAPI application (OpenAPI and interactive docs for free, Starlette underneath) run by
uvicorn: the canned queries (one documented route each, the same runner and resolver as
``kg query``), entity and paper cards read from the embedded store, a SPARQL 1.1 Protocol endpoint
(``kg.service.sparql``: worker processes with a time limit and a row cap), the explorer and the Neo4j
Browser guide.  Errors are RFC 9457 problem details; nothing else leaves the process.
"""

from __future__ import annotations

import threading
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qs, parse_qsl

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from kg.errors import BackendUnavailable, KGError, QueryNotFound, UnknownEntity
from kg.records import ENTITY_LABELS
from kg.service import nodes
from kg.service.cache import Answers, ResponseCache
from kg.service.sparql import RESULT_TYPES, Overloaded, QueryRefused, QueryTimeout, QueryTooLarge, SparqlPool, negotiate

MAX_PARAM = 2_000
"""Longest parameter value accepted (characters): names are short, and resolution costs grow with length."""
MAX_BODY = 1_000_000
"""Largest request body (bytes): a SPARQL query sent by POST."""
PROBLEM = "application/problem+json"


class Problem(BaseModel):
    """RFC 9457 problem details; ``suggestions`` for a misspelt name."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    suggestions: list[str] | None = None


class Param(BaseModel):
    name: str
    type: str
    required: bool
    default: Any = None


class Column(BaseModel):
    name: str
    type: str


class QueryInfo(BaseModel):
    name: str
    summary: str
    params: list[Param]
    returns: list[Column]
    url: str


class Rows(BaseModel):
    query: str
    params: dict[str, Any]
    columns: list[str]
    rows: list[dict[str, Any]]


class NodeSummary(BaseModel):
    id: str
    label: str
    name: str
    support: int = 0


class NodeCard(BaseModel):
    id: str
    label: str
    name: str
    aliases: list[str]
    support: int
    properties: dict[str, Any]
    neighbours: dict[str, dict[str, Any]]
    evidence: list[dict[str, Any]]


class Search(BaseModel):
    q: str
    results: list[NodeSummary]
    suggestions: list[str]


class Health(BaseModel):
    status: str
    format: int
    papers: int
    nodes: int
    edges: int
    built: str
    backend: str
    sparql: dict[str, Any]
    cache: dict[str, int]


_ERRORS = {status: {"model": Problem, "content": {PROBLEM: {}}} for status in (400, 404, 413, 415, 503, 504)}


class _Problem(Exception):
    def __init__(self, status: int, detail: str, suggestions: tuple[str, ...] | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.suggestions = status, detail, suggestions


_TITLES = {400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 413: "Content Too Large", 415: "Unsupported Media Type",
           500: "Internal Server Error", 503: "Service Unavailable", 504: "Gateway Timeout"}


def problem(status: int, detail: str, suggestions: tuple[str, ...] | None = None) -> JSONResponse:
    """A problem-details response (never a stack trace)."""
    body = {"type": "about:blank", "title": _TITLES.get(status, "Error"), "status": status, "detail": detail}
    if suggestions is not None:
        body["suggestions"] = list(suggestions)
    return JSONResponse(body, status_code=status, media_type=PROBLEM)


def _checked(value: str, what: str) -> str:
    if len(value) > MAX_PARAM:
        raise _Problem(413, f"{what} is {len(value)} characters long; at most {MAX_PARAM} are accepted")
    return value


class Service:
    """What the routes share: the graph folder, its store, the answers kept, the SPARQL workers, the Neo4j driver."""

    def __init__(self, graph: Any, backend: str, settings: Any, sparql_workers: int, cache_bytes: int = 0) -> None:
        if backend not in ("embedded", "neo4j"):
            raise KGError(f"unknown backend {backend!r} for kg serve; known: embedded, neo4j")
        self.graph = graph
        self.store = self.graph.store  # opened (and its format checked) before the first request
        self.backend, self.settings = backend, settings
        self.answers = Answers(cache_bytes)
        self.sparql = SparqlPool(str(self.graph.out / "store"), workers=sparql_workers,
                                 timeout=settings.sparql_timeout, row_cap=settings.sparql_row_cap,
                                 memory_mb=settings.sparql_memory_mb)
        self.driver = None
        if backend == "neo4j":
            from kg.stores.neo4j import query_driver

            self.driver = query_driver(settings.neo4j_uri, (settings.neo4j_user, settings.neo4j_password))
        self._reading, self._writing = threading.Lock(), threading.Lock()
        self._browser: dict[str, tuple[bytes, str]] | None = None
        self._browser_base = ""

    def query(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        from kg import queries

        if self.driver is not None:
            return queries.run(name, params, "neo4j", driver=self.driver, database=self.settings.neo4j_database)
        return queries.run(name, params, "embedded", store=self.store)

    def browser_files(self, base: str) -> dict[str, tuple[bytes, str]]:
        """The Neo4j Browser guide, style and saved queries, made once (example ids from the rank
        bands); the guide points the Browser at the style under ``base``, this server's URL."""
        with self._writing:
            if self._browser is None or self._browser_base != base:
                from kg import queries
                from kg.viz import neo4j_browser as browser

                listed = queries.list_queries()
                best = {label: rows[0]["id"] for label in ENTITY_LABELS
                        if (rows := queries.run("top_entities", {"type": label, "limit": 1}, "embedded", store=self.store))}
                self._browser = {
                    "guide.html": (browser.guide_html(listed, best, f"{base}neo4j-browser/paperkg.grass").encode(),
                                   "text/html; charset=utf-8"),
                    "paperkg.grass": (browser.grass().encode(), "text/plain; charset=utf-8"),
                    "paperkg-queries.zip": (browser.favourites_zip(listed), "application/zip"),
                }
                self._browser_base = base
            return self._browser

    def explorer(self, **options: Any) -> str:
        """An explorer page rendered on demand (reads ``graph.json.gz`` once, on the first call)."""
        from kg.viz import render

        with self._reading:
            document = self.graph.document
        return render(document, **options)

    def close(self) -> None:
        self.sparql.close()
        if self.driver is not None:
            self.driver.close()


class _Guard:
    """Refuse oversized bodies and parameters before any route reads them (413), and mark every
    response ``nosniff``; plain ASGI, so it adds no task per request."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        refused = None
        length = dict(scope["headers"]).get(b"content-length", b"")
        if length.isdigit() and int(length) > MAX_BODY:
            refused = problem(413, f"the request body is {int(length)} bytes; at most {MAX_BODY} are accepted")
        else:
            for key, value in parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True):
                if len(value) > MAX_PARAM or len(key) > 100:
                    refused = problem(413, f"parameter {key[:100]!r} is too long; values of at most {MAX_PARAM} characters are accepted")
                    break

        async def send_nosniff(message: dict) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", []).append((b"x-content-type-options", b"nosniff"))
            await send(message)

        await (refused or self.app)(scope, receive, send_nosniff)


def _param_docs(q: Any) -> list[dict[str, Any]]:
    """OpenAPI parameters of a canned query's route: its declared parameters, then ``format``."""
    docs = []
    for p in q.params:
        kind = {"int": "integer", "float": "number", "bool": "boolean"}.get(p.type)
        schema: dict[str, Any] = {"type": kind} if kind else {"type": "string", "maxLength": MAX_PARAM}
        if not p.required and p.default is not None:
            schema["default"] = p.default
        docs.append({"name": p.name, "in": "query", "required": p.required, "schema": schema,
                     "description": p.type if p.required else f"{p.type}, default {p.default!r}"})
    docs.append({"name": "format", "in": "query", "required": False, "schema": {"type": "string", "enum": ["json", "csv"]}})
    return docs


def _rows_response(name: str, values: dict[str, Any], rows: list[dict[str, Any]], columns: list[str], want_csv: bool) -> Response:
    if want_csv:
        from kg.queries import to_csv

        return Response(to_csv(rows, columns), media_type="text/csv; charset=utf-8")
    return JSONResponse({"query": name, "params": values, "columns": columns, "rows": rows})


CACHE_MB = 64
"""Memory for answers kept per server process (``kg serve --cache-mb``)."""


def create_app(graph: Any, *, backend: str, settings: Any, cors: str | None = None, sparql_workers: int = 2,
               cache_mb: float = CACHE_MB) -> FastAPI:
    """The ASGI application over ``graph`` (a ``kg.api.Graph``; see the module docstring)."""
    from kg import queries

    service = Service(graph, backend, settings, sparql_workers, int(cache_mb * 1_000_000))
    # Swagger UI from the package, not a CDN: /docs works offline and sends nothing out.  No ReDoc:
    # its bundle fetches a logo from its CDN.
    app = FastAPIOffline(title="paperkg", version="1", description=__doc__, responses=_ERRORS, redoc_url=None)
    app.state.service = service
    app.router.on_shutdown.append(service.close)
    # Cards always come from the embedded store; canned answers only when it runs them: a Neo4j
    # database can be reloaded under a running server.
    cached = ("/api/entities", "/api/papers") + (("/api/queries/",) if backend == "embedded" else ())
    app.add_middleware(ResponseCache, answers=service.answers, prefixes=cached)
    if cors:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=[cors], allow_methods=["GET", "POST"], allow_headers=["Accept", "Content-Type"])

    app.add_middleware(_Guard)

    @app.exception_handler(_Problem)
    async def _on_problem(request: Request, exc: _Problem) -> JSONResponse:
        return problem(exc.status, exc.detail, exc.suggestions)

    @app.exception_handler(HTTPException)
    async def _on_http(request: Request, exc: HTTPException) -> JSONResponse:
        return problem(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def _on_invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return problem(400, f"{where}: {first.get('msg', 'invalid request')}")

    @app.exception_handler(UnknownEntity)
    async def _on_unknown(request: Request, exc: UnknownEntity) -> JSONResponse:
        return problem(404, str(exc), exc.suggestions)

    @app.exception_handler(QueryTimeout)
    async def _on_timeout(request: Request, exc: QueryTimeout) -> JSONResponse:
        return problem(504, str(exc))

    @app.exception_handler(Overloaded)
    @app.exception_handler(QueryTooLarge)
    async def _on_busy(request: Request, exc: KGError) -> JSONResponse:
        return problem(503, str(exc))

    @app.exception_handler(BackendUnavailable)
    async def _on_backend_down(request: Request, exc: BackendUnavailable) -> JSONResponse:
        return problem(503, str(exc))

    @app.exception_handler(KGError)
    async def _on_kg(request: Request, exc: KGError) -> JSONResponse:
        return problem(400, str(exc))

    @app.exception_handler(Exception)
    async def _on_crash(request: Request, exc: Exception) -> JSONResponse:
        return problem(500, f"internal error ({type(exc).__name__}); the server log has the details")

    @app.get("/health", response_model=Health, tags=["service"])
    def health() -> dict[str, Any]:
        """Store format, graph counts and build date: what is being served."""
        summary = service.graph.summary
        built = datetime.fromtimestamp((service.graph.out / "summary.json").stat().st_mtime, timezone.utc)
        return {"status": "ok", "format": summary.get("format", 1), "papers": summary.get("papers", 0),
                "nodes": summary.get("nodes", 0), "edges": summary.get("edges", 0), "built": built.isoformat(timespec="seconds"),
                "backend": backend, "sparql": {"timeout_seconds": service.sparql.timeout, "row_cap": service.sparql.row_cap,
                           "memory_mb": service.sparql.memory_mb},
                "cache": service.answers.stats()}

    @app.get("/api/queries", response_model=list[QueryInfo], tags=["queries"])
    def catalogue() -> list[dict[str, Any]]:
        """The canned queries: parameters with types and defaults, returned columns."""
        return [{"name": q.name, "summary": q.summary, "url": f"/api/queries/{q.name}",
                 "params": [{"name": p.name, "type": p.type, "required": p.required, "default": None if p.required else p.default}
                            for p in q.params],
                 "returns": [{"name": c.name, "type": c.type} for c in q.returns]} for q in queries.list_queries()]

    def answer(name: str, request: Request) -> Response:
        q = queries.get(name)
        given = {k: v for k, v in request.query_params.items() if k != "format"}  # lengths checked by _Guard
        fmt = request.query_params.get("format") or ("csv" if "text/csv" in request.headers.get("accept", "") else "json")
        if fmt not in ("json", "csv"):
            raise _Problem(400, f"unknown format {fmt!r}; known: json, csv")
        try:
            values = queries.bind(q, given)
            rows = service.query(name, given)
        except QueryNotFound as exc:
            raise _Problem(400, str(exc)) from None
        shown = {k: v for k, v in values.items() if v is not None}
        return _rows_response(name, shown, rows, [c.name for c in q.returns], fmt == "csv")

    def route_of(name: str):
        def route(request: Request) -> Response:
            return answer(name, request)

        return route

    for q in queries.list_queries():
        app.add_api_route(f"/api/queries/{q.name}", route_of(q.name), methods=["GET"], response_model=Rows, tags=["queries"],
                          summary=q.summary, name=q.name, openapi_extra={"parameters": _param_docs(q)},
                          responses={200: {"content": {"text/csv": {}}}})

    @app.get("/api/queries/{name}", response_model=Rows, tags=["queries"], include_in_schema=False)
    def unknown_query(name: str) -> Response:
        try:
            queries.get(_checked(name, "query name"))
        except QueryNotFound as exc:
            raise _Problem(404, str(exc)) from None
        raise _Problem(404, f"unknown query {name!r}")

    @app.get("/api/entities", response_model=Search, tags=["entities"])
    def search(q: str = Query(..., min_length=1, max_length=MAX_PARAM, description="a name, alias, abbreviation or id"),
               type: str | None = Query(None, description=f"one of {', '.join(ENTITY_LABELS)}")) -> dict[str, Any]:
        """The entity a name, alias, abbreviation or id names (the resolver of ``kg query``), or the closest names."""
        from kg.queries.backends import SparqlBackend

        if type is not None and type not in ENTITY_LABELS:
            raise _Problem(400, f"unknown entity type {type!r}; known: {', '.join(ENTITY_LABELS)}")
        try:
            found = queries.find(SparqlBackend(service.store), q, ENTITY_LABELS if type is None else (type,))
        except UnknownEntity as exc:
            return {"q": q, "results": [], "suggestions": list(exc.suggestions)}
        card = nodes.node(service.store, found)
        return {"q": q, "results": [{k: card[k] for k in ("id", "label", "name", "support")}] if card else [], "suggestions": []}

    def card(node_id: str, labels: tuple[str, ...], per_type: int, evidence: int) -> dict[str, Any]:
        found = nodes.node(service.store, node_id)
        if found is None or found["label"] not in labels:
            raise _Problem(404, f"no {' or '.join(labels) if len(labels) < 3 else 'entity'} with id {node_id!r}; "
                                "search by name with /api/entities?q=...")
        return {**found, "neighbours": nodes.neighbours(service.store, node_id, per_type),
                "evidence": nodes.evidence(service.store, node_id, evidence) if evidence else []}

    @app.get("/api/entities/{entity_id:path}", response_model=NodeCard, tags=["entities"])
    def entity(entity_id: str, neighbours: int = Query(20, ge=0, le=1000, description="other ends shown per edge type"),
               evidence: int = Query(50, ge=0, le=1000, description="mentions shown")) -> dict[str, Any]:
        """An entity by id (``method:equilibrium propagation``): properties, neighbours by edge type, evidence."""
        return card(_checked(entity_id, "entity id"), tuple(ENTITY_LABELS) + ("Bound", "Result"), neighbours, evidence)

    @app.get("/api/papers/{paper_id:path}", response_model=NodeCard, tags=["entities"])
    def paper(paper_id: str, neighbours: int = Query(50, ge=0, le=1000, description="other ends shown per edge type")) -> dict[str, Any]:
        """A paper by id (``paper:SOURCEID`` or the source id): metadata, abstract, what it mentions."""
        paper_id = _checked(paper_id, "paper id")
        return card(paper_id if paper_id.startswith("paper:") else f"paper:{paper_id}", ("Paper",), neighbours, 0)

    sparql_doc = {"responses": {200: {"content": {t: {} for t in RESULT_TYPES.values()}}}}

    @app.get("/sparql", tags=["sparql"], openapi_extra=sparql_doc, response_class=Response)
    def sparql_get(request: Request, query: str = Query(..., max_length=MAX_PARAM, description="a SPARQL 1.1 query (no updates, no SERVICE)"),
                   format: str | None = Query(None, pattern="^(json|xml|csv|tsv|nt|ttl)$")) -> Response:
        """The SPARQL 1.1 Protocol, query operation (``kg:``, ``skos:``, ``dcterms:``, ``prov:`` predeclared)."""
        return _sparql(query, request.headers.get("accept"), format)

    @app.post("/sparql", tags=["sparql"], openapi_extra={**sparql_doc, "requestBody": {"content": {
        "application/sparql-query": {"schema": {"type": "string"}},
        "application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}}},
        response_class=Response)
    async def sparql_post(request: Request) -> Response:
        """The query operation by POST: a form with ``query``, or the query as ``application/sparql-query``."""
        from starlette.concurrency import run_in_threadpool

        body = await request.body()
        if len(body) > MAX_BODY:
            raise _Problem(413, f"the request body is {len(body)} bytes; at most {MAX_BODY} are accepted")
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "application/sparql-query":
            text = body.decode("utf-8", errors="replace")
        elif kind == "application/x-www-form-urlencoded":
            form = parse_qs(body.decode("utf-8", errors="replace"))
            if "update" in form:
                raise _Problem(400, "SPARQL Update is not accepted: this endpoint is read-only")
            text = (form.get("query") or [""])[0]
        elif kind == "application/sparql-update":
            raise _Problem(400, "SPARQL Update is not accepted: this endpoint is read-only")
        else:
            raise _Problem(415, f"send the query as application/sparql-query or a form, not {kind or 'no content type'!r}")
        if not text.strip():
            raise _Problem(400, "no query: send one as the form field `query`")
        return await run_in_threadpool(_sparql, text, request.headers.get("accept"), request.query_params.get("format"))

    def _sparql(text: str, accept: str | None, fmt: str | None) -> Response:
        try:
            found = service.sparql.run(text, negotiate(accept, fmt))
        except QueryRefused as exc:
            raise _Problem(400, str(exc)) from None
        headers = {"X-Row-Cap": str(service.sparql.row_cap), "X-Truncated": str(found.truncated).lower(),
                   "X-Timeout-Seconds": f"{service.sparql.timeout:g}"}
        return Response(found.body, media_type=found.media_type, headers=headers)

    @app.get("/", response_class=HTMLResponse, tags=["explorer"])
    def overview() -> Response:
        """The explorer written by ``kg build`` (the best-supported nodes)."""
        return FileResponse(service.graph.out / "explorer.html", media_type="text/html; charset=utf-8")

    @app.get("/explorer", response_class=HTMLResponse, tags=["explorer"])
    def explorer(entity: str = Query(..., min_length=1, max_length=MAX_PARAM, description="an entity id, name or alias"),
                 hops: int = Query(2, ge=1, le=3), max_nodes: int = Query(500, ge=1, le=5000)) -> Response:
        """An ego view around ``entity``, rendered on demand."""
        return HTMLResponse(service.explorer(entity=entity, hops=hops, max_nodes=max_nodes))

    @app.get("/neo4j-browser/{name}", tags=["explorer"], response_class=Response)
    def browser_file(name: str, request: Request) -> Response:
        """The Neo4j Browser guide (``:play``), style (``:style``) and saved queries, with the CORS header the Browser needs."""
        files = service.browser_files(str(request.base_url))
        if name not in files:
            raise _Problem(404, f"no file {name[:100]!r}; there are: {', '.join(files)}")
        data, media = files[name]
        return Response(data, media_type=media, headers={"Access-Control-Allow-Origin": "*"})

    @app.options("/neo4j-browser/{name}", include_in_schema=False)
    def browser_preflight(name: str) -> Response:
        return Response(status_code=204, headers={"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "*",
                                                  "Access-Control-Allow-Methods": "GET, OPTIONS"})

    return app
