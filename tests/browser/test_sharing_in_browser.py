"""A lab's shared server in real Chromium: read-only beyond this machine unless --allow-edits, and reading
lists downloaded from the page as BibTeX and RIS that `build` reads back.

Both servers listen on 0.0.0.0 (every address of the machine) and are reached through 127.0.0.1.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import _open
from tests.browser.harness import running_server
from topic_explorer.pipeline.buildfolder.edits import EDITS_FILE, read_edits, read_history
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.cli.main import main

pytestmark = pytest.mark.browser

EVERY_ADDRESS = "0.0.0.0"
RENAMED = "Renamed in the browser"


def start(build: Path, folder: Path, *options: str):
    """The server on every address of this machine, as a lab would start it."""
    log = (folder / "serve.log").open("w")
    return log, running_server(build, log, host=EVERY_ADDRESS, options=options)


@pytest.fixture(scope="module")
def editable(metadata_build, tmp_path_factory):
    """`serve BUILD --host 0.0.0.0 --allow-edits` on a copy of the build; yields (url, build folder)."""
    folder = tmp_path_factory.mktemp("editable")
    build = folder / "build"
    shutil.copytree(metadata_build, build)
    log, server = start(build, folder, "--allow-edits")
    with log, server as url:
        yield url, build


@pytest.fixture(scope="module")
def read_only(metadata_build, tmp_path_factory):
    """`serve BUILD --host 0.0.0.0` on another copy of the build; yields (url, build folder)."""
    folder = tmp_path_factory.mktemp("read-only")
    build = folder / "build"
    shutil.copytree(metadata_build, build)
    log, server = start(build, folder)
    with log, server as url:
        yield url, build


def open_page(browser, url: str, on_page=None) -> Page:
    return _open(browser, url, on_page, height=1000)


def rename_first_topic(page: Page) -> None:
    name = page.get_by_label("New name")
    if not name.is_visible():
        page.get_by_text("Edit topics (saved with the build)").click()
    name.fill(RENAMED)
    name.press("Enter")
    page.get_by_role("button", name="Rename", exact=True).click()


def presses(frame: object, key: str) -> bool:
    """A message from the page asking the server to run the script with the button `key` pressed."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    if not isinstance(frame, bytes):
        return False
    widgets = BackMsg.FromString(frame).rerun_script.widget_states.widgets
    return any(w.id.endswith(f"-{key}") and w.trigger_value for w in widgets)


def runs_finished(frames: list) -> int:
    """How many of the server's messages to the page say that a run of the script has ended."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    return sum(
        isinstance(f, bytes) and ForwardMsg.FromString(f).WhichOneof("type") == "script_finished" for f in frames
    )


def wait_for_history(build: Path, entries: int) -> list[dict]:
    deadline = time.monotonic() + 30
    while len(read_history(build)) < entries and time.monotonic() < deadline:
        time.sleep(0.2)
    return read_history(build)


def test_a_read_only_server_shows_no_edit_controls_and_says_why(browser, read_only, screens):
    url, _ = read_only
    page = open_page(browser, url)
    expect(page.get_by_text("Editing is off: this server listens on 0.0.0.0").first).to_be_visible()
    assert page.get_by_text("Edit topics (saved with the build)").count() == 0
    assert page.get_by_role("button", name="Undo last edit").count() == 0
    page.get_by_text("Editing is off").first.scroll_into_view_if_needed()
    page.screenshot(path=str(screens / "read-only-server.png"))
    page.context.close()


# Each similar paper's button label, and whether it is cut short: some box in the button narrower than its text
CLIPPED_LABELS = """() => [...document.querySelectorAll('[class*="st-key-similar-"] button')].map(b => [
    b.textContent.trim(), [b, ...b.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth)
])"""


def test_the_similar_papers_buttons_keep_their_labels_beside_the_edit_panel(browser, editable, screens):
    # With --allow-edits the edit panel takes a column of the page, and the reader's list of similar papers is
    # narrower: its "Read" and "Select" still read as words, not "R…" and "Sel…".
    url, _ = editable
    page = open_page(browser, url)
    page.get_by_text("Edit topics (saved with the build)").click()
    expect(page.get_by_label("New name")).to_be_visible()  # the edit panel is open
    page.get_by_text(re.compile(r"most similar papers")).scroll_into_view_if_needed()
    labels = page.evaluate(CLIPPED_LABELS)
    assert sorted({text for text, _ in labels}) == ["Read", "Select"]
    assert len(labels) == 20  # ten similar papers, two buttons each
    assert [text for text, clipped in labels if clipped] == []
    page.screenshot(path=str(screens / "similar-papers-beside-edit-panel.png"))
    page.context.close()


def test_an_undo_allowed_with_allow_edits_is_refused_when_replayed_to_a_read_only_server(
    browser, editable, read_only, screens
):
    # With --allow-edits the page edits and undoes, and the history names the browser session that did it.
    url, build = editable
    sent: list[bytes] = []
    record = lambda frame: sent.append(frame)  # noqa: E731  (Playwright takes no built-in method as a handler)
    page = open_page(browser, url, lambda p: p.on("websocket", lambda ws: ws.on("framesent", record)))
    rename_first_topic(page)
    assert wait_for_history(build, 1)[0]["edit"]["label"] == RENAMED
    assert read_edits(build)[-1]["label"] == RENAMED
    who = read_history(build)[0]["by"]
    assert len(who.split()) == 2
    page.get_by_role("button", name="Undo last edit").click()
    assert [entry["action"] for entry in wait_for_history(build, 2)] == ["edit", "undo"]
    assert read_edits(build) == []
    rename_first_topic(page)  # an edit for the replayed undo to undo
    wait_for_history(build, 3)
    page.get_by_text("Edit history (3)").click()
    expect(page.get_by_text(who).first).to_be_attached()  # a cell of the history table (drawn on a canvas)
    page.screenshot(path=str(screens / "allow-edits-server-history.png"), full_page=True)
    page.context.close()
    crafted = next(frame for frame in sent if presses(frame, "edit-undo"))  # the undo as the browser sent it

    servers, received = [], []

    def intercept(page: Page) -> None:
        def route(ws) -> None:  # pass every message on, and keep the server's to see when a run has ended
            server = ws.connect_to_server()
            server.on_message(lambda message: (received.append(message), ws.send(message)))
            servers.append(server)

        page.route_web_socket("**/_stcore/stream", route)

    # Sent to the read-only server, the same request changes nothing.
    url, build = read_only
    page = open_page(browser, url, intercept)
    runs = runs_finished(received)
    servers[-1].send(crafted)
    deadline = time.monotonic() + 30
    while runs_finished(received) == runs and time.monotonic() < deadline:
        page.wait_for_timeout(100)  # lets Playwright deliver the server's messages
    assert runs_finished(received) > runs, "the server never ran the page again with the crafted widget states"
    expect(page.get_by_text("Editing is off").first).to_be_visible()
    assert not (build / EDITS_FILE).exists()
    page.context.close()
    # The control: sent from a fresh session to the server started with --allow-edits, it undoes.
    url, build = editable
    page = open_page(browser, url, intercept)
    servers[-1].send(crafted)
    assert [entry["action"] for entry in wait_for_history(build, 4)] == ["edit", "undo", "edit", "undo"]
    page.context.close()


@pytest.mark.parametrize(("label", "extension"), [("BibTeX", "bib"), ("RIS", "ris")])
def test_a_reading_list_downloaded_in_the_browser_builds_again_into_the_same_papers(
    browser, read_only, tmp_path, label, extension
):
    url, build = read_only
    page = open_page(browser, url)
    page.get_by_role("combobox", name="File format").click()
    page.get_by_role("option", name=label, exact=True).click()
    button = page.get_by_test_id("stDownloadButton").get_by_role("button")
    expect(button).to_have_text(f"Download all 38 shown papers ({label})")
    with page.expect_download() as info:
        button.click()
    download = info.value
    assert download.suggested_filename.endswith(f"-papers.{extension}")
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    page.context.close()
    assert main(["build", str(path), "--out", str(tmp_path / "again"), "--embedder", "tfidf", "--quiet"]) == 0
    before, after = read_build(build).papers, read_build(tmp_path / "again").papers
    assert sorted(after["paper_id"]) == sorted(before["paper_id"])
    titles = dict(zip(before["paper_id"], before["title"], strict=True))
    assert all(titles[p] == t for p, t in zip(after["paper_id"], after["title"], strict=True))
    years = dict(zip(before["paper_id"], before["year"], strict=True))
    assert all(years[p] == y for p, y in zip(after["paper_id"], after["year"], strict=True))
