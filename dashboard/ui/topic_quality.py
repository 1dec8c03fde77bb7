"""The Topic quality tab: the build's headline figures and its topics, weakest first."""

from __future__ import annotations

import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.safetext import escape_markdown
from topic_explorer.dashboard.logic.topic_quality import (
    GOOD_FROM,
    RATING_BACKGROUNDS,
    headline_figures,
    provenance_line,
    topic_table,
)


def render_quality(explorer: Explorer) -> None:
    """Headline figures with what they mean, then every topic's coherence, weakest first."""
    manifest = explorer.build.manifest
    st.caption(escape_markdown(provenance_line(manifest)))
    figures = headline_figures(manifest.get("quality") or {})
    for column, figure in zip(st.columns(len(figures)), figures, strict=True):
        with column:
            st.metric(figure.name, figure.value)
            st.caption(figure.meaning)
    st.subheader("Topics, weakest first", anchor=False)
    st.caption(
        f"Coherence is the topic's own NPMI: :red[weak] below 0 (its keywords rarely meet in one abstract: a mixed "
        f"or noisy topic), :orange[fair] from 0 to {GOOD_FROM}, :green[good] from {GOOD_FROM}. "
        "Small corpora give noisy scores."
    )
    table = topic_table(explorer.topics)
    st.dataframe(
        table.style.map(lambda rating: f"background-color: {RATING_BACKGROUNDS[rating]}", subset=["rating"]),
        height=min(38 + 35 * len(table), 600),
        hide_index=True,
        key="quality-table",
        column_config={
            "rating": st.column_config.TextColumn("Rating", width="small"),
            "topic": st.column_config.TextColumn("Topic", width="medium"),
            "papers": st.column_config.NumberColumn("Papers"),
            "coherence": st.column_config.NumberColumn("Coherence (NPMI)", format="%.2f"),
            "keywords": st.column_config.TextColumn("Top keywords", width="large"),
        },
    )
