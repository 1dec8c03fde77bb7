"""The view in the page's URL: a link opens the view it was copied from (`dashboard.logic.viewlink` encodes it).

On a session's first run the link's query parameters become the widgets' values; in every run the view is
written back as soon as the filters are read, so the address bar holds a link to what is on screen by the time
the count shows it.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.viewlink import View, decode, encode
from topic_explorer.dashboard.ui.reader import read, reading_row
from topic_explorer.dashboard.ui.sidebar import show_view

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
    show_view(explorer, view)
    if view.paper:
        rows = explorer.papers.index[explorer.papers["paper_id"] == view.paper]
        if len(rows):
            read(int(rows[0]))


def write(explorer: Explorer, view: View) -> None:
    """Put the view, and the paper being read, into the URL (only when it changed).

    Called as soon as the view is known, before anything is drawn: the address bar changes with the count.
    """
    row = reading_row(explorer)
    paper = str(explorer.papers["paper_id"].iat[row]) if row is not None else None
    params = encode(replace(view, paper=paper))
    if params != st.query_params.to_dict():
        st.query_params.from_dict(params)
