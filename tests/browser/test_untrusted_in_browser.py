"""A build whose every text field holds script and markup, in real Chromium: nothing runs, everything reads as text."""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import point_until_shown, wait_for_rerun, wait_until_ready
from tests.browser.harness import running_server
from tests.dashboard.tinybuild import HOSTILE_FOLDER, HOSTILE_MANIFEST, XSS, hostile_papers, hostile_topics
from topic_explorer.pipeline.buildfolder.write import write_build

pytestmark = pytest.mark.browser

FIRST_POINT = """() => {
    const gd = document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot');
    const box = gd.getBoundingClientRect(), xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, t = gd._fullData[0];
    return [box.x + xa._offset + xa.l2p(t.x[0]), box.y + ya._offset + ya.l2p(t.y[0])];
}"""
INJECTED = """() => ({
    flag: window.__xss ?? null,
    images: document.querySelectorAll('img[src="x"]').length,
    links: document.querySelectorAll('a[href^="javascript"]').length,
    scripts: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('__xss')).length,
    bold: [...document.querySelectorAll('strong, b')].filter(b => b.textContent === 'bold').length,
})"""


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    papers = hostile_papers()
    build = write_build(
        folder / HOSTILE_FOLDER,
        papers,
        hostile_topics(),
        np.zeros((len(papers), 4), dtype=np.float32),
        HOSTILE_MANIFEST,
    )
    with (folder / "serve.log").open("w") as log, running_server(build, log) as url:
        yield url


def test_script_in_every_field_of_a_build_never_runs_and_reads_as_text(browser, hostile_server, screens):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page: Page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(hostile_server)
    wait_until_ready(page)
    hover = page.locator(".hoverlayer .hovertext").first
    point_until_shown(
        lambda: (page.mouse.move(0, 0), page.mouse.move(*page.evaluate(FIRST_POINT))),
        lambda ms: hover.wait_for(state="visible", timeout=ms),
    )
    expect(hover).to_contain_text("<img src=x onerror=")  # the hover label shows the markup as characters
    page.screenshot(path=screens / "untrusted-hover.png")
    expect(page.get_by_text(f"{XSS} abstract 0", exact=True)).to_be_visible()  # the reader, verbatim
    page.get_by_text("Topic quality").click()
    expect(page.get_by_role("combobox", name="Topic to look at")).to_have_value(re.compile(r"^<img src=x"))
    page.screenshot(path=screens / "untrusted-quality.png")
    wait_for_rerun(page)  # every element drawn: an injected <img src=x> would be in the page
    assert page.evaluate(INJECTED) == {"flag": None, "images": 0, "links": 0, "scripts": 0, "bold": 0}
    context.close()
