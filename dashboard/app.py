"""Topic Explorer's dashboard: a build's topics on a map; search, filter, select, curate and export papers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from topic_explorer.dashboard.logic import data
from topic_explorer.dashboard.logic.filters import Filters, filter_mask
from topic_explorer.dashboard.logic.selection import ids_in_regions, map_key, table_key
from topic_explorer.dashboard.ui import curation, explore, meaning, page, reader, sidebar, timeline
from topic_explorer.dashboard.ui import selection as session
from topic_explorer.dashboard.ui import topic_quality as quality_view
from topic_explorer.dashboard.ui import viewlink as urlstate
from topic_explorer.pipeline.errors import UserError

st.set_page_config(layout="wide", page_title="Topic Explorer")


@st.cache_resource(show_spinner="Loading the build…", max_entries=4)
def load(path: str, version: tuple) -> data.Explorer:
    """One shared, read-only copy per build version (a rebuild or an edit changes `version`)."""
    return data.load_explorer(Path(path))


@st.cache_data(max_entries=64, show_spinner=False)
def shown_mask(path: str, version: tuple, filters: Filters) -> np.ndarray:
    """Which papers pass the filters; cached because the word filter over 20,000 abstracts takes a moment."""
    explorer = load(path, version)
    return filter_mask(explorer.papers, explorer.word_text, filters)


build_path = data.build_path()
try:
    version = data.build_version(build_path)
    explorer = load(str(build_path), version)
except UserError as error:
    page.render_missing_build(build_path, error)
    st.stop()

urlstate.restore(explorer)
timeline.apply_click(explorer)
view = sidebar.render_filters(explorer)
urlstate.write(explorer, view)
level = len(explorer.levels) - 1 if view.level is None else view.level
passing = shown_mask(str(build_path), version, sidebar.filters_of(view))
bar = sidebar.relevance_of(explorer, view)
found = meaning.render_search(str(build_path), version[0], explorer.papers, view, passing, bar)
shown = passing if found is None else np.isin(np.arange(len(passing)), found.rows)
rows = np.flatnonzero(shown) if found is None else found.rows
x, y = explorer.papers["x"].to_numpy(), explorer.papers["y"].to_numpy()
state, selection = session.advance_selection(
    (sidebar.filters_of(view), view.about, view.relevance),
    lambda event: ids_in_regions(event, x, y, explorer.ids, shown),  # every shown paper, drawn on the map or not
)
stored = explorer.mask_of(selection)
selected = stored & shown  # selected papers hidden by the filters are neither counted nor exported

page.render_header(explorer)
tabs = st.tabs(
    [page.EXPLORE, *(["Topics over time"] if timeline.time_column(explorer) else []), "Topic quality"],
    key=page.TAB_KEY,
    on_change="rerun",  # so a button can switch tabs (Topic quality's "Show in Explore"); every tab is still drawn
)
with tabs[0]:
    n_hidden = int((stored & ~shown).sum())
    explore.render_selection_bar(explorer, shown, selected, n_hidden, session.clear_selection, level, found)
    if found is not None:
        explore.render_search_line(explorer, view.about, found)
    elif not shown.all():
        explore.render_filter_line(explorer, shown)
    context = passing & ~shown if found is not None else None
    explore.render_map(explorer, version, level, shown, selected, map_key(state.generation), context)
    if len(rows):
        explore.render_table(explorer, rows, selected, table_key(state.table_generation), found)
    reader_column, topics_column = st.columns([3, 2], gap="large")
    with reader_column:
        reader.render_reader(explorer, rows, selected, stored, version[0])
    with topics_column:
        explore.render_topics(explorer, shown)
        curation.render_curation(explorer, build_path, selected, version[0])
session.remember_table(explorer.ids[rows].tolist())
if len(tabs) == 3:
    with tabs[1]:
        timeline.render_timeline(explorer, version, shown, level)
with tabs[-1]:
    quality_view.render_quality(explorer, version)
