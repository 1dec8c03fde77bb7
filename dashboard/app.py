"""Topic Explorer's dashboard: a build's topics on a map; filter, select and export papers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from dashboard import data, explore, page, quality_view, session, sidebar
from dashboard.filters import Filters, filter_mask
from dashboard.selection import map_key, table_key
from pipeline.errors import UserError

st.set_page_config(layout="wide", page_title="Topic Explorer")


@st.cache_resource(show_spinner="Loading the build…", max_entries=4)
def load(path: str, version: float) -> data.Explorer:
    """One shared, read-only copy per build version (the manifest's mtime changes on every rebuild)."""
    return data.load_explorer(Path(path))


@st.cache_data(max_entries=64, show_spinner=False)
def shown_mask(path: str, version: float, filters: Filters) -> np.ndarray:
    """Which papers pass the filters; cached because text search over 20,000 abstracts takes a moment."""
    explorer = load(path, version)
    return filter_mask(explorer.papers, explorer.search, filters)


build_path = data.build_path()
try:
    version = data.build_version(build_path)
    explorer = load(str(build_path), version)
except UserError as error:
    page.render_missing_build(build_path, error)
    st.stop()

filters = sidebar.render_filters(explorer)
shown = shown_mask(str(build_path), version, filters)
state, selection = session.advance_selection(filters)
stored = explorer.papers["paper_id"].isin(selection).to_numpy()
selected = stored & shown  # selected papers hidden by the filters are neither counted nor exported
rows = np.flatnonzero(shown)

page.render_header(explorer)
explore_tab, quality_tab = st.tabs(["Explore", "Topic quality"])
with explore_tab:
    n_hidden = int((stored & ~shown).sum())
    explore.render_selection_bar(explorer, shown, selected, n_hidden, on_clear=session.clear_selection)
    explore.render_map(explorer, shown, selected, key=map_key(state.generation))
    if len(rows):
        explore.render_table(explorer, rows, selected, key=table_key(state.generation))
    reader_column, topics_column = st.columns([3, 2], gap="large")
    with reader_column:
        explore.render_reader(explorer, rows, selected)
    with topics_column:
        explore.render_topics(explorer, shown)
session.remember_table(explorer.papers["paper_id"].to_numpy()[rows].tolist())
with quality_tab:
    quality_view.render_quality(explorer)
