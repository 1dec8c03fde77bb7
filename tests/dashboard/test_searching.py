"""What a search shows: papers above the relevance bar (never a quota), one line when none pass, honest counts."""

from __future__ import annotations

import numpy as np
import pytest

from topic_explorer.dashboard.logic.searching import find, search_line, status_note
from topic_explorer.dashboard.logic.viewlink import View, decode, encode, relevance_bar
from topic_explorer.pipeline.search.ranked import DEFAULT_RELEVANCE, default_relevance, relevant

SCORES = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], dtype=np.float32)  # fused: the order
RELEVANCE = np.array([0.2, 0.6, 0.5, 0.1, 0.45, 0.3], dtype=np.float32)  # meaning: what the bar is on


def test_matches_are_every_paper_above_the_bar_in_score_order_however_many():
    ranked = relevant(SCORES, RELEVANCE, 0.4)
    assert ranked.rows.tolist() == [1, 2, 4]  # the fused order, not the relevance order
    assert relevant(SCORES, RELEVANCE, 0.0).rows.tolist() == [0, 1, 2, 3, 4, 5]
    assert relevant(SCORES, RELEVANCE, 0.61).rows.tolist() == []


def test_matches_are_searched_only_among_the_papers_the_filters_keep():
    passing = np.array([True, False, True, True, False, True])
    found = find(SCORES, RELEVANCE, 0.25, passing)
    assert found.rows.tolist() == [2, 5]
    assert found.relevance.tolist() == pytest.approx([0.5, 0.3])
    assert found.kept == 4
    assert found.best == pytest.approx(0.5)


def test_a_query_nothing_is_about_says_so_in_one_line():
    found = find(SCORES, RELEVANCE, 0.7, np.ones(6, bool))
    line = search_line("cooking recipes for pasta", found)
    assert not len(found.rows)
    assert line.startswith("No good matches for “cooking recipes for pasta”")
    assert "no paper reaches relevance 0.70 (the best is 0.60)" in line
    assert "\n" not in line


def test_the_search_line_counts_the_matches_and_names_the_bar():
    line = search_line("federated", find(SCORES, RELEVANCE, 0.4, np.ones(6, bool)))
    assert line.startswith("Search: 3 papers reach relevance 0.40 for “federated” (up to 0.60)")
    one = search_line("federated", find(SCORES, RELEVANCE, 0.55, np.ones(6, bool)))
    assert "1 paper reaches" in one


def test_the_status_counts_a_search_among_the_papers_the_filters_keep():
    passing = np.zeros(3000, bool)
    passing[:163] = True
    relevance = np.zeros(3000, np.float32)
    relevance[:12] = 0.5
    found = find(np.linspace(1, 0, 3000, dtype=np.float32), relevance, 0.35, passing)
    note = status_note(len(found.rows), 3000, 0, 0, found)
    assert note.startswith("**Showing 12 of 163 papers** (the filters keep 163 of 3,000)")
    assert status_note(163, 3000, 2, 1).startswith("**Showing 163 of 3,000 papers** · 2 selected (+1 hidden")
    unfiltered = find(np.ones(5, np.float32), np.ones(5, np.float32), 0.35, np.ones(5, bool))
    assert status_note(5, 5, 0, 0, unfiltered).startswith("**Showing 5 of 5 papers** · search on")


def test_the_default_bar_follows_the_builds_embedder():
    assert default_relevance({"embedder": {"name": "all-MiniLM-L6-v2/windows128x16"}}) == DEFAULT_RELEVANCE
    assert default_relevance({"embedder": {"name": "tfidf-svd"}}) > DEFAULT_RELEVANCE
    assert default_relevance({}) == DEFAULT_RELEVANCE


@pytest.mark.parametrize(("text", "bar"), [("0.5", 0.5), ("0.42", 0.4), ("1", 1.0), ("0", 0.0)])
def test_a_links_relevance_bar_is_read_onto_the_sliders_steps(text, bar):
    assert relevance_bar(text) == bar


@pytest.mark.parametrize("text", ["", "x", "-0.1", "1.01", "nan", "inf"])
def test_a_links_relevance_bar_outside_0_to_1_is_dropped(text):
    assert relevance_bar(text) is None


def test_the_relevance_bar_rides_in_the_link_only_with_a_search():
    assert encode(View(about="federated", relevance=0.5))["relevance"] == "0.5"
    assert "relevance" not in encode(View(relevance=0.5))
    decoded = decode({"about": "federated", "relevance": "0.5"}, topic_ids=set(), n_levels=1, specs=())
    assert decoded.relevance == 0.5
