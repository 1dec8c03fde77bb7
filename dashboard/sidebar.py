"""The sidebar: filters that apply to the map, the table and the export alike."""

from __future__ import annotations

import streamlit as st

from dashboard.data import Explorer
from dashboard.filters import ColumnFilter, Filters, search_words
from dashboard.safetext import column_title, escape_markdown

TOPICS_KEY = "filter-topics"
SEARCH_KEY = "filter-search"


def metadata_key(column: str) -> str:
    """The widget key of a metadata column's filter."""
    return f"filter-meta-{column}"


def render_filters(explorer: Explorer) -> Filters:
    """Draw the filter widgets in the sidebar; returns the user's filters."""
    specs = explorer.column_filters
    labels = dict(zip(explorer.topics["topic_id"], explorer.topics["label"], strict=True))
    sizes = dict(zip(explorer.topics["topic_id"], explorer.topics["size"], strict=True))
    with st.sidebar:
        st.header("Filters", anchor=False)
        topics = st.multiselect(
            "Topics",
            options=explorer.topics["topic_id"].tolist(),
            format_func=lambda t: f"{labels[t]} ({sizes[t]:,})",
            placeholder="All topics",
            key=TOPICS_KEY,
        )
        query = st.text_input(
            "Search titles and abstracts",
            placeholder="e.g. federated privacy",
            help="Case is ignored; with several words, a paper must contain all of them.",
            key=SEARCH_KEY,
        )
        ranges, choices = [], []
        for spec in specs:
            value = _column_widget(spec)
            if spec.kind == "range" and tuple(value) != spec.bounds:
                ranges.append((spec.column, (float(value[0]), float(value[1]))))
            elif spec.kind == "choice" and value:
                choices.append((spec.column, tuple(sorted(value))))
        keys = [TOPICS_KEY, SEARCH_KEY, *(metadata_key(spec.column) for spec in specs)]
        st.button("Reset filters", key="reset-filters", on_click=_reset, args=(keys,))
    return Filters(tuple(sorted(topics)), search_words(query), tuple(ranges), tuple(choices))


def _column_widget(spec: ColumnFilter) -> object:
    label, key = escape_markdown(column_title(spec.column)), metadata_key(spec.column)
    if spec.kind == "choice":
        return st.multiselect(label, options=list(spec.options), placeholder="All", key=key)
    low, high = (int(b) for b in spec.bounds) if spec.integer else spec.bounds
    return st.slider(label, min_value=low, max_value=high, value=(low, high), step=1 if spec.integer else None, key=key)


def _reset(keys: list[str]) -> None:
    for key in keys:
        st.session_state.pop(key, None)
