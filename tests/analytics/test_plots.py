"""Plots: titles, axis labels, legends and years on the axis, written as PNG/SVG/PDF without a display."""

from __future__ import annotations

import pytest

from kg import analytics
from kg.analytics import plots
from kg.errors import KGError
from kg.testing import planted_graph

DOC = planted_graph(groups=3, entities=4, papers=16)


def test_plots_trend_lines_have_years_on_the_axis_and_a_legend(tmp_path) -> None:
    yearly = analytics.yearly(DOC, ["method:area 0 entity 0", "problem:area 1 entity 1"])
    fig = plots.trend_lines(yearly)
    ax = fig.axes[0]
    assert ax.get_title() == "Mentions per year" and ax.get_xlabel() == "year"
    assert ax.get_ylabel() == "% of the year's papers naming it"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Area 0 entity 0", "Area 1 entity 1"]
    assert [list(line.get_xdata()) for line in ax.get_lines()] == [list(range(2018, 2026))] * 2
    assert all(float(t).is_integer() for t in ax.get_xticks())
    png = plots.save(fig, tmp_path / "trends.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (plots.save(fig, tmp_path / "trends.svg")).read_text().lstrip().startswith("<?xml")
    counts = plots.trend_lines(yearly, normalize=False).axes[0]
    assert counts.get_ylabel() == "papers naming it" and max(counts.get_lines()[0].get_ydata()) >= 1


def test_plots_trend_lines_of_one_year_keep_the_axis_on_that_year() -> None:
    """A graph of one year's papers (the seeds, a single conference) plots one point per entity."""
    import pandas as pd

    yearly = pd.DataFrame({"name": ["A", "B"], "year": [2026, 2026], "share": [0.1, 0.05], "papers": [4, 2]})
    ax = plots.trend_lines(yearly).axes[0]
    assert ax.get_xlim() == (2025, 2027)
    assert 2026 in ax.get_xticks()


def test_plots_community_overview_names_each_community(tmp_path) -> None:
    summary = analytics.communities(DOC)
    ax = plots.community_overview(summary).axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(labels) == sorted(f"{c}: {label}" for c, label in zip(summary["community"], summary["label"]))
    assert ax.get_xlabel() == "papers naming a member" and "Leiden" in ax.get_title()
    assert plots.save(ax.figure, tmp_path / "c.pdf").read_bytes()[:4] == b"%PDF"


def test_plots_ranking_bars_best_on_top() -> None:
    ranking = analytics.centrality(DOC, type="Method", top=3)
    ax = plots.ranking_bars(ranking).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ranking["name"].tolist()[::-1]
    assert ax.get_xlabel() == "pagerank" and ax.get_title() == "Top 3 by pagerank (typed graph)"


def test_plots_refuse_unknown_formats(tmp_path) -> None:
    with pytest.raises(KGError, match=r"\.png, \.svg, \.pdf"):
        plots.save(plots.ranking_bars(analytics.centrality(DOC)), tmp_path / "x.jpg")
