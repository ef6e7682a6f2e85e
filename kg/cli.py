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
@_extraction_options
@_errors
def build(sources: tuple[Path, ...], out: Path, limit: int | None, jobs: int | None, model: str | None, extractor: str | None, on_error: str) -> None:
    """Build the graph, RDF store, exports, explorer and summary from abstracts.

    SOURCES are seed-format .txt lists, JSONL(.gz) or CSV files, or folders of them.

    \b
    Example:
        kg build ../shared/seeds -o out/
    """
    s = Settings.from_env(jobs=jobs, spacy_model=model, extractor=extractor)
    with _progress(None, "extracting") as bar:
        result = api.build(sources, out, extractor=s.extractor, model=s.spacy_model, jobs=s.jobs, on_error=on_error, progress=bar.update, limit=limit)
    _echo_json(_printable(result.summary))
    click.echo(f"graph written to {result.out}/ ; explorer: {result.out / 'explorer.html'}", err=True)


def _printable(summary: dict[str, Any]) -> dict[str, Any]:
    shown = dict(summary)
    skipped = shown.pop("skipped", [])
    shown["skipped"] = len(skipped)
    return shown


@cli.command()
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["jsonl", "json"]), default="jsonl", show_default=True)
@_extraction_options
@_errors
def extract(sources: tuple[Path, ...], fmt: str, jobs: int | None, model: str | None, extractor: str | None, on_error: str) -> None:
    """Print what is extracted from each abstract (the extraction contract), in input order.

    \b
    Example:
        kg extract ../shared/seeds/*.txt --format jsonl
    """
    from kg.contract import to_contract

    s = Settings.from_env(jobs=jobs, spacy_model=model, extractor=extractor)
    abstracts = api.read(sources, on_error=on_error)
    rows = (to_contract(x) for x in api.extract(abstracts, extractor=s.extractor, model=s.spacy_model, jobs=s.jobs))
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
    from kg.evaluation.bounds import evaluate_bounds, format_report

    result = evaluate_bounds(gold)
    click.echo(json.dumps(result, indent=1) if as_json else format_report(result))
