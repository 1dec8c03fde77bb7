"""The selection's life across reruns: read the widgets' latest selections, fold them in, keep the result."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping

import streamlit as st

from topic_explorer.dashboard.logic.selection import (
    SelectionState,
    added,
    advance,
    cleared,
    ids_from_map_event,
    ids_from_table_event,
    map_key,
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
    the selection, so the figure changes and Plotly's own selection is dropped once it is redrawn.
    `in_regions` gives the papers inside the map's boxes and lassos, drawn or not; it is asked only while
    the filters are those the map was drawn with (a box drawn before a filter change keeps what it held).
    """
    state = current_state()
    event = st.session_state.get(map_key(state.generation))
    map_ids = ids_from_map_event(event)
    if in_regions is not None and event is not None and filters == state.filters:
        map_ids |= in_regions(event)
    table_ids = ids_from_table_event(st.session_state.get(table_key(state.generation)), state.shown_ids)
    state, selection = advance(state, map_ids, table_ids, filters)
    st.session_state[STATE_KEY] = state
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
