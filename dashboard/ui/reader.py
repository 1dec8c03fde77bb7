"""The reader: a paper's abstract as plain text, and its most similar papers, a click from being read or selected."""

from __future__ import annotations

import numpy as np
import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.safetext import column_title, escape_markdown
from topic_explorer.dashboard.ui import meaning
from topic_explorer.dashboard.ui import selection as session
from topic_explorer.pipeline.buildfolder.metadata import value_text
from topic_explorer.pipeline.text.latex import latex_to_text
from topic_explorer.pipeline.view.identifiers import link_host

READER_KEY = "reader"  # the row of the paper being read
PINNED_KEY = "reader-pinned"  # a paper chosen by a click or a link: offered even when the filters hide it
MAX_READER_OPTIONS = 1000
SIMILAR = 10


def reading_row(explorer: Explorer) -> int | None:
    """The row of the paper being read, if any (a link or a click chose it, or the reader's list)."""
    row = st.session_state.get(READER_KEY)
    return int(row) if isinstance(row, int | np.integer) and 0 <= row < len(explorer.papers) else None


@st.fragment  # choosing another paper reruns only this panel, not the 20,000-point map
def render_reader(
    explorer: Explorer, rows: np.ndarray, selected: np.ndarray, stored: np.ndarray, manifest_version: int
) -> None:
    """A chosen paper's full abstract, as plain text (never markdown or HTML), then its similar papers.

    `rows` are the shown papers, `selected` the shown selected ones (masks over every paper) and `stored` the whole
    selection, hidden papers included.
    """
    papers = explorer.papers
    chosen_rows = rows[selected[rows]]
    candidates = chosen_rows if len(chosen_rows) else rows
    options = candidates[:MAX_READER_OPTIONS].tolist()
    pinned = st.session_state.get(PINNED_KEY)
    if pinned is not None and pinned not in options:  # a similar paper, or a linked one, hidden by the filters
        options.insert(0, pinned)
    if not options:
        st.session_state.pop(READER_KEY, None)
        return
    if st.session_state.get(READER_KEY) not in options:  # the paper read before is filtered away: read the first
        st.session_state[READER_KEY] = options[0]  # set, not dropped: the browser's box then names it too
    titles = explorer.titles
    label = "Read a selected paper" if len(chosen_rows) else "Read a paper"
    if len(candidates) > MAX_READER_OPTIONS:
        label += f" (the first {MAX_READER_OPTIONS:,} of {len(candidates):,}; filter or select to narrow)"
    row = st.selectbox(label, options=options, format_func=lambda r: titles[r], key=READER_KEY)
    st.query_params["paper"] = str(papers["paper_id"].iat[row])  # the link names the paper being read
    paper = papers.iloc[row]
    confidence = paper["confidence"]
    details = [f"Topic: {paper['topic_label']}"]
    if confidence == confidence:  # a paper moved to another topic by hand has no closeness to it
        details.append(f"confidence {confidence:.2f}")
    texts = {column: value_text(paper[column]) for column in explorer.metadata_columns}
    details += [f"{column_title(column)}: {text}" for column, text in texts.items() if text is not None]
    with st.container(border=True):  # st.text everywhere: titles and abstracts are never markdown or HTML
        st.text(explorer.titles[row])
        st.text(" · ".join(details))
        st.text(latex_to_text(paper["abstract"]))
        for column, urls in explorer.links.items():
            if urls[row] is not None:  # a link button: the page opens in a new tab; its label is our own text
                label = f"{column_title(column)} {texts[column]} on {link_host(urls[row])} ↗"
                st.link_button(escape_markdown(label), urls[row], key=f"reader-link-{column}")
    shown = np.zeros(len(papers), dtype=bool)
    shown[rows] = True
    _render_similar(explorer, row, shown, stored, manifest_version)


def _render_similar(explorer: Explorer, row: int, shown: np.ndarray, stored: np.ndarray, manifest_version: int) -> None:
    """The nearest papers, each a click from being read; 'Select' only where selecting shows: a paper the filters
    hide would be selected out of sight (counted as hidden), so its button is off and its line says why."""
    near, scores = meaning.similar(str(explorer.build.path), manifest_version, row, SIMILAR)
    st.caption(f"The {len(near)} most similar papers (cosine similarity of their abstracts' embeddings)")
    topics = explorer.table_values["topic_label"]
    for rank, (other, score) in enumerate(zip(near.tolist(), scores.tolist(), strict=True)):
        hidden = "" if shown[other] else "  · hidden by the filters"
        why = "Selected already" if stored[other] else "The filters hide this paper: reset them to select it"
        off = bool(stored[other] or not shown[other])
        # One row whose buttons keep their labels' width and the line takes the rest: in fixed-share columns a
        # narrow page (the edit panel open) cut the buttons to "R…" and "Sel…".
        with st.container(horizontal=True, vertical_alignment="center", wrap=False):
            st.text(f"{score:.2f}  {explorer.titles[other]}  ({topics[other]}){hidden}", width="stretch")
            st.button("Read", key=f"similar-read-{rank}", on_click=read, args=(other,))
            if st.button("Select", key=f"similar-select-{rank}", disabled=off, help=why if off else None):
                session.add_to_selection([str(explorer.ids[other])])
                st.rerun()  # the whole page: the map rings the paper and the counts change


def read(row: int) -> None:
    """Read the paper at `row` (a click, or a link), even if the filters hide it."""
    st.session_state[READER_KEY] = st.session_state[PINNED_KEY] = row
