"""Browser-test fixtures: the real server, started the way a user starts it, and headless Chromium.

Without Chromium (or Playwright) these tests skip, unless TOPIC_EXPLORER_REQUIRE_BROWSER=1 makes them fail.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.browser.harness import CHROMIUM, CHROMIUM_ARGS, running_server

_STATUS = re.compile(r"Showing [\d,]+ of [\d,]+ papers")
EXPECT_TIMEOUT_MS = 15_000  # Playwright's 5 s default for `expect`; a loaded CI machine has taken longer to redraw


BROWSER_RERUNS = 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A browser test that fails runs once more before it counts as failed. They drive a real Chromium against a
    real server on a loaded 2-core machine, where a pointer or a rerun can still lose a race the test did not see
    (three CI runs in a row each failed one such test once, each passing alone); a broken feature fails both
    runs, and pytest's summary names every rerun ("1 rerun"), so a flaky test still shows."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.flaky(reruns=BROWSER_RERUNS))


def _missing_browser() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install playwright)"
    if not CHROMIUM.is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set TOPIC_EXPLORER_CHROMIUM)"
    return None


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium; skips the browser tests when it is missing (fails under TOPIC_EXPLORER_REQUIRE_BROWSER=1)."""
    reason = _missing_browser()
    if reason:
        if os.environ.get("TOPIC_EXPLORER_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def server(sample_build, tmp_path_factory) -> str:
    """The dashboard served on the sample build, started the way a user starts it."""
    with (tmp_path_factory.mktemp("server") / "serve.log").open("w") as log, running_server(sample_build, log) as url:
        yield url


@pytest.fixture(scope="session")
def ids_server(tmp_path_factory) -> str:
    """The dashboard on the tiny hand-made build (DOIs and arXiv ids among its metadata; no model needed)."""
    import numpy as np

    from tests.dashboard.tinybuild import tiny_papers, tiny_topics
    from topic_explorer.pipeline.buildfolder.write import write_build

    papers = tiny_papers()
    build = write_build(
        tmp_path_factory.mktemp("builds") / "with-ids", papers, tiny_topics(), np.zeros((len(papers), 2), "float32"), {}
    )
    with (tmp_path_factory.mktemp("server") / "serve.log").open("w") as log, running_server(build, log) as url:
        yield url


@pytest.fixture(scope="session")
def screens() -> Path:
    """Where screenshots go for a human to look at (outside the repository)."""
    folder = Path(os.environ.get("TOPIC_EXPLORER_SCREENS", "/tmp/screens"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def wait_until_ready(page, timeout_ms: int = 60_000) -> None:
    """The map has drawn its points and the count is shown; the first load after start can stay blank: reload once."""
    for attempt in range(2):
        try:
            page.wait_for_function(
                "() => { const gd = document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot');"
                " return gd && gd._fullData && gd._fullData.length > 0 && gd.querySelector('.scatterlayer, canvas'); }",
                timeout=timeout_ms,
            )
            page.get_by_text(_STATUS).first.wait_for(timeout=timeout_ms)
            return
        except Exception:
            if attempt:
                raise
            page.reload()


def _open(browser, url: str, on_page: Callable | None = None, height: int = 900):
    """A new browser session on `url`, ready to use; `on_page(page)` runs before it loads (to route its traffic)."""
    context = browser.new_context(viewport={"width": 1400, "height": height}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    if on_page is not None:
        on_page(page)
    page.goto(url)
    wait_until_ready(page)
    return page


@pytest.fixture
def page(browser, server):
    """A fresh browser session on the page, ready to use, at 1400x900."""
    page = _open(browser, server)
    yield page
    page.context.close()


@pytest.fixture
def ids_page(browser, ids_server):
    """A fresh browser session on the tiny build with ids, ready to use, at 1400x900."""
    page = _open(browser, ids_server)
    yield page
    page.context.close()


# Waits on a condition, never a sleep: a slower page waits longer, a wrong one times out.
CURRENT_MAP = (
    "[...document.querySelectorAll('.js-plotly-plot')].find(g => g.layout && g.layout.meta"
    " && g.layout.meta.topicExplorerMap && !g.closest('[data-stale=true]'))"
)
_RERUN_OVER = "() => !document.querySelector('[data-stale=true], [data-testid=stStatusWidgetRunningIcon]')"


def wait_for_rerun(page, timeout_ms: int = 60_000) -> None:
    """Once an action's first effect shows, wait until the app's rerun is over: no element left over from the run
    before (Streamlit marks those stale) and no running icon."""
    page.wait_for_function(_RERUN_OVER, polling="raf", timeout=timeout_ms)


def point_until_shown(act: Callable[[], None], shown: Callable[[int], None], tries: int = 3) -> None:
    """Point at something on a map (`act`) until `shown(timeout_ms)` sees the effect, up to `tries` times, 10 s each.
    Under load a hover or click can land while Plotly is still drawing and do nothing (1 in 2 full suites, twice);
    the effect must still come from pointing, so a broken hover or click still fails."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(tries):
        act()
        try:
            shown(10_000)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise


def mark_map(page) -> None:
    """Note the map's figure now, so that `wait_for_new_map` can tell the next one from it."""
    page.evaluate(f"() => {{ window.__teMarked = ({CURRENT_MAP} || {{}}).layout; }}")


def wait_for_new_map(page, ranges: list | None = None, timeout_ms: int = 60_000) -> None:
    """Wait until the map shows a figure other than the one `mark_map` noted (any, on a fresh page), the page's map
    script has handled it (kept zoom put back, labels placed), and, with `ranges`, the map shows those ranges."""
    page.wait_for_function(
        f"""(want) => {{
            const gd = {CURRENT_MAP};
            if (!gd || !gd._fullLayout || gd.layout === window.__teMarked || gd.__teLayout !== gd.layout) return false;
            if (!want) return true;
            const now = [gd._fullLayout.xaxis.range, gd._fullLayout.yaxis.range];
            return now.every((axis, i) => axis.every((v, j) => Math.abs(v - want[i][j]) < 1e-9));
        }}""",
        arg=ranges,
        polling="raf",
        timeout=timeout_ms,
    )
