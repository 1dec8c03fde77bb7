"""Topics over time: each topic's share of the shown papers per year, when the build has a year or a date.

The table and figure are pure; `render_timeline` draws them, and a click on a bar filters the page
to that bar's topic (or theme, at a coarser level of detail).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.filters import day_numbers
from topic_explorer.dashboard.logic.safetext import plotly_text, shorten
from topic_explorer.dashboard.ui.sidebar import DETAIL_KEY, topics_key
from topic_explorer.pipeline.share.levels import Level

TIMELINE_KEY = "timeline"
CLICKED_KEY = "timeline-clicked"  # the last click acted on, so a click filters once
MAX_SERIES = 15  # more topics than this: the smaller ones share one grey "Other topics" series
OTHER_COLOUR = "#c8c8c8"
_TIME_NAME = re.compile(r"(year|date|published|publication|created|submitted|issued)", re.IGNORECASE)
YEARS = (1000, 3000)  # an integer column named like a year holds years only in this range


def time_column(explorer: Explorer) -> str | None:
    """The metadata column giving each paper's year: an integer column named like a year, or a date column."""
    for spec in explorer.column_filters:
        if not _TIME_NAME.search(str(spec.column)):
            continue
        if spec.kind == "dates":
            return spec.column
        if spec.kind == "range" and spec.integer and YEARS[0] <= spec.bounds[0] <= spec.bounds[1] <= YEARS[1]:
            return spec.column
    return None


def years_of(values: pd.Series) -> np.ndarray:
    """Each paper's year as a float (NaN where unknown), from whole numbers or dates."""
    if pd.api.types.is_numeric_dtype(values):
        return pd.to_numeric(values, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    days = day_numbers(values)
    years = days.astype("datetime64[Y]").astype(float) + 1970
    return np.where(np.isnat(days), np.nan, years)


def shares(years: np.ndarray, level: Level, shown: np.ndarray) -> pd.DataFrame:
    """Per year and group: shown papers and their share of that year's shown papers (year, group, papers, share)."""
    group = np.full(len(years), -(10**9), dtype=np.int64)
    for key, rows in level.topic_rows.items():
        group[rows] = key
    keep = shown & ~np.isnan(years)
    counts = pd.DataFrame({"year": years[keep].astype(int), "group": group[keep]}).value_counts().rename("papers")
    table = counts.reset_index()
    table["share"] = table["papers"] / table.groupby("year")["papers"].transform("sum")
    return table.sort_values(["year", "group"]).reset_index(drop=True)


def timeline_figure(table: pd.DataFrame, level: Level) -> go.Figure:
    """Stacked bars, one series per group (the biggest `MAX_SERIES`); each bar carries its group id to click."""
    totals = table.groupby("group")["papers"].sum().sort_values(ascending=False)
    series = totals.index[:MAX_SERIES].tolist()
    info = level.topics.set_index("topic_id")
    traces = []
    for key in series:
        part = table[table["group"] == key]
        traces.append(
            {
                "type": "bar",
                "x": part["year"].tolist(),  # a few dozen numbers: plain lists read anywhere
                "y": part["share"].tolist(),
                "name": plotly_text(shorten(str(info.loc[key, "label"]), 40)),
                "marker": {"color": info.loc[key, "colour"]},
                "customdata": np.column_stack([part["group"], part["papers"]]).tolist(),
                "hovertemplate": "<b>%{fullData.name}</b><br>%{x}: %{y:.0%} of the shown papers (%{customdata[1]:,})"
                "<extra></extra>",
            }
        )
    rest = table[~table["group"].isin(series)].groupby("year", as_index=False)[["papers", "share"]].sum()
    if len(rest):
        traces.append(
            {"type": "bar", "x": rest["year"].tolist(), "y": rest["share"].tolist(), "name": "Other topics",
             "marker": {"color": OTHER_COLOUR}, "hovertemplate": "Other topics<br>%{x}: %{y:.0%}<extra></extra>"}
        )  # fmt: skip
    # Validating the traces costs more than building them at 100,000 papers; the structure above is fixed and tested.
    figure = go.Figure({"data": traces}, _validate=False)
    figure.update_layout(
        barmode="stack",
        height=460,
        margin={"l": 0, "r": 0, "t": 10, "b": 0},
        yaxis={"tickformat": ".0%", "title": {"text": "share of the year's shown papers"}},
        xaxis={"dtick": 1, "title": {"text": "year"}},
        legend={"font": {"size": 11}},
        clickmode="event+select",
    )
    return figure


def clicked_group(event: object) -> int | None:
    """The group id of the clicked bar in a Plotly selection event, if any (the "Other topics" bars have none)."""
    selection = event.get("selection") if isinstance(event, Mapping) else None
    points = selection.get("points") if isinstance(selection, Mapping) else None
    for point in points or []:
        data = point.get("customdata") if isinstance(point, Mapping) else None
        if isinstance(data, list | tuple) and data:
            return int(data[0])
    return None


def render_timeline(explorer: Explorer, shown: np.ndarray, level: int) -> None:
    """The chart of topic shares per year; clicking a bar shows only that topic."""
    column = time_column(explorer)
    groups = explorer.levels[level]
    table = shares(years_of(explorer.papers[column]), groups, shown)
    if table.empty:
        st.info("None of the shown papers has a year.")
        return
    st.caption(f"Each topic's share of the shown papers per year ({column}). Click a bar to show only that topic.")
    st.plotly_chart(timeline_figure(table, groups), key=TIMELINE_KEY, on_select="rerun", selection_mode="points")


def apply_click(explorer: Explorer) -> None:
    """A new click on a bar filters the page to its topic; read before the filters are drawn, as map selections are."""
    event = st.session_state.get(TIMELINE_KEY)
    group = clicked_group(event)
    if group is None or repr(event) == st.session_state.get(CLICKED_KEY):
        return
    st.session_state[CLICKED_KEY] = repr(event)
    level = st.session_state.get(DETAIL_KEY, len(explorer.levels) - 1)
    if group in explorer.levels[level].members:
        st.session_state[topics_key(explorer, level)] = [group]
