"""A map a reader can follow, in headless Chromium: 'Zoom to shown' frames what the filters keep, and each topic's
label is placed among its own papers."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_dashboard_in_browser import status
from tests.browser.test_explore_field_in_browser import MAP, RANGES

pytestmark = pytest.mark.browser

SHOWN_POINTS = (
    f"() => {MAP}._fullData.filter(t => t.customdata && !t.name.startsWith('Selected'))"
    ".flatMap(t => Array.from(t.x).map((x, i) => [x, t.y[i]]))"
)


def test_zoom_to_shown_frames_the_papers_a_topic_filter_keeps(page: Page, screens: Path):
    page.locator(".te-map-label").first.wait_for(state="attached")  # placed by the page's script
    expect(page.locator("[data-stale=true]")).to_have_count(0)
    page.screenshot(path=screens / "map-colours-labels.png")
    full = page.evaluate(RANGES)
    page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect").first.click()
    page.get_by_role("option").filter(has_text="Regret").first.click()
    page.keyboard.press("Escape")
    expect(status(page)).not_to_contain_text("Showing 38 of 38")
    page.get_by_role("button", name="Zoom to shown").click()
    page.wait_for_function(f"() => {MAP}._fullLayout.xaxis.range[0] !== {full[0][0]}")
    (x0, x1), (y0, y1) = page.evaluate(RANGES)
    assert (x1 - x0) * (y1 - y0) < 0.5 * (full[0][1] - full[0][0]) * (full[1][1] - full[1][0])
    points = page.evaluate(SHOWN_POINTS)
    assert points
    assert all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in points)
    expect(page.locator("[data-stale=true]")).to_have_count(0)
    page.screenshot(path=screens / "map-zoom-to-shown.png")
    page.get_by_role("button", name="Reset view").click()
    page.wait_for_function(f"() => {MAP}._fullLayout.xaxis.range[0] === {full[0][0]}")
