"""Soak: many browser sessions at once on one dashboard server, each filtering, selecting and exporting.

    python benchmarks/soak.py BUILD [--sessions 20] [--baseline 1] [--replace-with BUILD2] [--json FILE]

A copy of BUILD is served (so --replace-with never touches BUILD itself) by the same Streamlit command and
settings as `topic-explorer serve`, through `benchmarks/timed_streamlit.py`. One headless Chromium opens every
session at once, each in a fresh context: load the page; with --replace-with, wait until every session has
loaded, rebuild the served folder with BUILD2's content and press 'Reset filters' (the next rerun must show the
new build); choose a topic in the Topics filter; box-select every point on the map; download the CSV. A session
passes when no page shows an error or raises a script error and its CSV is byte for byte the export of exactly
that topic's papers, computed here from the build.

Server and client are measured apart: the server logs the wall and CPU seconds of each script run and each CSV
it builds (`timed_streamlit.py`), and its resident memory is sampled from /proc every 0.25 s; the browser side
is the wall time from each action to its visible result. On a machine with few cores the browsers compete with
the server, so the server's CPU seconds per run are the figure to compare. The whole soak runs first with
--baseline sessions (default 1), then with --sessions, on fresh servers, and prints both with their ratios.
Needs Playwright and Chromium at /usr/bin/chromium (or $TOPIC_EXPLORER_CHROMIUM); never downloads a browser.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the browser tests' harness: the same Chromium settings

from playwright.async_api import TimeoutError as PlaywrightTimeout  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

from tests.browser.harness import CHROMIUM, CHROMIUM_ARGS, free_port, wait_until_healthy  # noqa: E402
from topic_explorer.dashboard.launch import BUILD_ENV, streamlit_command  # noqa: E402
from topic_explorer.dashboard.logic.data import Explorer, load_explorer  # noqa: E402
from topic_explorer.dashboard.ui.page import sizes  # noqa: E402
from topic_explorer.pipeline.buildfolder.read import read_build  # noqa: E402
from topic_explorer.pipeline.buildfolder.write import write_build  # noqa: E402
from topic_explorer.pipeline.export.files import csv_bytes  # noqa: E402
from topic_explorer.pipeline.export.selection import export_frame  # noqa: E402

TIMED_STREAMLIT = Path(__file__).with_name("timed_streamlit.py")
STEP_TIMEOUT_MS = 15 * 60_000  # 20 pages painting 20,000 points on 2 cores take minutes
# True once the page's heading starts with `heading` (which build it shows), the map's traces hold `points` papers
# and the status line starts with `status`.
SHOWN = """({heading, points, status}) => {
    const gd = document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot');
    if (!gd || !gd._fullData || !gd.querySelector('canvas')) return false;
    const n = gd._fullData.filter(t => !t.name.startsWith('Selected')).reduce((n, t) => n + t.customdata.length, 0);
    const starts = (selector, text) => [...document.querySelectorAll(selector)].some(e => e.innerText.startsWith(text));
    return n === points && starts('[data-testid=stMarkdownContainer] h3', heading)
        && starts('[data-testid=stMarkdownContainer] p', status);
}"""
ERRORS_ON_PAGE = "[data-testid=stException], [data-testid=stAlertContentError]"
# True once a box drawn on the map holds a selection (Plotly's, until the rerun redraws the map) or the server has
# answered it (the download button offers `label`'s selected papers).
SELECTING = """(label) => {
    const gd = document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot');
    const buttons = [...document.querySelectorAll('[data-testid=stDownloadButton] button')];
    return Boolean(gd && gd.layout && gd.layout.selections && gd.layout.selections.length)
        || buttons.some(b => b.innerText.includes(label));
}"""
GESTURE_TIMEOUT_MS = 20_000  # the map redraws in seconds even under load; the server may take minutes


@dataclass
class Session:
    """One browser session: seconds per step, what went wrong (empty when nothing did), the CSV it got."""

    index: int
    seconds: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    topic: str = ""
    rows_exported: int = 0
    csv_correct: bool = False


@dataclass
class Run:
    """A soak with `sessions` sessions on one server: the sessions, the server's timings and memory."""

    sessions: list[Session]
    server: list[dict]  # one record per script run or CSV built, from timed_streamlit.py
    rss_mb: list[float]  # sampled resident memory of the server
    peak_rss_mb: float
    seconds: float


def topic_for(explorer: Explorer, index: int):
    """Session `index`'s topic: mid-sized ones in turn (the biggest would make every session select thousands)."""
    real = explorer.topics.loc[explorer.topics["topic_id"] != -1].sort_values(["size", "topic_id"], ascending=False)
    middle = real.iloc[len(real) // 4 : max(len(real) // 4 + 1, 3 * len(real) // 4)]
    return middle.iloc[index % len(middle)]


def expected_csv(explorer: Explorer, topic_id: int) -> bytes:
    """What the dashboard must export once every paper of `topic_id` is selected: the papers in build order."""
    papers = explorer.papers.loc[explorer.papers["topic_id"] == topic_id]
    return csv_bytes(export_frame(papers, explorer.topics, explorer.metadata_columns))


def heading(explorer: Explorer) -> str:
    """The page's heading on this build, as the reader sees it: it tells two builds of the same size apart."""
    return f"{explorer.title} · {sizes(explorer)}"


async def wait_shown(page, explorer: Explorer, points: int) -> None:
    status = f"Showing {points:,} of {len(explorer.papers):,} papers"
    await page.wait_for_function(SHOWN, arg={"heading": heading(explorer), "points": points, "status": status})


async def timed(session: Session, step: str, action):
    """Await `action`, keeping its wall seconds under `step`; a failure names the step it happened in."""
    start = time.perf_counter()
    try:
        result = await action
    except Exception as error:
        raise StepFailed(f"{step}: {type(error).__name__}: {str(error).splitlines()[0]}") from error
    session.seconds[step] = time.perf_counter() - start
    return result


class StepFailed(Exception):
    """A session's step timed out or missed an element; the message names the step."""


async def run_session(
    browser, url: str, served: Path, index: int, loaded: asyncio.Barrier, replaced: asyncio.Event, step_ms: int
) -> Session:
    session = Session(index)
    context = await browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page = await context.new_page()
    page.set_default_timeout(step_ms)  # every wait of a step, the download's included
    page.on("pageerror", lambda error: session.errors.append(f"page error: {error}"))
    try:
        explorer = load_explorer(served)
        await timed(session, "load", _load(page, url, explorer))
        await loaded.wait()
        if replaced is not None:
            await replaced.wait()
            explorer = load_explorer(served)
            await timed(session, "reset after rebuild", _reset(page, explorer))
        topic = topic_for(explorer, index)
        session.topic = topic["label"]
        await timed(session, "filter", _filter(page, explorer, topic))
        await timed(session, "select", _select_all(page, int(topic["size"])))
        data = await timed(session, "export", _export(page))
        rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
        session.rows_exported = len(rows)
        session.csv_correct = data == expected_csv(explorer, int(topic["topic_id"]))
        if not session.csv_correct:
            session.errors.append(f"CSV of {len(rows)} rows differs from the {int(topic['size'])} papers of the topic")
        if await page.locator(ERRORS_ON_PAGE).count():
            session.errors.append(f"error on the page: {await page.locator(ERRORS_ON_PAGE).first.inner_text()}")
    except StepFailed as error:  # this session failed; the soak goes on
        session.errors.append(str(error))
    except Exception as error:  # the barrier broken by another session's failure
        session.errors.append(f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
    finally:
        await context.close()
    return session


async def _load(page, url: str, explorer: Explorer) -> None:
    await page.goto(url)
    await wait_shown(page, explorer, len(explorer.papers))


async def _reset(page, explorer: Explorer) -> None:
    """Press 'Reset filters' and wait for the new build's heading: the old build may have as many papers."""
    await page.get_by_role("button", name="Reset filters").click()
    await wait_shown(page, explorer, len(explorer.papers))


async def _filter(page, explorer: Explorer, topic) -> None:
    await page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect").first.click()
    await page.keyboard.type(topic["label"])  # the option list is virtualised: narrow it down first
    await page.get_by_role("option").filter(has_text=f"{topic['label']} ({int(topic['size']):,})").first.click()
    await page.keyboard.press("Escape")
    await wait_shown(page, explorer, int(topic["size"]))


async def _select_all(page, size: int, tries: int = 3) -> None:
    """Box-select the whole plot area: every shown paper. A drag that lands while Plotly is still drawing selects
    nothing, and the session would wait out its step (once in a full suite under load): up to `tries` drags, each
    given `GESTURE_TIMEOUT_MS` to register on the map (`SELECTING`), before the server's answer is waited for."""
    label = f"Download {size:,} selected paper"
    for attempt in range(tries):
        await page.locator("[data-testid=stPlotlyChart] .js-plotly-plot").first.hover()
        await page.locator('.modebar-btn[data-val="select"]').first.click()  # a redrawn map may have left the mode
        area = await page.locator(".nsewdrag").first.bounding_box()
        await page.mouse.move(area["x"] + 2, area["y"] + 2)
        await page.mouse.down()
        await page.mouse.move(area["x"] + area["width"] - 2, area["y"] + area["height"] - 2, steps=10)
        await page.mouse.up()
        try:
            await page.wait_for_function(SELECTING, arg=label, timeout=GESTURE_TIMEOUT_MS)
            break
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
    await page.get_by_test_id("stDownloadButton").get_by_role("button").filter(has_text=label).wait_for()


async def _export(page) -> bytes:
    async with page.expect_download() as info:
        await page.get_by_test_id("stDownloadButton").get_by_role("button").click()
    download = await info.value
    return Path(await download.path()).read_bytes()


def sample_memory(pid: int, samples: list[float], stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return
        samples.append(int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024)
        stop.wait(0.25)


def peak_memory_mb(pid: int) -> float:
    return int(re.search(r"VmHWM:\s+(\d+)", Path(f"/proc/{pid}/status").read_text()).group(1)) / 1024


async def run_sessions(url: str, served: Path, count: int, replace_with: Path | None, step_ms: int) -> list[Session]:
    loaded = asyncio.Barrier(count + 1)
    replaced = asyncio.Event() if replace_with else None
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        tasks = [
            asyncio.create_task(run_session(browser, url, served, i, loaded, replaced, step_ms)) for i in range(count)
        ]
        waiting = asyncio.create_task(loaded.wait())
        await asyncio.wait([waiting, *tasks], return_when=asyncio.FIRST_COMPLETED)  # all loaded, or one gave up
        if not waiting.done():
            await loaded.abort()
        if replace_with:
            new = read_build(replace_with)
            write_build(served, new.papers, new.topics, new.embeddings(), new.manifest)
            replaced.set()
        sessions = await asyncio.gather(*tasks)
        await browser.close()
    return sessions


def soak(build: Path, sessions: int, *, replace_with: Path | None = None, step_ms: int = STEP_TIMEOUT_MS) -> Run:
    """Serve a copy of `build` and run `sessions` sessions against it at once; a session's step fails after
    `step_ms`."""
    with tempfile.TemporaryDirectory(prefix="soak-") as folder:
        served = Path(shutil.copytree(build, Path(folder) / Path(build).name))
        log, port = Path(folder) / "server.jsonl", free_port()
        command = [sys.executable, str(TIMED_STREAMLIT), str(log), *streamlit_command(port=port, host="127.0.0.1")[3:]]
        env = {**os.environ, BUILD_ENV: str(served)}
        server = subprocess.Popen(command, env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        samples: list[float] = []
        stop = threading.Event()
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until_healthy(url, server, 120)
            sampler = threading.Thread(target=sample_memory, args=(server.pid, samples, stop), daemon=True)
            sampler.start()
            start = time.perf_counter()
            with ThreadPoolExecutor(1) as thread:  # an event loop of its own, even beside Playwright's sync API
                running = run_sessions(url, served, sessions, replace_with, step_ms)
                results = thread.submit(asyncio.run, running).result()
            seconds = time.perf_counter() - start
            stop.set()
            sampler.join()
            peak = max([peak_memory_mb(server.pid), *samples])  # the kernel updates its high-water mark lazily
        finally:
            stop.set()
            server.terminate()
            server.wait(timeout=30)
        records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return Run(results, records, samples, peak, seconds)


def spread(values: list[float]) -> str:
    if not values:
        return "n/a"
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
    return f"{statistics.median(values):.3f} ({p90:.3f}, {values[-1]:.3f})"


def summary(run: Run) -> dict[str, object]:
    """The figures one run is judged by, keyed by what a table row says."""
    runs = [r for r in run.server if r["kind"] == "run"]
    exports = [r for r in run.server if r["kind"] == "export"]
    steps = sorted({step for s in run.sessions for step in s.seconds}, key=["load", "reset after rebuild", "filter",
                   "select", "export"].index)  # fmt: skip
    figures: dict[str, object] = {
        "sessions without an error": f"{sum(not s.errors for s in run.sessions)}/{len(run.sessions)}",
        "CSVs complete and correct": f"{sum(s.csv_correct for s in run.sessions)}/{len(run.sessions)}",
        "server: script runs timed": len(runs),
        "server: wall s per run, median (p90, max)": spread([r["wall"] for r in runs]),
        "server: CPU s per run, median (p90, max)": spread([r["cpu"] for r in runs]),
        "server: CSVs built": len(exports),
        "server: CPU s per CSV, median (p90, max)": spread([r["cpu"] for r in exports]),
        "server: resident memory MB, idle": f"{run.rss_mb[0]:.0f}" if run.rss_mb else "n/a",
        "server: resident memory MB, peak": f"{run.peak_rss_mb:.0f}",
    }
    for step in steps:
        figures[f"browser: {step} s, median (p90, max)"] = spread(
            [s.seconds[step] for s in run.sessions if step in s.seconds]
        )
    figures["whole soak, s"] = f"{run.seconds:.1f}"
    return figures


def median_of(run: Run, kind: str, measure: str) -> float:
    values = [r[measure] for r in run.server if r["kind"] == kind]
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path, metavar="BUILD")
    parser.add_argument("--sessions", type=int, default=20, help="sessions at once (default 20)")
    parser.add_argument("--baseline", type=int, default=1, help="sessions of the baseline run (default 1; 0: none)")
    parser.add_argument("--replace-with", type=Path, metavar="BUILD2", help="rebuild the served folder mid-soak")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every figure and session as JSON")
    args = parser.parse_args()
    built = read_build(args.build)
    counts = [n for n in (args.baseline, args.sessions) if n]
    runs = {n: soak(args.build, n, replace_with=args.replace_with) for n in counts}
    print(f"\nsoak: {built.name}, {len(built.papers):,} papers, {len(built.topics)} topics"
          + (f"; rebuilt mid-soak from {args.replace_with}" if args.replace_with else ""))  # fmt: skip
    print(f"machine: {os.cpu_count()} CPUs, {platform.machine()}, {platform.platform()}\n")
    tables = {n: summary(run) for n, run in runs.items()}
    print(f"{'':46}" + "".join(f"{f'{n} session' + ('s' if n > 1 else ''):>26}" for n in counts))
    for row in tables[counts[-1]]:
        print(f"{row:46}" + "".join(f"{tables[n].get(row, ''):>26}" for n in counts))
    if len(counts) == 2:
        few, many = runs[counts[0]], runs[counts[1]]
        print(f"\nratios, {counts[1]} sessions / {counts[0]}:")
        for kind, measure in (("run", "cpu"), ("run", "wall"), ("export", "cpu")):
            ratio = median_of(many, kind, measure) / median_of(few, kind, measure)
            print(f"  median {measure} s per {'script run' if kind == 'run' else 'CSV'}: {ratio:.2f}x")
        print(f"  peak server memory: {many.peak_rss_mb / few.peak_rss_mb:.2f}x")
    for n, run in runs.items():
        for session in run.sessions:
            if session.errors:
                print(f"{n} sessions, session {session.index}: {'; '.join(session.errors)}")
    if args.json:
        payload = {n: {"figures": tables[n], "sessions": [asdict(s) for s in run.sessions], "server": run.server,
                       "rss_mb": run.rss_mb} for n, run in runs.items()}  # fmt: skip
        args.json.write_text(json.dumps(payload, indent=2))
    if any(s.errors for run in runs.values() for s in run.sessions):
        sys.exit(1)


if __name__ == "__main__":
    main()
