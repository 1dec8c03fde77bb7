"""Topics over time: each topic's papers per year, as counts or as a share of all that year's papers, when the build
has a year or a date.

Shares are of every paper of the year, whatever the filters: filtered to one topic (a click on its bar), the chart
shows that topic's own trend, never 100% bars. Each year's paper count is shown under it, so a year of 200 papers
is not read like one of 5,000; a year with fewer than `MIN_YEAR_PAPERS` papers gets no share bars at all (one paper
would draw a full-height 100% bar) but a "too few papers" mark, and a run of years without papers is one labelled
gap on the axis rather than unexplained empty space. The table and figure are pure; `render_timeline` draws them,
and a click on a bar filters the page to that bar's topic (or theme, at a coarser level of detail).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer, mask_bits
from topic_explorer.dashboard.logic.filters import day_numbers
from topic_explorer.dashboard.logic.safetext import column_title, escape_markdown, plotly_text, shorten
from topic_explorer.dashboard.ui.sidebar import DETAIL_KEY, topics_key
from topic_explorer.pipeline.view.levels import Level
from topic_explorer.pipeline.view.palette import series_colours

TIMELINE_KEY = "timeline"
CLICKED_KEY = "timeline-clicked"  # the last click acted on, so a click filters once
MAX_SERIES = 15  # more topics than this: the smaller ones share one grey series (`palette.SERIES_15` has 15 colours)
MODE_KEY = "timeline-mode"
SHARE, COUNT = "Share of all papers", "Papers"
MODES = (SHARE, COUNT)
OTHER_COLOUR = "#c8c8c8"
_TIME_NAME = re.compile(r"(year|date|published|publication|created|submitted|issued)", re.IGNORECASE)
YEARS = (1000, 3000)  # an integer column named like a year holds years only in this range
# A year needs this many papers before its topics' shares mean something: with one paper a topic holds 0% or 100%,
# with ten a share moves in steps of 10 points, already a bar a reader can compare with a big year's.
MIN_YEAR_PAPERS = 10
GAP_COLOUR = "rgba(0,0,0,0.04)"
NOTE_FONT = {"size": 11, "color": "#6b7280"}


def paper_count(n: int) -> str:
    """'1 paper', '2 papers', '1,500 papers'."""
    return f"{n:,} paper" if n == 1 else f"{n:,} papers"


def year_axis(totals: pd.Series, min_papers: int = MIN_YEAR_PAPERS) -> list[tuple[str, str, str]]:
    """The chart's x categories in order: (category, tick text, kind), kind being "year", "thin" or "gap".

    Each year with papers is a category; each run of years without any is one "gap" category ("2018–2022"), so a
    gap reads as one and a single stray old year does not squeeze every bar.
    """
    axis: list[tuple[str, str, str]] = []
    previous = None
    for year, n in totals.items():
        year = int(year)
        if previous is not None and year > previous + 1:
            first, last = previous + 1, year - 1
            name = str(first) if first == last else f"{first}–{last}"
            axis.append((name, f"{name}<br>no papers", "gap"))
        thin = n < min_papers
        axis.append((str(year), f"{year}<br>{paper_count(int(n))}", "thin" if thin else "year"))
        previous = year
    return axis


def shown_mode(totals: pd.Series, mode: str, min_papers: int = MIN_YEAR_PAPERS) -> str:
    """The mode the chart can honestly draw: shares need at least one year with `min_papers` papers."""
    return COUNT if mode == SHARE and not (totals >= min_papers).any() else mode


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
    """Per year and group: shown papers and their share of all that year's papers, shown or not (year, group,
    papers, share)."""
    group = np.full(len(years), -(10**9), dtype=np.int64)
    for key, rows in level.topic_rows.items():
        group[rows] = key
    keep = shown & ~np.isnan(years)
    counts = pd.DataFrame({"year": years[keep].astype(int), "group": group[keep]}).value_counts().rename("papers")
    table = counts.reset_index()
    table["share"] = table["papers"] / table["year"].map(year_totals(years)).to_numpy()
    return table.sort_values(["year", "group"]).reset_index(drop=True)


def year_totals(years: np.ndarray) -> pd.Series:
    """Every paper per year (the index), whatever the filters."""
    return pd.Series(years[~np.isnan(years)].astype(int)).value_counts().sort_index()


def timeline_figure(
    table: pd.DataFrame, level: Level, totals: pd.Series, mode: str = SHARE, min_papers: int = MIN_YEAR_PAPERS
) -> go.Figure:
    """Stacked bars, one series per group (the biggest `MAX_SERIES`, the rest grey on top); each bar carries its
    group id to click. `mode`: `SHARE` of all the year's papers, or `COUNT`; each year's paper count under it.

    As shares, a year with fewer than `min_papers` papers is marked "too few papers" instead of drawn; a run of
    years without papers is a shaded, labelled gap.
    """
    value = "share" if mode == SHARE else "papers"
    axis = year_axis(totals, min_papers)
    thin = {int(name) for name, _, kind in axis if kind == "thin"}
    table = table.assign(x=table["year"].astype(str), phrase=table["papers"].map(paper_count))
    if mode == SHARE:
        table = table[~table["year"].isin(thin)]
    by_size = table.groupby("group")["papers"].sum().sort_values(ascending=False)
    series = by_size.index[:MAX_SERIES].tolist()
    info = level.topics.set_index("topic_id")
    colours = series_colours([str(info.loc[key, "colour"]) for key in series])
    traces = []
    for key, colour in zip(series, colours, strict=True):
        part = table[table["group"] == key]
        traces.append(
            {
                "type": "bar",
                "x": part["x"].tolist(),  # a few dozen values: plain lists read anywhere
                "y": part[value].tolist(),
                "name": plotly_text(shorten(str(info.loc[key, "label"]), 40)),
                "marker": {"color": colour},
                "customdata": _bar_data(part),
                "hovertemplate": "<b>%{fullData.name}</b><br>%{x}: %{customdata[3]}, "
                "%{customdata[2]:.1%} of the year's<extra></extra>",
            }
        )
    rest = table[~table["group"].isin(series)].groupby("x", as_index=False, sort=False)[["papers", "share"]].sum()
    if len(rest):
        name = f"{by_size.size - len(series)} other topics"
        pairs = zip(rest["papers"], rest["share"], strict=True)
        grey = [[None, int(n), float(share), paper_count(int(n))] for n, share in pairs]
        traces.append(
            {"type": "bar", "x": rest["x"].tolist(), "y": rest[value].tolist(), "name": name,
             "marker": {"color": OTHER_COLOUR}, "customdata": grey,  # None: no group to click
             "hovertemplate": f"{name}<br>%{{x}}: %{{customdata[3]}}, %{{customdata[2]:.1%}} of the year's"
                              "<extra></extra>"}
        )  # fmt: skip
    # Validating the traces costs more than building them at 100,000 papers; the structure above is fixed and tested.
    figure = go.Figure({"data": traces}, _validate=False)
    figure.update_layout(
        barmode="stack",
        height=460,
        margin={"l": 0, "r": 0, "t": 10, "b": 0},
        yaxis={"tickformat": ".0%", "title": {"text": "share of all the year's papers"}}
        if mode == SHARE
        else {"tickformat": ",", "title": {"text": "papers"}},
        xaxis={
            "type": "category",
            "categoryorder": "array",
            "categoryarray": [name for name, _, _ in axis],
            "tickvals": [name for name, _, _ in axis],
            "ticktext": [text for _, text, _ in axis],
            "range": [-0.5, len(axis) - 0.5],  # every category, empty ones included
            "title": {"text": "year (and its number of papers)"},
        },
        legend={"font": {"size": 11}, "traceorder": "reversed"},  # the legend reads top-down like the stack
        clickmode="event+select",
        shapes=gap_shapes(axis),
        annotations=axis_notes(axis, mode),
    )
    return figure


def _bar_data(part: pd.DataFrame) -> list[list]:
    """Per bar: its group (to click), papers, share and the papers in words ("1 paper")."""
    columns = (part["group"], part["papers"], part["share"], part["phrase"])
    return [[int(g), int(n), float(share), phrase] for g, n, share, phrase in zip(*columns, strict=True)]


def gap_shapes(axis: list[tuple[str, str, str]]) -> list[dict]:
    """A light band over each gap category, behind the bars."""
    band = {"type": "rect", "xref": "x", "yref": "paper", "y0": 0, "y1": 1, "layer": "below"}
    return [
        {**band, "x0": i - 0.5, "x1": i + 0.5, "fillcolor": GAP_COLOUR, "line": {"width": 0}}
        for i, (_, _, kind) in enumerate(axis)
        if kind == "gap"
    ]


def axis_notes(axis: list[tuple[str, str, str]], mode: str) -> list[dict]:
    """'no papers' in each gap; 'too few papers for shares' on each thin year, when shares are drawn."""
    note = {"xref": "x", "yref": "paper", "y": 0.5, "showarrow": False, "font": NOTE_FONT}
    return [  # x by position: Plotly would read a category named "2017" as the 2,017th
        {**note, "x": i, "text": "no papers" if kind == "gap" else "too few<br>papers<br>for shares"}
        for i, (_, _, kind) in enumerate(axis)
        if kind == "gap" or (kind == "thin" and mode == SHARE)
    ]


def clicked_group(event: object) -> int | None:
    """The group id of the clicked bar in a Plotly selection event, if any (the "Other topics" bars have none)."""
    selection = event.get("selection") if isinstance(event, Mapping) else None
    points = selection.get("points") if isinstance(selection, Mapping) else None
    for point in points or []:
        data = point.get("customdata") if isinstance(point, Mapping) else None
        if isinstance(data, list | tuple) and data and isinstance(data[0], int | float):  # None: the grey bars
            return int(data[0])
    return None


@st.cache_data(max_entries=32, show_spinner=False)
def year_counts(
    path: str, version: tuple, level: int, shown_bits: bytes, _explorer: Explorer, _shown: np.ndarray
) -> tuple[pd.DataFrame, pd.Series]:
    """`shares` and `year_totals`, once per build version, level and shown papers: a selection changes none of them."""
    years = years_of(_explorer.papers[time_column(_explorer)])
    return shares(years, _explorer.levels[level], _shown), year_totals(years)


# A resource, not data: Streamlit would pickle a copy per rerun, and unpickling a Figure validates it again, which
# costs more than drawing it. The chart only reads it (`st.plotly_chart` sends a copy), so one shared copy is safe.
@st.cache_resource(max_entries=32, show_spinner=False)
def chart(
    path: str, version: tuple, level: int, shown_bits: bytes, mode: str, _explorer: Explorer, _shown: np.ndarray
) -> go.Figure:
    """`timeline_figure` of `year_counts`, once per build version, level, shown papers and mode (never mutate it)."""
    table, totals = year_counts(path, version, level, shown_bits, _explorer, _shown)
    return timeline_figure(table, _explorer.levels[level], totals, mode)


def render_timeline(explorer: Explorer, version: tuple, shown: np.ndarray, level: int) -> None:
    """The chart of each topic's papers per year (counts, or shares of all papers); clicking a bar shows that topic.

    `version`: the build's (`data.build_version`), under which `explorer` was loaded."""
    column = time_column(explorer)
    key = (str(explorer.build.path), version, level, mask_bits(shown))
    table, totals = year_counts(*key, explorer, shown)
    if table.empty:
        st.info("None of the shown papers has a year.")
        return
    mode = st.radio("Show", MODES, horizontal=True, key=MODE_KEY, label_visibility="collapsed")
    if shown_mode(totals, mode) != mode:
        mode = COUNT
        st.caption(f"Every year has fewer than {MIN_YEAR_PAPERS} papers: too few for shares, so counts are drawn.")
    source = "" if str(column).casefold() == "year" else f" (years from the {column_title(column)} column)"
    what = "share of all that year's papers" if mode == SHARE else "number of papers"
    thin = f" (years with fewer than {MIN_YEAR_PAPERS} are marked, not drawn as shares)" if mode == SHARE else ""
    st.caption(
        escape_markdown(
            f"Each bar is a year{source}: the shown papers of each topic, as a {what}; under each year, its number "
            f"of papers{thin}. Click a bar to show only its topic."
        )
    )
    st.plotly_chart(chart(*key, mode, explorer, shown), key=TIMELINE_KEY, on_select="rerun", selection_mode="points")


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
