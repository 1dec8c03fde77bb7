"""The sidebar: filters that apply to the map, the table and the export alike."""

from __future__ import annotations

import datetime

import streamlit as st

from dashboard.data import Explorer
from dashboard.filters import ColumnFilter, Filters, search_words
from dashboard.safetext import column_title, escape_markdown

TOPICS_KEY = "filter-topics"
SEARCH_KEY = "filter-search"
FEW_CHOICES = 12  # a multi-select with more options than this says how many there are to search


def metadata_key(column: str) -> str:
    """The widget key of a metadata column's filter."""
    return f"filter-meta-{column}"


def search_label(explorer: Explorer) -> str:
    """What the search box searches: titles and abstracts, and the identifier columns by name."""
    if not explorer.identifiers:
        return "Search titles and abstracts"
    return "Search titles, abstracts, " + ", ".join(column_title(c) for c in explorer.identifiers)


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
            escape_markdown(search_label(explorer)),
            placeholder="e.g. federated privacy",
            help="Case is ignored; with several words, a paper must contain all of them.",
            key=SEARCH_KEY,
        )
        ranges, dates, choices = [], [], []
        for spec in specs:
            value = _column_widget(spec)
            if spec.kind == "range" and tuple(value) != spec.bounds:
                ranges.append((spec.column, (float(value[0]), float(value[1]))))
            elif spec.kind == "dates" and tuple(day.isoformat() for day in value) != spec.bounds:
                dates.append((spec.column, (value[0].isoformat(), value[1].isoformat())))
            elif spec.kind == "choice" and value:
                choices.append((spec.column, tuple(sorted(value))))
        keys = [TOPICS_KEY, SEARCH_KEY, *(metadata_key(spec.column) for spec in specs)]
        st.button("Reset filters", key="reset-filters", on_click=_reset, args=(keys,))
    return Filters(tuple(sorted(topics)), search_words(query), tuple(ranges), tuple(dates), tuple(choices))


def _column_widget(spec: ColumnFilter) -> object:
    label, key = escape_markdown(column_title(spec.column)), metadata_key(spec.column)
    if spec.kind == "choice":
        many = len(spec.options) > FEW_CHOICES
        placeholder = f"All · type to search {len(spec.options):,} values" if many else "All"
        return st.multiselect(label, options=list(spec.options), placeholder=placeholder, key=key)
    if spec.kind == "dates":
        first, last = (datetime.date.fromisoformat(day) for day in spec.bounds)
        return st.slider(label, min_value=first, max_value=last, value=(first, last), format="YYYY-MM-DD", key=key)
    if spec.integer:
        low, high = (int(b) for b in spec.bounds)
        return st.slider(label, min_value=low, max_value=high, value=(low, high), step=1, format="%d", key=key)
    low, high = spec.bounds
    return st.slider(label, min_value=low, max_value=high, value=(low, high), key=key)


def _reset(keys: list[str]) -> None:
    for key in keys:
        st.session_state.pop(key, None)
