"""The Explore tab: selection bar, map, paper table, abstract reader and topic details."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.data import Explorer
from dashboard.export import DEFAULT_FORMAT, EXPORT_FORMATS, download_label, export_frame, file_name
from dashboard.figures import keyword_figure, map_figure
from dashboard.identifiers import LINK_HOST, link_host
from dashboard.safetext import column_title, escape_markdown
from pipeline.metadata import value_text

MAX_READER_OPTIONS = 1000
SELECT_HELP = (
    "Select papers by dragging a box (or, from the map's toolbar, a lasso) over the map, or by ticking table rows. "
    "Selections add up; 'Clear selection' starts over. Export takes the selection, or every shown paper."
)
PLOTLY_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["toImage"]}
FORMAT_KEY = "export-format"
FORMAT_HELP = (
    "CSV and Excel open in spreadsheets; Parquet and JSON Lines keep every value's type for data tools. "
    "In the CSV, a text a spreadsheet could run as a formula gets an apostrophe in front; "
    "the Excel, Parquet and JSON Lines files hold every text unchanged."
)
LINK_SUFFIX = " link"


def render_selection_bar(
    explorer: Explorer, shown: np.ndarray, selected: np.ndarray, n_hidden: int, on_clear: Callable[[], None]
) -> None:
    """Counts, 'Clear selection' and the download of the selection (or of every shown paper) in a chosen format."""
    n_shown, n_selected = int(shown.sum()), int(selected.sum())
    status, clear, file_format, download = st.columns([3.0, 1.1, 1.0, 2.6], vertical_alignment="center")
    note = f"**Showing {n_shown:,} of {len(shown):,} papers** · {n_selected:,} selected"
    if n_hidden:
        note += f" (+{n_hidden:,} hidden by the filters)"
    status.markdown(note, help=SELECT_HELP)
    clear.button("Clear selection", key="clear-selection", on_click=on_clear, disabled=not (n_selected or n_hidden))
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
        data=partial(_export_bytes, explorer, rows, export.write),
        file_name=file_name(explorer.name, export.extension),
        mime=export.mime,
        on_click="ignore",
        disabled=not len(rows),
        key="download",
    )


def _export_bytes(explorer: Explorer, rows: np.ndarray, write: Callable[[pd.DataFrame], bytes]) -> bytes:
    return write(export_frame(explorer.papers.iloc[rows], explorer.topics, explorer.metadata_columns))


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
    columns = {}
    for column in explorer.metadata_columns:
        name = _unclashing(column, table.columns)
        values = papers[column].array[rows]
        if column in explorer.text_columns:  # ids, and decimals the table would round: every digit, as text
            table[name] = [value_text(value) for value in values]
            columns[name] = st.column_config.TextColumn(column_title(column))
        else:  # whole numbers show every digit without thousands separators; decimals here have few digits
            table[name] = values
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
        on_select="rerun",
        selection_mode="multi-row",
        hide_index=True,
        height=420,
        column_config={
            "✓": st.column_config.TextColumn("✓", width=40, help="Selected for export"),
            "title": st.column_config.TextColumn("Title", width="large"),
            "topic": st.column_config.TextColumn("Topic"),
            "confidence": st.column_config.ProgressColumn("Confidence", min_value=0.0, max_value=1.0, format="%.2f"),
            **columns,
        },
    )


def _unclashing(name: str, taken: pd.Index) -> str:
    """`name`, or `name (metadata)` when the table has a column of that name already (e.g. 'title')."""
    return f"{name} (metadata)" if name in set(taken) else name


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
    texts = {column: value_text(paper[column]) for column in explorer.metadata_columns}
    details += [f"{column_title(column)}: {text}" for column, text in texts.items() if text is not None]
    with st.container(border=True):  # st.text everywhere: titles and abstracts are never markdown or HTML
        st.text(paper["title"])
        st.text(" · ".join(details))
        st.text(paper["abstract"])
        for column, urls in explorer.links.items():
            if urls[row] is not None:  # a link button: the page opens in a new tab; its label is our own text
                label = f"{column_title(column)} {texts[column]} on {link_host(urls[row])} ↗"
                st.link_button(escape_markdown(label), urls[row], key=f"reader-link-{column}")


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
