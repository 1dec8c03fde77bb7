"""The selection's life across reruns: read the widgets' latest selections, fold them in, keep the result."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import replace

import streamlit as st

from topic_explorer.dashboard.logic.selection import (
    SelectionState,
    added,
    advance,
    cleared,
    ids_from_map_event,
    ids_from_table_event,
    map_key,
    map_signature,
    shown,
    table_key,
)

STATE_KEY = "selection-state"


def current_state() -> SelectionState:
    """The stored selection state (a fresh one in a new session)."""
    return st.session_state.get(STATE_KEY) or SelectionState()


def advance_selection(
    filters: Hashable, in_regions: Callable[[Mapping | None], set[str]] | None = None
) -> tuple[SelectionState, frozenset[str]]:
    """Fold the map's and table's latest selections in, before the widgets are drawn again.

    Reading them through session state, before the widgets render, matters: the map's figure shows
    the selection, so the figure changes and Plotly's own selection is dropped once it is redrawn; the table
    is drawn ticked from the selection (`dashboard.logic.selection`).
    `in_regions` gives the papers inside the map's boxes and lassos, drawn or not; it is asked only while
    the filters are those the map was drawn with (a box drawn before a filter change keeps what it held).
    """
    state = current_state()
    event = st.session_state.get(map_key(state.generation))
    signature = map_signature(event)
    map_ids: set[str] = set()
    if signature is not None and signature != state.map_seen:  # a new map selection: folded in once
        map_ids = ids_from_map_event(event)
        if in_regions is not None and filters == state.filters:
            map_ids |= in_regions(event)
    table_event = st.session_state.get(table_key(state.table_generation))
    table_ids = None if table_event is None else ids_from_table_event(table_event, state.shown_ids)
    state, selection = advance(state, map_ids, table_ids, filters)
    st.session_state[STATE_KEY] = state = replace(state, map_seen=signature)
    return state, selection


def remember_table(ids: list[str]) -> None:
    """Record the paper_ids the table shows, row by row, to read its next selection against."""
    st.session_state[STATE_KEY] = shown(current_state(), ids)


def clear_selection() -> None:
    """Button callback: forget the selection and reset the map and table widgets."""
    st.session_state[STATE_KEY] = cleared(current_state())


def add_to_selection(ids: list[str]) -> None:
    """Add papers to the selection (a 'Select' button)."""
    st.session_state[STATE_KEY] = added(current_state(), ids)
