"""Benchmark: the offline map page (`export BUILD --out map.html`): its size and Chromium's time to draw it.

    python benchmarks/map_page.py BUILD [BUILD ...] [--runs 3]

Per build: the seconds `export` takes to make the page of every paper (in this process, the build already read),
the file's size in MB and what it holds (papers drawn, of how many; abstracts whole or cut), then, over --runs
visits in headless Chromium (1400x900, a fresh context each, the network blocked: the page must need none):
- open to drawn: page.goto of the file:// address until Plotly has drawn every point (the page's own flag);
- draw: Plotly.newPlot's own time, inside the page (parsing the data and the bundle excluded);
- search: typing a word in the search box until the map is redrawn with its matches.
Prints medians (min-max) and the load average before and after: the machine may be busy, so compare builds
measured in the same run. Needs Playwright and Chromium at /usr/bin/chromium; never downloads a browser.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.harness import CHROMIUM, CHROMIUM_ARGS, offline_context  # noqa: E402
from topic_explorer.pipeline.buildfolder.atomic import write_atomically  # noqa: E402
from topic_explorer.pipeline.buildfolder.read import read_build  # noqa: E402
from topic_explorer.pipeline.export.formats import EXPORT_FORMATS, export_bytes  # noqa: E402
from topic_explorer.pipeline.export.mappage import page_data  # noqa: E402
from topic_explorer.pipeline.export.selection import select  # noqa: E402

SEARCH_WORD = "learning"  # a word most corpora of papers use, so the redraw has points to draw
TOTAL = "() => document.getElementById('te-map')._fullData.reduce((n, t) => n + t.x.length, 0)"


def summary(values: list[float], unit: str = "s") -> str:
    return f"{statistics.median(values):.2f} {unit} ({min(values):.2f}-{max(values):.2f})"


def measure(build_path: Path, runs: int, folder: Path) -> None:
    build = read_build(build_path)
    started = time.perf_counter()
    selection = select(build, np.arange(len(build.papers)))
    data = export_bytes(selection, EXPORT_FORMATS["html"])
    seconds = time.perf_counter() - started
    path = folder / f"{build.name}.html"
    write_atomically(path, data)
    held = page_data(selection)
    print(f"\n{build.name}: {len(build.papers):,} papers")
    print(f"  export: {seconds:.1f} s; file {len(data) / 1e6:.1f} MB; {len(held['papers']['x']):,} papers drawn")
    for note in held["notes"]:
        print(f"  page says: {note}")
    opened, drawn, searched = [], [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for _ in range(runs):
            context, attempted = offline_context(browser, {"width": 1400, "height": 900})
            page = context.new_page()
            start = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_function("window.topicExplorerMap && window.topicExplorerMap.ready", timeout=300_000)
            opened.append(time.perf_counter() - start)
            drawn.append(page.evaluate("window.topicExplorerMap.drawnMs") / 1000)
            before = page.evaluate(TOTAL)
            start = time.perf_counter()
            page.fill("#te-search", SEARCH_WORD)
            page.wait_for_function(f"({TOTAL})() !== {before}", timeout=120_000)
            searched.append(time.perf_counter() - start)
            assert not attempted, attempted
            context.close()
        browser.close()
    print(f"  open to drawn: {summary(opened)}; draw: {summary(drawn)}")
    print(f"  search: {summary(searched)} (the page waits 0.15 s after the last key)")
    print("  network requests attempted: 0")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("builds", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="map-page-") as folder:
        for build in args.builds:
            measure(build, args.runs, Path(folder))
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
