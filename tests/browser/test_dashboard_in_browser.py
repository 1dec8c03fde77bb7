"""The dashboard in real headless Chromium: map, filters, box selection and the CSV download."""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import CURRENT_MAP, _open, point_until_shown, wait_for_rerun
from tests.browser.harness import running_server
from topic_explorer.pipeline.map.sample import MAP_POINTS_ENV

pytestmark = pytest.mark.browser

STATUS = re.compile(r"Showing ([\d,]+) of ([\d,]+) papers")

MAP_POINTS = """() => {
    const gd = document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot');
    return gd.data.filter(t => !t.name.startsWith('Selected')).reduce((n, t) => n + t.customdata.length, 0);
}"""
EXPORT_COLUMNS = [
    "paper_id", "title", "topic_id", "topic_label", "keywords", "confidence", "abstract", "broader_topic", "source_file"
]  # fmt: skip


def status(page: Page):
    return page.locator("[data-testid=stMarkdownContainer] p").filter(has_text=STATUS).first


def download_button(page: Page):
    return page.get_by_test_id("stDownloadButton").get_by_role("button")


def download_csv(page: Page) -> tuple[str, list[dict]]:
    with page.expect_download() as info:
        download_button(page).click()
    download = info.value
    data = Path(download.path()).read_bytes()
    assert data.startswith(b"\xef\xbb\xbf"), "the CSV starts with a UTF-8 byte-order mark for Excel"
    return download.suggested_filename, list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))


# True when the status line counts some selected papers.
COUNTS_SELECTED = (
    "[...document.querySelectorAll('[data-testid=stMarkdownContainer] p')]"
    ".some(p => /· [1-9]\\d* selected/.test(p.innerText))"
)
# A drag registered: the map holds a selection, or the page already counts one (callers start from none selected).
SELECTING = f"""() => {{
    const gd = {CURRENT_MAP};
    return Boolean(gd && gd.layout.selections && gd.layout.selections.length) || {COUNTS_SELECTED};
}}"""


def box_select(page: Page, right: float = 0.5, bottom: float = 0.6) -> None:
    """Drag a box from the map's top left to (`right`, `bottom`) (fractions of the plot area), from its toolbar."""

    def drag() -> None:
        page.locator("[data-testid=stPlotlyChart] .js-plotly-plot").first.hover()
        page.locator('.modebar-btn[data-val="select"]').first.click()
        area = page.locator(".nsewdrag").first.bounding_box()
        page.mouse.move(area["x"] + 4, area["y"] + 4)
        page.mouse.down()
        page.mouse.move(area["x"] + area["width"] * right, area["y"] + area["height"] * bottom, steps=15)
        page.mouse.up()

    point_until_shown(drag, lambda ms: page.wait_for_function(SELECTING, timeout=ms))


def test_the_page_shows_every_paper_on_the_map(page: Page, screens: Path):
    expect(status(page)).to_contain_text("Showing 38 of 38 papers · 0 selected")
    assert page.evaluate(MAP_POINTS) == 38
    papers_table = page.locator("[data-testid=stDataFrame] table[aria-rowcount]").first  # drawn before the topic list
    expect(papers_table).to_have_attribute("aria-rowcount", "39")  # the header and 38 papers
    expect(page.get_by_role("heading", name=re.compile(r"^NeurIPS 2025 sample · 38 papers"))).to_be_visible()
    page.screenshot(path=screens / "browser-loaded.png")


def test_filtering_by_a_topic_shrinks_the_count_the_table_and_the_map(page: Page, screens: Path):
    page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect").first.click()
    option = page.get_by_role("option").filter(has_not_text="Select all").first
    size = int(re.search(r"\((\d+)\)$", option.inner_text().strip()).group(1))
    option.click()
    page.keyboard.press("Escape")
    expect(status(page)).to_contain_text(f"Showing {size} of 38 papers")
    page.wait_for_function(f"() => ({MAP_POINTS})() === {size}")
    expect(page.locator("[data-testid=stDataFrame] table[aria-rowcount]").first).to_have_attribute(
        "aria-rowcount", str(size + 1)
    )
    expect(download_button(page)).to_have_text(f"Download all {size} shown papers (CSV)")
    page.screenshot(path=screens / "browser-filtered.png")


def test_the_csv_of_every_shown_paper_downloads(page: Page):
    expect(download_button(page)).to_have_text("Download all 38 shown papers (CSV)")
    name, rows = download_csv(page)
    assert name == "neurips-2025-sample-papers.csv"  # the corpus title, not the folder
    assert len(rows) == 38
    assert list(rows[0]) == EXPORT_COLUMNS
    assert len({row["paper_id"] for row in rows}) == 38


def test_box_selecting_on_the_map_selects_and_exports_those_papers(page: Page, screens: Path):
    box_select(page)
    expect(status(page)).to_contain_text(re.compile(r"· [1-9]\d* selected"))
    selected = int(re.search(r"· (\d+) selected", status(page).inner_text()).group(1))
    expect(download_button(page)).to_have_text(f"Download {selected} selected paper{'s' if selected > 1 else ''} (CSV)")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot')"
        f".data.some(t => t.name === 'Selected ({selected})')"
    )
    wait_for_rerun(page)  # the ringed markers drawn before the screenshot
    page.screenshot(path=screens / "browser-selected.png")
    _, rows = download_csv(page)
    assert len(rows) == selected
    page.locator("button[kind=secondary]").filter(has_text="Clear selection").click()  # not the table's own
    expect(status(page)).to_contain_text("· 0 selected")
    expect(download_button(page)).to_have_text("Download all 38 shown papers (CSV)")


@pytest.fixture(scope="module")
def sampled_server(sample_build, tmp_path_factory) -> str:
    """The sample served with a map that draws at most 10 of its 38 papers, as a big build's map draws a sample."""
    env = {**os.environ, MAP_POINTS_ENV: "10"}
    log_path = tmp_path_factory.mktemp("server") / "serve.log"
    with log_path.open("w") as log, running_server(sample_build, log, env=env) as url:
        yield url


def test_a_sampled_map_says_so_and_a_box_over_it_selects_and_exports_every_paper_inside(
    browser, sampled_server, screens: Path
):
    page = _open(browser, sampled_server)
    expect(page.get_by_text("Drawing 10 of 38 papers on the map")).to_be_visible()
    assert page.evaluate(MAP_POINTS) == 10
    box_select(page, right=0.995, bottom=0.995)  # the whole map: 10 papers drawn under it, 38 inside it
    expect(status(page)).to_contain_text("Showing 38 of 38 papers · 38 selected")
    expect(download_button(page)).to_have_text("Download 38 selected papers (CSV)")
    wait_for_rerun(page)  # the ringed markers drawn before the screenshot
    page.screenshot(path=screens / "browser-sampled-map-selected.png")
    _, rows = download_csv(page)
    assert len(rows) == 38
    assert len({row["paper_id"] for row in rows}) == 38
    page.locator("button[kind=secondary]").filter(has_text="Clear selection").click()  # not the table's own
    expect(status(page)).to_contain_text("· 0 selected")
    wait_for_rerun(page)  # Clear selection draws a new map: lasso on it, not on the one going
    lasso_select(page, [(0.01, 0.01), (0.99, 0.01), (0.99, 0.99), (0.01, 0.99), (0.01, 0.02)])
    expect(status(page)).to_contain_text("Showing 38 of 38 papers · 38 selected")  # the lasso too, drawn or not
    page.context.close()


def lasso_select(page: Page, corners: list[tuple[float, float]]) -> None:
    """Draw a lasso through `corners` (fractions of the plot area), from the map's toolbar."""

    def drag() -> None:
        page.locator("[data-testid=stPlotlyChart] .js-plotly-plot").first.hover()
        page.locator('.modebar-btn[data-val="lasso"]').first.click()
        area = page.locator(".nsewdrag").first.bounding_box()
        points = [(area["x"] + area["width"] * fx, area["y"] + area["height"] * fy) for fx, fy in corners]
        page.mouse.move(*points[0])
        page.mouse.down()
        for point in points[1:]:
            page.mouse.move(*point, steps=8)
        page.mouse.up()

    point_until_shown(drag, lambda ms: page.wait_for_function(SELECTING, timeout=ms))
