"""The map in one HTML file, opened from disk in real Chromium with every network request blocked.

Points are drawn, the word search and the topic legend filter them, a click shows the paper, and script
or markup in titles, abstracts, labels and links stays text: the flags the payloads would set stay unset.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import point_until_shown
from tests.browser.harness import offline_context
from tests.dashboard.tinybuild import XSS, tiny_papers, tiny_topics
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.export.formats import EXPORT_FORMATS, export_bytes
from topic_explorer.pipeline.export.selection import select

pytestmark = pytest.mark.browser

SCRIPT_END = "</script><script>window.__xss = 'script end'</script><!--"
TOTAL_POINTS = "() => document.getElementById('te-map')._fullData.reduce((n, t) => n + t.x.length, 0)"


@pytest.fixture(scope="module")
def map_file(tmp_path_factory):
    """The tiny build with hostile text everywhere, exported as a map page."""
    papers = tiny_papers().assign(
        url=["javascript:window.__xss='link'", "https://example.org/federated", *[None] * 6],
        doi=[None, *[f"10.5555/{i:04d}" for i in range(1, 8)]],
    )
    papers.loc[0, "arxiv_id"] = None  # paper 0 has no safe address at all
    papers.loc[0, "title"] = f"{SCRIPT_END} {XSS} \u2028 first"
    papers.loc[0, "abstract"] = f"{XSS} {SCRIPT_END} hostile abstract"
    papers.loc[0, "venue"] = XSS
    topics = tiny_topics()
    topics.loc[0, "label"] = f"{XSS} {SCRIPT_END}"
    papers["topic_label"] = papers["topic_id"].map(dict(zip(topics["topic_id"], topics["label"], strict=True)))
    hierarchy = pd.DataFrame(
        {
            "level": [0, 0],
            "group_id": [10, 11],
            "parent_id": [-1, -1],
            "topic_ids": [[0, 1], [2]],
            "label": [f"Theme {XSS}", "Theme two"],
            "keywords": [["a"], ["b"]],
        }
    )
    folder = tmp_path_factory.mktemp("map")
    build = read_build(write_build(folder / "b", papers, topics, np.zeros((8, 4), np.float32), {}, hierarchy=hierarchy))
    path = folder / "map.html"
    path.write_bytes(export_bytes(select(build, np.arange(8)), EXPORT_FORMATS["html"]))
    return path, build


@pytest.fixture
def opened(browser, map_file):
    """The page opened from its file with the network blocked; yields the page and every request it attempted."""
    path, build = map_file
    context, attempted = offline_context(browser, {"width": 1300, "height": 850})
    page = context.new_page()
    page.goto(path.as_uri())
    page.wait_for_function("window.topicExplorerMap && window.topicExplorerMap.ready", timeout=60_000)
    yield page, build, attempted
    context.close()


def test_the_map_draws_every_paper_offline_and_requests_nothing(opened, screens):
    page, build, attempted = opened
    assert page.evaluate(TOTAL_POINTS) == len(build.papers)
    assert page.locator("#te-map canvas").count() > 0
    page.screenshot(path=str(screens / "map-page.png"))
    assert attempted == []


def test_hostile_titles_labels_and_links_stay_text_and_run_nothing(opened, screens):
    page, build, attempted = opened
    assert page.locator("#te-legend").get_by_text(f"{XSS} {SCRIPT_END}", exact=True).count() == 1
    assert page.locator("#te-legend").get_by_text(f"Theme {XSS}", exact=True).count() == 1
    show_paper(page, 0)
    assert page.locator("#te-paper-title").text_content() == build.papers["title"].iloc[0]
    assert page.locator("#te-paper-abstract").text_content() == build.papers["abstract"].iloc[0]
    assert page.locator("#te-paper-link-line").is_hidden()  # javascript: is no link
    assert page.locator("#te-paper img, #te-legend img, #te-paper script").count() == 0
    assert page.evaluate("window.__xss") is None
    page.screenshot(path=str(screens / "map-page-hostile-paper.png"))
    show_paper(page, 1)
    assert page.locator("#te-paper-link").get_attribute("href") == "https://doi.org/10.5555/0001"  # its first id
    assert attempted == []


def test_the_word_search_keeps_only_matching_papers(opened):
    page, _, _ = opened
    page.fill("#te-search", "federated privacy")
    page.wait_for_function(f"({TOTAL_POINTS})() === 2")
    assert page.locator("#te-count").text_content() == "2 of 8 papers on the map"
    page.fill("#te-search", "")
    page.wait_for_function(f"({TOTAL_POINTS})() === 8")


def test_the_legend_hides_and_shows_a_topic_and_a_theme(opened, screens):
    page, _, _ = opened
    page.locator(".te-topic-item").filter(has_text="Graphs").click()
    page.wait_for_function(f"({TOTAL_POINTS})() === 5")  # Graphs holds 3 of the 8
    page.screenshot(path=str(screens / "map-page-legend.png"))
    page.locator(".te-theme").filter(has_text="Rewards").click()  # a theme of one topic takes its label
    page.wait_for_function(f"({TOTAL_POINTS})() === 3")  # Rewards (2) hidden too
    page.click("#te-all")
    page.wait_for_function(f"({TOTAL_POINTS})() === 8")


def test_hovering_a_point_shows_its_title_and_topic(opened):
    page, build, _ = opened
    point_until_shown(
        lambda: (page.mouse.move(0, 0), page.mouse.move(*point_of(page, 3))),
        lambda ms: page.locator("#te-tip").wait_for(state="visible", timeout=ms),
    )
    expect(page.locator("#te-tip-title")).to_have_text(build.papers["title"].iloc[3])
    expect(page.locator("#te-tip-topic")).to_have_text("Graphs")
    assert page.locator("#te-tip").is_visible()


def point_of(page, row: int) -> tuple[float, float]:
    """Where on the page Plotly drew the paper at `row`."""
    box = page.locator("#te-map .nsewdrag").first.bounding_box()
    x, y = page.evaluate(
        """(row) => { const gd = document.getElementById('te-map'); const l = gd._fullLayout;
           for (const t of gd._fullData) { const k = t.customdata.indexOf(row);
             if (k >= 0) return [l.xaxis.l2p(t.x[k]), l.yaxis.l2p(t.y[k])]; } }""",
        row,
    )
    return box["x"] + x, box["y"] + y


def show_paper(page, row: int) -> None:
    """Click the paper's point on the map, where Plotly drew it."""
    point_until_shown(
        lambda: page.mouse.click(*point_of(page, row)),
        lambda ms: page.wait_for_function(f"window.topicExplorerMap.shown === {row}", timeout=ms),
    )
