"""The pure logic behind the new controls: levels of detail, map label candidates, links, topics over time, the
broader topic in downloads; and the page starting without the embedding stack."""

from __future__ import annotations

import itertools
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.dashboard.tinybuild import XSS, tiny_papers, tiny_topics
from topic_explorer.dashboard.logic.data import load_explorer
from topic_explorer.dashboard.logic.filters import ColumnFilter
from topic_explorer.dashboard.logic.maplabels import label_candidates, mapview_script
from topic_explorer.dashboard.logic.viewlink import View, decode, encode
from topic_explorer.dashboard.ui import timeline
from topic_explorer.dashboard.ui.explore import most_confident
from topic_explorer.dashboard.ui.timeline import (
    clicked_group,
    shares,
    time_column,
    timeline_figure,
    year_totals,
    years_of,
)
from topic_explorer.pipeline.buildfolder.exchange import BROADER_COLUMN, from_export, is_export
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.export.selection import export_frame
from topic_explorer.pipeline.view.levels import tree_rows
from topic_explorer.pipeline.view.palette import CALM_10, MIN_DISTANCE, SERIES_15, distance, series_colours

TREE = pd.DataFrame(
    {
        "level": [0, 0],
        "group_id": [10, 2],
        "parent_id": [-1, -1],
        "topic_ids": [[0, 1], [2]],
        "label": ["Broad theme", "Rewards group"],
        "keywords": [["a", "b"], ["c"]],
    }
)


@pytest.fixture
def tree_build(tmp_path):
    papers = tiny_papers()
    return write_build(
        tmp_path / "tree", papers, tiny_topics(), np.zeros((len(papers), 2), np.float32), {}, hierarchy=TREE
    )


def test_levels_group_topics_and_keep_a_single_topics_own_name(tree_build):
    explorer = load_explorer(tree_build)
    broad, fine = explorer.levels
    assert broad.name == "2 themes"
    assert fine.name == "3 topics"
    assert broad.topics["label"].tolist() == ["Rewards", "Broad theme"]  # group 2 holds topic 2 alone
    assert broad.topics.set_index("topic_id").loc[10, "size"] == 6
    assert sorted(broad.topic_rows[10]) == sorted(np.flatnonzero(explorer.papers["topic_id"].isin([0, 1])))
    assert broad.topics_of([10]) == (0, 1)
    assert broad.groups_of([1]) == [10]
    assert broad.topics["colour"].is_unique


def test_the_tree_lists_themes_then_their_topics(tree_build):
    explorer = load_explorer(tree_build)
    rows = tree_rows(explorer.levels, explorer.papers["topic_id"].value_counts())
    assert rows["topic"].tolist() == ["Rewards", "Broad theme", "    └ Federated, privacy", "    └ Graphs"]
    assert rows["papers"].tolist() == [2, 6, 3, 3]
    shown = explorer.papers["topic_id"][[0, 2, 4, 5]].value_counts()  # one paper of topics 0 and 1, two of topic 2
    assert tree_rows(explorer.levels, shown)["shown"].tolist() == [2, 2, 1, 1]


def test_a_topics_most_representative_papers_are_its_most_confident_without_the_unknown(tiny):
    papers = tiny.papers
    for topic_id in papers["topic_id"].unique():
        expected = papers.loc[papers["topic_id"] == topic_id, "confidence"].nlargest(5).index.tolist()
        assert most_confident(tiny, topic_id).tolist() == expected
    moved = replace(tiny, papers=papers.assign(confidence=papers["confidence"].where(papers.index != 6)))
    assert most_confident(moved, 0).tolist() == [1, 0]  # paper 6 (topic 0) has no confidence: left out


def test_label_candidates_put_the_chosen_level_first_and_never_repeat_a_text(tree_build):
    explorer = load_explorer(tree_build)
    shown = np.ones(len(explorer.papers), dtype=bool)
    labels = label_candidates(explorer.levels, 0, shown, *xy(explorer))
    assert [label["t"] for label in labels] == ["Broad theme", "Rewards", "Federated, privacy", "Graphs"]
    assert labels[0]["s"] > labels[-1]["s"]
    assert all(a["p"] >= b["p"] for a, b in itertools.pairwise(labels))
    shown[explorer.papers["topic_id"] == 1] = False  # a group with nothing shown gets no label
    assert "Graphs" not in {label["t"] for label in label_candidates(explorer.levels, 0, shown, *xy(explorer))}
    assert (
        next(label["t"] for label in label_candidates(explorer.levels, 1, np.ones(8, bool), *xy(explorer)))
        == "Federated, privacy"
    )


def xy(explorer) -> tuple[np.ndarray, np.ndarray]:
    return explorer.papers["x"].to_numpy(), explorer.papers["y"].to_numpy()


def test_a_label_sits_among_its_groups_shown_papers(tree_build):
    explorer = load_explorer(tree_build)
    shown = (explorer.papers["paper_id"] == "p000000000004").to_numpy()  # one paper of topic 2 (x 0.9, y 0.9)
    (label,) = label_candidates(explorer.levels, 1, shown, *xy(explorer))
    assert (label["t"], label["x"], label["y"]) == ("Rewards", pytest.approx(0.9), pytest.approx(0.9))


def test_the_map_script_is_our_own_code_only():
    script = mapview_script()
    assert script.startswith("<script>")
    assert script.count("</script>") == 1
    assert "textContent = String(label.t)" in script
    assert "innerHTML" not in script


SPECS = (
    ColumnFilter("year", "range", bounds=(2020.0, 2023.0), integer=True),
    ColumnFilter("published", "dates", bounds=("2024-01-01", "2025-06-01")),
    ColumnFilter("venue", "choice", options=("ICLR", "ICML", "NeurIPS", 'a|b,"c"')),
)


@given(
    topics=st.lists(st.integers(0, 2), unique=True).map(lambda t: tuple(sorted(t))),
    words=st.text(max_size=30),
    about=st.text(max_size=30),
    level=st.sampled_from([None, 0, 1]),
    venues=st.lists(st.sampled_from(SPECS[2].options), unique=True, max_size=3).map(lambda v: tuple(sorted(v))),
    year=st.sampled_from([(2020.0, 2023.0), (2021.0, 2022.0)]),
)
def test_a_view_survives_its_link(topics, words, about, level, venues, year):
    view = View(
        topics=topics, words=words, about=about, relevance=0.45 if about else None, level=level,
        paper="p000000000003", ranges={"year": year}, dates={"published": ("2024-02-01", "2024-03-01")},
        choices={"venue": venues} if venues else {},
    )  # fmt: skip
    assert decode(encode(view), topic_ids={0, 1, 2}, n_levels=2, specs=SPECS) == view


@pytest.mark.parametrize(
    "params",
    [
        {"topics": "7,x", "detail": "9", "relevance": "1.5", "f.year": "1900..3000", "f.venue": '["nope"]'},
        {
            "f.year": "nan..nan",
            "f.published": "2024-13-01..2024-01-01",
            "f.venue": "{not json",
            "detail": "-1",
            "relevance": "nan",
        },
    ],
)
def test_a_broken_link_opens_the_default_view(params):
    assert decode(params, topic_ids={0, 1, 2}, n_levels=2, specs=SPECS) == View()


def test_an_old_links_search_parameter_is_the_word_filter_and_words_wins_over_it():
    old = decode({"search": "privacy"}, topic_ids=set(), n_levels=1, specs=())
    assert old == View(words="privacy")
    both = decode({"search": "privacy", "words": "federated"}, topic_ids=set(), n_levels=1, specs=())
    assert both.words == "federated"
    assert "search" not in encode(old)


def test_a_year_or_date_column_gives_shares_per_year_that_add_up(tree_build, tmp_path):
    explorer = load_explorer(tree_build)
    assert time_column(explorer) == "year"
    years = years_of(explorer.papers["year"])
    table = shares(years, explorer.levels[0], np.ones(8, bool))
    assert table.groupby("year")["share"].sum().tolist() == pytest.approx([1, 1, 1, 1])
    assert table["papers"].sum() == 8
    one = explorer.papers["topic_id"].to_numpy() == 0  # filtered to one topic: shares of all papers, not 100%
    alone = shares(years, explorer.levels[-1], one)
    totals = year_totals(years)
    assert alone["share"].tolist() == pytest.approx((alone["papers"] / alone["year"].map(totals)).tolist())
    assert alone["share"].max() < 1 or totals[alone["year"]].eq(alone["papers"].to_numpy()).all()
    dates = pd.Series(["2024-01-31", None, "2025-12-01T10:00:00Z"])
    assert np.array_equal(years_of(dates), [2024, np.nan, 2025], equal_nan=True)


def test_the_unvalidated_timeline_is_valid_plotly_with_a_series_per_group_and_the_rest_grey(tree_build, monkeypatch):
    explorer = load_explorer(tree_build)
    table = shares(years_of(explorer.papers["year"]), explorer.levels[1], np.ones(8, bool))
    monkeypatch.setattr(timeline, "MAX_SERIES", 2)
    totals = year_totals(years_of(explorer.papers["year"]))
    figure = timeline_figure(table, explorer.levels[1], totals, min_papers=1)
    go.Figure(figure.to_dict())  # full validation, skipped at run time for speed
    assert [trace.name for trace in figure.data][-1] == "1 other topics"
    assert len(figure.data) == 3
    clicked = {"selection": {"points": [{"customdata": figure.data[0].customdata[0]}]}}
    assert clicked_group(clicked) == table.groupby("group")["papers"].sum().idxmax()
    assert clicked_group({"selection": {"points": [{"customdata": figure.data[-1].customdata[0]}]}}) is None
    assert list(figure.layout.xaxis.ticktext) == [f"{year}<br>{n:,} papers" for year, n in totals.items()]
    counts = timeline_figure(table, explorer.levels[1], totals, timeline.COUNT, min_papers=1)
    assert list(counts.data[0].y) == table[table["group"] == figure.data[0].customdata[0][0]]["papers"].tolist()


def test_stacked_series_get_colours_told_apart_even_when_the_map_repeats_hues():
    near = ["#7a5aa5", "#8062ab", "#4e79a7"]  # two purples a reader cannot tell apart
    assert series_colours(near) == list(SERIES_15[:3])
    assert series_colours(list(CALM_10)) == list(CALM_10)
    assert all(distance(a, b) >= MIN_DISTANCE for a, b in itertools.combinations(SERIES_15, 2))


def test_no_time_column_no_timeline(tmp_path):
    papers = tiny_papers().drop(columns=["year"])
    build = write_build(tmp_path / "b", papers, tiny_topics(), np.zeros((8, 2), np.float32), {})
    assert time_column(load_explorer(build)) is None


def test_the_download_adds_the_broader_topic_and_building_from_it_drops_it_again(tree_build):
    explorer = load_explorer(tree_build)
    papers = explorer.papers.assign(**{BROADER_COLUMN: "a metadata column named like ours"})
    frame = export_frame(papers, explorer.topics, [*explorer.metadata_columns, BROADER_COLUMN], {0: "B", 1: "B"})
    assert list(frame.columns[7:9]) == [BROADER_COLUMN, "year"]
    assert frame[BROADER_COLUMN].tolist() == ["" if t == 2 else "B" for t in frame["topic_id"]]  # 2: in no group
    assert f"{BROADER_COLUMN} (metadata)" in frame.columns
    assert is_export(list(frame.columns))
    back = from_export(frame, guarded=False)
    assert BROADER_COLUMN in back.columns
    assert (back[BROADER_COLUMN] == "a metadata column named like ours").all()
    assert "paper_id" not in back.columns


def test_the_dashboard_starts_without_the_embedding_stack(tree_build):
    """torch, sentence-transformers and the word index (scikit-learn, scipy) load only when someone searches."""
    code = (
        "import sys, os; from streamlit.testing.v1 import AppTest\n"
        f"os.environ['TOPIC_EXPLORER_BUILD'] = {str(tree_build)!r}\n"
        "at = AppTest.from_file('dashboard/app.py', default_timeout=60).run()\n"
        "assert not at.exception, at.exception\n"
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers', 'umap', 'hdbscan', 'bertopic',"
        " 'sklearn', 'scipy.sparse', 'topic_explorer.pipeline.search.word_index') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_hostile_labels_reach_the_map_as_plain_text(tmp_path):
    papers = tiny_papers()
    topics = tiny_topics().assign(label=[f"{i} {XSS}" for i in range(3)])
    build = write_build(tmp_path / "h", papers, topics, np.zeros((8, 2), np.float32), {})
    explorer = load_explorer(build)
    labels = label_candidates(explorer.levels, 0, np.ones(8, bool), *xy(explorer))
    texts = {label["t"] for label in labels}
    assert len(texts) == 3
    assert all(f"{i} {XSS}".startswith(text.replace("\n", " ").rstrip("…")) for i, text in enumerate(sorted(texts)))


def test_long_labels_take_two_lines_and_are_cut_only_after_a_whole_word(tree_build):
    explorer = load_explorer(tree_build)
    name = "Federated and low-rank fine-tuning of large language models across many devices"
    explorer.levels[-1].topics.loc[0, "label"] = name
    labels = label_candidates(explorer.levels, len(explorer.levels) - 1, np.ones(8, bool), *xy(explorer))
    text = next(label["t"] for label in labels if label["t"].startswith("Federated"))
    first, second = text.split("\n")
    assert text.endswith("…")
    assert name.startswith(text.replace("\n", " ")[:-1] + " ")
    assert abs(len(first) - len(second)) < 12
