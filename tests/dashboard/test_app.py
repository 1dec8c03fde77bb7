"""The page as a whole, driven through Streamlit's AppTest: filters, selections, export label, errors."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.tinybuild import HOSTILE_ABSTRACT, HOSTILE_TITLE, tiny_papers, tiny_topics
from topic_explorer.dashboard.logic.selection import map_key, table_key
from topic_explorer.dashboard.ui.explore import FORMAT_KEY
from topic_explorer.dashboard.ui.page import PAGE_STYLE
from topic_explorer.dashboard.ui.selection import STATE_KEY
from topic_explorer.dashboard.ui.sidebar import TOPICS_KEY, WORDS_KEY, metadata_key
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.write import write_build


def status(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Showing"))


def shown_count(at: AppTest) -> int:
    return int(re.search(r"Showing ([\d,]+) of", status(at)).group(1).replace(",", ""))


def selected_count(at: AppTest) -> int:
    return int(re.search(r"· ([\d,]+) selected", status(at)).group(1).replace(",", ""))


def download_label(at: AppTest) -> str:
    return at.download_button(key="download").label


def paper_table(at: AppTest):
    return at.dataframe[0].value


def map_charts(at: AppTest) -> list:
    return [chart for chart in at.get("plotly_chart") if (chart.key or "").startswith("map-")]


def map_paper_ids(at: AppTest) -> list[str]:
    spec = json.loads(map_charts(at)[0].proto.spec)
    return [i for trace in spec["data"] if not trace["name"].startswith("Selected") for i in trace["customdata"]]


def shown_ids(at: AppTest) -> tuple[str, ...]:
    return at.session_state[STATE_KEY].shown_ids


def generation(at: AppTest) -> int:
    return at.session_state[STATE_KEY].generation


def table_generation(at: AppTest) -> int:
    return at.session_state[STATE_KEY].table_generation


def ticked(at: AppTest) -> list[bool]:
    """Per row of the paper table, whether its checkbox comes ticked (the table's one tick column)."""
    rows = json.loads(at.dataframe[0].proto.selection_default)["selection"]["rows"]
    return [row in rows for row in range(len(paper_table(at)))]


def select_on_map(at: AppTest, ids: list[str]) -> AppTest:
    points = [{"curve_number": 0, "point_number": n, "point_index": n, "customdata": i} for n, i in enumerate(ids)]
    selection = {"points": points, "point_indices": list(range(len(ids))), "box": [], "lasso": []}
    at.session_state[map_key(generation(at))] = {"selection": selection}
    return at.run()


def tick_rows(at: AppTest, rows: list[int]) -> AppTest:
    at.session_state[table_key(table_generation(at))] = {"selection": {"rows": rows, "columns": [], "cells": []}}
    return at.run()


@pytest.mark.model
def test_the_sample_page_loads_with_every_paper_on_map_and_table(run_app, sample_build):
    at = run_app(sample_build)
    assert not at.exception
    assert status(at).startswith("**Showing 38 of 38 papers**")
    n_topics = len(read_build(sample_build).topics)
    assert at.markdown[0].value == f"### NeurIPS 2025 sample · 38 papers · {n_topics} topics"
    assert len(map_paper_ids(at)) == 38
    table = paper_table(at)
    assert len(table) == 38
    assert "abstract" not in table.columns
    assert {"title", "topic", "confidence", "source_file"} <= set(table.columns)
    assert download_label(at) == "Download all 38 shown papers (CSV)"


@pytest.mark.model
def test_choosing_a_topic_shrinks_the_count_map_and_table(run_app, sample_build):
    at = run_app(sample_build)
    at.multiselect(key=TOPICS_KEY).set_value([0]).run()
    n = shown_count(at)
    assert 0 < n < 38
    assert len(paper_table(at)) == n
    assert len(map_paper_ids(at)) == n
    assert set(paper_table(at)["topic"]) == {at.multiselect(key=TOPICS_KEY).format_func(0).rsplit(" (", 1)[0]}


@pytest.mark.model
def test_the_word_filter_keeps_papers_containing_every_word(run_app, sample_build):
    at = run_app(sample_build)
    at.text_input(key=WORDS_KEY).set_value("Federated").run()
    federated = shown_count(at)
    assert 0 < federated < 38
    at.text_input(key=WORDS_KEY).set_value("federated PRIVACY").run()
    assert 0 < shown_count(at) <= federated
    at.text_input(key=WORDS_KEY).set_value("no-such-word-anywhere").run()
    assert not at.exception
    assert shown_count(at) == 0
    assert "No papers match" in at.info[0].value
    assert not map_charts(at)
    assert download_label(at) == "Download all 0 shown papers (CSV)"
    assert at.download_button(key="download").disabled


@pytest.mark.model
def test_sample_map_and_table_selections_are_counted_and_exported(run_app, sample_build):
    at = run_app(sample_build)
    ids = shown_ids(at)
    at = select_on_map(at, [ids[0], ids[1]])
    assert ticked(at)[:3] == [True, True, False]  # the table comes ticked with the map's choice
    at = tick_rows(at, [0, 1, 2, 37])  # ...and the user ticks two more rows
    assert not at.exception
    assert selected_count(at) == 4
    assert download_label(at) == "Download 4 selected papers (CSV)"
    at.button(key="clear-selection").click().run()
    assert selected_count(at) == 0
    assert download_label(at) == "Download all 38 shown papers (CSV)"


def test_metadata_columns_get_a_year_range_and_a_venue_choice(run_app, metadata_build):
    at = run_app(metadata_build)
    assert at.slider(key=metadata_key("year")).value == (2023, 2025)
    assert at.slider(key=metadata_key("year")).label == "Year"
    assert at.multiselect(key=metadata_key("venue")).label == "Venue"
    at.slider(key=metadata_key("year")).set_value((2024, 2025)).run()
    assert set(paper_table(at)["year"]) == {2024, 2025}
    assert shown_count(at) == len(paper_table(at))
    at.multiselect(key=metadata_key("venue")).set_value(["ICML"]).run()
    assert set(paper_table(at)["venue"]) == {"ICML"}
    assert shown_count(at) == len(paper_table(at)) > 0


def test_a_map_selection_counts_and_names_the_download(run_app, tiny_build):
    at = run_app(tiny_build)
    at = select_on_map(at, ["p000000000001", "p000000000003"])
    assert not at.exception
    assert selected_count(at) == 2
    assert download_label(at) == "Download 2 selected papers (CSV)"
    assert ticked(at) == [False, True, False, True, False, False, False, False]
    assert "✓" not in paper_table(at).columns  # one tick column: the table's own checkboxes


def test_map_points_with_list_customdata_are_understood(run_app, tiny_build):
    at = run_app(tiny_build)
    at.session_state[map_key(0)] = {"selection": {"points": [{"customdata": ["p000000000002"]}]}}
    assert selected_count(at.run()) == 1


def test_map_and_table_selections_form_one_selection(run_app, tiny_build):
    at = select_on_map(run_app(tiny_build), ["p000000000001"])
    assert ticked(at)[1]  # the map's choice comes ticked in the table
    at = tick_rows(at, [1, 5])
    assert selected_count(at) == 2
    assert download_label(at) == "Download 2 selected papers (CSV)"
    at = tick_rows(at, [5])  # unticking a row drops its paper, the map's choice too
    assert selected_count(at) == 1
    assert ticked(at)[5]
    assert not ticked(at)[1]


def test_clear_selection_empties_it_and_the_widgets(run_app, tiny_build):
    at = tick_rows(select_on_map(run_app(tiny_build), ["p000000000001"]), [4])
    at.button(key="clear-selection").click().run()
    assert not at.exception
    assert selected_count(at) == 0
    assert download_label(at) == "Download all 8 shown papers (CSV)"
    assert at.button(key="clear-selection").disabled
    assert at.run()
    assert selected_count(at) == 0  # the old widget selections do not come back


def test_a_filter_change_keeps_the_selection_valid(run_app, tiny_build):
    at = tick_rows(run_app(tiny_build), [0, 7])  # papers 0 (topic 0) and 7 (topic 1)
    at.multiselect(key=TOPICS_KEY).set_value([1]).run()
    assert not at.exception
    assert shown_count(at) == 3
    assert selected_count(at) == 1  # paper 7 shown, paper 0 hidden
    assert "+1 hidden by the filters" in status(at)
    assert ticked(at).count(True) == 1
    assert download_label(at) == "Download 1 selected paper (CSV)"
    at.multiselect(key=TOPICS_KEY).set_value([]).run()
    assert selected_count(at) == 2


def test_stale_table_positions_after_filtering_are_ignored(run_app, tiny_build):
    at = run_app(tiny_build)
    at.multiselect(key=TOPICS_KEY).set_value([2]).run()
    at = tick_rows(at, [1, 6, 99])  # the table now has 2 rows
    assert not at.exception
    assert selected_count(at) == 1
    assert ticked(at) == [False, True]


@pytest.mark.parametrize("make", ["missing", "not a build"])
def test_without_a_build_the_page_explains_how_to_make_one(run_app, tmp_path, make):
    path = tmp_path / "nowhere"
    if make == "not a build":
        path.mkdir()
        (path / "notes.txt").write_text("hello")
    at = run_app(path)
    assert not at.exception
    assert "topic-explorer build" in at.error[0].value.replace("\\", "")  # markdown-escaped
    assert "topic-explorer build --out my-build" in at.code[0].value
    assert "topic-explorer serve my-build" in at.code[0].value
    assert not at.get("plotly_chart")
    assert not at.dataframe


def test_html_and_markdown_in_titles_and_abstracts_are_shown_as_plain_text(run_app, tiny_build):
    at = run_app(tiny_build)
    assert at.selectbox(key="reader").value == 0  # the first paper: hostile title and abstract
    texts = [t.value for t in at.text]
    shown_abstract = HOSTILE_ABSTRACT.replace("$\\mathbf{S}$", "𝐒")  # LaTeX as text; HTML and markdown as typed
    assert HOSTILE_TITLE in texts
    assert shown_abstract in texts
    assert "<script>" in shown_abstract
    rendered = " ".join(m.value for m in [*at.markdown, *at.caption])
    assert "<script>" not in rendered
    assert "<b>" not in rendered
    assert "*JME*" not in rendered
    assert [h.proto.body for h in at.get("html")] == [PAGE_STYLE]  # the page's own style, never a build's text


def test_html_in_the_metadata_builds_abstract_is_plain_text(run_app, metadata_build):
    at = run_app(metadata_build)
    html_row = next(i for i, t in enumerate(paper_table(at)["title"]) if t.startswith("Paper 1:"))
    at.selectbox(key="reader").set_value(html_row).run()
    abstract = next(t.value for t in at.text if "<script>" in t.value)
    assert abstract.startswith("<b>bold</b> <script>alert('x')</script>")


def test_a_chosen_topic_shows_its_keywords_and_best_papers(run_app, tiny_build):
    at = run_app(tiny_build)
    at.selectbox(key="topic-detail").set_value(1).run()
    chart = next(chart for chart in at.get("plotly_chart") if chart.key == "keyword-chart")
    keyword_bars = json.loads(chart.proto.spec)["data"][0]
    assert keyword_bars["y"][:2] == ["kw1-0", "kw1-1"]
    assert len(keyword_bars["y"]) == 10
    best = next(t.value for t in at.text if t.value.startswith("• "))
    assert best.splitlines()[0].startswith("• Ünïcödé títle 中文")  # the highest confidence in topic 1


def test_the_quality_tab_explains_the_figures_and_lists_weak_topics_first(run_app, tiny_build):
    at = run_app(tiny_build)
    assert [m.label for m in at.metric] == ["Coherence (NPMI)", "Diversity", "Poorly fitting", "Topic sizes"]
    assert [m.value for m in at.metric] == ["0.05", "90%", "0%", "2 / 3 / 3"]
    quality = next(d.value for d in at.dataframe if "rating" in d.value.columns)
    assert quality["topic"].tolist()[0] == "Graphs"
    assert quality["rating"].tolist()[0] == "incoherent"


def test_outliers_and_unusual_metadata_do_not_break_the_page(run_app, tmp_path):
    papers = tiny_papers().drop(columns=["keywords"])
    papers.loc[[2, 3], ["topic_id", "topic_label", "confidence"]] = [-1, "Outliers (no topic)", 0.0]
    papers["authors"] = [["Ada", "Alan"], ["Grace"]] * 4
    papers["open_access"] = [True, False] * 4
    papers["published"] = pd.to_datetime(["2024-01-01"] * 4 + ["2025-06-01"] * 4)
    papers["empty"] = np.nan
    topics = pd.concat([tiny_topics().iloc[[0]].assign(topic_id=-1, label="Outliers (no topic)"), tiny_topics()])
    build = write_build(tmp_path / "odd", papers, topics, np.zeros((8, 2), dtype=np.float32), {})
    at = run_app(build)
    assert not at.exception
    assert shown_count(at) == 8
    at.multiselect(key=metadata_key("open_access")).set_value(["true"]).run()
    assert not at.exception
    assert shown_count(at) == 4
    at = select_on_map(at, ["p000000000002"])
    assert not at.exception
    assert selected_count(at) == 1


def test_the_reader_says_when_it_offers_only_the_first_papers(run_app, tiny_build, monkeypatch):
    monkeypatch.setattr("topic_explorer.dashboard.ui.reader.MAX_READER_OPTIONS", 3)
    at = run_app(tiny_build)
    reader = at.selectbox(key="reader")
    assert len(reader.options) == 3
    assert "(the first 3 of 8;" in reader.label


@pytest.mark.parametrize(("key", "label"), [("xlsx", "Excel"), ("parquet", "Parquet"), ("jsonl", "JSON Lines")])
def test_the_chosen_file_format_names_the_download(run_app, tiny_build, key, label):
    at = run_app(tiny_build)
    assert at.selectbox(key=FORMAT_KEY).value == "csv"
    assert download_label(at) == "Download all 8 shown papers (CSV)"
    at.selectbox(key=FORMAT_KEY).set_value(key).run()
    assert not at.exception
    assert download_label(at) == f"Download all 8 shown papers ({label})"
