"""Exploring a field in real headless Chromium: search, similar papers, a zoom that survives box selection
and filtering, labels that never overlap, a rename that survives a reload, and a link that restores the view."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import _open, mark_map, wait_for_new_map
from tests.browser.harness import running_server
from tests.browser.test_dashboard_in_browser import box_select, status
from tests.dashboard.tinybuild import XSS
from tests.sample_groups import PAPERS
from topic_explorer.dashboard.logic.figures import LEGEND_CHARS
from topic_explorer.dashboard.logic.safetext import shorten
from topic_explorer.pipeline.buildfolder.read import read_build

pytestmark = pytest.mark.browser

QUERY = "privacy-preserving training of a shared model across many clients"
MAP = (
    "[...document.querySelectorAll('.js-plotly-plot')]"
    ".find(g => g.layout && g.layout.meta && g.layout.meta.topicExplorerMap)"
)
RANGES = (
    f"() => {{ const gd = {MAP}; return [gd._fullLayout.xaxis.range.slice(), gd._fullLayout.yaxis.range.slice()]; }}"
)
LABELS = """() => [...document.querySelectorAll('.te-map-label')].filter(n => n.style.display !== 'none')
    .map(n => { const r = n.getBoundingClientRect(); return [n.textContent, r.left, r.top, r.right, r.bottom]; })"""


def overlapping(labels: list) -> list:
    return [(a[0], b[0]) for i, a in enumerate(labels) for b in labels[i + 1 :]
            if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]]  # fmt: skip


def about_box(page: Page):
    return page.get_by_role("textbox", name="Search", exact=True)


def map_toolbar(page: Page, value: str) -> None:
    page.locator("[data-testid=stPlotlyChart] .js-plotly-plot").first.hover()
    page.locator(f'.modebar-btn[data-val="{value}"]').first.click()


def same_ranges(a: list, b: list) -> bool:
    return all(
        abs(x - y) < 1e-9 for axis_a, axis_b in zip(a, b, strict=True) for x, y in zip(axis_a, axis_b, strict=True)
    )


def test_search_highlights_the_papers_above_the_relevance_bar_best_first(page: Page, screens: Path, sample_build):
    about_box(page).fill(QUERY)
    about_box(page).press("Enter")
    slider = page.get_by_test_id("stSlider").filter(has_text="Relevance at least")
    expect(slider).to_be_visible(timeout=120_000)  # shown once the query is in
    expect(slider).to_contain_text("0.35")  # MiniLM's default bar, in sight
    expect(status(page)).to_contain_text(re.compile(r"Showing [1-9] of 38 papers · search on"), timeout=120_000)
    n = int(re.search(r"Showing (\d+) of", status(page).inner_text()).group(1))
    # the count is drawn before the map, which a loaded machine may not have redrawn yet: wait for its context trace
    page.wait_for_function(f"() => {MAP}?.data[0].name.startsWith('Other papers')", timeout=60_000)
    traces = page.evaluate(f"() => {MAP}.data.map(t => [t.name, t.customdata ? t.customdata.length : 0])")
    assert traces[0] == [f"Other papers ({38 - n})", 0]
    assert sum(k for _, k in traces[1:]) == n
    fedask = read_build(sample_build).papers.set_index("paper_id").loc[PAPERS["FedASK"], "title"]
    table = page.locator("[data-testid=stDataFrame] table[aria-rowcount]").first
    expect(table).to_have_attribute("aria-rowcount", str(n + 1))
    expect(table.locator("tbody tr").first).to_contain_text(fedask[:40])
    expect(page.get_by_text(re.compile(rf"Search: {n} papers reach relevance 0\.35 for “privacy"))).to_be_visible()
    expect(page.locator("[data-stale=true]")).to_have_count(0)  # the rerun is over
    page.screenshot(path=screens / "browser-search.png")
    handle = slider.get_by_role("slider")
    handle.focus()
    handle.press("End")  # a bar nothing reaches: one line, the field stays grey on the map
    expect(page.get_by_text(re.compile(r"^No good matches for “privacy"))).to_be_visible()
    expect(status(page)).to_contain_text("Showing 0 of 38 papers")
    expect(page.get_by_text("No papers match these filters")).to_have_count(0)
    expect(page.locator("[data-stale=true]")).to_have_count(0)  # the rerun is over
    page.screenshot(path=screens / "browser-search-no-matches.png")
    handle.press("Home")
    expect(status(page)).to_contain_text(re.compile(rf"Showing (?!{n} of)[1-9]\d* of 38 papers · search on"))
    page.get_by_role("button", name="Clear search").click()
    expect(status(page)).not_to_contain_text("search on")


def test_a_similar_paper_is_one_click_from_being_read(page: Page):
    captions = page.get_by_text(re.compile(r"The 10 most similar papers"))
    captions.scroll_into_view_if_needed()
    first = page.get_by_test_id("stText").filter(has_text=re.compile(r"^0\.\d\d  ")).first
    title = first.inner_text()[6:].rsplit("  (", 1)[0]
    page.get_by_role("button", name="Read").first.click()
    expect(page.get_by_role("combobox", name="Read a paper")).to_have_value(title)
    expect(page.get_by_test_id("stText").filter(has_text=title).first).to_be_visible()


def test_the_zoom_survives_a_box_selection_a_filter_change_and_only_reset_view_undoes_it(page: Page, screens: Path):
    page.locator(".te-map-label").first.wait_for()  # the page's map script is running
    full = page.evaluate(RANGES)
    map_toolbar(page, "in")
    page.wait_for_function(f"() => {MAP}._fullLayout.xaxis.range[0] > {full[0][0]}")
    zoomed = page.evaluate(RANGES)
    mark_map(page)
    box_select(page, right=0.8, bottom=0.8)
    expect(status(page)).to_contain_text(re.compile(r"· [1-9]\d* selected"))
    wait_for_new_map(page, zoomed)  # the map drawn with the selection shows the zoom (or the wait times out)
    mark_map(page)
    search = page.get_by_role("textbox", name=re.compile(r"^Filter by words"))
    search.fill("federated")
    search.press("Enter")  # a filter change draws a new map widget
    expect(status(page)).not_to_contain_text("Showing 38 of 38")
    wait_for_new_map(page, zoomed)
    page.screenshot(path=screens / "browser-zoom-kept.png")
    page.get_by_role("button", name="Reset view").click()
    page.wait_for_function(f"() => {MAP}._fullLayout.xaxis.range[0] === {full[0][0]}")
    assert same_ranges(page.evaluate(RANGES), full)


def test_map_labels_never_overlap_at_any_zoom(page: Page):
    page.locator(".te-map-label").first.wait_for()
    counts = []
    for step in ["", "in", "in", "in", "out", "out", "out", "out"]:
        if step:
            before = page.evaluate(RANGES)
            map_toolbar(page, step)
            page.wait_for_function(f"(before) => JSON.stringify(({RANGES})()) !== JSON.stringify(before)", arg=before)
        labels = page.evaluate(LABELS)
        assert not overlapping(labels), (step, labels)
        counts.append(len(labels))
    assert counts[0] >= 3


@pytest.fixture
def own_server(sample_build, tmp_path):
    """The dashboard on a copy of the sample build that tests may edit."""
    build = shutil.copytree(sample_build, tmp_path / "sample-copy")
    with (tmp_path / "serve.log").open("w") as log, running_server(build, log) as url:
        yield url


def test_a_rename_survives_a_reload_and_stays_text(browser, own_server, screens: Path):
    page = _open(browser, own_server)
    try:
        page.get_by_text("Edit topics (saved with the build)").click()
        name = f"Renamed {XSS}"
        box = page.get_by_role("textbox", name="New name")
        box.fill(name)
        box.press("Enter")
        page.get_by_role("button", name="Rename", exact=True).click()
        label = page.locator(".te-map-label", has_text="Renamed <img")
        expect(label.first).to_be_visible(timeout=60_000)
        page.reload()
        expect(page.locator(".te-map-label", has_text="Renamed <img").first).to_be_visible(timeout=60_000)
        page.screenshot(path=screens / "browser-renamed.png")
        assert page.evaluate("() => window.__xss") is None
        assert not page.locator("img[src=x]").count()
    finally:
        page.context.close()


def test_a_shared_link_restores_the_view(browser, page: Page):
    page.get_by_role("textbox", name=re.compile(r"^Filter by words")).fill("learning")
    page.get_by_role("textbox", name=re.compile(r"^Filter by words")).press("Enter")
    about_box(page).fill("federated learning")
    about_box(page).press("Enter")
    expect(status(page)).to_contain_text("search on", timeout=120_000)  # the URL changes first, then the count
    page.wait_for_function("() => location.search.includes('about=')")
    expected = status(page).inner_text()
    link = page.url
    assert "words=learning" in link
    assert "about=federated" in link
    other = _open(browser, link)
    try:
        expect(status(other)).to_have_text(expected, timeout=120_000)
        expect(about_box(other)).to_have_value("federated learning")
        expect(other.get_by_role("textbox", name=re.compile(r"^Filter by words"))).to_have_value("learning")
    finally:
        other.context.close()


LEGEND = f"() => {MAP}.data.filter(t => t.showlegend !== false).map(t => t.name.replace(/ \\(\\d+\\)$/, ''))"


def _in_legend(labels: set[str]) -> set[str]:
    """Names as the legend shows them: cut to fit its margin."""
    return {shorten(label, LEGEND_CHARS) for label in labels}


def test_the_detail_slider_goes_from_broad_themes_to_the_finest_topics(page: Page, screens: Path, sample_build):
    build = read_build(sample_build)
    topic_labels = set(build.topics["label"])
    broadest = build.hierarchy[build.hierarchy["level"] == build.hierarchy["level"].min()]
    theme_labels = set(broadest["label"])
    assert 2 <= len(theme_labels) < len(topic_labels)
    page.locator(".te-map-label").first.wait_for()
    assert set(page.evaluate(LEGEND)) == _in_legend(topic_labels)  # the page opens on the finest topics
    page.screenshot(path=str(screens / "detail-finest.png"), full_page=True)

    slider = page.get_by_test_id("stSlider").filter(has_text="Detail").get_by_role("slider")
    slider.focus()
    slider.press("Home")  # the broadest themes
    page.wait_for_function(f"themes => {{ const shown = ({LEGEND})(); return shown.length === themes.length; }}",
                           arg=sorted(theme_labels))  # fmt: skip
    assert set(page.evaluate(LEGEND)) == _in_legend(theme_labels)  # colours and legend follow the level
    shown = {" ".join(text.split()) for text in page.locator(".te-map-label").all_inner_texts()}  # long names wrap
    assert theme_labels <= shown, shown  # the themes are named on the map (finer names beside them, smaller)
    expect(status(page)).to_contain_text("Showing 38 of 38 papers")  # a level filters nothing
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("Themes", exact=True)).to_be_visible()
    sidebar.get_by_test_id("stMultiSelect").first.click()
    options = page.get_by_role("option").filter(has_not_text="Select all").all_inner_texts()
    page.keyboard.press("Escape")
    expect(page.get_by_role("option")).to_have_count(0)  # the list has closed before the screenshot
    assert {re.sub(r" \(\d+\)$", "", o) for o in options} == theme_labels, options  # the filter offers themes
    page.screenshot(path=str(screens / "detail-broadest.png"), full_page=True)

    slider.focus()
    slider.press("End")  # back to the finest topics
    page.wait_for_function(f"n => ({LEGEND})().length === n", arg=len(topic_labels))
    assert set(page.evaluate(LEGEND)) == _in_legend(topic_labels)
