"""The build folder contract: schema, atomic replacement, and clear errors on bad builds."""

import json
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from topic_explorer.pipeline.buildfolder.edits import EDITS_FILE
from topic_explorer.pipeline.buildfolder.read import read_build, read_model
from topic_explorer.pipeline.buildfolder.schema import (
    EMBEDDINGS_FILE,
    HIERARCHY_COLUMNS,
    HIERARCHY_FILE,
    MANIFEST_FILE,
    MODEL_DIR,
    MODEL_FILES,
    PAPER_COLUMNS,
    PAPERS_FILE,
    SCHEMA_VERSION,
    TOPIC_COLUMNS,
    TOPICS_FILE,
)
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.run.build import STAGES


def test_build_has_the_documented_schema(metadata_build):
    build = read_build(metadata_build)
    assert list(build.papers.columns[: len(PAPER_COLUMNS)]) == list(PAPER_COLUMNS)
    assert build.metadata_columns == ["year", "venue"]
    assert set(TOPIC_COLUMNS) <= set(build.topics.columns)
    papers, topics = build.papers, build.topics
    assert papers["paper_id"].is_unique
    assert papers["topic_id"].dtype == np.int64
    assert papers["fits_poorly"].dtype == bool
    assert papers["confidence"].between(0, 1).all()
    assert papers[["x", "y"]].stack().between(0, 1).all()
    assert set(papers["topic_id"]) == set(topics["topic_id"])
    sizes = papers["topic_id"].value_counts()
    assert all(sizes[row.topic_id] == row.size for row in topics.itertuples())
    assert all(isinstance(k, str) for ks in topics["keywords"] for k in ks)
    assert all(len(k) == len(w) for k, w in zip(topics["keywords"], topics["keyword_weights"], strict=True))
    embeddings = build.embeddings()
    assert embeddings.dtype == np.float32
    assert len(embeddings) == len(papers)
    manifest = build.manifest
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert manifest["inputs"][0]["sha256"]
    assert manifest["counts"]["papers"] == len(papers)
    assert set(STAGES) - {"write"} == set(manifest["seconds"])
    assert manifest["settings"]["embedder"] == "tfidf"
    assert manifest["settings"]["seed"] == 1
    assert "seed" not in manifest
    assert "fit_sample" not in manifest  # each value once (schema 3)
    assert "cache_dir" not in manifest["settings"]
    assert "versions" in manifest
    assert manifest["created_at"].endswith("+00:00")


def test_the_manifest_names_the_version_that_pyproject_gives(metadata_build):
    """The version has one home, pyproject.toml; the package reads it from the installed metadata."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    version = tomllib.loads(pyproject.read_text())["project"]["version"]
    assert read_build(metadata_build).manifest["tool"] == f"topic-explorer {version}"


def files_of(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def tiny_tables():
    papers = pd.DataFrame({c: [] for c in PAPER_COLUMNS})
    topics = pd.DataFrame({c: [] for c in TOPIC_COLUMNS})
    return papers, topics, np.zeros((0, 4), dtype=np.float32)


def test_a_failed_write_leaves_the_previous_build_untouched(metadata_build, tmp_path, monkeypatch):
    out = tmp_path / "build"
    shutil.copytree(metadata_build, out)
    before = files_of(out)

    def broken_write(*args, **kwargs):
        raise KeyboardInterrupt  # as if the user pressed Ctrl+C mid-write

    monkeypatch.setattr(pd.DataFrame, "to_parquet", broken_write)
    with pytest.raises(KeyboardInterrupt):
        write_build(out, *tiny_tables(), {})
    assert files_of(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["build"]  # no half-written folders left behind


def test_writing_replaces_an_existing_build(metadata_build, tmp_path):
    out = tmp_path / "build"
    shutil.copytree(metadata_build, out)
    write_build(out, *tiny_tables(), {"note": "new"})
    assert json.loads((out / "manifest.json").read_text())["note"] == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["build"]


def test_refuses_to_replace_a_folder_that_is_not_a_build(tmp_path):
    (tmp_path / "thesis.tex").write_text("precious")
    with pytest.raises(UserError, match="is not a Topic Explorer build"):
        write_build(tmp_path, *tiny_tables(), {})
    assert (tmp_path / "thesis.tex").read_text() == "precious"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda b: shutil.rmtree(b), "no build at"),
        (lambda b: (b / "topics.parquet").unlink(), "missing topics.parquet"),
        (lambda b: (b / "manifest.json").write_text("{not json"), "damaged"),
        (lambda b: (b / "manifest.json").write_text('{"schema_version": 99}'), "schema version 99"),
        (lambda b: (b / "papers.parquet").write_bytes(b"garbage"), "damaged table"),
        (lambda b: pd.DataFrame({"paper_id": ["p1"]}).to_parquet(b / "papers.parquet"), "lacks columns"),
    ],
)
def test_bad_builds_are_refused_with_the_command_that_makes_one(metadata_build, tmp_path, damage, message):
    build = tmp_path / "build"
    shutil.copytree(metadata_build, build)
    damage(build)
    with pytest.raises(UserError, match=message) as caught:
        read_build(build)
    assert "topic-explorer build" in str(caught.value)


def test_a_build_keeps_its_fitted_model_without_pickle(metadata_build):
    build = read_build(metadata_build)
    assert build.has_model
    assert {p.name for p in (metadata_build / "model").iterdir()} == set(MODEL_FILES)
    parts = read_model(build)  # np.load(..., allow_pickle=False) inside
    assert parts.topics.topic_ids.tolist() == sorted(build.topics["topic_id"])
    assert parts.topics.centres.shape == (len(build.topics), build.embeddings().shape[1])
    assert set(parts.terms.columns) == {"topic_id", "term", "count", "papers"}
    assert parts.embedder_state is not None
    assert len(parts.embedder_state["terms"]) > 100  # a TF-IDF build
    assert build.papers["fit_sample"].all()


def test_version_1_builds_still_read(metadata_build, tmp_path):
    """A version-1 build: labels stored per paper, no fit_sample column, no model."""
    build = read_build(metadata_build)
    old = tmp_path / "old"
    old.mkdir()
    stored = build.papers.drop(columns=["fit_sample"])
    stored.to_parquet(old / "papers.parquet", index=False)
    build.topics.to_parquet(old / "topics.parquet", index=False)
    np.save(old / "embeddings.npy", build.embeddings())
    (old / "manifest.json").write_text(json.dumps({**build.manifest, "schema_version": 1}))
    again = read_build(old)
    pd.testing.assert_frame_equal(again.papers, build.papers)
    assert not again.has_model
    with pytest.raises(UserError, match="no fitted model"):
        read_model(again)


def test_the_build_folder_page_names_every_file_and_column_the_schema_defines():
    """docs/build-folder.md is read by people; schema.py by code: a file or column added to one and not the other
    fails here, so the page cannot drift from the contract."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "build-folder.md").read_text(encoding="utf-8")
    files = [PAPERS_FILE, TOPICS_FILE, EMBEDDINGS_FILE, MANIFEST_FILE, HIERARCHY_FILE, EDITS_FILE]
    files += [f"{MODEL_DIR}/{name}" for name in MODEL_FILES]
    for name in files:
        assert f"| `{name}" in page, f"docs/build-folder.md lists no {name}"
    for column in [*PAPER_COLUMNS, *TOPIC_COLUMNS, *HIERARCHY_COLUMNS]:
        assert f"`{column}`" in page, f"docs/build-folder.md has no column {column}"
    assert f"schema version {SCHEMA_VERSION}" in page
