"""The view in the page's URL: a link opens the view it was copied from (`dashboard.logic.viewlink` encodes it).

On a session's first run the link's query parameters become the widgets' values; after every run the
current view is written back, so the address bar always holds a link to what is on screen.
"""

from __future__ import annotations

import datetime
from dataclasses import replace

import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.viewlink import View, decode, encode
from topic_explorer.dashboard.ui.reader import read, reading_row
from topic_explorer.dashboard.ui.sidebar import (
    ABOUT_KEY,
    DETAIL_KEY,
    RESULTS_KEY,
    SEARCH_KEY,
    SHOWN_DETAIL_KEY,
    metadata_key,
    topics_key,
)

RESTORED_KEY = "view-restored"


def restore(explorer: Explorer) -> None:
    """Once per session, before any widget is drawn: put the link's view into the widgets."""
    if st.session_state.get(RESTORED_KEY):
        return
    st.session_state[RESTORED_KEY] = True
    view = decode(
        st.query_params.to_dict(),
        topic_ids=set(explorer.topics["topic_id"].tolist()),
        n_levels=len(explorer.levels),
        specs=explorer.column_filters,
    )
    finest = len(explorer.levels) - 1
    level = finest if view.level is None else view.level
    if finest:
        st.session_state[DETAIL_KEY] = st.session_state[SHOWN_DETAIL_KEY] = level
    if view.topics:
        st.session_state[topics_key(explorer, level)] = explorer.levels[level].groups_of(view.topics)
    for key, value in ((SEARCH_KEY, view.search), (ABOUT_KEY, view.about)):
        if value:
            st.session_state[key] = value
    if view.about:
        st.session_state[RESULTS_KEY] = view.results
    integer = {spec.column for spec in explorer.column_filters if spec.integer}
    for column, (low, high) in view.ranges.items():
        st.session_state[metadata_key(column)] = (int(low), int(high)) if column in integer else (low, high)
    for column, days in view.dates.items():
        st.session_state[metadata_key(column)] = tuple(datetime.date.fromisoformat(day) for day in days)
    for column, chosen in view.choices.items():
        st.session_state[metadata_key(column)] = list(chosen)
    if view.paper:
        rows = explorer.papers.index[explorer.papers["paper_id"] == view.paper]
        if len(rows):
            read(int(rows[0]))


def write(explorer: Explorer, view: View) -> None:
    """Put the view on screen, and the paper being read, into the URL (only when it changed)."""
    row = reading_row(explorer)
    paper = str(explorer.papers["paper_id"].iat[row]) if row is not None else None
    params = encode(replace(view, paper=paper))
    if params != st.query_params.to_dict():
        st.query_params.from_dict(params)
