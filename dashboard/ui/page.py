"""Page frame: the title line, and the friendly page shown when there is no build to read."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.safetext import escape_markdown
from topic_explorer.pipeline.errors import UserError

EXPLORE, TAB_KEY = "Explore", "tab"  # the first tab's name, and the tabs' key (a button may switch tabs)
MAKE_A_BUILD = "topic-explorer build --out my-build\ntopic-explorer serve my-build"
# Streamlit leaves 6rem (about 100 px) above a page's first line, room for a toolbar this page hides; 1.5rem keeps
# the heading clear of the browser's edge. Our own constant: no text from a build goes into it.
PAGE_STYLE = "<style>[data-testid=stMainBlockContainer] { padding-top: 1.5rem; }</style>"


def render_header(explorer: Explorer) -> None:
    """A title line naming the corpus, its paper and topic counts; the browser's tab names the corpus too."""
    st.set_page_config(page_title=f"{explorer.title} · Topic Explorer")
    st.html(PAGE_STYLE)  # only a style: Streamlit adds it to the page without a block of its own
    st.markdown(f"### {escape_markdown(explorer.title)} · {sizes(explorer)}")


def sizes(explorer: Explorer) -> str:
    """The heading's counts, "38 papers · 11 topics" (outliers are no topic)."""
    n_topics = int((explorer.topics["topic_id"] != -1).sum())
    return f"{len(explorer.papers):,} papers · {n_topics:,} topics"


def render_missing_build(path: Path, error: UserError) -> None:
    """No traceback: what is wrong, and the commands that make and open a build."""
    st.title("Topic Explorer", anchor=False)
    st.error(escape_markdown(str(error)))
    st.info(f"The dashboard looked for a build at {escape_markdown(str(path))}. Make a build and open it with:")
    st.code(MAKE_A_BUILD, language="bash")
    st.caption("Use your own abstracts with `topic-explorer build papers.csv --out my-build`.")
