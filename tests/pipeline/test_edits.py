"""Edits: rename, merge and move as an overlay read with the build; undo; atomic, concurrent-safe writes."""

from __future__ import annotations

import json
import multiprocessing
import re
import threading

import numpy as np
import pytest

from tests.dashboard.tinybuild import XSS, tiny_papers, tiny_topics
from topic_explorer.pipeline.buildfolder import edits
from topic_explorer.pipeline.buildfolder.read import read_build, read_edit_history
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.errors import UserError


@pytest.fixture
def folder(tmp_path):
    papers = tiny_papers()
    return write_build(tmp_path / "tiny", papers, tiny_topics(), np.zeros((len(papers), 2), np.float32), {})


def files(folder):
    return {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file() and p.name != edits.EDITS_FILE}


def test_a_rename_shows_everywhere_and_leaves_the_build_files_untouched(folder):
    before = files(folder)
    edits.add_edit(folder, edits.rename(1, f"  Graph   theory {XSS} "), by="a test")
    build = read_build(folder)
    label = f"Graph theory {XSS}"
    assert build.topics.set_index("topic_id").loc[1, "label"] == label
    assert (build.papers.loc[build.papers["topic_id"] == 1, "topic_label"] == label).all()
    assert files(folder) == before
    assert read_build(folder, with_edits=False).topics.set_index("topic_id").loc[1, "label"] == "Graphs"


def test_a_merge_joins_papers_sizes_and_keywords(folder):
    edits.add_edit(folder, edits.merge([0, 2], into=0, label="Federated rewards"), by="a test")
    build = read_build(folder)
    assert sorted(build.topics["topic_id"]) == [0, 1]
    merged = build.topics.set_index("topic_id").loc[0]
    assert merged["size"] == 5
    assert merged["label"] == "Federated rewards"
    assert np.isnan(merged["coherence"])
    assert {"kw0-0", "kw2-0"} <= set(merged["keywords"])
    assert len(merged["keywords"]) == len(merged["keyword_weights"])
    assert (build.papers["topic_id"] != 2).all()


def test_moving_papers_changes_their_topic_and_forgets_their_confidence(folder):
    ids = tiny_papers()["paper_id"].iloc[[2, 3]].tolist()
    edits.add_edit(folder, edits.move([*ids, "p-not-in-build"], 2), by="a test")
    build = read_build(folder)
    moved = build.papers.set_index("paper_id").loc[ids]
    assert (moved["topic_id"] == 2).all()
    assert moved["confidence"].isna().all()
    assert build.topics.set_index("topic_id")["size"].to_dict() == {0: 3, 1: 1, 2: 4}


def test_undo_drops_the_last_edit_only(folder):
    edits.add_edit(folder, edits.rename(0, "First"), by="a test")
    edits.add_edit(folder, edits.rename(0, "Second"), by="a test")
    assert read_build(folder).topics.set_index("topic_id").loc[0, "label"] == "Second"
    edits.undo_last(folder, by="a test")
    assert read_build(folder).topics.set_index("topic_id").loc[0, "label"] == "First"
    edits.undo_last(folder, by="a test")
    edits.undo_last(folder, by="a test")  # nothing left: still fine
    assert read_build(folder).topics.set_index("topic_id").loc[0, "label"] == "Federated, privacy"


def test_evaluate_scores_the_edited_topics(folder, capsys):
    edits.add_edit(folder, edits.merge([0, 1], into=1, label="Merged"), by="a test")
    assert main(["evaluate", str(folder), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["topics"] == 2
    assert "Merged" in {t["label"] for t in figures["per_topic"]}


def _rename_many(folder, worker):
    for i in range(20):
        edits.add_edit(folder, edits.rename(worker, f"worker {worker} edit {i}"), by="a test")


@pytest.mark.parametrize("writers", [multiprocessing.get_context("fork").Process, threading.Thread])
def test_two_writers_at_once_lose_no_edit(folder, writers):
    """Two processes (two servers on one build), or two threads (two sessions of one server)."""
    processes = [writers(target=_rename_many, args=(folder, w)) for w in (0, 1)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    saved = edits.read_edits(folder)
    assert len(saved) == 40
    for worker in (0, 1):  # each writer's edits in its own order
        assert [e["label"] for e in saved if e["topic_id"] == worker] == [
            f"worker {worker} edit {i}" for i in range(20)
        ]
    assert not [p for p in folder.iterdir() if p.name.startswith(f".{edits.EDITS_FILE}")]  # no temporary files left


KINDS = "(rename, merge, move, rename_theme)"
RENAME = {"kind": "rename", "topic_id": 0, "label": "x"}
ENTRY = {"action": "edit", "at": "2026-01-01T00:00:00+00:00", "by": "amber falcon", "edit": RENAME}


def _edits(*edits: object) -> str:
    return json.dumps({"edits": list(edits)})


def _history(*entries: object) -> str:
    return json.dumps({"edits": [], "history": list(entries)})


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("not json", "is damaged"),
        ('{"edits": 5}', "holds no list of edits"),
        (_edits({"kind": "delete everything"}), f"has edit 1 of no known kind {KINDS}"),
        (_edits({"topic_id": 0, "label": "x"}), f"has edit 1 of no known kind {KINDS}"),
        (_edits("rename"), f"has edit 1 of no known kind {KINDS}"),
        (_edits({"kind": ["rename"]}), f"has edit 1 of no known kind {KINDS}"),
        (_edits(RENAME, RENAME | {"topic_id": "0"}), "has edit 2 (rename) with a wrong 'topic_id'"),
        (_edits(RENAME | {"topic_id": True}), "has edit 1 (rename) with a wrong 'topic_id'"),
        (_edits(RENAME | {"topic_id": 1.0}), "has edit 1 (rename) with a wrong 'topic_id'"),
        (_edits({"kind": "rename", "topic_id": 0}), "has edit 1 (rename) with a wrong 'label'"),
        (_edits(RENAME | {"label": 7}), "has edit 1 (rename) with a wrong 'label'"),
        (_edits(RENAME | {"topic_id": "0", "label": 7}), "has edit 1 (rename) with a wrong 'topic_id'"),  # the first
        (_edits({"kind": "merge", "topic_ids": [0, 1], "into": 2, "label": "x"}),
         "has edit 1 merging into a topic it does not merge"),
        (_edits({"kind": "merge", "topic_ids": 0, "into": 0, "label": "x"}),
         "has edit 1 (merge) with a wrong 'topic_ids'"),
        (_edits({"kind": "move", "paper_ids": [1, 2], "topic_id": 0}), "has edit 1 (move) with a wrong 'paper_ids'"),
        (_edits({"kind": "rename_theme", "group_id": "a", "label": "x"}),
         "has edit 1 (rename_theme) with a wrong 'group_id'"),
        (_edits(RENAME | {"label": "x" * 201}), "has edit 1 with a name longer than 200 characters"),
    ],
)  # fmt: skip
def test_a_damaged_edits_file_is_refused_with_what_is_wrong_and_a_way_out(folder, content, problem):
    (folder / edits.EDITS_FILE).write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=_refusal(folder, problem)):
        read_build(folder)
    read_build(folder, with_edits=False)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (_history(ENTRY | {"action": "redo"}), "has history entry 1 that is neither an edit nor an undo"),
        (_history(5), "has history entry 1 that is neither an edit nor an undo"),
        (_history(ENTRY | {"by": "b" * 101}), "has history entry 1 with a wrong 'by'"),
        (_history(ENTRY | {"at": 5}), "has history entry 1 with a wrong 'at'"),
        (_history(ENTRY, ENTRY | {"edit": RENAME | {"topic_id": "0"}}),
         "has history entry 2 (rename) with a wrong 'topic_id'"),
    ],
)  # fmt: skip
def test_a_damaged_edit_history_is_refused_with_what_is_wrong_and_a_way_out(folder, content, problem):
    (folder / edits.EDITS_FILE).write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=_refusal(folder, problem)):
        read_edit_history(folder)


def _refusal(folder, problem: str) -> str:
    """The whole one-line message: the file, what is wrong, and the way out."""
    sep = "; " if problem in ("is damaged", "holds no list of edits") else ": "
    return re.escape(f"{folder / edits.EDITS_FILE} {problem}{sep}delete it to see the build without its edits") + "$"


@pytest.mark.parametrize("label", ["", "   ", "x" * 201])
def test_names_typed_by_users_are_checked(label):
    with pytest.raises(UserError):
        edits.rename(0, label)


def test_a_merge_needs_two_topics():
    with pytest.raises(UserError):
        edits.merge([3], into=3, label="x")


def test_add_keeps_the_edits_as_an_overlay(tmp_path, metadata_corpus):
    import pandas as pd

    from tests.conftest import FakeEmbedder
    from topic_explorer.pipeline.run.add import add_papers
    from topic_explorer.pipeline.run.build import run_build
    from topic_explorer.pipeline.settings import BuildSettings

    table = pd.read_csv(metadata_corpus)
    table.head(30).to_csv(tmp_path / "first.csv", index=False)
    table.tail(8).to_csv(tmp_path / "more.csv", index=False)
    settings = BuildSettings(cache_dir=tmp_path / "cache")
    path = run_build([tmp_path / "first.csv"], tmp_path / "b", settings, embedder=FakeEmbedder()).path
    original = read_build(path).topics.set_index("topic_id").loc[0, "label"]
    edits.add_edit(path, edits.rename(0, "My name"), by="a test")
    add_papers(path, [tmp_path / "more.csv"], embedder=FakeEmbedder(), cache_dir=tmp_path / "cache")
    assert len(read_build(path).papers) == 38
    assert edits.read_edits(path) == [edits.rename(0, "My name")]
    assert read_build(path).topics.set_index("topic_id").loc[0, "label"] == "My name"
    assert read_build(path, with_edits=False).topics.set_index("topic_id").loc[0, "label"] == original
