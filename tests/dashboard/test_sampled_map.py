"""A map that draws only a sample of the papers (big builds): the page says so, and box and lasso selections,
counts and downloads still cover every paper, drawn or not."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.test_app import download_label, generation, map_charts, map_paper_ids, selected_count, status
from topic_explorer.dashboard.logic.selection import map_key
from topic_explorer.dashboard.ui.sidebar import TOPICS_KEY
from topic_explorer.pipeline.map.sample import MAP_POINTS_ENV

EVERYWHERE = {"xref": "x", "yref": "y", "x": [-10.0, 10.0], "y": [-10.0, 10.0]}


@pytest.fixture
def sampled(run_app, tiny_build, monkeypatch) -> AppTest:
    """The tiny build's page with a map that draws at most 3 of its 8 papers."""
    monkeypatch.setenv(MAP_POINTS_ENV, "3")
    return run_app(tiny_build)


def region_select(at: AppTest, drawn_ids: list[str], box: list | None = None, lasso: list | None = None) -> AppTest:
    """What Plotly sends for a box or lasso: the drawn points inside, and the region itself."""
    points = [{"curve_number": 0, "point_index": n, "customdata": i} for n, i in enumerate(drawn_ids)]
    selection = {"points": points, "point_indices": list(range(len(points))), "box": box or [], "lasso": lasso or []}
    at.session_state[map_key(generation(at))] = {"selection": selection}
    return at.run()


def captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def test_the_page_says_the_map_draws_a_sample_of_the_papers(sampled):
    assert not sampled.exception
    assert len(map_paper_ids(sampled)) == 3
    assert "Showing 8 of 8 papers" in status(sampled)
    assert "Drawing 3 of 8 papers on the map" in captions(sampled)


def test_a_map_drawing_every_paper_says_nothing_about_sampling(run_app, tiny_build):
    at = run_app(tiny_build)
    assert len(map_paper_ids(at)) == 8
    assert "Drawing" not in captions(at)


def test_a_box_over_a_sampled_map_selects_and_exports_every_paper_inside_it(sampled):
    at = region_select(sampled, map_paper_ids(sampled)[:1], box=[EVERYWHERE])
    assert not at.exception
    assert selected_count(at) == 8
    assert download_label(at) == "Download 8 selected papers (CSV)"
    spec = json.loads(map_charts(at)[0].proto.spec)  # the map is still drawn, its ring counting every selected paper
    assert [trace["name"] for trace in spec["data"] if trace["name"].startswith("Selected")] == ["Selected (8)"]


def test_a_lasso_over_a_sampled_map_selects_every_paper_inside_it(sampled):
    corner = {"xref": "x", "yref": "y", "x": [0.0, 0.3, 0.3, 0.0], "y": [0.0, 0.0, 0.3, 0.3]}  # papers 0, 1 and 6
    at = region_select(sampled, [], lasso=[corner])
    assert selected_count(at) == 3
    assert download_label(at) == "Download 3 selected papers (CSV)"


def test_a_box_holds_only_the_papers_shown_when_it_was_drawn(sampled):
    sampled.multiselect(key=TOPICS_KEY).set_value([0]).run()
    at = region_select(sampled, [], box=[EVERYWHERE])
    assert selected_count(at) == 3  # topic 0's papers: the others were hidden by the filter
    at.multiselect(key=TOPICS_KEY).set_value([])
    at = region_select(at, [], box=[EVERYWHERE])  # the browser still holds the box while the filter changes
    assert not at.exception
    assert selected_count(at) == 3  # widening the filter adds nothing the box did not hold
