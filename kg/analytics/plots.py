"""Figures of the analytics DataFrames, drawn with matplotlib's object API on the Agg canvas.

No pyplot: nothing opens a window or needs a display, and figures do not pile up in pyplot's
global state; a notebook shows a returned ``Figure`` inline all the same.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from kg.errors import KGError
from kg.schema.style import STYLE

FORMATS = ("png", "svg", "pdf")


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def trend_lines(yearly: pd.DataFrame, normalize: bool = True, title: str | None = None) -> Figure:
    """One line per entity of ``kg.analytics.yearly``: share of the year's papers (or papers) per year."""
    column = "share" if normalize else "papers"
    fig = _figure(8, 4.5)
    ax = fig.add_subplot()
    for name, rows in yearly.groupby("name", sort=False):
        ax.plot(rows["year"], rows[column] * (100 if normalize else 1), marker="o", label=str(name))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if yearly["year"].nunique() == 1:  # one year: matplotlib would pad it by a century each side
        year = int(yearly["year"].iloc[0])
        ax.set_xlim(year - 1, year + 1)
    ax.set_xlabel("year")
    ax.set_ylabel("% of the year's papers naming it" if normalize else "papers naming it")
    ax.set_title(title or "Mentions per year")
    ax.grid(alpha=0.3)
    if len(yearly):
        ax.legend(loc="best", fontsize="small")
    return fig


def community_overview(communities: pd.DataFrame, top: int = 12, title: str | None = None) -> Figure:
    """The ``top`` largest communities of ``kg.analytics.communities`` as bars of papers, named by
    their label, with their top problem and method written beside each bar."""
    rows = communities.sort_values(["papers", "community"], ascending=[False, True]).head(top).iloc[::-1]
    fig = _figure(13, 0.55 * max(len(rows), 3) + 1.2)
    ax = fig.add_subplot()
    ax.barh([textwrap.shorten(f"{c}: {label}", 55) for c, label in zip(rows["community"], rows["label"])], rows["papers"],
            color=STYLE["Problem"]["color"])
    for i, (_, r) in enumerate(rows.iterrows()):
        note = "; ".join(x for x in (", ".join(r["top_problems"][:2]), ", ".join(r["top_methods"][:2])) if x)
        ax.text(r["papers"], i, f"  {r['entities']} entities  {textwrap.shorten(note, 55)}", va="center", fontsize="small")
    ax.set_xlabel("papers naming a member")
    ax.set_title(title or "Research communities (Leiden on entity co-occurrence)")
    ax.set_xlim(0, max(rows["papers"].max() if len(rows) else 1, 1) * 2.6)
    return fig


def ranking_bars(ranking: pd.DataFrame, title: str | None = None) -> Figure:
    """Bars of a ``kg.analytics.centrality`` ranking, best on top, coloured by node type."""
    rows = ranking.iloc[::-1]
    fig = _figure(8, 0.35 * max(len(rows), 3) + 1.2)
    ax = fig.add_subplot()
    ax.barh([textwrap.shorten(str(n), 45) for n in rows["name"]], rows["score"],
            color=[STYLE.get(t, STYLE["Concept"])["color"] for t in rows["type"]])
    measure = ranking.attrs.get("measure", "score")
    ax.set_xlabel(measure)
    ax.set_title(title or f"Top {len(rows)} by {measure} ({ranking.attrs.get('projection', 'typed')} graph)")
    return fig


def save(fig: Figure, path: str | Path) -> Path:
    """Write ``fig`` as PNG, SVG or PDF, by the file's suffix."""
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise KGError(f"cannot write a plot as {path.name!r}; use a file ending in: {', '.join('.' + f for f in FORMATS)}")
    fig.savefig(path, format=fmt, dpi=150)
    return path
