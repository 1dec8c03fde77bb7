"""A build from someone else is data: a damaged one gets the friendly page; script and markup in it stay text."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from tests.dashboard.tinybuild import (
    HOSTILE_FOLDER,
    HOSTILE_MANIFEST,
    XSS,
    hostile_papers,
    hostile_topics,
    tiny_papers,
    tiny_topics,
)
from topic_explorer.dashboard.ui.page import PAGE_STYLE
from topic_explorer.pipeline.buildfolder.write import write_build

UNESCAPED_TAG = re.compile(r"(?<!\\)<[a-z/]", re.IGNORECASE)  # escaped markdown shows "\<img" literally
UNESCAPED_LINK = re.compile(r"(?<!\\)\]\(javascript")
UNESCAPED_BOLD = re.compile(r"(?<!\\)\*\*bold")


@pytest.fixture(scope="module")
def hostile_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("builds") / HOSTILE_FOLDER
    papers = hostile_papers()
    return write_build(out, papers, hostile_topics(), np.zeros((len(papers), 4), dtype=np.float32), HOSTILE_MANIFEST)


def markdown_shown(at) -> list[str]:
    """Every string the page renders as markdown: text elements, and the labels of widgets and metrics."""
    texts = [
        e.value
        for kind in ("markdown", "caption", "error", "info", "title", "header", "subheader")
        for e in at.get(kind)
    ]
    widgets = [*at.multiselect, *at.slider, *at.selectbox, *at.text_input, *at.button, *at.metric]
    return texts + [w.label for w in widgets]


def test_script_and_markup_in_every_field_are_shown_as_text(run_app, hostile_build):
    at = run_app(hostile_build)
    assert not at.exception
    rendered = markdown_shown(at)
    assert any("xss\\=4" in text for text in rendered)  # the folder name is in the header, escaped
    assert any("xss\\=1" in w.label for w in at.multiselect)  # a metadata column named with script: its filter
    for text in rendered:
        assert not any(pattern.search(text) for pattern in (UNESCAPED_TAG, UNESCAPED_LINK, UNESCAPED_BOLD)), text
    assert [h.proto.body for h in at.get("html")] == [PAGE_STYLE]  # the page's own style, never a build's text
    plain = [t.value for t in at.text]
    assert f"{XSS} title 0" in plain
    assert f"{XSS} abstract 0" in plain  # the reader shows them verbatim
    assert any(f"Venue: {XSS} venue 0" in t for t in plain)


def test_script_in_labels_reaches_the_map_only_escaped(run_app, hostile_build):
    at = run_app(hostile_build)
    spec = next(c for c in at.get("plotly_chart") if (c.key or "").startswith("map-")).proto.spec
    assert "<img" not in spec
    assert "<script" not in spec
    assert "&lt;img" in spec


@pytest.mark.parametrize(
    "damage",
    [
        lambda p, t: (p.assign(topic_id=p["topic_id"].astype(str)), t),
        lambda p, t: (p, t.assign(keywords=["not a list"] * len(t))),
        lambda p, t: (p.assign(x=[np.inf] * len(p)), t),
    ],
    ids=["topic ids as text", "keywords as text", "infinite positions"],
)
def test_a_damaged_build_gets_the_friendly_page(run_app, tmp_path, damage):
    out = write_build(tmp_path / "b", tiny_papers(), tiny_topics(), np.zeros((8, 4), dtype=np.float32), {})
    papers, topics = damage(pd.read_parquet(out / "papers.parquet"), pd.read_parquet(out / "topics.parquet"))
    papers.to_parquet(out / "papers.parquet", index=False)
    topics.to_parquet(out / "topics.parquet", index=False)
    at = run_app(out)
    assert not at.exception
    assert "damaged or was not made by Topic Explorer" in at.error[0].value.replace("\\", "")
    assert "topic-explorer build --out my-build" in at.code[0].value
    assert not at.get("plotly_chart")
    assert not at.dataframe
