"""The Explore tab: selection bar, map (with its view and labels), paper table and the topic tree with details."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer, mask_bits
from topic_explorer.dashboard.logic.export import download_label, file_name
from topic_explorer.dashboard.logic.figures import keyword_figure, map_figure
from topic_explorer.dashboard.logic.maplabels import label_candidates, mapview_script
from topic_explorer.dashboard.logic.safetext import column_title, escape_markdown
from topic_explorer.dashboard.logic.searching import Found, search_line, status_note
from topic_explorer.dashboard.ui.sidebar import ABOUT_KEY, keep_valid
from topic_explorer.pipeline.export.formats import DEFAULT_FORMAT, EXPORT_FORMATS, ExportFormat, export_bytes
from topic_explorer.pipeline.export.selection import select
from topic_explorer.pipeline.view.identifiers import LINK_HOST
from topic_explorer.pipeline.view.levels import tree_rows

SELECT_HELP = (
    "Select papers by dragging a box (or, from the map's toolbar, a lasso) over the map, or by ticking table rows. "
    "Selections add up; 'Clear selection' starts over. Export takes the selection, or every shown paper."
)
PLOTLY_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["toImage"]}
FORMAT_KEY = "export-format"
FORMAT_HELP = (
    "CSV and Excel open in spreadsheets; Parquet and JSON Lines keep every value's type for data tools; "
    "BibTeX and RIS go into Zotero, JabRef, EndNote or Mendeley; Map (HTML) is the map of these papers in one "
    "file that opens offline in any browser. In the CSV, a text a spreadsheet could run as a formula gets an "
    "apostrophe in front; the other files hold every text unchanged."
)
LINK_SUFFIX = " link"
VIEW_KEY = "map-view"  # how many times the user reset the map's view
DETAIL_TOPIC_KEY = "topic-detail"
ZOOM_KEY = "map-zoom"  # the map's x and y ranges a button chose (None: the whole map)
ZOOM_MARGIN = 0.1  # of the matches' span, on each side, when zooming to them
MIN_ZOOM_SHARE = 0.05  # of the whole map's span: a zoom to one paper still shows its neighbourhood


def render_selection_bar(
    explorer: Explorer,
    shown: np.ndarray,
    selected: np.ndarray,
    n_hidden: int,
    on_clear: Callable[[], None],
    level: int,
    found: Found | None = None,
) -> None:
    """Counts, 'Clear selection' and the download of the selection (or of every shown paper) in a chosen format.

    With `found` (a search's matches), the status counts them among the papers the filters keep.
    """
    n_shown, n_selected = int(shown.sum()), int(selected.sum())
    status, clear, reset, file_format, download = st.columns([3.2, 1.3, 1.1, 0.9, 2.6], vertical_alignment="center")
    status.markdown(status_note(n_shown, len(shown), n_selected, n_hidden, found), help=SELECT_HELP)
    clear.button("Clear selection", key="clear-selection", on_click=on_clear, disabled=not (n_selected or n_hidden))
    reset.button("Reset view", key="reset-view", on_click=reset_view, help="Show the whole map again")
    chosen = file_format.selectbox(
        "File format",
        options=list(EXPORT_FORMATS),
        index=list(EXPORT_FORMATS).index(DEFAULT_FORMAT),
        format_func=lambda key: EXPORT_FORMATS[key].label,
        label_visibility="collapsed",
        help=FORMAT_HELP,
        key=FORMAT_KEY,
    )
    export = EXPORT_FORMATS[chosen]
    rows = np.flatnonzero(selected if n_selected else shown)
    download.download_button(
        download_label(n_selected, n_shown, export.label),
        data=partial(_export_bytes, explorer, rows, export, level),
        file_name=file_name(explorer.title, export.extension),
        mime=export.mime,
        on_click="ignore",
        disabled=not len(rows),
        key="download",
    )


def render_search_line(explorer: Explorer, about: str, found: Found) -> None:
    """What a search shows: how many papers reach the relevance bar (or none, one line); zoom to them, or clear it."""
    text, zoom, clear = st.columns([6.3, 1.4, 1.4], vertical_alignment="center")
    text.caption(escape_markdown(search_line(about, found)))
    papers = explorer.papers
    ranges = match_ranges(papers["x"].to_numpy()[found.rows], papers["y"].to_numpy()[found.rows], explorer.extent)
    zoom.button("Zoom to matches", key="zoom-matches", on_click=zoom_to, args=(ranges,), disabled=ranges is None)
    clear.button("Clear search", key="clear-about", on_click=clear_about, help="Stop searching: every paper again")


def render_filter_line(explorer: Explorer, shown: np.ndarray) -> None:
    """Under the status, while the filters hide papers (and no search ranks them): 'Zoom to shown' frames the
    papers they keep, as 'Zoom to matches' does a search's."""
    text, zoom = st.columns([7.7, 1.4], vertical_alignment="center")
    text.caption(f"The filters keep {int(shown.sum()):,} of {len(shown):,} papers.")
    papers = explorer.papers
    ranges = match_ranges(papers["x"].to_numpy()[shown], papers["y"].to_numpy()[shown], explorer.extent)
    zoom.button(
        "Zoom to shown",
        key="zoom-shown",
        on_click=zoom_to,
        args=(ranges,),
        disabled=ranges is None,
        help="Frame the papers the filters keep; 'Reset view' shows the whole map again",
    )


def match_ranges(
    x: np.ndarray, y: np.ndarray, extent: tuple[tuple[float, float], tuple[float, float]]
) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The map's x and y ranges that frame these papers, with a margin (None for no papers; pure)."""
    if not len(x):
        return None
    framed = []
    for values, (low, high) in ((x, extent[0]), (y, extent[1])):
        least = (high - low) * MIN_ZOOM_SHARE
        span = max(float(values.max() - values.min()), least)
        middle = (float(values.max()) + float(values.min())) / 2
        half = span * (0.5 + ZOOM_MARGIN)
        framed.append((middle - half, middle + half))
    return framed[0], framed[1]


def zoom_to(ranges: tuple[tuple[float, float], tuple[float, float]]) -> None:
    """Button callback: a new view of the map, framing `ranges`."""
    st.session_state[VIEW_KEY] = st.session_state.get(VIEW_KEY, 0) + 1
    st.session_state[ZOOM_KEY] = ranges


def clear_about() -> None:
    """Button callback: no search (the sidebar's box emptied, so the widget says so too)."""
    st.session_state[ABOUT_KEY] = ""


def _export_bytes(explorer: Explorer, rows: np.ndarray, export: ExportFormat, level: int) -> bytes:
    """Made only when the button is pressed: the same bytes `topic-explorer export` writes."""
    selection = select(explorer.build, rows, level=level, levels=explorer.levels, order=explorer.draw_order)
    return export_bytes(selection, export)


def render_map(
    explorer: Explorer,
    version: tuple,
    level: int,
    shown: np.ndarray,
    selected: np.ndarray,
    key: str,
    context: np.ndarray | None = None,
) -> None:
    """The paper map at a level of detail; its selections are read through session state (`dashboard.ui.selection`).

    The user's zoom is kept across reruns and redraws until 'Reset view' (`dashboard.logic.maplabels`). `version`:
    the build's (`data.build_version`), under which `explorer` was loaded.
    """
    if not shown.any() and (context is None or not context.any()):  # a search finding nothing still draws the field
        st.info("No papers match these filters. Widen them, choose other topics or press 'Reset filters'.")
        return
    groups = explorer.levels[level]
    figure = map_figure(
        replace(explorer, topics=groups.topics, topic_rows=groups.topic_rows),
        shown,
        selected,
        context=context,
        labels=map_labels(str(explorer.build.path), version, level, mask_bits(shown), explorer, shown),
        view=view_name(explorer),
        store=zoom_store(explorer),
        ranges=st.session_state.get(ZOOM_KEY),
        legend_title="Topics" if level == len(explorer.levels) - 1 else "Themes",
    )
    meta = figure.layout.meta
    note = sample_note(meta["drawn"] + meta["context_drawn"], meta["shown"] + meta["context"])
    if note:
        st.caption(note)
    st.plotly_chart(figure, key=key, on_select="rerun", selection_mode=("box", "lasso", "points"), config=PLOTLY_CONFIG)
    st.iframe(mapview_script(), height=1)  # our own script only: no text from the build goes into it


@st.cache_data(max_entries=32, show_spinner=False)
def map_labels(
    path: str, version: tuple, level: int, shown_bits: bytes, _explorer: Explorer, _shown: np.ndarray
) -> list[dict]:
    """The map's `label_candidates`, once per build version, level and shown papers: a selection, the commonest
    rerun, changes none of them (a quarter of a box select's rerun at 19,000 papers went on placing the labels);
    an edit changes `version`, so a renamed topic's label follows."""
    x, y = _explorer.papers[["x", "y"]].to_numpy().T
    return label_candidates(_explorer.levels, level, _shown, x, y, _explorer.extent)


def sample_note(drawn: int, total: int) -> str | None:
    """What the map leaves out when it draws a sample (None when it draws every paper)."""
    if drawn >= total:
        return None
    return (
        f"Drawing {drawn:,} of {total:,} papers on the map, an even sample that keeps it quick; "
        "narrow the filters to draw them all. Counts, box and lasso selections and downloads cover every paper."
    )


def zoom_store(explorer: Explorer) -> str:
    """Names this build's kept zoom in the browser tab (`maplabels.js`)."""
    return hashlib.sha256(str(explorer.build.path).encode()).hexdigest()[:12]


def view_name(explorer: Explorer) -> str:
    """Names the user's view of this build's map in this session; 'Reset view' starts a new one."""
    return f"{zoom_store(explorer)}-{st.session_state.get(VIEW_KEY, 0)}"


def reset_view() -> None:
    """Button callback: the whole map again (a new view, so neither Plotly nor the page restores the zoom)."""
    st.session_state[VIEW_KEY] = st.session_state.get(VIEW_KEY, 0) + 1
    st.session_state.pop(ZOOM_KEY, None)


def render_table(
    explorer: Explorer, rows: np.ndarray, selected: np.ndarray, key: str, found: Found | None = None
) -> None:
    """The shown papers, sortable, with row selection; no abstracts (they would make 20,000 rows slow).

    The selected papers come ticked: the row checkboxes are the table's one record of the selection, map's included
    (`key` is renewed whenever the selection changes elsewhere).

    With `found` (a search), `rows` come best first and each shows its relevance (the bar's measure) and score.
    """
    papers = explorer.papers
    searched = {"relevance": found.relevance, "score": found.scores} if found is not None else {}
    table = pd.DataFrame(
        {
            **searched,
            "title": explorer.titles[rows],
            "topic": explorer.table_values["topic_label"][rows],
            "confidence": papers["confidence"].to_numpy()[rows],
        }
    )
    columns = {}
    for column in explorer.metadata_columns:
        name = _unclashing(column, table.columns)
        table[name] = explorer.table_values[column][rows]
        if column in explorer.text_columns:  # ids, and decimals the table would round: every digit, as text
            columns[name] = st.column_config.TextColumn(column_title(column))
        else:  # whole numbers show every digit without thousands separators; decimals here have few digits
            columns[name] = column_title(column)
        if column in explorer.links:
            link = _unclashing(column + LINK_SUFFIX, table.columns)
            table[link] = explorer.links[column][rows]
            columns[link] = st.column_config.LinkColumn(
                column_title(column) + LINK_SUFFIX, display_text=LINK_HOST, help="Opens the paper's page in a new tab"
            )
    st.dataframe(
        table,
        key=key,
        placeholder="",  # a missing value is an empty cell, never the word "None"
        on_select="rerun",
        selection_mode="multi-row",
        selection_default={"selection": {"rows": np.flatnonzero(selected[rows]).tolist()}},  # its one tick column
        hide_index=True,
        height=420,
        column_config={
            "relevance": st.column_config.NumberColumn(
                "Relevance",
                format="%.2f",
                help="How close the paper's meaning is to the search (cosine similarity): the sidebar's bar is on this",
            ),
            "score": st.column_config.NumberColumn(
                "Score",
                format="%.3f",
                help="The order: the paper's place by meaning and by words together (1: first by both)",
            ),
            "title": st.column_config.TextColumn("Title", width="large"),
            "topic": st.column_config.TextColumn("Topic"),
            "confidence": st.column_config.ProgressColumn("Confidence", min_value=0.0, max_value=1.0, format="%.2f"),
            **columns,
        },
    )


def _unclashing(name: str, taken: pd.Index) -> str:
    """`name`, or `name (metadata)` when the table has a column of that name already (e.g. 'title')."""
    return f"{name} (metadata)" if name in set(taken) else name


@st.fragment  # choosing another topic reruns only this panel
def render_topics(explorer: Explorer, shown: np.ndarray) -> None:
    """The topic tree with sizes; the chosen topic's keyword weights and most representative papers."""
    topics, papers = explorer.topics, explorer.papers
    shown_counts = pd.Series(papers["topic_id"].to_numpy()[shown]).value_counts()
    tree = tree_rows(explorer.levels, shown_counts)
    st.dataframe(
        tree[["topic", "papers", "shown"]],
        hide_index=True,
        height=min(36 + 35 * len(tree), 320),
        key="topic-list",
        column_config={
            "topic": st.column_config.TextColumn("Topic" if len(explorer.levels) == 1 else "Themes and topics"),
            "papers": st.column_config.NumberColumn("Papers", format="localized"),
            "shown": st.column_config.NumberColumn(
                "Shown", format="localized", help="Papers of this topic that pass the filters"
            ),
        },
    )
    labels = dict(zip(topics["topic_id"], topics["label"], strict=True))
    keep_valid(DETAIL_TOPIC_KEY, set(labels))
    topic_id = st.selectbox(
        "Topic details", options=topics["topic_id"].tolist(), format_func=labels.__getitem__, key=DETAIL_TOPIC_KEY
    )
    topic = topics.loc[topics["topic_id"] == topic_id].iloc[0]
    confidence = papers["confidence"].to_numpy()
    if len(topic["keywords"]):
        st.plotly_chart(
            keyword_figure(topic["keywords"], topic["keyword_weights"], topic["colour"]),
            key="keyword-chart",
            config={**PLOTLY_CONFIG, "displayModeBar": False},
        )
    st.caption("Most representative papers (closest to the topic's centre)")
    best = most_confident(explorer, topic_id)
    st.text("\n".join(f"• {explorer.titles[row]} ({confidence[row]:.2f})" for row in best))


def most_confident(explorer: Explorer, topic_id: int, top: int = 5) -> np.ndarray:
    """Rows of the topic's `top` papers by confidence, best first (ties in row order; no confidence: left out)."""
    rows = explorer.topic_rows.get(topic_id, np.zeros(0, dtype=np.int64))
    confidence = explorer.papers["confidence"].to_numpy(dtype=float)[rows]
    known = ~np.isnan(confidence)
    rows, confidence = rows[known], confidence[known]
    return rows[np.argsort(-confidence, kind="stable")[:top]]
