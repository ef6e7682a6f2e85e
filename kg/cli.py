"""The ``kg`` command: thin click glue over ``kg.api``."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from kg import api
from kg.errors import KGError
from kg.settings import Settings


def _errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn library errors into one clear line and exit status 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KGError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


def _load_mode_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--overwrite", is_flag=True, help="Let a bulk import replace a database that holds data.")(f)
    f = click.option("--bulk", is_flag=True, help="Same as --mode bulk.")(f)
    f = click.option("--mode", type=click.Choice(["auto", "bulk", "diff"]), default="auto", show_default=True,
                     help="bulk: offline import (replaces the database); diff: write what differs; auto: bulk for "
                          "a large graph into an empty database on a server kg can restart, else diff.")(f)
    return f


def _bulk(mode: str, bulk: bool) -> bool | None:
    return True if bulk or mode == "bulk" else (False if mode == "diff" else None)


def _dask_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--dask-batch-size", type=click.IntRange(min=1), default=None, help="Abstracts per Dask task (default 64).")(f)
    return click.option("--dask", "dask", default=None, metavar="ADDRESS",
                        help="Extract on a Dask cluster: a scheduler address (tcp://host:8786), or local[:N] for N local "
                             "workers (default 2).")(f)


def _extraction_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option("--jobs", "-j", type=int, default=None, help="Worker processes for spaCy (default 1, env KG_JOBS).")(fn)
    fn = click.option("--model", default=None, help="Installed spaCy pipeline to build on (env KG_SPACY_MODEL).")(fn)
    fn = click.option("--extractor", default=None, help="Extraction pipeline name (env KG_EXTRACTOR).")(fn)
    fn = click.option(
        "--on-error", type=click.Choice(["raise", "skip"]), default="raise", show_default=True,
        help="On a malformed record: stop with its file:line, or skip it with a warning.",
    )(fn)
    return fn


def _progress(total: int | None, label: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit="abstract", file=sys.stderr, disable=not sys.stderr.isatty())


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False))


def _echo_table(rows: list[dict[str, Any]]) -> None:
    if not rows:
        click.echo("(no rows)")
        return
    columns = list(rows[0])
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    widths = [min(60, max(len(c), *(len(row[i]) for row in cells))) for i, c in enumerate(columns)]
    click.echo("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    click.echo("  ".join("-" * w for w in widths))
    for row in cells:
        click.echo("  ".join(v[:w].ljust(w) for v, w in zip(row, widths)))


def _cell(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return "" if value is None else " ".join(str(value).split())


@click.group()
@click.version_option(package_name="paperkg")
def cli() -> None:
    """paperkg: a knowledge graph of ML research from paper abstracts."""


@cli.command()
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--out", type=click.Path(path_type=Path), default=Path("out"), show_default=True, help="Output folder.")
@click.option("--limit", type=int, default=None, help="Build from the first N abstracts only.")
@click.option("--neo4j", "neo4j_uri", default=None, metavar="URI", help="Also load the graph into Neo4j at URI (password from NEO4J_PASSWORD).")
@click.option("--min-confidence", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Leave out mentions and relations less sure than this (precision for recall).")
@_dask_options
@_load_mode_options
@_extraction_options
@_errors
def build(sources: tuple[Path, ...], out: Path, limit: int | None, neo4j_uri: str | None, min_confidence: float, dask: str | None,
          dask_batch_size: int | None, jobs: int | None, model: str | None, extractor: str | None, on_error: str,
          mode: str, bulk: bool, overwrite: bool) -> None:
    """Build the graph, RDF store, exports, explorer and summary from abstracts.

    SOURCES are seed-format .txt lists, JSONL(.gz) or CSV files, or folders of them.

    \b
    Example:
        kg build ../shared/seeds -o out/
        kg build ../shared/corpus/iclr2026.jsonl.gz -o iclr/ --dask tcp://10.0.0.5:8786
    """
    s = Settings.from_env(jobs=jobs, spacy_model=model, extractor=extractor, neo4j_uri=neo4j_uri)
    with _progress(None, "extracting") as bar:
        result = api.build(sources, out, extractor=s.extractor, model=s.spacy_model, jobs=s.jobs, on_error=on_error, progress=bar.update, limit=limit,
                           min_confidence=min_confidence, neo4j=s if neo4j_uri else None, bulk=_bulk(mode, bulk),
                           overwrite=overwrite, dask=dask, dask_batch=dask_batch_size)
    _echo_json(_printable(result.summary))
    explorer = result.summary.get("explorer") or f"explorer: {result.out / 'explorer.html'}"
    click.echo(f"graph written to {result.out}/ ; {explorer}", err=True)
    if result.neo4j is not None:
        _echo_report(result.neo4j)


@cli.command()
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--min-confidence", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="The minimum confidence OUT was built with.")
@_dask_options
@_extraction_options
@_errors
def add(out: Path, sources: tuple[Path, ...], min_confidence: float, dask: str | None, dask_batch_size: int | None, jobs: int | None,
        model: str | None, extractor: str | None, on_error: str) -> None:
    """Add new papers to a built graph, or replace changed ones (matched by id), in place.

    Only the new and changed abstracts are extracted; the outputs are then exactly what `kg build`
    of the final set of papers writes. Use the extractor, model and --min-confidence OUT was built with.

    \b
    Example:
        kg add out/ new-papers.jsonl
        kg add iclr/ arxiv-week.jsonl --dask tcp://10.0.0.5:8786
    """
    s = Settings.from_env(jobs=jobs, spacy_model=model, extractor=extractor)
    with _progress(None, "extracting") as bar:
        result = api.add(out, sources, extractor=s.extractor, model=s.spacy_model, jobs=s.jobs, on_error=on_error,
                         progress=bar.update, min_confidence=min_confidence, dask=dask, dask_batch=dask_batch_size)
    _echo_update(result)


@cli.command()
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("ids", nargs=-1, required=True)
@_errors
def remove(out: Path, ids: tuple[str, ...]) -> None:
    """Remove papers (by id, or paper:ID) from a built graph, in place, with what only they supported.

    \b
    Example:
        kg remove out/ 3e1zmXNdME paper:ev9gLf4piX
    """
    _echo_update(api.remove(out, ids))


def _echo_update(result: api.UpdateResult) -> None:
    _echo_json(_printable(result.summary))
    changes = ", ".join(f"{kind} {len(ids)}" for kind in ("added", "replaced", "unchanged", "removed") if (ids := getattr(result, kind)))
    click.echo(f"papers {changes}; graph in {result.out}/", err=True)


def _printable(summary: dict[str, Any]) -> dict[str, Any]:
    shown = dict(summary)
    skipped = shown.pop("skipped", [])
    shown["skipped"] = len(skipped)
    return shown


@cli.command()
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["jsonl", "json"]), default="jsonl", show_default=True)
@click.option("--labels", type=click.Choice(["schema", "scierc"]), default="schema", show_default=True,
              help="Entity/relation labels: the graph's schema, or SciERC's (Task, Method, ... USED-FOR, ...) for scoring.")
@_extraction_options
@_errors
def extract(sources: tuple[Path, ...], fmt: str, labels: str, jobs: int | None, model: str | None, extractor: str | None, on_error: str) -> None:
    """Print what is extracted from each abstract (the extraction contract), in input order.

    \b
    Example:
        kg extract ../shared/seeds/*.txt --format jsonl
        kg extract ../shared/eval/scierc/dev.input.jsonl --labels scierc > pred.jsonl
    """
    s = Settings.from_env(jobs=jobs, spacy_model=model, extractor=extractor)
    rows = api.contract(api.read(sources, on_error=on_error), labels=labels, settings=s)
    if fmt == "json":
        _echo_json(list(rows))
        return
    for row in rows:
        click.echo(json.dumps(row, ensure_ascii=False))


@cli.command()
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
@_errors
def info(out: Path) -> None:
    """Print the summary of a built graph folder.

    \b
    Example:
        kg info out/
    """
    _echo_json(_printable(api.open(out).summary))


@cli.command()
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("query")
@click.option("-p", "--param", "params", type=(str, str), multiple=True, help="Bind ?NAME to VALUE (repeatable; ?id/?x_id take node ids).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@_errors
def sparql(out: Path, query: str, params: tuple[tuple[str, str], ...], fmt: str) -> None:
    """Run a SPARQL query (or @file.rq) on the embedded store; kg:, skos:, dcterms:, prov: prefixes are predeclared.

    \b
    Example:
        kg sparql out/ "SELECT ?m (COUNT(?p) AS ?n) WHERE { ?p kg:proposes ?m } GROUP BY ?m ORDER BY DESC(?n)"
    """
    text = Path(query[1:]).read_text(encoding="utf-8") if query.startswith("@") else query
    rows = api.open(out).sparql(text, **{k: _literal(v) for k, v in params})
    _echo_json(rows) if fmt == "json" else _echo_table(rows)


def _literal(value: str) -> Any:
    """Command-line values: integers and floats as numbers, everything else as text."""
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


@cli.group("eval")
def evaluate() -> None:
    """Measure the extractors against gold annotations."""


@evaluate.command("bounds")
@click.argument("gold", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
@_errors
def eval_bounds(gold: Path, as_json: bool) -> None:
    """Score bound extraction: span P/R/F1, notation/quantity/role accuracy, improves_on F1.

    \b
    Example:
        kg eval bounds ../shared/eval/bounds-seeds.json
    """
    _echo_evaluation(api.evaluate_bounds(gold), as_json)


@evaluate.command("scierc")
@click.option("--split", default="dev", show_default=True, help="Split to score: {split}.gold.jsonl in the data folder.")
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Folder in SciERC gold format (default ../shared/eval/scierc).")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
@_errors
def eval_scierc(split: str, data_dir: Path | None, as_json: bool) -> None:
    """Score the trained entity and relation pipeline on SciERC: P/R/F1 per type, micro, Rel, Rel+.

    \b
    Example:
        kg eval scierc --split dev
    """
    _echo_evaluation(api.evaluate_scierc(split, data_dir), as_json)


@evaluate.command("entities")
@click.option("--split", type=click.Choice(["train", "dev", "test"]), default="dev", show_default=True,
              help="Split of the in-domain annotations (training/indomain) to score.")
@click.option("--gold", "gold_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Score against this gold file instead (e.g. ../shared/eval/entities-dev.json).")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
@_extraction_options
@_errors
def eval_entities(split: str, gold_file: Path | None, as_json: bool, jobs: int | None, model: str | None, extractor: str | None, on_error: str) -> None:
    """Score entities (exact, partial, untyped; per type) and paper facts in our schema.

    \b
    Example:
        kg eval entities --split dev
        kg eval entities --gold ../shared/eval/entities-dev.json --extractor scierc.v1
    """
    s = Settings.from_env(jobs=jobs, spacy_model=model, extractor=extractor)
    _echo_evaluation(api.evaluate_entities(split, gold_file, s), as_json)


@evaluate.command("results")
@click.option("--split", type=click.Choice(["train", "dev", "test"]), default="dev", show_default=True,
              help="Split of the in-domain annotations (training/indomain) to score.")
@click.option("--gold", "gold_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Score against this gold file instead (e.g. ../shared/eval/results-dev.json).")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
@_extraction_options
@_errors
def eval_results(split: str, gold_file: Path | None, as_json: bool, jobs: int | None, model: str | None, extractor: str | None, on_error: str) -> None:
    """Score reported results: detection P/R/F1, tuple F1, per-field agreement (score_results.py rules).

    \b
    Example:
        kg eval results --gold ../shared/eval/results-dev.json
    """
    s = Settings.from_env(jobs=jobs, spacy_model=model, extractor=extractor)
    _echo_evaluation(api.evaluate_results(split, gold_file, s), as_json)


def _echo_evaluation(evaluation: api.Evaluation, as_json: bool) -> None:
    click.echo(json.dumps(evaluation.scores, indent=1) if as_json else evaluation.report)


@cli.group()
def load() -> None:
    """Load a built graph into a database."""


@load.command("neo4j")
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--uri", default=None, help="Bolt URI (env NEO4J_URI; default bolt://127.0.0.1:7687).")
@click.option("--user", default=None, help="User name (env NEO4J_USERNAME; default neo4j).")
@click.option("--database", default=None, help="Database (env NEO4J_DATABASE; default neo4j).")
@click.option("--batch-size", type=int, default=10_000, show_default=True, help="Rows per write transaction.")
@click.option("--verify", is_flag=True,
              help="Diff loader: compare every property, not the digests, so values edited by hand are put back.")
@_load_mode_options
@_errors
def load_neo4j(out: Path, uri: str | None, user: str | None, database: str | None, batch_size: int, verify: bool,
               mode: str, bulk: bool, overwrite: bool) -> None:
    """Load OUT into Neo4j so it holds exactly the graph.

    The diff loader reads the database's state per label and type and writes only what differs
    (twice changes nothing); it compares digests of the properties, or every property with --verify.
    The bulk import (--bulk) writes CSV for neo4j-admin's importer, imports
    beside the served database, swaps it in with a restart (scripts/neo4j-local, or the docker
    compose service with KG_NEO4J_SERVER=compose), then creates the indexes: the same database,
    sooner for first loads of a million nodes and relationships or more.

    The password is read from NEO4J_PASSWORD only (never a flag, never logged).

    \b
    Example:
        NEO4J_PASSWORD=secret kg load neo4j out/ --uri bolt://localhost:7687
        NEO4J_PASSWORD=secret kg load neo4j iclr/ --bulk --overwrite
    """
    settings = Settings.from_env(neo4j_uri=uri, neo4j_user=user, neo4j_database=database)
    _load_neo4j(out, settings, batch_size, _bulk(mode, bulk), overwrite, verify)


def _load_neo4j(graph: Any, s: Settings, batch_size: int, bulk: bool | None, overwrite: bool, verify: bool) -> None:
    _echo_report(api.load_neo4j(graph, s, bulk=bulk, overwrite=overwrite, batch_size=batch_size,
                                progress=sys.stderr.isatty(), verify=verify))


def _echo_report(report: Any) -> None:
    _echo_json({"sink": report.sink, "nodes": report.nodes, "relationships": report.edges,
                "seconds": report.seconds, "batch_size": report.batch_size})


@cli.command("queries")
@_errors
def list_queries() -> None:
    """List the canned queries with their parameters and what they return.

    \b
    Example:
        kg queries
    """
    for q in api.list_queries():
        params = ", ".join(f"{p.name} ({p.type}{'' if p.required else f' = {p.default!r}'})" for p in q.params)
        click.echo(f"{q.name}({params})\n    {q.summary}\n    returns: {', '.join(c.name for c in q.returns)}")


@cli.command()
@click.argument("name")
@click.option("-p", "--param", "params", type=(str, str), multiple=True, help="Query parameter NAME VALUE (repeatable).")
@click.option("--out", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path("out"), show_default=True,
              help="Built graph folder (embedded and python backends).")
@click.option("--backend", type=click.Choice(["embedded", "neo4j", "python"]), default="embedded", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@_errors
def query(name: str, params: tuple[tuple[str, str], ...], out: Path, backend: str, fmt: str) -> None:
    """Run a canned query on the embedded store, Neo4j or networkx; entity names resolve through aliases.

    \b
    Example:
        kg query methods_for_problem -p problem "facility location" --out out/
    """
    rows = api.query(name, dict(params), backend=backend, out=out, settings=Settings.from_env())
    if fmt == "json":
        _echo_json(rows)
    elif fmt == "csv":
        _echo_csv(rows)
    else:
        _echo_table(rows)


def _echo_csv(rows: list[dict[str, Any]]) -> None:
    if rows:
        click.echo(api.to_csv(rows), nl=False)


@cli.command()
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="HTML file (default OUT/explorer.html).")
@click.option("--entity", default=None, help="Ego view around this entity (id, name or alias).")
@click.option("--hops", type=int, default=2, show_default=True)
@click.option("--type", "types", default=None, help="Comma-separated node types to keep, e.g. Method,Problem.")
@click.option("--min-support", type=int, default=1, show_default=True, help="Drop entities seen in fewer papers.")
@click.option("--year", "years", default=None, help="Year or inclusive range, e.g. 2019 or 2015-2019.")
@click.option("--max-nodes", type=int, default=None, help="Nodes to keep (default 2000; pyvis: 300, at most 1500).")
@click.option("--renderer", type=click.Choice(["sigma", "pyvis"]), default="sigma", show_default=True,
              help="sigma: the explorer (any size); pyvis: a vis-network page for small views (default OUT/pyvis.html).")
@click.option("--by", type=click.Choice(["community"]), default=None,
              help="Place, colour and label entities by research community (Leiden), summaries in the side panel.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the community detection.")
@_errors
def view(out: Path, output: Path | None, entity: str | None, hops: int, types: str | None, min_support: int, years: str | None,
         max_nodes: int | None, renderer: str, by: str | None, seed: int) -> None:
    """Write the self-contained HTML explorer of a built graph (works offline, from file://).

    \b
    Example:
        kg view out/ --entity "Equilibrium Propagation" --hops 2 -o ep.html
        kg view out/ --entity "Equilibrium Propagation" --hops 1 --renderer pyvis -o ep-pyvis.html
        kg view out/ --by community -o areas.html
    """
    path = api.view(out, output, renderer=renderer, by=by, seed=seed, entity=entity, hops=hops, types=types.split(",") if types else None,
                    min_support=min_support, years=_years(years), max_nodes=max_nodes)
    click.echo(str(path))


@cli.group("analytics")
def analytics() -> None:
    """Rankings, research communities and trends of a built graph, as tables or plots (-o file.png|svg|pdf)."""


def _analysis_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)(fn)
    fn = click.option("--top", type=int, default=10, show_default=True, help="Rows (or bars, lines) to show.")(fn)
    fn = click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
                      help="Also draw the plot into this .png, .svg or .pdf file.")(fn)
    return click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))(fn)


def _echo_analysis(frame: Any, path: Path | None, fmt: str, top: int) -> None:
    rows = json.loads(frame.head(top).to_json(orient="records"))
    {"json": _echo_json, "csv": _echo_csv}.get(fmt, _echo_table)(rows)
    if path is not None:
        click.echo(f"plot: {path}", err=True)


@analytics.command("centrality")
@_analysis_options
@click.option("--type", "type_", default=None, help="Rank only nodes of this type, e.g. Method.")
@click.option("--measure", type=click.Choice(["pagerank", "degree", "betweenness"]), default="pagerank", show_default=True)
@click.option("--projection", type=click.Choice(["typed", "cooccurrence", "method-problem"]), default="typed", show_default=True)
@_errors
def analytics_centrality(out: Path, output: Path | None, top: int, fmt: str, type_: str | None, measure: str, projection: str) -> None:
    """The most central nodes (PageRank, degree or betweenness), top-k bars with -o.

    \b
    Example:
        kg analytics centrality out/ --type Method --top 15 -o methods.png
    """
    frame, path = api.analyse(out, "centrality", output, top=top, type=type_, measure=measure, projection=projection)
    _echo_analysis(frame, path, fmt, top)


@analytics.command("communities")
@_analysis_options
@click.option("--resolution", type=float, default=1.0, show_default=True, help="Higher: more, smaller communities.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--projection", type=click.Choice(["cooccurrence", "method-problem"]), default="cooccurrence", show_default=True)
@_errors
def analytics_communities(out: Path, output: Path | None, top: int, fmt: str, resolution: float, seed: int, projection: str) -> None:
    """Research communities (Leiden on co-occurrence), labelled and summarised; an overview with -o.

    \b
    Example:
        kg analytics communities out/ --resolution 1.0 --seed 0 -o communities.svg
    """
    frame, path = api.analyse(out, "communities", output, top=top, resolution=resolution, seed=seed, projection=projection)
    _echo_analysis(frame, path, fmt, top)


@analytics.command("trends")
@_analysis_options
@click.option("--type", "type_", default=None, help="Only entities of this type, e.g. Method.")
@click.option("--since", type=int, default=2020, show_default=True, help="Compare papers from this year on with those before.")
@click.option("--entity", "entities", multiple=True, help="Entity to draw a line for (repeatable; default: the most risen).")
@click.option("--counts", is_flag=True, help="Papers rather than shares of each year's papers.")
@_errors
def analytics_trends(out: Path, output: Path | None, top: int, fmt: str, type_: str | None, since: int, entities: tuple[str, ...],
                     counts: bool) -> None:
    """Mentions per year: growth since a year and first appearance; trend lines with -o.

    \b
    Example:
        kg analytics trends out/ --type Method --since 2020 --entity transformer --entity "diffusion model" -o trends.png
    """
    frame, path = api.analyse(out, "trends", output, entities=entities, top=top, type=type_, since=since, normalize=not counts)
    _echo_analysis(frame, path, fmt, top)


def _years(text: str | None) -> tuple[int | None, int | None] | None:
    if not text:
        return None
    first, _, last = text.partition("-")
    return (int(first) if first else None, int(last) if last else int(first) if not _ else None)


@cli.command()
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["ttl", "nt", "jsonld", "graphml"]), required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="File to write (atomically; gzip-compressed if it ends in .gz); default: standard output.")
@_errors
def export(out: Path, fmt: str, output: Path | None) -> None:
    """Export the graph as Turtle, N-Triples or JSON-LD (through rdflib over the embedded store), or
    as GraphML for Gephi and yEd (through networkx; kg build does not write it).

    \b
    Example:
        kg export out/ --format jsonld -o graph.jsonld
        kg export out/ --format nt -o graph.nt.gz
        kg export out/ --format graphml -o graph.graphml
    """
    count = api.export(out, fmt, output, stream=None if output else sys.stdout.buffer)
    what = "nodes and edges" if fmt == "graphml" else "triples"
    click.echo(f"{count} {what}" + (f" -> {output}" if output else ""), err=True)


@cli.command()
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--directory", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the files (default OUT/neo4j-browser).")
@click.option("--port", type=int, default=8001, show_default=True)
@click.option("--no-serve", is_flag=True, help="Only write the files.")
@_errors
def browser(out: Path, directory: Path | None, port: int, no_serve: bool) -> None:
    """Write the Neo4j Browser guide, style and saved queries of a built graph, and serve them.

    The Browser fetches a guide cross-origin, so the files are served with CORS headers on
    localhost (in the Browser's default allow-list).

    \b
    Example:
        kg browser out/
        # then, in Neo4j Browser:
        :style http://localhost:8001/paperkg.grass
        :play http://localhost:8001/guide.html
    """
    paths = api.neo4j_browser(out, directory)
    for path in paths:
        click.echo(str(path))
    if no_serve:
        return
    server = api.serve_neo4j_browser(paths[0].parent, port)
    click.echo(f":style http://localhost:{port}/paperkg.grass\n:play http://localhost:{port}/guide.html")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


@cli.command()
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on (loopback unless you mean to share it).")
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--backend", type=click.Choice(["embedded", "neo4j"]), default="embedded", show_default=True,
              help="Where the canned queries run (neo4j: where NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD point).")
@click.option("--cors", metavar="ORIGIN", default=None, help="Let pages from ORIGIN call the API (CORS is off otherwise).")
@click.option("--sparql-timeout", type=float, default=None, help="Seconds a SPARQL query may run (default 10, env KG_SPARQL_TIMEOUT).")
@click.option("--row-cap", type=int, default=None, help="Most rows a SPARQL answer holds (default 10000, env KG_SPARQL_ROW_CAP).")
@click.option("--sparql-memory-mb", type=int, default=None,
              help="Heap a SPARQL worker may use; a query needing more is stopped (default 2000, env KG_SPARQL_MEMORY_MB; 0: no cap).")
@click.option("--sparql-workers", type=int, default=2, show_default=True, help="Processes answering SPARQL queries (per server process).")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes sharing the port: one per core answers more requests at once.")
@click.option("--cache-mb", type=click.FloatRange(0), default=None,
              help="Memory per server process for answers kept and sent again to the same request (default 64; 0: none).")
@_errors
def serve(out: Path, host: str, port: int, backend: str, cors: str | None, sparql_timeout: float | None,
          row_cap: int | None, sparql_memory_mb: int | None, sparql_workers: int, workers: int, cache_mb: float | None) -> None:
    """Serve a built graph read-only over HTTP: canned queries, entities, SPARQL, the explorer.

    /api/queries/NAME?PARAM=... (JSON, or CSV with ?format=csv), /api/entities?q=..., /sparql,
    /explorer?entity=..., /neo4j-browser/guide.html, /docs (OpenAPI), /health.

    \b
    Example:
        kg serve out/
        curl 'http://127.0.0.1:8000/api/queries/methods_for_problem?problem=image%20generation'
    """
    settings = Settings.from_env(sparql_timeout=sparql_timeout, sparql_row_cap=row_cap, sparql_memory_mb=sparql_memory_mb)
    api.serve(out, host=host, port=port, backend=backend, settings=settings, cors=cors, sparql_workers=sparql_workers,
              workers=workers, cache_mb=cache_mb)


@cli.group()
def train() -> None:
    """Retrain the shipped models (needs the train extra: pip install -e '.[train]')."""


_SET = click.option("--set", "overrides", type=(str, str), multiple=True, metavar="KEY VALUE",
                    help="spaCy config override, e.g. --set training.max_steps 100 (repeatable).")


@train.command("indomain")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None, help="Default: the shipped kg/models/indomain.")
@click.option("--config", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Default: training/indomain/config.cfg.")
@click.option("--fraction", type=click.FloatRange(0.0, 1.0, min_open=True), default=1.0, show_default=True,
              help="Share of the train split to train on (a learning curve).")
@click.option("--limit", type=int, default=None, help="First N abstracts of train and dev (a smoke run).")
@click.option("--test", is_flag=True, help="Also score the test split (nothing tunes on it).")
@click.option("--scierc", is_flag=True, help="Add SciERC's train abstracts, relabelled, to the recogniser's data.")
@click.option("--vectors", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Floret vectors already made by `kg train vectors`.")
@click.option("--recogniser", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="A trained encoder + ner to reuse.")
@click.option("--continue-from", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="A trained encoder + ner to train further instead of from scratch (when the annotations grew).")
@click.option("--tagger", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="A folder holding a fine-tuned tagger (tagger.onnx, ...) to reuse; its thresholds are chosen again.")
@click.option("--tagger-epochs", type=click.IntRange(1), default=None,
              help="Passes over the train split when fine-tuning the tagger (default 2).")
@click.option("--work-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@_SET
@_errors
def train_indomain(output: Path | None, config: Path | None, fraction: float, limit: int | None, test: bool, scierc: bool,
                   vectors: Path | None, recogniser: Path | None, continue_from: Path | None, tagger: Path | None,
                   tagger_epochs: int | None, work_dir: Path | None, overrides: tuple[tuple[str, str], ...]) -> None:
    """Train the default extractor (entities, mention confidence, paper roles, result names) from training/indomain.

    \b
    Example:
        kg train indomain --test
        kg train indomain --fraction 0.25 --output /tmp/quarter --set training.max_steps 600
        kg train indomain --continue-from kg/models/indomain --set training.max_steps 2000
    """
    options = {"fraction": fraction, "limit": limit, "test": test, "scierc": scierc, "vectors": vectors,
               "recogniser": recogniser, "continue_from": continue_from, "tagger": tagger, "work_dir": work_dir} | (
        {"config": config} if config else {}) | ({"tagger_epochs": tagger_epochs} if tagger_epochs else {})
    record = api.train_indomain(output, overrides=overrides, **options)
    _echo_json({split: {"entity_f1": record[split]["entities"]["exact"]["f1"],
                        "facts_f1": {k: v["f1"] for k, v in record[split]["paper_facts"].items()}}
                for split in ("dev", "test") if split in record})


@train.command("scierc")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None, help="Default: the shipped kg/models/scierc.")
@click.option("--data", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="SciERC splits (default ../shared/eval/scierc).")
@click.option("--config", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None)
@click.option("--limit", type=int, default=None, help="First N abstracts of each split (a smoke run).")
@click.option("--work-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@_SET
@_errors
def train_scierc(output: Path | None, data: Path | None, config: Path | None, limit: int | None, work_dir: Path | None,
                 overrides: tuple[tuple[str, str], ...]) -> None:
    """Train the SciERC entity and relation pipeline (the scierc.v1 extractor).

    \b
    Example:
        kg train scierc --limit 20 --output /tmp/scierc-smoke --set training.max_steps 20
    """
    options = {"limit": limit, "work_dir": work_dir} | ({"config": config} if config else {})
    _echo_json(api.train_scierc(output, data=data, overrides=overrides, **options))


@train.command("vectors")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--threads", type=int, default=1, show_default=True, help="More is faster but not reproducible.")
@_errors
def train_vectors(output: Path, threads: int) -> None:
    """Train floret vectors on the unlabelled corpus abstracts for the in-domain recogniser.

    \b
    Example:
        kg train vectors --output /tmp/vectors
    """
    click.echo(str(api.train_vectors(output, threads=threads)))


@cli.group()
def annotations() -> None:
    """Write and check the in-domain gold (training/indomain): sample, batches, anchoring, agreement."""


@annotations.command("sample")
@_errors
def annotations_sample() -> None:
    """Draw the sample (fixed seeds, stratified by area and venue-year) into training/indomain/sample.json.

    \b
    Example:
        kg annotations sample
    """
    click.echo(f"{api.annotation_sample()} abstracts in the sample")


@annotations.command("batch")
@click.option("--pass", "pass_", type=click.Choice(["a", "b"]), default="a", show_default=True)
@click.option("--part", type=int, required=True)
@click.option("--of", "of", type=int, required=True)
@click.option("--start", type=int, default=0, show_default=True, help="Only sample rows from this index on.")
@click.option("--unread", is_flag=True, help="Leave out the abstracts that already have this pass.")
@_errors
def annotations_batch(pass_: str, part: int, of: int, start: int, unread: bool) -> None:
    """Print one reader's part of the sample as JSONL (id, title, abstract).

    \b
    Example:
        kg annotations batch --pass a --part 3 --of 8 > /tmp/in.jsonl
        kg annotations batch --part 3 --of 8 --start 10000 --unread   # what is left of a draw being read
    """
    for row in api.annotation_batch(part, of, pass_, start, unread):
        click.echo(json.dumps(row, ensure_ascii=False))


@annotations.command("anchor")
@click.argument("draft", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--annotator", required=True)
@click.option("--pass", "pass_", type=click.Choice(["a", "b"]), default="a", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@_errors
def annotations_anchor(draft: Path, annotator: str, pass_: str, output: Path) -> None:
    """Turn a draft's quoted spans into standoff offsets; exit 1 on a problem.

    \b
    Example:
        kg annotations anchor draft.jsonl --annotator r3 --pass a -o training/indomain/annotations/a-r3-01.jsonl
    """
    count, problems = api.anchor_annotations(draft, output, annotator=annotator, pass_=pass_)
    for problem in problems:
        click.echo(f"problem: {problem}", err=True)
    if problems:
        click.echo(f"{count} records, nothing written to {output}", err=True)
        sys.exit(1)
    click.echo(f"{count} records -> {output}")


@annotations.command("show")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_errors
def annotations_show(files: tuple[Path, ...]) -> None:
    """Print stored records with their marks inline ([[text|Label = canonical]]), to proofread.

    \b
    Example:
        kg annotations show training/indomain/annotations/a-r3-01.jsonl
    """
    for text in api.show_annotations(files):
        click.echo(text)


@annotations.command("check")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_errors
def annotations_check(files: tuple[Path, ...]) -> None:
    """Validate the stored annotations (default: every file); exit 1 on a problem.

    \b
    Example:
        kg annotations check
    """
    count, problems = api.check_annotations(files)
    for problem in problems:
        click.echo(problem)
    click.echo(f"{count} records, {len(problems)} problems")
    if problems:
        sys.exit(1)


@annotations.command("agreement")
@_errors
def annotations_agreement() -> None:
    """Second pass against the first on the doubly annotated abstracts, as JSON.

    \b
    Example:
        kg annotations agreement
    """
    _echo_json(api.annotation_agreement())
