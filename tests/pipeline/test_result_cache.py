"""The result cache: a rebuild of unchanged papers and settings reuses every result and writes the same build; any
change misses the results it reaches and gives what a cold build gives; a broken entry never breaks a build."""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.conftest import FakeEmbedder
from topic_explorer.pipeline.cache import store as result_cache
from topic_explorer.pipeline.cache.store import RESULTS_DIR, ResultCache, digest, read_arrays, write_arrays
from topic_explorer.pipeline.fit import topics
from topic_explorer.pipeline.ingest.corpus import load_corpus, sample_files
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings

EVERY_RESULT = {"neighbours", "clusters", "fit", "layout", "hierarchy", "evaluate"}
SAME_FILES = ("topics.parquet", "hierarchy.parquet", "model/topics.npz", "model/terms.parquet")


def build(inputs: list[Path], out: Path, cache: Path, **settings) -> dict:
    """A build with the fake embedder; its manifest."""
    run_build(inputs, out, BuildSettings(cache_dir=cache, **settings), embedder=FakeEmbedder())
    return json.loads((out / "manifest.json").read_text())


def assert_same_build(first: Path, second: Path) -> None:
    """Topics, tree, fitted model and BERTopic's files byte for byte; every paper's topic and place on the map."""
    for name in [*SAME_FILES, *(f"model/bertopic/{p.name}" for p in (first / "model" / "bertopic").iterdir())]:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    columns = ["paper_id", "topic_id", "x", "y", "confidence", "fits_poorly"]
    pd.testing.assert_frame_equal(
        pd.read_parquet(first / "papers.parquet", columns=columns),
        pd.read_parquet(second / "papers.parquet", columns=columns),
    )


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The sample's 38 abstracts and 38 more (each one's sentences in reverse order): 76 papers."""
    abstracts = load_corpus(sample_files()).papers["abstract"].tolist()
    more = [". ".join(reversed(a.rstrip(".").split(". "))) + "." for a in abstracts]
    path = tmp_path_factory.mktemp("result_cache") / "papers.csv"
    pd.DataFrame({"abstract": abstracts + more}).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def cold(tmp_path_factory, corpus) -> tuple[Path, Path]:
    """A build from an empty cache, and the cache it filled."""
    folder = tmp_path_factory.mktemp("cold")
    manifest = build([corpus], folder / "build", folder / "cache")
    assert set(manifest["stage_cache"]["computed"]) == EVERY_RESULT
    assert not manifest["stage_cache"]["reused"]
    return folder / "build", folder / "cache"


def filled_cache(cold: tuple[Path, Path], tmp_path: Path) -> Path:
    """A copy of the cold build's cache, so each test changes its own."""
    return Path(shutil.copytree(cold[1], tmp_path / "cache"))


def test_a_rebuild_of_unchanged_papers_reuses_every_result_and_writes_the_same_build(cold, corpus, tmp_path):
    manifest = build([corpus], tmp_path / "warm", filled_cache(cold, tmp_path))
    assert manifest["stage_cache"] == {"reused": ["fit", "layout", "hierarchy", "evaluate"], "computed": []}
    assert_same_build(cold[0], tmp_path / "warm")


def test_a_rebuild_of_the_bundled_sample_writes_the_same_build(tmp_path):
    build([], tmp_path / "cold", tmp_path / "cache")
    manifest = build([], tmp_path / "warm", tmp_path / "cache")
    assert set(manifest["stage_cache"]["reused"]) == {"fit", "layout", "hierarchy", "evaluate"}
    assert_same_build(tmp_path / "cold", tmp_path / "warm")


def test_a_tfidf_rebuild_reuses_its_fitted_space_and_writes_the_same_build(tmp_path):
    for name in ("cold", "warm"):
        run_build([], tmp_path / name, BuildSettings(embedder="tfidf", cache_dir=tmp_path / "cache"))
    manifest = json.loads((tmp_path / "warm" / "manifest.json").read_text())
    assert manifest["stage_cache"] == {"reused": ["embedder", "fit", "layout", "hierarchy", "evaluate"], "computed": []}
    assert_same_build(tmp_path / "cold", tmp_path / "warm")
    for name in ("model/embedder.npz", "embeddings.npy"):
        assert (tmp_path / "cold" / name).read_bytes() == (tmp_path / "warm" / name).read_bytes(), name


def test_a_fit_sample_smaller_than_the_corpus_rebuilds_the_same_build(corpus, tmp_path):
    """Papers outside the sample are assigned again; the model's sizes count them, so BERTopic saves it anew."""
    build([corpus], tmp_path / "cold", tmp_path / "cache", fit_sample=40)
    manifest = build([corpus], tmp_path / "warm", tmp_path / "cache", fit_sample=40)
    assert manifest["counts"]["fit_sample"] == 40
    assert manifest["counts"]["papers"] == 76
    assert not manifest["stage_cache"]["computed"]
    assert_same_build(tmp_path / "cold", tmp_path / "warm")


@pytest.mark.parametrize(
    ("change", "computed", "reused"),
    [
        # the themes are named from the topics' labels, which the keywords' count can change: the tree is named anew
        ({"keywords_per_topic": 10}, {"fit", "evaluate"}, {"neighbours", "clusters", "layout"}),
        ({"seed": 7}, {"layout"}, {"fit", "hierarchy", "evaluate"}),  # the same topics on another map
        ({"min_topic_size": 6}, {"clusters", "fit"}, {"neighbours", "layout"}),
        ({"named_topics": ("reinforcement learning",)}, {"clusters", "fit"}, {"neighbours", "layout"}),
        ({"named_topic_threshold": 0.5}, {"clusters", "fit"}, {"neighbours", "layout"}),
        ({"keep_outliers": True}, {"clusters", "fit"}, {"neighbours", "layout"}),
    ],
)
def test_a_changed_setting_recomputes_only_what_it_reaches_and_gives_what_a_cold_build_gives(
    cold, corpus, tmp_path, change, computed, reused
):
    manifest = build([corpus], tmp_path / "warm", filled_cache(cold, tmp_path), **change)
    assert computed <= set(manifest["stage_cache"]["computed"])
    assert reused <= set(manifest["stage_cache"]["reused"])
    assert not computed & set(manifest["stage_cache"]["reused"])
    build([corpus], tmp_path / "cold", tmp_path / "empty", **change)
    assert_same_build(tmp_path / "cold", tmp_path / "warm")


@pytest.mark.parametrize("change", [{"lexical_weight": 0.5}, {"lexical_weight": 0.0}, {"n_topics": 4}])
def test_changed_clustering_parameters_recompute_the_clusters_and_the_fit_and_give_what_a_cold_build_gives(
    cold, corpus, tmp_path, monkeypatch, change
):
    """The parameters the settings resolve to are in the keys themselves, not only through the source's digest:
    a words' weight or topic count that changes (here with the same settings and source) is never served stale."""
    chosen = topics.choose_parameters
    monkeypatch.setattr(topics, "choose_parameters", lambda n, settings: replace(chosen(n, settings), **change))
    manifest = build([corpus], tmp_path / "warm", filled_cache(cold, tmp_path))
    assert {"clusters", "fit"} <= set(manifest["stage_cache"]["computed"])
    assert {"clusters", "fit"}.isdisjoint(manifest["stage_cache"]["reused"])
    assert {manifest["parameters"][name] for name in change} == set(change.values())
    build([corpus], tmp_path / "cold", tmp_path / "empty")
    assert_same_build(tmp_path / "cold", tmp_path / "warm")


# Every build setting is in one of these: a new setting must say whether the fit depends on it.
SETTINGS_OUTSIDE_THE_FIT = {"title": "A name", "seed": 2, "batch_size": 10, "device": "cpu", "cache_dir": Path("x")}
SETTINGS_OF_THE_FIT = {
    "embedder": "tfidf", "min_topic_size": 7, "named_topics": ("graph neural networks",),
    "named_topic_threshold": 1.5, "keep_outliers": True, "keywords_per_topic": 10, "text_column": "summary",
    "title_column": "name", "fit_sample": 100, "precision": "bf16",
}  # fmt: skip


def test_every_setting_but_the_seed_and_where_the_work_runs_changes_the_fits_key():
    assert {f.name for f in dataclasses.fields(BuildSettings)} == {*SETTINGS_OUTSIDE_THE_FIT, *SETTINGS_OF_THE_FIT}
    vectors, texts = np.eye(4, dtype=np.float32), ["a b", "b c", "c d", "d a"]
    key = lambda **change: digest(*topics.fit_inputs(vectors, texts, BuildSettings(**change), "embedder"))  # noqa: E731
    for name, value in SETTINGS_OF_THE_FIT.items():
        assert key(**{name: value}) != key(), name
    for name, value in SETTINGS_OUTSIDE_THE_FIT.items():
        assert key(**{name: value}) == key(), name
    assert key() != digest(*topics.fit_inputs(vectors, texts, BuildSettings(), "another embedder"))
    assert key() != digest(*topics.fit_inputs(vectors, [*texts[:3], "d A"], BuildSettings(), "embedder"))


def test_a_new_result_cache_version_misses_every_entry(cold, corpus, tmp_path, monkeypatch):
    """Bumping `RESULT_CACHE_VERSION` (a change to how a result is computed or stored) recomputes them all."""
    monkeypatch.setattr(result_cache, "RESULT_CACHE_VERSION", result_cache.RESULT_CACHE_VERSION + "-next")
    manifest = build([corpus], tmp_path / "warm", filled_cache(cold, tmp_path))
    assert set(manifest["stage_cache"]["computed"]) == EVERY_RESULT
    assert not manifest["stage_cache"]["reused"]
    assert_same_build(cold[0], tmp_path / "warm")


def test_a_changed_text_misses_the_cache_even_where_its_vectors_stay_the_same(cold, corpus, tmp_path):
    """The fake embedder lowercases, so one capitalised word changes an abstract but not its vector: the
    clustering and the keywords read the text, so they are computed again."""
    papers = pd.read_csv(corpus)
    papers.loc[0, "abstract"] = papers.loc[0, "abstract"].replace(" the ", " THE ", 1)
    changed = tmp_path / "changed.csv"
    papers.to_csv(changed, index=False)
    manifest = build([changed], tmp_path / "warm", filled_cache(cold, tmp_path))
    assert {"clusters", "fit"} <= set(manifest["stage_cache"]["computed"])
    assert "neighbours" in manifest["stage_cache"]["reused"]  # the same vectors
    build([changed], tmp_path / "cold", tmp_path / "empty")
    assert_same_build(tmp_path / "cold", tmp_path / "warm")


def test_corrupt_entries_are_computed_again_with_one_line_each_and_the_same_build(cold, corpus, tmp_path, caplog):
    cache = filled_cache(cold, tmp_path)
    damaged = sorted((cache / RESULTS_DIR).glob("*/*/arrays.npz"))
    for path in damaged:
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])  # cut short, as by a crash
    with caplog.at_level(logging.WARNING, logger="topic_explorer.pipeline.cache.store"):
        manifest = build([corpus], tmp_path / "warm", cache)
    unreadable = [r.getMessage() for r in caplog.records if "unreadable" in r.getMessage()]
    assert {"fit", "layout"} <= set(manifest["stage_cache"]["computed"])
    assert len(unreadable) == len(manifest["stage_cache"]["computed"])
    assert all("\n" not in m for m in unreadable)
    assert_same_build(cold[0], tmp_path / "warm")
    again = build([corpus], tmp_path / "again", cache)  # the damaged entries were replaced
    assert not again["stage_cache"]["computed"]


def test_a_half_written_entry_is_never_read(tmp_path):
    results = ResultCache(tmp_path)
    calls = []

    def compute() -> np.ndarray:
        calls.append(1)
        return np.arange(3)

    def write_then_fail(result: np.ndarray, folder: Path) -> None:
        write_arrays(folder, values=result)
        raise KeyboardInterrupt  # killed mid-write

    read = lambda folder: read_arrays(folder)["values"]  # noqa: E731
    with pytest.raises(KeyboardInterrupt):
        results.run("result", ["input"], compute, write=write_then_fail, read=read)
    assert not list((tmp_path / RESULTS_DIR / "result").iterdir())  # neither the entry nor its staging folder
    write = lambda result, folder: write_arrays(folder, values=result)  # noqa: E731
    for _ in range(2):
        assert results.run("result", ["input"], compute, write=write, read=read).tolist() == [0, 1, 2]
    assert len(calls) == 2
    assert results.counts.reused == ["result"]


def test_a_cache_that_cannot_be_written_still_gives_the_result(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    results = ResultCache(blocked)
    result = results.run("result", [1], lambda: np.ones(2), write=lambda r, f: None, read=lambda f: None)
    assert result.tolist() == [1.0, 1.0]
    assert results.counts.computed == ["result"]


def test_keys_tell_apart_inputs_that_only_concatenate_alike_or_differ_in_type():
    assert digest("ab", "c") != digest("a", "bc")
    assert digest(["ab", "c"]) != digest(["a", "bc"])
    assert digest(np.zeros(3, dtype=np.float32)) != digest(np.zeros(3, dtype=np.float64))
    assert digest(np.zeros((2, 3))) != digest(np.zeros((3, 2)))
    assert digest(1) != digest(1.0) != digest("1")
    assert digest({"a": 1, "b": 2}) == digest({"b": 2, "a": 1})
    assert digest(pd.DataFrame({"a": [1]})) != digest(pd.DataFrame({"b": [1]}))


def test_the_code_version_digests_every_module_of_the_pipeline_not_only_the_cache_package(monkeypatch):
    pipeline = Path(result_cache.__file__).resolve().parents[1]
    read = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda path: read.append(path) or read_bytes(path))
    result_cache.code_version.cache_clear()
    try:
        result_cache.code_version()
    finally:
        result_cache.code_version.cache_clear()
    digested = {path.relative_to(pipeline).as_posix() for path in read}
    assert "fit/topics.py" in digested
    assert "cache/store.py" in digested
