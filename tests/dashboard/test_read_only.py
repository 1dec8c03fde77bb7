"""Who may edit: on for a server on this machine, off on any other address unless --allow-edits; every edit
recorded with the session's name."""

from __future__ import annotations

import shutil

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from topic_explorer.dashboard.launch import ALLOW_EDITS_ENV
from topic_explorer.dashboard.logic.editing import edits_allowed, session_name
from topic_explorer.dashboard.ui.curation import RENAME_LABEL, RENAME_TOPIC
from topic_explorer.pipeline.buildfolder.edits import EDITS_FILE, read_history


@pytest.mark.parametrize(
    ("address", "allow", "allowed"),
    [
        ("localhost", False, True),
        ("127.0.0.1", False, True),
        ("::1", False, True),
        ("0.0.0.0", False, False),
        ("::", False, False),
        ("192.168.1.20", False, False),
        (None, False, False),  # Streamlit's default: every address of the machine
        ("", False, False),
        ("0.0.0.0", True, True),
    ],
)
def test_editing_is_on_for_this_machine_only_unless_allowed(address, allow, allowed):
    assert edits_allowed(address, allow) is allowed


def test_a_session_is_named_by_two_words_that_stay_the_same():
    name = session_name("3f9c2a7e-0000-4000-8000-000000000001")
    assert len(name.split()) == 2
    assert name == session_name("3f9c2a7e-0000-4000-8000-000000000001")
    assert len({session_name(f"session-{i}") for i in range(50)}) > 40


@pytest.fixture
def build(tiny_build, tmp_path):
    copy = tmp_path / "shared"
    shutil.copytree(tiny_build, copy)
    return copy


@pytest.fixture
def served_on(monkeypatch):
    """Run the app as a server on an address would, with or without --allow-edits."""
    before = config.get_option("server.address")

    def serve(address: str, allow_edits: bool = False) -> None:
        config.set_option("server.address", address)
        monkeypatch.setenv(ALLOW_EDITS_ENV, "1" if allow_edits else "0")

    yield serve
    config.set_option("server.address", before)


def test_a_server_other_machines_reach_shows_no_edit_controls(run_app, build, served_on):
    served_on("0.0.0.0")
    at = run_app(build)
    assert not at.exception
    keys = {widget.key for widget in [*at.button, *at.text_input, *at.selectbox, *at.multiselect]}
    assert not {key for key in keys if key and key.startswith("edit-")}
    assert any("Editing is off" in caption.value for caption in at.caption)


def edit_script():
    """A request that reaches the edit-writing code although the page drew no control for it."""
    from pathlib import Path

    import streamlit as st

    from topic_explorer.dashboard.ui import curation
    from topic_explorer.pipeline.buildfolder import edits

    folder = Path(st.session_state["folder"])
    curation.save_edit(folder, lambda: edits.rename(0, "Crafted"))
    curation.undo_edit(folder)
    st.write(st.session_state.get(curation.ERROR_KEY, "no error"))


def test_the_edit_writing_code_refuses_an_edit_when_editing_is_off(build, served_on):
    served_on("0.0.0.0")
    at = AppTest.from_function(edit_script)
    at.session_state["folder"] = str(build)
    at.run()
    assert not at.exception
    assert "Editing is off" in at.markdown[0].value
    assert not (build / EDITS_FILE).exists()


def test_the_same_code_writes_the_edit_on_this_machine(build, served_on):
    served_on("localhost")
    at = AppTest.from_function(edit_script)
    at.session_state["folder"] = str(build)
    at.run()
    assert not at.exception
    assert at.markdown[0].value == "no error"
    assert [entry["action"] for entry in read_history(build)] == ["edit", "undo"]


def test_with_allow_edits_any_address_edits_and_the_history_names_the_session(run_app, build, served_on):
    served_on("0.0.0.0", allow_edits=True)
    at = run_app(build)
    at.selectbox(key=RENAME_TOPIC).set_value(1)
    at.text_input(key=RENAME_LABEL).set_value("Graphs, renamed")
    at.button(key="edit-rename").click().run()
    history = read_history(build)
    assert [(entry["action"], entry["edit"]["label"]) for entry in history] == [("edit", "Graphs, renamed")]
    who = history[0]["by"]
    assert len(who.split()) == 2
    assert history[0]["at"].endswith("+00:00")
    shown = at.expander  # the history's expander, with one line per entry
    assert any(e.label == "Edit history (1)" for e in shown)
    tables = [frame.value for frame in at.dataframe if "Who" in frame.value.columns]
    assert tables[0].loc[0, "Who"] == who
    assert tables[0].loc[0, "What"] == "renamed a topic to “Graphs, renamed”"
