"""Identifiers in a real browser: find a paper by its arXiv id, and open its page from the reader."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_dashboard_in_browser import status

pytestmark = pytest.mark.browser

ARXIV_ID = "2510.16470"
ARXIV_PAGE = f"https://arxiv.org/abs/{ARXIV_ID}"


def test_a_paper_is_found_by_its_id_and_its_link_opens_its_page_in_a_new_tab(ids_page: Page, screens: Path):
    page = ids_page
    page.context.route("https://arxiv.org/**", lambda route: route.fulfill(body="the paper's arXiv page"))
    search = page.get_by_role("textbox", name=re.compile(r"^Filter by words"))
    search.fill(ARXIV_ID)
    search.press("Enter")
    expect(status(page)).to_contain_text("Showing 1 of 8 papers")
    papers_table = page.locator("[data-testid=stDataFrame] table[aria-rowcount]").first
    expect(papers_table).to_have_attribute("aria-rowcount", "2")  # the header and the one paper
    expect(papers_table).to_contain_text("Federated learning at scale")
    link = page.get_by_role("link", name=f"arXiv ID {ARXIV_ID} on arxiv.org")
    expect(link).to_have_attribute("href", ARXIV_PAGE)
    expect(link).to_have_attribute("target", "_blank")
    page.get_by_test_id("stDataFrame").first.scroll_into_view_if_needed()
    page.screenshot(path=screens / "browser-found-by-id.png")
    with page.context.expect_page() as opened:
        link.click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == ARXIV_PAGE
    assert "arXiv page" in tab.content()
