"""The sidebar: level of detail, then filters that apply to the map, the table and the export alike."""

from __future__ import annotations

import datetime

import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.filters import ColumnFilter, Filters, filter_words
from topic_explorer.dashboard.logic.safetext import column_title, escape_markdown
from topic_explorer.dashboard.logic.viewlink import RELEVANCE_STEP, View
from topic_explorer.pipeline.search.ranked import default_relevance

TOPICS_KEY = "filter-topics"  # the topic filter at the finest level; coarser levels have their own keys
WORDS_KEY = "filter-words"
ABOUT_KEY = "filter-about"
RELEVANCE_KEY = "filter-relevance"
DETAIL_KEY = "detail"
SHOWN_DETAIL_KEY = "detail-shown"  # the level the page was last drawn at, to carry the topic filter over
FEW_CHOICES = 12  # a multi-select with more options than this says how many values it holds
SEARCH_HELP = (
    "Describe the papers you want, in your own words or in theirs: papers are ranked by meaning (embeddings "
    "made with this build's own model) and by their words (BM25 over titles and abstracts) together. The best "
    "matches are shown, best first, among the papers the other filters keep."
)
RELEVANCE_HELP = (
    "A paper matches when its meaning is at least this close to the query (cosine similarity of the embeddings, "
    "0 to 1). Raise it for fewer, closer matches; lower it to see more. A query nothing is about finds nothing."
)
FILTER_HELP = "Keeps only the papers that contain every word (case is ignored). To rank papers instead, use Search."


def metadata_key(column: str) -> str:
    """The widget key of a metadata column's filter."""
    return f"filter-meta-{column}"


def topics_key(explorer: Explorer, level: int) -> str:
    """The topic filter's widget key at `level` (its options are that level's groups)."""
    return TOPICS_KEY if level == len(explorer.levels) - 1 else f"{TOPICS_KEY}-level-{level}"


def filter_label(explorer: Explorer) -> str:
    """What the word filter reads: titles and abstracts, and the identifier columns by name."""
    if not explorer.identifiers:
        return "Filter by words (titles and abstracts)"
    return "Filter by words (titles, abstracts, " + ", ".join(column_title(c) for c in explorer.identifiers) + ")"


def render_filters(explorer: Explorer) -> View:
    """Draw the level of detail and the filter widgets in the sidebar; returns the user's view."""
    specs = explorer.column_filters
    with st.sidebar:
        level = _detail(explorer)
        st.header("Filters", anchor=False)
        groups = explorer.levels[level]
        labels = dict(zip(groups.topics["topic_id"], groups.topics["label"], strict=True))
        sizes = dict(zip(groups.topics["topic_id"], groups.topics["size"], strict=True))
        keep_valid(topics_key(explorer, level), set(groups.topics["topic_id"].tolist()), many=True)
        chosen = st.multiselect(
            "Themes" if level < len(explorer.levels) - 1 else "Topics",
            options=groups.topics["topic_id"].tolist(),
            format_func=lambda t: f"{labels[t]} ({sizes[t]:,})",
            placeholder="All themes" if level < len(explorer.levels) - 1 else "All topics",
            key=topics_key(explorer, level),
        )
        about = st.text_input(
            "Search",
            placeholder="e.g. privacy when training across many devices",
            help=SEARCH_HELP,
            key=ABOUT_KEY,
        )
        default = relevance_default(explorer)
        bar = st.session_state.get(RELEVANCE_KEY, default)
        if about.strip():
            bar = st.slider(
                "Relevance at least",
                min_value=0.0,
                max_value=1.0,
                step=RELEVANCE_STEP,
                format="%.2f",
                help=RELEVANCE_HELP,
                key=RELEVANCE_KEY,
                **_default(RELEVANCE_KEY, default),
            )
        words = st.text_input(
            escape_markdown(filter_label(explorer)),
            placeholder="e.g. federated privacy",
            help=FILTER_HELP,
            key=WORDS_KEY,
        )
        ranges, dates, choices = {}, {}, {}
        for spec in specs:
            value = _column_widget(spec)
            if spec.kind == "range" and tuple(value) != spec.bounds:
                ranges[spec.column] = (float(value[0]), float(value[1]))
            elif spec.kind == "dates" and tuple(day.isoformat() for day in value) != spec.bounds:
                dates[spec.column] = (value[0].isoformat(), value[1].isoformat())
            elif spec.kind == "choice" and value:
                choices[spec.column] = tuple(sorted(value))
        st.button("Reset filters", key="reset-filters", on_click=reset_filters, args=(explorer,))
    return View(
        topics=groups.topics_of(chosen),
        words=words,
        about=about.strip(),
        relevance=None if round(bar, 2) == round(default, 2) else round(float(bar), 2),
        level=level if level < len(explorer.levels) - 1 else None,
        ranges=ranges,
        dates=dates,
        choices=choices,
    )


def relevance_default(explorer: Explorer) -> float:
    """The relevance bar a search starts with on this build (it depends on the build's embedder)."""
    return default_relevance(explorer.build.manifest)


def relevance_of(explorer: Explorer, view: View) -> float:
    """The relevance bar the view's search uses."""
    return relevance_default(explorer) if view.relevance is None else view.relevance


def filters_of(view: View) -> Filters:
    """The filters every paper is checked against (search ranks afterwards)."""
    return Filters(
        tuple(view.topics),
        filter_words(view.words),
        tuple(sorted(view.ranges.items())),
        tuple(sorted(view.dates.items())),
        tuple(sorted(view.choices.items())),
    )


def _detail(explorer: Explorer) -> int:
    """The level-of-detail control (only when the build has a topic tree); returns the chosen level."""
    finest = len(explorer.levels) - 1
    if finest == 0:
        return 0
    level = st.select_slider(
        "Detail",
        options=list(range(finest + 1)),
        **_default(DETAIL_KEY, finest),
        format_func=lambda i: explorer.levels[i].name,
        help="Broad themes (left) to fine topics (right): colours, labels, legend and the topic filter follow.",
        key=DETAIL_KEY,
        on_change=_carry_topics,
        args=(explorer,),
    )
    st.session_state[SHOWN_DETAIL_KEY] = level
    return int(level)


def _carry_topics(explorer: Explorer) -> None:
    """A new level keeps the topic filter: the new level's groups holding the topics chosen before."""
    finest = len(explorer.levels) - 1
    old, new = st.session_state.get(SHOWN_DETAIL_KEY, finest), st.session_state[DETAIL_KEY]
    chosen = explorer.levels[old].topics_of(st.session_state.get(topics_key(explorer, old), []))
    st.session_state[topics_key(explorer, new)] = explorer.levels[new].groups_of(chosen) if chosen else []


def _column_widget(spec: ColumnFilter) -> object:
    label, key = escape_markdown(column_title(spec.column)), metadata_key(spec.column)
    if spec.kind == "choice":
        many = len(spec.options) > FEW_CHOICES
        placeholder = f"All · type to find one of {len(spec.options):,} values" if many else "All"
        return st.multiselect(label, options=list(spec.options), placeholder=placeholder, key=key)
    if spec.kind == "dates":
        first, last = (datetime.date.fromisoformat(day) for day in spec.bounds)
        default = _default(key, (first, last))
        return st.slider(label, min_value=first, max_value=last, format="YYYY-MM-DD", key=key, **default)
    if spec.integer:
        low, high = (int(b) for b in spec.bounds)
        return st.slider(
            label, min_value=low, max_value=high, step=1, format="%d", key=key, **_default(key, (low, high))
        )
    low, high = spec.bounds
    return st.slider(label, min_value=low, max_value=high, key=key, **_default(key, (low, high)))


def _default(key: str, value: object) -> dict:
    """`value` as the widget's default, unless a link or a callback has set the widget already."""
    return {} if key in st.session_state else {"value": value}


def keep_valid(key: str, options: set, many: bool = False) -> None:
    """Forget a widget's value that is no longer an option (a topic merged away by an edit).

    A value kept is written back too: that makes the browser redraw the widget, so a renamed topic shows its new
    name there (the browser otherwise keeps showing the name the option had when it was chosen).
    """
    if key not in st.session_state:
        return
    value = st.session_state[key]
    if many:
        st.session_state[key] = [v for v in value if v in options]
    elif value in options:
        st.session_state[key] = value
    else:
        del st.session_state[key]


def show_view(explorer: Explorer, view: View) -> None:
    """Put `view` into every filter widget and the level of detail, before they are drawn (a link, a reset).

    Every widget gets a value, defaults included: a value only removed from session state would stay in the
    browser's widget and come back with the next action.
    """
    finest = len(explorer.levels) - 1
    level = finest if view.level is None else view.level
    if finest:
        st.session_state[DETAIL_KEY] = st.session_state[SHOWN_DETAIL_KEY] = level
    for other in range(finest + 1):
        chosen = explorer.levels[other].groups_of(view.topics) if other == level and view.topics else []
        st.session_state[topics_key(explorer, other)] = chosen
    st.session_state[WORDS_KEY], st.session_state[ABOUT_KEY] = view.words, view.about
    st.session_state[RELEVANCE_KEY] = relevance_of(explorer, view)
    for spec in explorer.column_filters:
        st.session_state[metadata_key(spec.column)] = _widget_value(spec, view)


def _widget_value(spec: ColumnFilter, view: View) -> object:
    """A metadata filter's widget value in `view` (its whole range, or nothing chosen, when the view leaves it)."""
    if spec.kind == "choice":
        return list(view.choices.get(spec.column, ()))
    if spec.kind == "dates":
        return tuple(datetime.date.fromisoformat(day) for day in view.dates.get(spec.column, spec.bounds))
    low, high = view.ranges.get(spec.column, spec.bounds)
    return (int(low), int(high)) if spec.integer else (float(low), float(high))


def reset_filters(explorer: Explorer) -> None:
    """Button callback: every filter back to its default, at the level of detail on screen."""
    finest = len(explorer.levels) - 1
    level = st.session_state.get(DETAIL_KEY, finest) if finest else finest
    show_view(explorer, View(level=None if level == finest else level))
