"""A build replaced while sessions are open (a rebuild into the same folder) is picked up on their next rerun."""

from __future__ import annotations

import shutil

import pytest

from topic_explorer.dashboard.logic.selection import map_key
from topic_explorer.dashboard.ui.selection import STATE_KEY
from topic_explorer.dashboard.ui.sidebar import TOPICS_KEY, WORDS_KEY, metadata_key
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.write import write_build


def status(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Showing"))


def replace(path, source) -> None:
    """Rewrite the build at `path` with `source`'s content, as `topic-explorer build --out path` would."""
    new = read_build(source)
    write_build(path, new.papers, new.topics, new.embeddings(), {**new.manifest, "replaced": True})


@pytest.fixture
def served(tmp_path, metadata_build):
    """A copy of a 38-paper build (years 2023-2025), served; the tests replace it with the 8-paper tiny build."""
    return shutil.copytree(metadata_build, tmp_path / "served")


def test_open_sessions_show_the_new_build_on_their_next_rerun(run_app, served, tiny_build):
    sessions = [run_app(served) for _ in range(3)]
    first, second, third = sessions
    last_topic = int(read_build(served).topics["topic_id"].max())
    first.multiselect(key=TOPICS_KEY).set_value([last_topic]).run()  # a topic the new build does not have
    second.slider(key=metadata_key("year")).set_value((2024, 2025)).run()  # a range outside the new build's years
    second.multiselect(key=metadata_key("venue")).set_value(["NeurIPS"]).run()
    state = third.session_state[STATE_KEY]
    points = [{"customdata": i} for i in state.shown_ids[:3]]
    third.session_state[map_key(state.generation)] = {"selection": {"points": points, "box": [], "lasso": []}}
    assert "· 3 selected" in status(third.run())
    third.text_input(key=WORDS_KEY).set_value("privacy").run()
    assert all(not at.exception and " of 38 papers" in status(at) for at in sessions)

    replace(served, tiny_build)
    for at in sessions:
        at.run()
        assert not at.exception, at.exception
        assert not at.error, at.exception
        assert " of 8 papers" in status(at)
        assert "· 0 selected" in status(at)  # old papers are not in the new build
    assert status(first).startswith("**Showing 8 of 8")  # the vanished topic no longer filters
    assert status(second).startswith("**Showing 3 of 8")  # NeurIPS papers of 2020-2023: the year range reset
    assert status(third).startswith("**Showing 3 of 8")  # 'privacy' in three tiny papers


def test_a_damaged_replacement_gets_the_friendly_page_and_the_next_good_one_the_map(run_app, served, tiny_build):
    at = run_app(served)
    (served / "papers.parquet").write_bytes(b"not parquet")
    (served / "manifest.json").touch()  # a new version, as a rebuild makes
    at.run()
    assert not at.exception
    assert "damaged table" in at.error[0].value.replace("\\", "")
    replace(served, tiny_build)
    at.run()
    assert not at.exception
    assert status(at).startswith("**Showing 8 of 8")
