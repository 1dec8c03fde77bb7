"""Exploring a field, through Streamlit's AppTest: search (meaning and words), similar papers, levels of detail, the
topic tree, curation that persists, topics over time, the view in the URL, and hostile text typed by users."""

from __future__ import annotations

import itertools
import json
import shutil

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.test_app import map_charts, paper_table, select_on_map, selected_count, shown_count, status
from tests.dashboard.tinybuild import XSS
from tests.sample_groups import FEDERATED, NAMED, PAPERS
from topic_explorer.dashboard.logic.maplabels import LABEL_CHARS, LINE_CHARS
from topic_explorer.dashboard.logic.safetext import shorten, two_lines
from topic_explorer.dashboard.ui.curation import (
    MERGE_LABEL,
    MERGE_TOPICS,
    MOVE_TOPIC,
    RENAME_GATHER,
    RENAME_LABEL,
    RENAME_TOPIC,
)
from topic_explorer.dashboard.ui.explore import VIEW_KEY
from topic_explorer.dashboard.ui.page import PAGE_STYLE
from topic_explorer.dashboard.ui.reader import READER_KEY
from topic_explorer.dashboard.ui.sidebar import (
    ABOUT_KEY,
    DETAIL_KEY,
    RELEVANCE_KEY,
    TOPICS_KEY,
    WORDS_KEY,
    metadata_key,
)
from topic_explorer.dashboard.ui.timeline import TIMELINE_KEY
from topic_explorer.pipeline.buildfolder.edits import EDITS_FILE, read_edits
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.text.latex import latex_to_text


@pytest.fixture
def build(metadata_build, tmp_path):
    """A writable copy of the TF-IDF sample build with years, venues and a topic tree."""
    return shutil.copytree(metadata_build, tmp_path / "build")


def map_spec(at: AppTest) -> dict:
    return json.loads(map_charts(at)[0].proto.spec)


def topic_list(at: AppTest):
    return next(d.value for d in at.dataframe if "shown" in d.value.columns)


def search_for(at: AppTest, query: str) -> AppTest:
    return at.text_input(key=ABOUT_KEY).set_value(query).run()


def search_caption(at: AppTest) -> str:
    return next(c.value.replace("\\", "") for c in at.caption if "for “" in c.value)


def test_search_shows_every_paper_above_the_relevance_bar_best_first(run_app, build):
    at = search_for(run_app(build), "low-rank adaptation of language models")
    assert not at.exception
    bar = at.slider(key=RELEVANCE_KEY).value
    assert bar == pytest.approx(0.4)  # the TF-IDF build's default bar
    table = paper_table(at)
    assert list(table.columns[:2]) == ["relevance", "score"]
    assert "LoRA" in table["title"].iloc[0]
    assert table["score"].is_monotonic_decreasing
    assert table["relevance"].min() >= bar
    assert shown_count(at) == len(table) < 38  # the matches, however many: no quota
    assert "search on" in status(at)
    assert search_caption(at).startswith(f"Search: {len(table)} paper")
    assert "relevance 0.40 for “low-rank adaptation of language models”" in search_caption(at)
    at.slider(key=RELEVANCE_KEY).set_value(0.2).run()
    wider = paper_table(at)
    assert len(wider) > len(table)
    assert wider["relevance"].min() >= 0.2
    traces = map_spec(at)["data"]
    assert traces[0]["name"] == f"Other papers ({38 - len(wider)})"
    assert "customdata" not in traces[0]  # grey, not selectable
    assert sum(len(t["customdata"]) for t in traces[1:]) == len(wider)
    assert at.query_params["relevance"] == "0.2"  # the bar is part of the view's link
    at.button(key="clear-about").click().run()
    assert shown_count(at) == 38
    assert at.text_input(key=ABOUT_KEY).value == ""


def test_a_search_nothing_reaches_says_so_in_one_line_and_keeps_the_field(run_app, build):
    at = search_for(run_app(build), "low-rank adaptation of language models")
    at.slider(key=RELEVANCE_KEY).set_value(1.0).run()
    assert not at.exception
    assert shown_count(at) == 0
    assert search_caption(at).startswith("No good matches for “low-rank adaptation of language models”")
    assert not at.tabs[0].info  # one line, not a second message under it
    (grey,) = map_spec(at)["data"]  # the field stays on the map, grey
    assert grey["name"] == "Other papers (38)"


def test_search_combines_with_the_other_filters(run_app, build):
    at = run_app(build)
    at.multiselect(key=metadata_key("venue")).set_value(["ICML"]).run()
    kept = shown_count(at)
    at = search_for(at, "low-rank adaptation of language models")
    at.slider(key=RELEVANCE_KEY).set_value(0.0).run()
    assert set(paper_table(at)["venue"]) == {"ICML"}
    assert f"of {kept} papers** (the filters keep {kept} of 38)" in status(at)


def test_an_over_long_query_is_explained_and_the_page_keeps_working(run_app, build):
    at = search_for(run_app(build), "privacy " * 200)
    assert not at.exception
    assert "at most 1,000" in at.warning[0].value.replace("\\", "")
    assert shown_count(at) == 38


def test_the_dashboard_ranks_a_search_as_the_command_line_does(run_app, build, capsys):
    query = "low-rank adaptation of language models across many clients"
    at = search_for(run_app(build), query)
    table = paper_table(at.slider(key=RELEVANCE_KEY).set_value(0.1).run())
    assert main(["search", str(build), query, "--top", str(len(table)), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(table) == len(rows) > 3
    assert table["title"].tolist() == [latex_to_text(row["title"]) for row in rows]  # LaTeX shown as text
    assert np.allclose(table["score"].to_numpy(), [row["score"] for row in rows], atol=1e-4)


@pytest.mark.model
def test_the_sample_finds_the_federated_papers_by_meaning_and_words(run_app, sample_build):
    at = search_for(run_app(sample_build), "privacy-preserving training of a shared model across many clients")
    ids = dict(zip(read_build(sample_build).papers["title"], read_build(sample_build).papers["paper_id"], strict=True))
    found = [ids[title] for title in paper_table(at)["title"]]
    assert found[0] == PAPERS["FedASK"]
    assert len(set(found[:5]) & FEDERATED) >= 3


def test_similar_papers_are_a_click_from_being_read_or_selected(run_app, build):
    at = run_app(build)
    assert any("10 most similar papers" in c.value for c in at.caption)
    first = next(t.value for t in at.text if t.value[:4].replace(".", "").isdigit())
    at.button(key="similar-read-0").click().run()
    title = read_build(build).papers["title"].iloc[at.session_state[READER_KEY]]
    assert title in first
    assert title in [t.value for t in at.text]
    at.button(key="similar-select-1").click().run()
    assert selected_count(at) == 1
    assert at.button(key="similar-select-1").disabled


def test_a_broader_level_recolours_relabels_and_refilters_the_map(run_app, build):
    tree = read_build(build).hierarchy
    groups = tree[tree["level"] == 0]
    at = run_app(build)
    finest = finest_level(build)
    assert finest >= 2  # the tree has several levels of themes above the topics
    assert at.select_slider(key=DETAIL_KEY).value == finest  # the topics themselves by default
    at.select_slider(key=DETAIL_KEY).set_value(0).run()
    traces = map_spec(at)["data"]
    assert len(traces) == len(groups)
    assert {t["marker"]["color"] for t in traces}.__len__() == len(groups)
    labels = map_spec(at)["layout"]["meta"]["labels"]
    as_drawn = {two_lines(shorten(label, LABEL_CHARS), LINE_CHARS) for label in groups["label"]}  # long names wrap
    assert {label["t"] for label in labels[: len(groups)]} <= as_drawn  # themes first, then finer
    key = topics_key_for(build, 0)
    group = int(groups["group_id"].iloc[0])
    at.multiselect(key=key).set_value([group]).run()
    size = sum(int(read_build(build).topics.set_index("topic_id").loc[t, "size"]) for t in groups["topic_ids"].iloc[0])
    assert shown_count(at) == size
    at.select_slider(key=DETAIL_KEY).set_value(finest).run()  # back to the topics: the filter is carried over
    assert sorted(at.multiselect(key=TOPICS_KEY).value) == sorted(groups["topic_ids"].iloc[0])
    assert shown_count(at) == size


def finest_level(build) -> int:
    """The level of detail of the topics themselves: below every level of the build's tree."""
    return int(read_build(build).hierarchy["level"].nunique())


def topics_key_for(build, level: int) -> str:
    return TOPICS_KEY if level == finest_level(build) else f"{TOPICS_KEY}-level-{level}"


def test_the_topic_list_shows_the_tree(run_app, build):
    tree = read_build(build).hierarchy
    rows = topic_list(run_app(build))
    top = tree[tree["level"] == 0].sort_values("group_id")
    labels = read_build(build).topics.set_index("topic_id")["label"]
    depth = ((rows["topic"].str.len() - rows["topic"].str.lstrip().str.len()) // 4).tolist()
    names = rows["topic"].str.lstrip().str.removeprefix("└ ").tolist()
    # The broad themes come first at the left; a theme of one topic is that topic, named as it.
    expected = [
        labels[ids[0]] if len(ids) == 1 else label for ids, label in zip(top["topic_ids"], top["label"], strict=True)
    ]
    assert [n for n, d in zip(names, depth, strict=True) if d == 0] == expected
    # Each row sits at most one step below the row above it, and the leaves are the topics, each once.
    assert depth[0] == 0
    assert all(b <= a + 1 for a, b in itertools.pairwise(depth))
    leaves = [n for i, n in enumerate(names) if i + 1 == len(names) or depth[i + 1] <= depth[i]]
    assert sorted(leaves) == sorted(labels[labels.index >= 0])
    assert max(depth) >= 2  # themes, finer themes, topics
    sizes = read_build(build).topics.set_index("topic_id")["size"]
    assert int(rows["papers"].iloc[0]) == sum(int(sizes[t]) for t in top["topic_ids"].iloc[0])


def test_rename_merge_move_and_undo_persist_with_the_build(run_app, build):
    at = run_app(build)
    at.selectbox(key=RENAME_TOPIC).set_value(0)
    at.text_input(key=RENAME_LABEL).set_value(f"Renamed {XSS}")
    at.button(key="edit-rename").click().run()
    assert not at.exception
    assert read_edits(build)[-1]["label"] == f"Renamed {XSS}"
    assert f"Renamed {XSS}" in set(paper_table(at)["topic"])  # the table shows it as data
    assert [h.proto.body for h in at.get("html")] == [PAGE_STYLE]  # the page's own style, never a build's text
    assert all("<img" not in m.value for m in at.markdown)
    assert f"Renamed {XSS}" in set(run_app(build).dataframe[0].value["topic"])  # a new session (a reload) sees it
    at.multiselect(key=MERGE_TOPICS).set_value([1, 2]).run()
    at.text_input(key=MERGE_LABEL).set_value("Merged")
    at.button(key="edit-merge").click().run()
    merged = read_build(build)
    assert 2 not in set(merged.topics["topic_id"])
    assert merged.topics.set_index("topic_id").loc[1, "label"] == "Merged"
    at = select_on_map(at, [merged.papers["paper_id"].iloc[0]])
    at.selectbox(key=MOVE_TOPIC).set_value(3)
    at.button(key="edit-move").click().run()
    assert read_build(build).papers["topic_id"].iloc[0] == 3
    for _ in range(3):
        at.button(key="edit-undo").click().run()
    assert not (build / EDITS_FILE).exists() or read_edits(build) == []
    assert at.button(key="edit-undo").disabled
    assert not at.exception
    assert shown_count(at) == 38


def test_naming_a_topic_can_gather_the_papers_that_fit_the_name(run_app, build):
    at = run_app(build)
    at.selectbox(key=RENAME_TOPIC).set_value(0)
    at.text_input(key=RENAME_LABEL).set_value("federated learning")
    at.checkbox(key=RENAME_GATHER).check()
    at.button(key="edit-rename").click().run()
    assert not at.exception
    rename, move = read_edits(build)
    assert rename["label"] == "federated learning"
    assert move["topic_id"] == 0
    papers = read_build(build).papers
    fedask = papers.loc[papers["abstract"].str.startswith("<b>bold</b>"), "paper_id"].item()  # its id changed with it
    assert PAPERS["FOCUS"] in move["paper_ids"]
    assert fedask in move["paper_ids"]
    assert set(move["paper_ids"]) <= NAMED["federated learning"].allowed | {fedask}
    assert set(move["paper_ids"]) <= set(papers.loc[papers["topic_label"] == "federated learning", "paper_id"])
    at.button(key="edit-undo").click().run()
    at.button(key="edit-undo").click().run()
    assert read_edits(build) == []


def test_a_second_session_sees_the_first_ones_edit_on_its_next_rerun(run_app, build):
    first, second = run_app(build), run_app(build)
    first.selectbox(key=RENAME_TOPIC).set_value(1)
    first.text_input(key=RENAME_LABEL).set_value("From the first session")
    first.button(key="edit-rename").click().run()
    second.run()
    assert "From the first session" in set(topic_list(second)["topic"].str.strip().str.lstrip("└ "))


def test_a_rename_reaches_the_maps_labels_the_timeline_and_topic_quality_on_the_same_papers(run_app, build):
    at = run_app(build)
    old = read_build(build).topics.set_index("topic_id").loc[0, "label"]
    at.run()  # the same papers shown again: labels, years and quality come from the caches
    assert old in {label["t"] for label in map_spec(at)["layout"]["meta"]["labels"]}
    at.selectbox(key=RENAME_TOPIC).set_value(0)
    at.text_input(key=RENAME_LABEL).set_value("Renamed topic")
    at.button(key="edit-rename").click().run()
    labels = {label["t"] for label in map_spec(at)["layout"]["meta"]["labels"]}
    assert "Renamed topic" in labels
    assert old not in labels
    chart = next(c for c in at.get("plotly_chart") if c.key == TIMELINE_KEY)
    assert "Renamed topic" in {bar["name"] for bar in json.loads(chart.proto.spec)["data"]}
    quality = next(d.value for d in at.dataframe if "rating" in d.value.columns)
    assert "Renamed topic" in set(quality["topic"])


def test_an_empty_name_is_refused_with_a_message(run_app, build):
    at = run_app(build)
    at.text_input(key=RENAME_LABEL).set_value("   ")
    at.button(key="edit-rename").click().run()
    assert "cannot be empty" in at.error[0].value
    assert not (build / EDITS_FILE).exists()


def test_reset_view_starts_a_new_view(run_app, build):
    at = run_app(build)
    before = map_spec(at)["layout"]["uirevision"]
    at.button(key="reset-view").click().run()
    assert map_spec(at)["layout"]["uirevision"] != before
    assert at.session_state[VIEW_KEY] == 1
    at.text_input(key=WORDS_KEY).set_value("learning").run()
    assert map_spec(at)["layout"]["uirevision"] == before.rsplit("-", 1)[0] + "-1"  # filters keep the view


def test_topics_over_time_charts_shares_per_year_and_a_click_filters(run_app, build):
    at = run_app(build)
    chart = next(c for c in at.get("plotly_chart") if c.key == TIMELINE_KEY)
    bars = json.loads(chart.proto.spec)["data"]
    years = {x for bar in bars for x in bar["x"]}
    assert years == {"2023", "2024", "2025"}  # categories: a gap between years would be one of its own
    for year in years:  # shares of each year add up to one
        assert sum(y for bar in bars for x, y in zip(bar["x"], bar["y"], strict=True) if x == year) == pytest.approx(1)
    topic = int(bars[0]["customdata"][0][0])
    at.session_state[TIMELINE_KEY] = {"selection": {"points": [{"customdata": [topic, 1, 0.1]}]}}
    at.run()
    assert at.multiselect(key=TOPICS_KEY).value == [topic]
    assert shown_count(at) == int(read_build(build).topics.set_index("topic_id").loc[topic, "size"])
    chart = next(c for c in at.get("plotly_chart") if c.key == TIMELINE_KEY)
    (own,) = json.loads(chart.proto.spec)["data"]  # the topic's own trend: a share of all papers, not 100%
    assert max(own["y"]) < 1


def test_a_link_restores_the_view_and_the_page_keeps_its_link_current(monkeypatch, build):
    from tests.dashboard.conftest import APP
    from topic_explorer.dashboard.logic.data import BUILD_ENV

    monkeypatch.setenv(BUILD_ENV, str(build))
    papers = read_build(build).papers
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update(
        {"topics": "0,99", "words": "the", "about": "low-rank", "relevance": "0", "detail": str(finest_level(build)),
         "f.year": "2024..2025", "f.venue": '["ICML"]', "paper": papers["paper_id"].iloc[3]}
    )  # fmt: skip
    at.run()
    assert not at.exception
    assert at.multiselect(key=TOPICS_KEY).value == [0]
    assert at.text_input(key=WORDS_KEY).value == "the"
    assert at.text_input(key=ABOUT_KEY).value == "low-rank"
    assert at.slider(key=RELEVANCE_KEY).value == 0.0
    assert at.slider(key=metadata_key("year")).value == (2024, 2025)
    assert at.multiselect(key=metadata_key("venue")).value == ["ICML"]
    assert at.session_state[READER_KEY] == 3  # the linked paper is read, even if the filters hide it
    table = paper_table(at)
    assert len(table) > 0
    assert set(table["venue"]) <= {"ICML"}
    assert set(table["year"]) <= {2024, 2025}
    assert at.query_params["topics"] == "0"
    assert at.query_params["paper"] == papers["paper_id"].iloc[3]
    at.text_input(key=WORDS_KEY).set_value("").run()
    assert "words" not in at.query_params


def test_a_link_from_before_the_word_filter_was_named_words_opens_with_its_filter(monkeypatch, build):
    from tests.dashboard.conftest import APP
    from topic_explorer.dashboard.logic.data import BUILD_ENV

    monkeypatch.setenv(BUILD_ENV, str(build))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"search": "learning"})
    at.run()
    assert not at.exception
    assert at.text_input(key=WORDS_KEY).value == "learning"
    assert at.text_input(key=ABOUT_KEY).value == ""  # the old parameter is the word filter, not the search
    assert shown_count(at) < len(read_build(build).papers)
    assert at.query_params["words"] == "learning"  # the page's own link uses today's name
    assert "search" not in at.query_params


def test_a_hostile_link_is_read_as_text(monkeypatch, build):
    from tests.dashboard.conftest import APP
    from topic_explorer.dashboard.logic.data import BUILD_ENV

    monkeypatch.setenv(BUILD_ENV, str(build))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update({"words": XSS, "about": XSS, "detail": "x", "topics": "a,b", "f.year": "nan..x"})
    at.run()
    assert not at.exception
    assert at.text_input(key=WORDS_KEY).value == XSS
    assert [h.proto.body for h in at.get("html")] == [PAGE_STYLE]  # the page's own style, never a build's text
    assert all("<img" not in m.value for m in at.markdown)
