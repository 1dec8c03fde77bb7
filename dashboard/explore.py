"""The Explore tab: selection bar, map, paper table, abstract reader and topic details."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.data import Explorer
from dashboard.export import csv_bytes, download_label, export_frame, file_name, unclashing
from dashboard.figures import keyword_figure, map_figure
from dashboard.safetext import column_title

MAX_READER_OPTIONS = 1000
SELECT_HELP = (
    "Select papers by dragging a box (or, from the map's toolbar, a lasso) over the map, or by ticking table rows. "
    "Selections add up; 'Clear selection' starts over. Export takes the selection, or every shown paper."
)
PLOTLY_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["toImage"]}


def render_selection_bar(
    explorer: Explorer, shown: np.ndarray, selected: np.ndarray, n_hidden: int, on_clear: Callable[[], None]
) -> None:
    """Counts, 'Clear selection' and the CSV download of the selection (or of every shown paper)."""
    n_shown, n_selected = int(shown.sum()), int(selected.sum())
    status, clear, download = st.columns([3.2, 1.1, 2], vertical_alignment="center")
    note = f"**Showing {n_shown:,} of {len(shown):,} papers** · {n_selected:,} selected"
    if n_hidden:
        note += f" (+{n_hidden:,} hidden by the filters)"
    status.markdown(note, help=SELECT_HELP)
    clear.button("Clear selection", key="clear-selection", on_click=on_clear, disabled=not (n_selected or n_hidden))
    rows = np.flatnonzero(selected if n_selected else shown)
    download.download_button(
        download_label(n_selected, n_shown),
        data=partial(_csv, explorer, rows),
        file_name=file_name(explorer.name),
        mime="text/csv",
        on_click="ignore",
        disabled=not len(rows),
        key="download",
    )


def _csv(explorer: Explorer, rows: np.ndarray) -> bytes:
    return csv_bytes(export_frame(explorer.papers.iloc[rows], explorer.topics, explorer.metadata_columns))


def render_map(explorer: Explorer, shown: np.ndarray, selected: np.ndarray, key: str) -> None:
    """The paper map; its selections are read through session state (see `dashboard.session`)."""
    if not shown.any():
        st.info("No papers match these filters. Widen the search, choose other topics or press 'Reset filters'.")
        return
    st.plotly_chart(
        map_figure(explorer, shown, selected),
        key=key,
        on_select="rerun",
        selection_mode=("box", "lasso", "points"),
        config=PLOTLY_CONFIG,
    )


def render_table(explorer: Explorer, rows: np.ndarray, selected: np.ndarray, key: str) -> None:
    """The shown papers, sortable, with row selection; no abstracts (they would make 20,000 rows slow)."""
    papers = explorer.papers
    table = pd.DataFrame(
        {
            "✓": np.where(selected[rows], "✓", ""),
            "title": papers["title"].to_numpy()[rows],
            "topic": papers["topic_label"].to_numpy()[rows],
            "confidence": papers["confidence"].to_numpy()[rows],
        }
    )
    metadata_titles = {}
    for column in explorer.metadata_columns:
        name = unclashing(column, table.columns)
        table[name] = papers[column].to_numpy()[rows]
        metadata_titles[name] = column_title(name)
    st.dataframe(
        table,
        key=key,
        on_select="rerun",
        selection_mode="multi-row",
        hide_index=True,
        height=420,
        column_config={
            "✓": st.column_config.TextColumn("✓", width=40, help="Selected for export"),
            "title": st.column_config.TextColumn("Title", width="large"),
            "topic": st.column_config.TextColumn("Topic"),
            "confidence": st.column_config.ProgressColumn("Confidence", min_value=0.0, max_value=1.0, format="%.2f"),
            **metadata_titles,
        },
    )


@st.fragment  # choosing another paper reruns only this panel, not the 20,000-point map
def render_reader(explorer: Explorer, rows: np.ndarray, selected: np.ndarray) -> None:
    """A chosen paper's full abstract, as plain text (never markdown or HTML)."""
    papers = explorer.papers
    chosen_rows = rows[selected[rows]]
    candidates = chosen_rows if len(chosen_rows) else rows
    options = candidates[:MAX_READER_OPTIONS].tolist()
    if not options:
        return
    titles = papers["title"].to_numpy()
    label = "Read a selected paper" if len(chosen_rows) else "Read a paper"
    if len(candidates) > len(options):
        label += f" (the first {len(options):,} of {len(candidates):,}; filter or select to narrow)"
    row = st.selectbox(label, options=options, format_func=lambda r: titles[r], key="reader")
    paper = papers.iloc[row]
    details = [f"Topic: {paper['topic_label']}", f"confidence {paper['confidence']:.2f}"]
    details += [f"{column_title(column)}: {paper[column]}" for column in explorer.metadata_columns]
    with st.container(border=True):  # st.text everywhere: titles and abstracts are never markdown or HTML
        st.text(paper["title"])
        st.text(" · ".join(details))
        st.text(paper["abstract"])


@st.fragment  # choosing another topic reruns only this panel
def render_topics(explorer: Explorer, shown: np.ndarray) -> None:
    """Topics with sizes; the chosen topic's keyword weights and most representative papers."""
    topics, papers = explorer.topics, explorer.papers
    shown_counts = papers.loc[shown, "topic_id"].value_counts()
    st.dataframe(
        pd.DataFrame(
            {
                "topic": topics["label"],
                "papers": topics["size"],
                "shown": topics["topic_id"].map(shown_counts).fillna(0).astype(int),
            }
        ),
        hide_index=True,
        height=min(36 + 35 * len(topics), 250),
        key="topic-list",
        column_config={
            "topic": st.column_config.TextColumn("Topic"),
            "papers": st.column_config.NumberColumn("Papers"),
            "shown": st.column_config.NumberColumn("Shown", help="Papers of this topic that pass the filters"),
        },
    )
    labels = dict(zip(topics["topic_id"], topics["label"], strict=True))
    topic_id = st.selectbox(
        "Topic details", options=topics["topic_id"].tolist(), format_func=labels.__getitem__, key="topic-detail"
    )
    topic = topics.loc[topics["topic_id"] == topic_id].iloc[0]
    if len(topic["keywords"]):
        st.plotly_chart(
            keyword_figure(topic["keywords"], topic["keyword_weights"], topic["colour"]),
            key="keyword-chart",
            config={**PLOTLY_CONFIG, "displayModeBar": False},
        )
    best = papers.loc[papers["topic_id"] == topic_id, ["title", "confidence"]].nlargest(5, "confidence")
    st.caption("Most representative papers (closest to the topic's centre)")
    st.text("\n".join(f"• {paper.title} ({paper.confidence:.2f})" for paper in best.itertuples()))
