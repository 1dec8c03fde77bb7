"""Builds on a Dask cluster: the same topics as in-process, retried tasks, and one clear line when it fails."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.conftest import FakeEmbedder
from topic_explorer.pipeline.apply.engine import DaskEngine
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings


@pytest.fixture(scope="module", autouse=True)
def plain_main():
    """Dask starts workers with multiprocessing's spawn, which re-runs the parent's `__main__` file in each
    worker; after Streamlit's AppTest ran in this process, that file is the dashboard's app. A bare
    `__main__` keeps the workers clean, as the CLI's own entry point does."""
    import sys
    import types

    saved = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    yield
    sys.modules["__main__"] = saved


@pytest.fixture(scope="module")
def cluster(plain_main):
    """A local cluster of two worker processes, as `--dask local:2` makes, closed after the tests."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        yield local


def builds_equal(first: Path, second: Path) -> None:
    a, b = read_build(first), read_build(second)
    pd.testing.assert_frame_equal(a.papers, b.papers)
    pd.testing.assert_frame_equal(a.topics, b.topics)
    np.testing.assert_array_equal(a.embeddings(), b.embeddings())


def test_a_build_on_a_cluster_gives_the_same_topics_as_in_process(cluster, metadata_corpus, tmp_path):
    settings = BuildSettings(cache_dir=tmp_path / "cache", seed=3)
    here = run_build([metadata_corpus], tmp_path / "here", settings, embedder=FakeEmbedder())
    engine = DaskEngine(cluster.scheduler_address)
    try:
        there = run_build([metadata_corpus], tmp_path / "there", BuildSettings(seed=3), embedder=FakeEmbedder(),
                          engine=engine)  # fmt: skip
    finally:
        engine.close()
    builds_equal(here.path, there.path)
    assert read_build(there.path).manifest["engine"].startswith("on the Dask cluster at tcp://")


def test_papers_outside_the_fit_sample_are_assigned_the_same_way_on_a_cluster(cluster, tmp_path):
    """More papers than the fit sample: the rest are embedded, assigned and placed as Dask tasks."""
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(40)]
    themes = [words[i : i + 8] for i in range(0, 40, 8)]
    texts = [" ".join(rng.choice(themes[i % 5], 12)) + f" paper {i}" for i in range(2600)]
    pd.DataFrame({"abstract": texts}).to_csv(tmp_path / "many.csv", index=False)
    settings = BuildSettings(embedder="tfidf", fit_sample=1000, seed=2)
    here = run_build([tmp_path / "many.csv"], tmp_path / "here", settings)
    engine = DaskEngine(cluster.scheduler_address)
    try:
        there = run_build([tmp_path / "many.csv"], tmp_path / "there", settings, engine=engine)
    finally:
        engine.close()
    builds_equal(here.path, there.path)
    papers = read_build(there.path).papers
    assert papers["fit_sample"].sum() == 1000
    assert len(papers) == 2600


class Recording(FakeEmbedder):
    """Remembers every text it embedded (keyword candidates, topic names, abstracts)."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []

    def transform(self, texts):
        self.texts += texts
        return super().transform(texts)


class DiesOnce(FakeEmbedder):
    """Kills its worker process the first time it embeds (a marker file remembers), like a worker lost mid-build."""

    def __init__(self, marker: Path):
        super().__init__()
        self.marker = marker

    def transform(self, texts):
        if not self.marker.exists():
            self.marker.write_text("died")
            os._exit(1)
        return super().transform(texts)


class AlwaysDies(FakeEmbedder):
    def transform(self, texts):
        os._exit(1)


def test_a_worker_that_dies_mid_build_is_replaced_and_the_task_retried(metadata_corpus, tmp_path):
    engine = DaskEngine("local:2")
    try:
        result = run_build([metadata_corpus], tmp_path / "b", BuildSettings(cache_dir=tmp_path / "c"),
                           embedder=DiesOnce(tmp_path / "marker"), engine=engine)  # fmt: skip
    finally:
        engine.close()
    assert (tmp_path / "marker").exists()
    assert len(read_build(result.path).papers) == 38


def test_workers_that_keep_dying_end_the_build_in_one_line_and_keep_the_previous_build(metadata_corpus, tmp_path):
    previous = run_build([metadata_corpus], tmp_path / "b", BuildSettings(embedder="tfidf")).path
    before = {p.name: p.read_bytes() for p in previous.iterdir() if p.is_file()}
    engine = DaskEngine("local:2")
    try:
        with pytest.raises(UserError, match="Dask workers kept dying"):
            run_build([metadata_corpus], previous, BuildSettings(cache_dir=tmp_path / "c"), embedder=AlwaysDies(),
                      engine=engine)  # fmt: skip
    finally:
        engine.close()
    assert {p.name: p.read_bytes() for p in previous.iterdir() if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_an_unreachable_scheduler_is_one_line(metadata_corpus, tmp_path, capsys):
    code = main(["build", str(metadata_corpus), "--out", str(tmp_path / "b"), "--dask", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert err.count("\n") == 1
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("value", ["local:0", "local:x"])
def test_a_bad_local_cluster_size_is_one_line(value, metadata_corpus, tmp_path, capsys):
    assert main(["build", str(metadata_corpus), "--out", str(tmp_path / "b"), "--dask", value]) == 2
    assert "give a number of workers of at least 1" in capsys.readouterr().err


def test_the_build_command_runs_on_a_local_cluster(metadata_corpus, tmp_path, capsys):
    out = tmp_path / "b"
    assert main(["build", str(metadata_corpus), "--out", str(out), "--embedder", "tfidf", "--dask", "local:2"]) == 0
    assert "Built 38 papers" in capsys.readouterr().out
    assert read_build(out).manifest["engine"] == "on a local Dask cluster of 2 workers"


def test_every_path_with_small_batches_agrees_on_vectors_topics_and_the_cache(cluster, metadata_corpus, tmp_path):
    """Batches of a few papers and a fit sample smaller than the corpus: in this process and on the cluster,
    `build` then a quiet `add`, then a rebuild of everything from the same cache; nothing is embedded twice
    and every paper keeps its own vector."""
    from topic_explorer.pipeline.run.add import add_papers

    table = pd.read_csv(metadata_corpus)
    table.head(30).to_csv(tmp_path / "first.csv", index=False)
    table.tail(8).to_csv(tmp_path / "rest.csv", index=False)
    settings = BuildSettings(cache_dir=tmp_path / "cache", fit_sample=20, batch_size=7, seed=3)
    here = run_build([tmp_path / "first.csv"], tmp_path / "here", settings, embedder=FakeEmbedder())
    engine = DaskEngine(cluster.scheduler_address)
    try:
        there = run_build([tmp_path / "first.csv"], tmp_path / "there", settings, embedder=FakeEmbedder(),
                          engine=engine)  # fmt: skip
        builds_equal(here.path, there.path)
        add_papers(there.path, [tmp_path / "rest.csv"], embedder=FakeEmbedder(), cache_dir=settings.cache_dir,
                   engine=engine, batch_size=3)  # fmt: skip
    finally:
        engine.close()
    added = read_build(there.path)
    assert added.papers["fit_sample"].sum() == 20
    assert len(added.papers) == 38
    counting = Recording()
    again = run_build([tmp_path / "first.csv", tmp_path / "rest.csv"], tmp_path / "again", settings, embedder=counting)
    assert counting.texts
    assert not set(counting.texts) & set(table["abstract"])  # abstracts all came from the cache
    rebuilt = read_build(again.path)
    order = rebuilt.papers["paper_id"].map(dict(zip(added.papers["paper_id"], range(38), strict=True)))
    np.testing.assert_array_equal(rebuilt.embeddings(), added.embeddings()[order.to_numpy()])
    np.testing.assert_array_equal(rebuilt.embeddings(), FakeEmbedder().transform(rebuilt.papers["abstract"].tolist()))
