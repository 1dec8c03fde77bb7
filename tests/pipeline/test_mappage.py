"""The offline map page's data: escaped for a <script> element, sampled and trimmed past stated sizes, safe links."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.dashboard.tinybuild import tiny_papers, tiny_topics
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.export import mappage
from topic_explorer.pipeline.export.mappage import embedded_json, map_page_bytes, page_data
from topic_explorer.pipeline.export.selection import select
from topic_explorer.pipeline.map.sample import MAP_POINTS_ENV


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    papers = tiny_papers().assign(url=["javascript:alert(1)", "https://example.org/1", *[None] * 6])
    hierarchy = pd.DataFrame(
        {
            "level": [0, 0],
            "group_id": [10, 11],
            "parent_id": [-1, -1],
            "topic_ids": [[0, 1], [2]],
            "label": ["Theme </script> one", "Theme two"],
            "keywords": [["a"], ["b"]],
        }
    )
    out = tmp_path_factory.mktemp("builds") / "map"
    return read_build(write_build(out, papers, tiny_topics(), np.zeros((8, 4), np.float32), {}, hierarchy=hierarchy))


def test_embedded_json_cannot_end_its_script_element_and_reads_back_the_same():
    value = {"title": "</script><script>alert(1)</script> <!-- x --> a\u2028b\u2029c & d"}
    text = embedded_json(value)
    assert "</" not in text
    assert "<!--" not in text
    assert "\u2028" not in text
    assert "\u2029" not in text
    assert json.loads(text) == value


def test_the_page_holds_plotly_and_the_data_once_and_fetches_nothing(build):
    html = map_page_bytes(select(build, np.arange(8))).decode("utf-8")
    assert html.count('<script type="application/json" id="te-data">') == 1
    assert "Plotly" in html
    assert "/*PLOTLY*/" not in html
    assert "/*DATA*/" not in html
    assert "default-src 'none'" in html
    assert "connect-src 'none'" in html  # the page's own policy forbids fetching
    assert "https://cdn" not in html.split("<script>", 1)[0]


def test_themes_come_from_the_topic_tree_and_links_are_only_web_addresses(build):
    data = page_data(select(build, np.arange(8)))
    assert [t["label"] for t in data["themes"]] == ["Theme </script> one", "Rewards"]  # a one-topic theme: its topic
    assert data["themes"][0]["topics"] == [0, 1]
    links = data["papers"]["link"]
    assert links[0] == "https://doi.org/10.5555/0000"  # its javascript: url is passed over for its DOI
    assert all(link is None or link.startswith(("https://", "http://")) for link in links)


def test_a_big_selection_draws_the_dashboards_sample_and_says_so(build, monkeypatch):
    monkeypatch.setenv(MAP_POINTS_ENV, "5")
    data = page_data(select(build, np.arange(8)))
    assert len(data["papers"]["x"]) == 5
    assert "Drawing 5 of 8 papers" in data["notes"][0]


def test_abstracts_past_the_budget_are_cut_to_an_equal_share_and_the_page_says_so(build, monkeypatch):
    monkeypatch.setattr(mappage, "ABSTRACT_BUDGET_CHARS", 8 * 20)
    monkeypatch.setattr(mappage, "MIN_ABSTRACT_CHARS", 20)
    data = page_data(select(build, np.arange(8)))
    assert all(len(a) <= 22 for a in data["papers"]["abstract"])
    assert any("shortened to their first 20 characters" in note for note in data["notes"])


def test_the_page_is_titled_with_the_corpus_name_not_the_folder(tmp_path):
    papers = tiny_papers()
    out = write_build(tmp_path / "folder-name", papers, tiny_topics(), np.zeros((8, 4), np.float32), {"title": "Tiny"})
    data = page_data(select(read_build(out), np.arange(8)))
    assert data["title"] == "Tiny · 8 papers"


def test_the_map_page_shows_the_titles_the_dashboard_shows(tmp_path):
    from topic_explorer.dashboard.logic.data import load_explorer

    titles = ["$\\ell_1$-regression with heavy tails", "L'\\'{e}cole d'\\'et\\'e", "costs $5 and $10"]
    papers = tiny_papers()
    papers["title"] = [*titles, *papers["title"].iloc[len(titles) :]]
    path = write_build(tmp_path / "latex", papers, tiny_topics(), np.zeros((8, 4), np.float32), {})
    drawn = page_data(select(read_build(path), np.arange(len(papers))))["papers"]
    shown = dict(zip(drawn["id"], drawn["title"], strict=True))
    dashboard = load_explorer(path)
    assert shown == dict(zip(dashboard.ids, dashboard.titles, strict=True))
    assert shown[papers["paper_id"].iloc[0]] == "ℓ₁-regression with heavy tails"
