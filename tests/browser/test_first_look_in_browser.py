"""What a newcomer sees first, in headless Chromium: the heading near the top of the page (no empty band above it),
and a download button and file named in plain words after the corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_dashboard_in_browser import download_button

pytestmark = pytest.mark.browser


def test_the_heading_sits_near_the_top_and_stays_readable(page: Page, screens: Path):
    heading = page.get_by_role("heading", name="NeurIPS 2025 sample · 38 papers · 11 topics")
    top = heading.bounding_box()["y"]
    assert top < 50  # Streamlit's own padding put it about 100 px down
    covering = page.evaluate(
        """() => { const h = document.querySelector('[data-testid=stHeader]');
            return h ? getComputedStyle(h).backgroundColor : 'none'; }"""
    )
    assert covering in {"none", "rgba(0, 0, 0, 0)", "transparent"}  # Streamlit's header bar does not hide it
    page.screenshot(path=screens / "first-look.png", clip={"x": 0, "y": 0, "width": 1400, "height": 300})


def test_the_map_download_reads_plainly_and_is_named_after_the_corpus(page: Page, tmp_path: Path):
    page.get_by_role("combobox", name="File format").click()
    page.get_by_role("option", name="Map (HTML)", exact=True).click()
    expect(download_button(page)).to_have_text("Download all 38 shown papers as a map (HTML)")
    with page.expect_download() as info:
        download_button(page).click()
    assert info.value.suggested_filename == "neurips-2025-sample-papers.html"
