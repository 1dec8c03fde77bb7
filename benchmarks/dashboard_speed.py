"""Benchmark: how fast the dashboard paints and filters in a real browser, and what its server spends.

    python benchmarks/dashboard_speed.py BUILD [--runs 3] [--baseline BUILD]

Per build, `topic-explorer serve BUILD` runs on a free port and headless Chromium (1400x900, a fresh browser context
per visit, so nothing cached) measures wall-clock seconds of
- first paint: page.goto until the map's traces hold every paper and "Showing N of N papers" is shown;
- filter change: choosing the biggest topic in the Topics filter until the count and the map show just it.
Then Streamlit's AppTest runs dashboard/app.py in this process, without browser or network (the server's own time):
a session's first run, and its rerun once that topic is chosen. Visit and session 1 are "cold" (the build gets
loaded; for the first build, this process also imports the dashboard), the next --runs are "warm".
Prints medians (min-max); with --baseline, also the baseline build and the ratios of the warm medians.
Needs Playwright and Chromium at /usr/bin/chromium (or $TOPIC_EXPLORER_CHROMIUM); never downloads a browser.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the browser tests' harness: the same server and Chromium settings

from dashboard.data import BUILD_ENV  # noqa: E402
from dashboard.sidebar import TOPICS_KEY  # noqa: E402
from pipeline.buildfolder import read_build  # noqa: E402
from tests.browser.harness import CHROMIUM, CHROMIUM_ARGS, running_server  # noqa: E402

APP = ROOT / "dashboard" / "app.py"
# True once the map's traces hold `points` papers and the status line reads `status`.
SHOWN = """({points, status}) => {
    const gd = document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot');
    if (!gd || !gd._fullData || !gd.querySelector('canvas')) return false;
    const n = gd._fullData.filter(t => !t.name.startsWith('Selected')).reduce((n, t) => n + t.customdata.length, 0);
    return n === points && [...document.querySelectorAll('[data-testid=stMarkdownContainer] p')]
        .some(p => p.innerText.startsWith(status));
}"""
ROWS = ["first paint (browser)", "filter change (browser)", "server: first run (AppTest)", "server: filter rerun"]


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def in_browser(browser, url: str, total: int, topic) -> tuple[float, float]:
    """One visit in a fresh context: (first paint, filter change) in seconds."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(120_000)
    all_shown = {"points": total, "status": f"Showing {total:,} of {total:,} papers"}
    paint = timed(lambda: (page.goto(url), page.wait_for_function(SHOWN, arg=all_shown, polling="raf")))
    page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect").first.click()
    page.keyboard.type(topic.label)  # the option list is virtualised: narrow it down to the topic
    option = page.get_by_role("option").filter(has_text=f"{topic.label} ({topic.size:,})").first
    option.wait_for()
    one_topic = {"points": topic.size, "status": f"Showing {topic.size:,} of {total:,} papers"}
    change = timed(lambda: (option.click(), page.wait_for_function(SHOWN, arg=one_topic, polling="raf")))
    context.close()
    return paint, change


def in_app_test(build: Path, total: int, topic) -> tuple[float, float]:
    """One session through AppTest: (first run, rerun after choosing the topic) in seconds."""
    os.environ[BUILD_ENV] = str(build)
    at = AppTest.from_file(str(APP), default_timeout=600)
    first = timed(at.run)
    at.multiselect(key=TOPICS_KEY).set_value([topic.topic_id])
    rerun = timed(at.run)
    expected = f"**Showing {topic.size:,} of {total:,} papers**"
    if at.exception or not any(m.value.startswith(expected) for m in at.markdown):
        raise RuntimeError(f"AppTest on {build} did not show {expected!r}: {at.exception}")
    return first, rerun


def measure(build: Path, runs: int) -> dict:
    """One build's size, the topic filtered to, and per row of ROWS its timings: cold, then warm."""
    built = read_build(build)
    total, topic = len(built.papers), next(built.topics.sort_values("size", ascending=False).itertuples())
    with tempfile.TemporaryFile("w+") as log, running_server(build, log) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        browser_times = [in_browser(browser, url, total, topic) for _ in range(runs + 1)]
        browser.close()
    server_times = [in_app_test(build, total, topic) for _ in range(runs + 1)]
    columns = [*zip(*browser_times, strict=True), *zip(*server_times, strict=True)]
    return {"name": built.name, "papers": total, "topics": len(built.topics), "topic": topic, "times": columns}


def spread(times: list[float]) -> str:
    return f"{statistics.median(times):.2f} ({min(times):.2f}-{max(times):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path, metavar="BUILD")
    parser.add_argument("--runs", type=int, default=3, help="warm visits and sessions per build (default 3)")
    parser.add_argument("--baseline", type=Path, metavar="BUILD", help="a small build to compare with")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # AppTest's "missing ScriptRunContext" noise
    results = [measure(build, args.runs) for build in (args.build, args.baseline) if build]
    print(f"\nmachine: {os.cpu_count()} CPUs, {platform.machine()}, {platform.platform()}; {args.runs} warm runs")
    for r in results:
        topic = r["topic"]
        print(f"{r['name']}: {r['papers']:,} papers, {r['topics']} topics; filter: {topic.label} ({topic.size:,})")
    print(f"\n{'seconds':28}", *(f"{r['name'] + ' cold':>12} {r['name'] + ' warm':>23}" for r in results), end="")
    print("  warm ratio" if len(results) == 2 else "")
    for row, *columns in zip(ROWS, *(r["times"] for r in results), strict=True):
        cells = [f"{times[0]:12.2f} {spread(times[1:]):>23}" for times in columns]
        if len(columns) == 2:
            cells.append(f"{statistics.median(columns[0][1:]) / statistics.median(columns[1][1:]):10.1f}x")
        print(f"{row:28}", *cells)


if __name__ == "__main__":
    main()
