"""Finding the build and precomputing what the page needs."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tests.dashboard.tinybuild import tiny_papers, tiny_topics
from topic_explorer.dashboard.logic.data import BUILD_ENV, build_path, build_version, load_explorer
from topic_explorer.pipeline.buildfolder.edits import add_edit, rename
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.errors import UserError


def test_the_build_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(BUILD_ENV, str(tmp_path))
    assert build_path() == tmp_path


def test_without_the_environment_the_sample_build_in_the_cache_is_used(monkeypatch, tmp_path):
    monkeypatch.delenv(BUILD_ENV, raising=False)
    monkeypatch.setenv("TOPIC_EXPLORER_CACHE", str(tmp_path))
    assert build_path() == tmp_path / "sample-build"


def test_the_version_changes_when_the_manifest_is_rewritten_or_the_build_edited(tmp_path):
    papers = tiny_papers()
    folder = write_build(tmp_path / "b", papers, tiny_topics(), np.zeros((len(papers), 2), np.float32), {})
    before = build_version(folder)
    later = os.stat(folder / "manifest.json").st_mtime_ns + 10**10
    os.utime(folder / "manifest.json", ns=(later, later))
    rebuilt = build_version(folder)
    assert rebuilt != before
    assert rebuilt[0] == later
    add_edit(folder, rename(0, "Renamed"), by="a test")
    assert build_version(folder) != rebuilt
    assert build_version(tmp_path / "nowhere") == (0, 0, 0, 0)


def test_a_missing_build_raises_a_user_error_naming_the_fix(tmp_path):
    with pytest.raises(UserError, match="topic-explorer build"):
        load_explorer(tmp_path / "nowhere")


def test_precomputed_word_text_hover_and_topic_colours(tiny):
    assert (
        tiny.word_text[1]
        == "federated learning at scale\nwe study federated learning and privacy.\n10.5555/0001\n2510.16470"
    )
    assert len(tiny.hover) == len(tiny.papers)
    assert tiny.topics["colour"].is_unique
    assert sorted(tiny.topic_rows[0]) == sorted(np.flatnonzero(tiny.papers["topic_id"] == 0))
    assert tiny.topics.loc[0, "top_keywords"].count(";") == 9


def test_a_topic_missing_from_the_topic_table_still_gets_a_row(tiny_build, tmp_path):
    import pandas as pd

    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.buildfolder.write import write_build

    build = read_build(tiny_build)
    out = write_build(tmp_path / "gap", build.papers, build.topics.iloc[:2], build.embeddings(), build.manifest)
    explorer = load_explorer(out)
    assert explorer.topics["topic_id"].tolist() == [0, 1, 2]
    assert explorer.topics.loc[2, "label"] == "Topic 2"
    assert explorer.topics.loc[2, "size"] == 2
    assert pd.isna(explorer.topics.loc[2, "coherence"])


def test_the_rows_of_a_selection_are_found_by_paper_id_and_unknown_ids_ignored(tiny):
    chosen = {"p000000000001", "p000000000007", "not-a-paper"}
    assert np.array_equal(tiny.mask_of(chosen), tiny.papers["paper_id"].isin(chosen).to_numpy())
    assert tiny.mask_of(chosen).sum() == 2
    assert not tiny.mask_of([]).any()


def test_a_big_builds_hover_leaves_out_the_abstract(tiny_build, monkeypatch):
    from topic_explorer.dashboard.logic import data

    small = load_explorer(tiny_build)
    monkeypatch.setattr(data, "HOVER_ABSTRACTS_UP_TO", 3)
    big = load_explorer(tiny_build)
    assert len(big.hover) == len(small.hover) == 8
    assert all(len(b.split("<br>")) == 2 for b in big.hover)  # the title and the topic
    assert all(len(s.split("<br>")) > 2 for s in small.hover)
