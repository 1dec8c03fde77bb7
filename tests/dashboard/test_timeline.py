"""Topics over time on thin years: too few papers for shares is said, a gap between years reads as one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from topic_explorer.dashboard.ui.timeline import (
    COUNT,
    SHARE,
    paper_count,
    shares,
    shown_mode,
    timeline_figure,
    year_axis,
    year_totals,
)

# Eight papers: one in 2017, seven in 2025 (the tiny build's papers, given other years).
YEARS = np.array([2017, 2025, 2025, 2025, 2025, 2025, 2025, 2025], dtype=float)


def test_paper_counts_read_as_english():
    assert [paper_count(n) for n in (0, 1, 2, 1500)] == ["0 papers", "1 paper", "2 papers", "1,500 papers"]


def test_a_run_of_years_without_papers_is_one_gap_category():
    totals = pd.Series({2017: 1, 2023: 1, 2025: 1500})
    axis = year_axis(totals, min_papers=10)
    assert [(name, kind) for name, _, kind in axis] == [
        ("2017", "thin"), ("2018–2022", "gap"), ("2023", "thin"), ("2024", "gap"), ("2025", "year")
    ]  # fmt: skip
    assert [text for _, text, _ in axis] == [
        "2017<br>1 paper", "2018–2022<br>no papers", "2023<br>1 paper", "2024<br>no papers", "2025<br>1,500 papers"
    ]  # fmt: skip


def test_a_thin_year_draws_no_share_bars_but_says_too_few_papers(tiny):
    level = tiny.levels[-1]
    table = shares(YEARS, level, np.ones(8, bool))
    figure = timeline_figure(table, level, year_totals(YEARS), SHARE, min_papers=5)
    go.Figure(figure.to_dict())  # valid Plotly, though built unvalidated
    assert {x for trace in figure.data for x in trace.x} == {"2025"}  # no 100% bar for 2017's one paper
    assert list(figure.layout.xaxis.categoryarray) == ["2017", "2018–2024", "2025"]
    notes = {note.x: note.text for note in figure.layout.annotations}  # by position on the axis
    assert notes == {0: "too few<br>papers<br>for shares", 1: "no papers"}
    (band,) = figure.layout.shapes  # the gap shaded
    assert (band.x0, band.x1) == (0.5, 1.5)


def test_as_counts_a_thin_year_is_drawn_with_its_papers(tiny):
    level = tiny.levels[-1]
    table = shares(YEARS, level, np.ones(8, bool))
    figure = timeline_figure(table, level, year_totals(YEARS), COUNT, min_papers=5)
    drawn = {(x, y) for trace in figure.data for x, y in zip(trace.x, trace.y, strict=True)}
    assert ("2017", 1) in drawn
    assert [note.text for note in figure.layout.annotations] == ["no papers"]
    hovers = [row[3] for trace in figure.data for row in trace.customdata]
    assert "1 paper" in hovers


@pytest.mark.parametrize(("counts", "mode"), [({2024: 3, 2025: 4}, COUNT), ({2024: 3, 2025: 40}, SHARE)])
def test_shares_need_at_least_one_year_with_enough_papers(counts, mode):
    assert shown_mode(pd.Series(counts), SHARE, min_papers=10) == mode
    assert shown_mode(pd.Series(counts), COUNT, min_papers=10) == COUNT
