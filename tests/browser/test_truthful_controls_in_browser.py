"""Every control tells the truth, in real headless Chromium (issue 21): the widgets, the URL, the reader and the
buttons show the page's state after every action, reset and reload."""

from __future__ import annotations

import itertools
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser.conftest import _open, wait_for_new_map, wait_for_rerun
from tests.browser.harness import running_server
from tests.browser.test_dashboard_in_browser import COUNTS_SELECTED, box_select, status
from tests.browser.test_explore_field_in_browser import MAP, RANGES, map_toolbar, same_ranges
from topic_explorer.pipeline.buildfolder.read import read_build

pytestmark = pytest.mark.browser

WORDS = re.compile(r"^Filter by words|^Search titles")


def word_box(page: Page):
    return page.get_by_test_id("stSidebar").get_by_role("textbox", name=WORDS)


def about_box(page: Page):
    """The search box (by meaning and words; the key keeps it whatever its label says)."""
    return page.locator(".st-key-filter-about input")


def filter_by_words(page: Page, words: str) -> None:
    word_box(page).fill(words)
    word_box(page).press("Enter")
    expect(status(page)).not_to_contain_text("Showing 38 of 38")
    wait_for_rerun(page)  # the count is drawn first: the rest of the page is still being redrawn


def status_and_url_when(page: Page, pattern: str) -> tuple[str, str]:
    """The status line and the address bar's query at the first frame the status matches `pattern`."""
    return page.wait_for_function(
        """(pattern) => {
            const line = [...document.querySelectorAll('[data-testid=stMarkdownContainer] p')]
                .map(p => p.innerText).find(text => /Showing [\\d,]+ of/.test(text));
            return line && new RegExp(pattern).test(line) ? [line, location.search] : null;
        }""",
        arg=pattern,
        polling="raf",
    ).json_value()


def test_reset_filters_empties_every_box_and_the_next_action_keeps_them_empty(page: Page, screens: Path):
    filter_by_words(page, "privacy")
    about_box(page).fill("federated learning")
    about_box(page).press("Enter")
    matches = page.get_by_test_id("stSlider").filter(has_text="Relevance at least")
    expect(matches).to_be_visible(timeout=120_000)  # shown once the query is in
    page.get_by_role("button", name="Reset filters").click()
    expect(status(page)).to_contain_text("Showing 38 of 38 papers")
    expect(word_box(page)).to_have_value("")
    expect(about_box(page)).to_have_value("")
    wait_for_rerun(page)
    box_select(page, right=0.5, bottom=0.5)  # the next action must not bring the old filters back
    expect(status(page)).to_contain_text(re.compile(r"· [1-9]\d* selected"))
    expect(status(page)).to_contain_text("Showing 38 of 38 papers")
    expect(word_box(page)).to_have_value("")
    page.screenshot(path=screens / "truth-reset-filters.png")


def test_the_url_names_the_view_as_soon_as_the_count_does(page: Page):
    page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect").first.click()
    page.get_by_role("option").filter(has_not_text="Select all").first.click()
    page.keyboard.press("Escape")
    line, query = status_and_url_when(page, r"Showing (?!38 of)\d+ of 38")
    assert "topics=" in query, (line, query)
    topics = page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect").first
    topics.get_by_role("button", name=re.compile(r"^Remove ")).first.click()
    line, query = status_and_url_when(page, r"Showing 38 of 38")
    assert "topics=" not in query, (line, query)


def test_reset_view_is_kept_across_a_reload(page: Page):
    page.locator(".te-map-label").first.wait_for()  # the page's map script is running
    full = page.evaluate(RANGES)
    map_toolbar(page, "in")
    page.wait_for_function(f"() => {MAP}._fullLayout.xaxis.range[0] > {full[0][0]}")
    kept = "() => Object.keys(sessionStorage).filter(k => k.startsWith('topic-explorer-view:'))"
    kept_x0 = f"() => ({kept})().map(k => JSON.parse(sessionStorage.getItem(k)).x[0])"
    page.wait_for_function(f"() => {{ const xs = ({kept_x0})(); return xs.length === 1 && xs[0] > {full[0][0]}; }}")
    page.get_by_role("button", name="Reset view").click()
    page.wait_for_function(f"() => {MAP}._fullLayout.xaxis.range[0] === {full[0][0]}")
    page.wait_for_function(f"() => {{ const xs = ({kept_x0})(); return xs.length === 1 && xs[0] === {full[0][0]}; }}")
    page.reload()
    wait_for_new_map(page)  # the page's script has read the kept view and, where it differs, put it back
    assert same_ranges(page.evaluate(RANGES), full)


def test_select_on_a_paper_the_filters_hide_never_silently_does_nothing(page: Page):
    filter_by_words(page, "privacy")
    page.get_by_text(re.compile(r"most similar papers")).scroll_into_view_if_needed()
    buttons = page.get_by_role("button", name=re.compile(r"^Select$"))
    expect(buttons.first).to_be_visible()
    expect(page.get_by_text("hidden by the filters").first).to_be_visible()  # 3 of 38 shown: most similar are hidden
    clicked = 0
    for i in range(buttons.count()):
        button = buttons.nth(i)
        if button.is_disabled():
            continue
        before = int(re.search(r"· (\d+) selected", status(page).inner_text()).group(1))
        button.click()
        expect(status(page)).to_contain_text(f"· {before + 1} selected")
        expect(status(page)).not_to_contain_text("hidden by the filters")
        wait_for_rerun(page)  # the reader turns to the paper just selected: the next buttons are its similar papers
        clicked += 1
    assert clicked
    assert buttons.count() - clicked >= 1


def read_shown_title(page: Page) -> tuple[str, str]:
    """The reader's dropdown value, and the first text after it: the title of the paper the reader shows."""
    return page.evaluate(
        """() => {
            const input = [...document.querySelectorAll('input[role=combobox]')]
                .find(i => (i.getAttribute('aria-label') || '').startsWith('Read a'));
            const texts = [...document.querySelectorAll('[data-testid=stText]')];
            const after = texts.find(t => input.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING);
            return [input.value, after.innerText];
        }"""
    )


def test_the_reader_names_the_paper_it_shows_after_a_table_selection(page: Page, screens: Path):
    table = page.locator("[data-testid=stDataFrame]").first
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    page.mouse.click(box["x"] + 18, box["y"] + 35 * 3 + 17)  # the third row's checkbox
    expect(status(page)).to_contain_text("· 1 selected")
    expect(page.get_by_role("combobox", name="Read a selected paper")).to_be_visible()
    wait_for_rerun(page)
    chosen, shown = read_shown_title(page)
    page.screenshot(path=screens / "truth-reader-after-selection.png")
    assert chosen == shown


@pytest.fixture
def own_server(sample_build, tmp_path):
    """The dashboard on a copy of the sample build that a test may edit."""
    build = shutil.copytree(sample_build, tmp_path / "sample-copy")
    with (tmp_path / "serve.log").open("w") as log, running_server(build, log) as url:
        yield url


def test_a_rename_shows_the_new_name_in_every_topic_dropdown(browser, own_server):
    page = _open(browser, own_server)
    try:
        page.get_by_text("Edit topics (saved with the build)").click()
        rename = page.get_by_role("combobox", name="Topic to rename")
        old = rename.input_value()
        details = page.get_by_role("combobox", name="Topic details")
        expect(details).to_have_value(old)
        box = page.get_by_role("textbox", name="New name")
        box.fill("Quite another name")
        box.press("Enter")
        page.get_by_role("button", name="Rename", exact=True).click()
        expect(page.locator(".te-map-label", has_text="Quite another name").first).to_be_visible(timeout=60_000)
        expect(rename).to_have_value("Quite another name")
        expect(details).to_have_value("Quite another name")
        expect(page.get_by_text(f"renamed “{old}” to “Quite another name”")).to_be_visible()
    finally:
        page.context.close()


def test_search_shows_its_matches_says_so_zooms_to_them_and_clears(page: Page):
    full = page.evaluate(RANGES)
    about_box(page).fill("privacy-preserving training of a shared model across many clients")
    about_box(page).press("Enter")
    expect(status(page)).to_contain_text("search on", timeout=120_000)
    expect(status(page)).to_contain_text(re.compile(r"Showing [1-9] of 38 papers"))  # those above the bar only
    n = int(re.search(r"Showing (\d+) of", status(page).inner_text()).group(1))
    line = re.compile(rf"Search: {n} papers reach relevance 0\.35 for .* \(up to 0\.\d\d\)")
    expect(page.get_by_text(line)).to_be_visible()
    page.get_by_role("button", name="Zoom to matches").click()
    page.wait_for_function(f"() => {MAP}._fullLayout.xaxis.range[0] !== {full[0][0]}")
    (x0, x1), (y0, y1) = page.evaluate(RANGES)
    assert (x1 - x0) * (y1 - y0) < (full[0][1] - full[0][0]) * (full[1][1] - full[1][0])
    matches = page.evaluate(
        f"() => {MAP}._fullData.filter(t => t.customdata && !t.name.startsWith('Selected'))"
        ".flatMap(t => Array.from(t.x).map((x, i) => [x, t.y[i]]))"
    )
    assert len(matches) == n
    assert all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in matches)
    page.get_by_role("button", name="Clear search").click()
    expect(status(page)).to_contain_text("Showing 38 of 38 papers")
    expect(status(page)).not_to_contain_text("search on")
    expect(about_box(page)).to_have_value("")


LABEL_CHECK = """() => {
    const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g => g.layout && g.layout.meta
        && g.layout.meta.topicExplorerMap);
    const full = gd._fullLayout, area = gd.querySelector('.nsewdrag').getBoundingClientRect();
    const nodes = [...gd.querySelectorAll('.te-map-label')];
    return gd.layout.meta.labels.map((label, i) => {
        const node = nodes[i], box = node.getBoundingClientRect();
        const own = gd._fullData.filter(t => t.customdata && t.marker.color === label.c).flatMap(t => Array.from(t.x)
            .map((x, j) => [area.left + full.xaxis.l2p(x), area.top + full.yaxis.l2p(t.y[j])]));
        const covered = own.filter(([px, py]) => px > box.left && px < box.right && py > box.top && py < box.bottom);
        return {text: node.textContent, visible: node.style.display !== 'none', own: own.length,
                covered: covered.length, inside: box.left >= area.left - 1 && box.right <= area.right + 1
                    && box.top >= area.top - 1 && box.bottom <= area.bottom + 1};
    });
}"""


def test_every_topic_gets_a_whole_label_inside_the_map_that_covers_none_of_its_papers(
    page: Page, screens: Path, sample_build
):
    wait_for_new_map(page)  # drawn, and its labels placed by the page's script
    labels = page.evaluate(LABEL_CHECK)
    page.screenshot(path=screens / "truth-map-labels.png")
    names = set(read_build(sample_build).topics["label"])
    assert labels
    assert all(label["own"] for label in labels)
    assert [label["text"] for label in labels if not label["visible"]] == []  # none hidden, the edge's too
    assert [label for label in labels if not label["inside"]] == []
    assert [label for label in labels if label["covered"]] == []
    for label in labels:
        text = label["text"].replace("\n", " ")
        assert text in names or (text.endswith("…") and any(n.startswith(text[:-1] + " ") for n in names)), text


@pytest.fixture(scope="module")
def years_server(metadata_build, tmp_path_factory):
    """The dashboard on a build whose papers have a year (2023 to 2025) and a venue."""
    with (tmp_path_factory.mktemp("server") / "serve.log").open("w") as log, running_server(metadata_build, log) as url:
        yield url


TIMELINE = """() => {
    const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g => g.layout && g.layout.barmode === 'stack');
    return gd && gd._fullData.length ? {
        ticks: gd._fullLayout.xaxis.ticktext || [], years: gd._fullLayout.xaxis.tickvals || [],
        traces: gd._fullData.map(t => ({name: t.name, colour: t.marker.color, x: Array.from(t.x), y: Array.from(t.y),
                                        group: t.customdata ? t.customdata[0][0] : null}))} : null;
}"""


def rgb_distance(a: str, b: str) -> float:
    return sum((int(a[i : i + 2], 16) - int(b[i : i + 2], 16)) ** 2 for i in (1, 3, 5)) ** 0.5


def test_topics_over_time_keeps_its_meaning_after_a_click(browser, years_server, screens: Path):
    page = _open(browser, years_server)
    try:
        page.get_by_role("tab", name="Topics over time").click()
        expect(page.get_by_text(re.compile(r"^Each bar is a year"))).to_be_visible()
        assert not page.get_by_text("(year)").count()
        chart = page.wait_for_function(TIMELINE).json_value()
        assert len(chart["ticks"]) == len(chart["years"]) == 3
        assert all("papers" in t for t in chart["ticks"])
        colours = [t["colour"] for t in chart["traces"]]
        assert all(rgb_distance(a, b) >= 35 for a, b in itertools.pairwise(colours)), colours
        page.screenshot(path=screens / "truth-timeline.png")
        bar = page.locator(".barlayer .trace .point path").locator("visible=true").first.bounding_box()
        page.mouse.click(bar["x"] + bar["width"] / 2, bar["y"] + bar["height"] / 2)  # the first topic's first bar
        expect(status(page)).not_to_contain_text("Showing 38 of 38", timeout=30_000)
        page.wait_for_function(f"() => {{ const c = ({TIMELINE})(); return c && c.traces.length === 1; }}")
        (own,) = page.evaluate(TIMELINE)["traces"]
        assert own["group"] == chart["traces"][0]["group"]
        assert 0 < max(own["y"]) < 1  # its share of all papers
        page.screenshot(path=screens / "truth-timeline-one-topic.png")
        page.get_by_text("Papers", exact=True).click()  # the counts mode
        page.wait_for_function(f"() => ({TIMELINE})().traces[0].y.some(y => y >= 1)")
        counts = page.evaluate(TIMELINE)["traces"][0]["y"]
        shown = int(re.search(r"Showing (\d+) of", status(page).inner_text()).group(1))
        assert sum(counts) == shown
    finally:
        page.context.close()


MAPS_SHOWN = """() => [...document.querySelectorAll('.js-plotly-plot')]
    .filter(g => g.layout && g.layout.meta && g.layout.meta.topicExplorerMap && g.getClientRects().length)
    .map(g => g.closest('[data-stale=true]') ? 'old' : 'new')"""


class HeldRunEnd:
    """Holds back the server's end-of-run message, and every message after it, until `release`: a rerun over 38
    papers can end in the very frame its first change shows, so a test of what shows *during* a rerun keeps it open."""

    def __init__(self):
        self.holding, self.held, self.to_page = False, [], None

    def route(self, page: Page) -> None:
        """Pass the page's messages from the server through this (before the page loads)."""
        page.route_web_socket(re.compile(r"/_stcore/stream$"), self._route)

    def _route(self, ws) -> None:
        self.to_page = ws
        ws.connect_to_server().on_message(self._from_server)

    def _from_server(self, message: str | bytes) -> None:
        if self.held or (self.holding and _ends_run(message)):  # the end, and everything behind it in order
            self.held.append(message)
        else:
            self.to_page.send(message)

    def release(self) -> None:
        self.holding = False
        while self.held:
            self.to_page.send(self.held.pop(0))


def _ends_run(message: str | bytes) -> bool:
    return isinstance(message, bytes) and ForwardMsg.FromString(message).WhichOneof("type") == "script_finished"


FRAMES = f"""() => {{
    window.__teFrames = [];
    const look = () => {{
        const stale = !!document.querySelector('[data-stale=true]');
        if ({COUNTS_SELECTED}) window.__teFrames.push({{maps: ({MAPS_SHOWN})(), stale}});
        requestAnimationFrame(look);
    }};
    look();
}}"""


def test_a_box_selection_leaves_no_ghost_of_the_old_map(browser, server: str):
    """Streamlit keeps a changed figure's old element, faded, below the new one until the whole rerun ends (seconds
    at 20,000 papers); the page's script hides it as soon as the new map is there, while the rerun still runs."""
    run_end = HeldRunEnd()
    page = _open(browser, server, run_end.route)
    try:
        wait_for_rerun(page)
        page.evaluate(FRAMES)  # each frame from the new count on: the maps shown (old or new), and any stale element
        run_end.holding = True
        box_select(page, right=0.6, bottom=0.6)
        page.wait_for_function("() => window.__teFrames.length && window.__teFrames.at(-1).maps.includes('new')")
        page.wait_for_timeout(1_000)  # the rerun is held open: a ghost would show now
        during = page.evaluate("() => window.__teFrames")
        assert run_end.held, "the rerun ended before the test could hold it open"
        assert all(frame["stale"] for frame in during), during  # the run was still on in every frame
        assert any(frame["maps"] == ["new"] for frame in during), during
        assert not any("old" in frame["maps"] for frame in during if "new" in frame["maps"]), during
        run_end.release()
        wait_for_rerun(page)
        assert page.evaluate(MAPS_SHOWN) == ["new"]
    finally:
        page.context.close()


def test_no_internal_name_or_placeholder_reaches_the_page(page: Page, ids_page: Page):
    assert page.title() == "NeurIPS 2025 sample · Topic Explorer"
    expect(page.get_by_role("heading", name=re.compile(r"^NeurIPS 2025 sample · 38 papers"))).to_be_visible()
    page.get_by_role("tab", name="Topic quality").click()
    expect(page.get_by_text(re.compile(r"papers compared by meaning"))).to_be_visible()
    body = page.locator("body").inner_text()
    assert not any(raw in body for raw in ("MiniLM-L6-v2/windows", "tfidf-svd", "kept as -1", "sample-build"))
    page.get_by_role("tab", name="Explore").click()
    detail = page.get_by_test_id("stSidebar").get_by_role("slider").first
    detail.focus()
    detail.press("Home")  # the broadest themes
    page.wait_for_function(f"() => {MAP}._fullLayout.legend.title.text === 'Themes'")
    # the tiny build: an abstract with LaTeX, and a paper whose keywords are missing
    expect(ids_page.get_by_test_id("stText").filter(has_text="with 𝐒 markup").first).to_be_visible()
    assert not ids_page.get_by_test_id("stText").filter(has_text="$\\mathbf").count()
    cells = ids_page.locator("[data-testid=stDataFrame] table[aria-rowcount]").first.locator("td").all_inner_texts()
    assert cells
    assert "None" not in [cell.strip() for cell in cells]


def test_a_topic_opens_in_the_explore_tab_from_topic_quality(page: Page, sample_build):
    page.get_by_role("tab", name="Topic quality").click()
    expect(page.get_by_text("catch-all").first).to_be_visible()  # the legend of the ratings names it
    pick = page.get_by_role("combobox", name="Topic to look at")
    name = pick.input_value()
    page.get_by_role("button", name="Show in Explore").click()
    expect(page.get_by_role("tab", name="Explore")).to_have_attribute("aria-selected", "true")
    size = int(read_build(sample_build).topics.set_index("label").loc[name, "size"])
    expect(status(page)).to_contain_text(f"Showing {size} of 38 papers")
    expect(page.get_by_role("combobox", name="Topic details")).to_have_value(name)


def test_the_table_has_one_tick_column_ticked_with_the_maps_selection(page: Page):
    table = page.locator("[data-testid=stDataFrame] table[aria-rowcount]").first
    assert "✓" not in table.locator("th").all_inner_texts()
    box_select(page, right=0.6, bottom=0.6)
    expect(status(page)).to_contain_text(re.compile(r"· [1-9]\d* selected"))
    expect(table.locator("tbody tr[aria-selected=true]").first).to_be_attached()  # the map's choice, ticked
