"""Topics over time in headless Chromium on a corpus with thin years and a gap: shares only where a year has papers
enough, "too few papers" where it has not, a labelled gap, and "1 paper" under a year of one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import _open
from tests.browser.harness import running_server
from tests.dashboard.tinybuild import tiny_papers, tiny_topics
from topic_explorer.pipeline.buildfolder.write import write_build

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def thin_years_page(browser, tmp_path_factory) -> Page:
    """The dashboard on 24 papers: one in 2017, one in 2019, 22 in 2025."""
    papers = pd.concat([tiny_papers()] * 3, ignore_index=True)
    papers["paper_id"] = [f"p{i:012x}" for i in range(len(papers))]
    papers["year"] = [2017, 2019] + [2025] * (len(papers) - 2)
    topics = tiny_topics().assign(size=[9, 9, 6])
    build = write_build(
        tmp_path_factory.mktemp("builds") / "thin-years", papers, topics, np.zeros((len(papers), 2), "float32"), {}
    )
    with (tmp_path_factory.mktemp("server") / "serve.log").open("w") as log, running_server(build, log) as url:
        page = _open(browser, url)
        yield page
        page.context.close()


def test_thin_years_say_too_few_papers_and_a_gap_reads_as_one(thin_years_page: Page, screens: Path):
    page = thin_years_page
    page.get_by_role("tab", name="Topics over time").click()
    chart = page.locator("[data-testid=stPlotlyChart]").filter(has_text="year (and its number of papers)")
    ticks = chart.locator(".xtick text")
    expect(ticks).to_have_count(5)  # 2017, the gap 2018, 2019, the gap 2020–2024, 2025
    expect(ticks.nth(0)).to_have_text("20171 paper")  # two lines of one tick, "1 paper" not "1 papers"
    expect(ticks.nth(3)).to_have_text("2020–2024no papers")
    notes = chart.locator(".annotation-text")
    expect(notes).to_have_text(["too fewpapersfor shares", "no papers", "too fewpapersfor shares", "no papers"])
    bars = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].find(g => g.textContent.includes('year (and its'))"
        ".data.flatMap(t => t.x)"
    )
    assert set(bars) == {"2025"}  # no 100% bar for a year of one paper
    page.screenshot(path=screens / "timeline-thin-years.png")
    page.get_by_text("Papers", exact=True).click()  # as counts, every year's papers are drawn
    expect(notes).to_have_text(["no papers", "no papers"])
    page.screenshot(path=screens / "timeline-thin-years-counts.png")
