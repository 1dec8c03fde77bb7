"""The Topic quality tab: the build's headline figures and its topics, catch-all and incoherent ones first; any topic
opens in the Explore tab from here."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.safetext import escape_markdown
from topic_explorer.dashboard.logic.topic_quality import (
    CATCH_ALL_TIMES,
    GOOD_FROM,
    RATING_BACKGROUNDS,
    headline_figures,
    provenance_line,
    topic_table,
)
from topic_explorer.dashboard.logic.viewlink import View
from topic_explorer.dashboard.ui.explore import DETAIL_TOPIC_KEY
from topic_explorer.dashboard.ui.page import EXPLORE, TAB_KEY
from topic_explorer.dashboard.ui.sidebar import show_view

OPEN_KEY = "quality-topic"


def open_topic(explorer: Explorer, topic_id: int) -> None:
    """Button callback: the Explore tab, filtered to one topic at the finest level of detail, with its details."""
    show_view(explorer, View(topics=(int(topic_id),)))
    st.session_state[DETAIL_TOPIC_KEY] = int(topic_id)
    st.session_state[TAB_KEY] = EXPLORE


@st.cache_data(max_entries=8, show_spinner=False)
def quality_table(path: str, version: tuple, _explorer: Explorer) -> pd.DataFrame:
    """`topic_table`, once per build version (an edit changes it): every rerun draws this tab, selections included."""
    return topic_table(_explorer.topics, _explorer.papers)


def render_quality(explorer: Explorer, version: tuple) -> None:
    """Headline figures with what they mean, then every topic rated, flagged ones first; any one opens in Explore.

    `version`: the build's (`data.build_version`), under which `explorer` was loaded."""
    manifest = explorer.build.manifest
    st.caption(escape_markdown(provenance_line(manifest)))
    figures = headline_figures(manifest.get("quality") or {})
    for column, figure in zip(st.columns(len(figures)), figures, strict=True):
        with column:
            st.metric(figure.name, figure.value)
            st.caption(figure.meaning)
    st.subheader("Topics, the ones to check first", anchor=False)
    st.caption(
        f":orange[catch-all]: {CATCH_ALL_TIMES:.0f} times the median topic's size or more (it most likely mixes "
        f"several themes); :orange[reads as one]: half its top keywords are another topic's; :red[fits poorly]: its "
        "papers sit farther from it than this build's topics' papers do from theirs; :red[incoherent]: coherence "
        "(the topic's own NPMI) below 0, its keywords rarely meet in one abstract; :red[words apart]: its keywords "
        f"hold together well below this build's other topics'; :orange[fair] from 0 to {GOOD_FROM}; :green[good] "
        f"from {GOOD_FROM}. Why lists every reason. Small corpora give noisy scores."
    )
    table = quality_table(str(explorer.build.path), version, explorer)
    pick, button = st.columns([4, 1.3], vertical_alignment="bottom")
    labels = dict(zip(table["topic_id"], table["topic"], strict=True))
    chosen = pick.selectbox(
        "Topic to look at", options=table["topic_id"].tolist(), format_func=labels.__getitem__, key=OPEN_KEY
    )
    button.button(
        "Show in Explore", key="quality-open", on_click=open_topic, args=(explorer, chosen), disabled=chosen is None
    )
    st.dataframe(
        table.drop(columns="topic_id").style.map(
            lambda rating: f"background-color: {RATING_BACKGROUNDS[rating]}", subset=["rating"]
        ),
        height=min(38 + 35 * len(table), 600),
        hide_index=True,
        key="quality-table",
        column_config={
            "rating": st.column_config.TextColumn("Rating", width=100),
            "topic": st.column_config.TextColumn("Topic", width="medium"),
            "papers": st.column_config.NumberColumn("Papers", format="localized"),
            "coherence": st.column_config.NumberColumn("Coherence (NPMI)", format="%.2f"),
            "why": st.column_config.TextColumn("Why", width="large"),
            "keywords": st.column_config.TextColumn("Top keywords", width="medium"),
        },
    )
