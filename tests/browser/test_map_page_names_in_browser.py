"""The shared map page, opened offline in Chromium, names its themes and topics on the map where they fit."""

from __future__ import annotations

import pytest

from tests.browser.test_map_page_in_browser import map_file, opened  # noqa: F401  (the module's fixtures)
from tests.dashboard.tinybuild import XSS

pytestmark = pytest.mark.browser

NAMES = """() => [...document.querySelectorAll('#te-names .te-map-name')].map(n => {
    const r = n.getBoundingClientRect(); return [n.textContent, n.className, r.left, r.top, r.right, r.bottom]; })"""
MAP_BOX = """() => { const r = document.getElementById('te-map').getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; }"""


def overlapping(names: list) -> list:
    return [(a[0], b[0]) for i, a in enumerate(names) for b in names[i + 1 :]
            if a[2] < b[4] and b[2] < a[4] and a[3] < b[5] and b[3] < a[5]]  # fmt: skip


def test_theme_and_topic_names_are_drawn_as_text_inside_the_map_never_overlapping(opened, screens):  # noqa: F811
    page, _, attempted = opened
    names = page.evaluate(NAMES)
    texts = [name[0] for name in names]
    assert f"{XSS[:30]}" in " ".join(texts)  # a hostile name is shown as its text (cut after a whole word)
    assert texts[0].startswith("Theme <img")  # the themes first
    assert page.locator("#te-names img, #te-names script").count() == 0
    assert page.evaluate("window.__xss") is None
    assert any("theme" in name[1] for name in names)
    assert not overlapping(names)
    left, top, right, bottom = page.evaluate(MAP_BOX)
    assert all(left <= n[2] and n[4] <= right and top <= n[3] and n[5] <= bottom for n in names)
    page.screenshot(path=str(screens / "map-page-names.png"))
    assert attempted == []


def test_zooming_in_keeps_names_apart_and_can_bring_finer_ones_out(opened, screens):  # noqa: F811
    page, _, _ = opened
    before = page.evaluate(NAMES)
    page.evaluate(
        "() => { const gd = document.getElementById('te-map'); window.__placed = null;"
        " gd.once('plotly_afterplot', () => { window.__placed = true; });"
        " Plotly.relayout(gd, {'xaxis.range': [0.05, 0.6], 'yaxis.range': [0.05, 0.65]}); }"
    )
    page.wait_for_function("window.__placed === true")
    after = page.evaluate(NAMES)
    assert not overlapping(after)
    assert after != before  # placed afresh for the new view
    page.screenshot(path=str(screens / "map-page-names-zoomed.png"))
