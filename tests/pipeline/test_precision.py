"""`--precision`: MiniLM in fp32 or bf16, recorded in the build, part of the cache's key, kept by `add` and Dask."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from tests.conftest import FakeEmbedder
from topic_explorer.pipeline.apply.engine import DaskEngine
from topic_explorer.pipeline.apply.loop import embed_all
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.embed import models
from topic_explorer.pipeline.embed.cache import EmbeddingCache
from topic_explorer.pipeline.embed.models import MiniLMEmbedder, embedder_for, make_embedder, precision_problem
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.run.add import add_papers
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import PRECISIONS, BuildSettings

NO_BF16 = "this CPU has neither AVX512-BF16 nor AMX"


class PreciseFake(FakeEmbedder):
    """The fake embedder under MiniLM's name for a precision, as a build in that precision records it."""

    def __init__(self, precision: str):
        super().__init__()
        self.precision = precision
        self.name = MiniLMEmbedder(precision=precision).name


@pytest.fixture
def cpu_without_bf16(monkeypatch):
    monkeypatch.setattr(models, "precision_problem", lambda precision, device: None if precision == "fp32" else NO_BF16)


@pytest.fixture
def cpu_with_bf16(monkeypatch):
    monkeypatch.setattr(models, "precision_problem", lambda precision, device: None)


@pytest.fixture
def bf16_build(metadata_corpus, tmp_path, monkeypatch, cpu_with_bf16):
    """A build of the first 30 papers, made with `--precision bf16` (the fake embedder standing in for MiniLM)."""
    made: list[str] = []

    def fake_make_embedder(name: str, *, device: str, precision: str) -> PreciseFake:
        made.append(precision)
        return PreciseFake(precision)

    monkeypatch.setattr("topic_explorer.pipeline.run.build.make_embedder", fake_make_embedder)
    table = pd.read_csv(metadata_corpus)
    table.head(30).to_csv(tmp_path / "first.csv", index=False)
    table.tail(8).to_csv(tmp_path / "new.csv", index=False)
    settings = BuildSettings(precision="bf16", cache_dir=tmp_path / "cache")
    path = run_build([tmp_path / "first.csv"], tmp_path / "build", settings).path
    assert made == ["bf16"]
    return path


def test_the_cache_never_serves_vectors_of_another_precision(tmp_path):
    fp32, bf16 = MiniLMEmbedder(precision="fp32"), MiniLMEmbedder(precision="bf16")
    assert EmbeddingCache(tmp_path, fp32.name).key("a text") != EmbeddingCache(tmp_path, bf16.name).key("a text")
    EmbeddingCache(tmp_path, bf16.name).put(["a text"], np.ones((1, 4), dtype=np.float32))
    assert EmbeddingCache(tmp_path, fp32.name).get(["a text"]) == [None]
    np.testing.assert_array_equal(EmbeddingCache(tmp_path, bf16.name).get(["a text"])[0], np.ones(4))


def test_fp32_keeps_the_name_that_older_builds_and_caches_carry():
    assert MiniLMEmbedder().name == "all-MiniLM-L6-v2/windows128x16"
    assert MiniLMEmbedder(precision="bf16").name == "all-MiniLM-L6-v2/windows128x16/bf16"


def test_the_default_precision_stays_fp32():
    assert BuildSettings().precision == "fp32"
    assert PRECISIONS[0] == "fp32"


def test_a_build_records_the_precision_it_embedded_in(bf16_build):
    manifest = read_build(bf16_build).manifest  # read_build checks the manifest against its JSON Schema
    assert manifest["settings"]["precision"] == "bf16"
    assert manifest["embedder"]["precision"] == "bf16"
    assert manifest["embedder"]["name"].endswith("/bf16")


def test_add_embeds_in_the_builds_precision(bf16_build, tmp_path, monkeypatch):
    chosen: list = []

    def spy(*args, **kwargs):
        embedder = embedder_for(*args, **kwargs)  # the real choice; the fake then embeds under its name
        chosen.append(embedder)
        return PreciseFake(embedder.precision)

    monkeypatch.setattr("topic_explorer.pipeline.run.add.embedder_for", spy)
    result = add_papers(bf16_build, [tmp_path / "new.csv"], cache_dir=tmp_path / "cache")
    assert result.added == 8
    assert [e.precision for e in chosen] == ["bf16"]
    assert chosen[0].name == read_build(bf16_build).manifest["embedder"]["name"]


def test_add_on_a_cpu_without_the_builds_precision_stops_in_one_line(bf16_build, tmp_path, monkeypatch):
    monkeypatch.setattr(models, "precision_problem", lambda precision, device: NO_BF16)
    with pytest.raises(UserError, match=f"embedded in bf16, but {NO_BF16}") as raised:
        add_papers(bf16_build, [tmp_path / "new.csv"], cache_dir=tmp_path / "cache")
    assert "\n" not in str(raised.value)
    assert len(read_build(bf16_build).papers) == 30  # nothing written


def test_a_search_query_on_a_cpu_without_the_builds_precision_falls_back_to_fp32(cpu_without_bf16, caplog):
    described = {"name": MiniLMEmbedder(precision="bf16").name, "precision": "bf16"}
    with caplog.at_level(logging.WARNING, logger=models.__name__):
        embedder = embedder_for(described, None, device="cpu")
    assert embedder.precision == "fp32"
    assert [r.getMessage() for r in caplog.records] == [
        f"this build was embedded in bf16, but {NO_BF16}; embedding in fp32 instead"
    ]


def test_builds_from_before_the_precision_was_recorded_are_fp32():
    embedder = embedder_for({"name": "all-MiniLM-L6-v2/windows128x16"}, None, device="cpu", same_precision=True)
    assert embedder.precision == "fp32"


def test_a_cpu_without_the_instructions_falls_back_to_fp32_with_one_line(cpu_without_bf16, caplog):
    with caplog.at_level(logging.INFO, logger=models.__name__):
        embedder = make_embedder("minilm", device="cpu", precision="bf16")
    assert embedder.precision == "fp32"
    assert embedder.name == MiniLMEmbedder().name
    assert [r.getMessage() for r in caplog.records] == [f"--precision bf16: {NO_BF16}; embedding in fp32 instead"]


def test_a_cpu_with_the_instructions_embeds_in_the_asked_precision_silently(cpu_with_bf16, caplog):
    with caplog.at_level(logging.INFO, logger=models.__name__):
        embedder = make_embedder("minilm", device="cpu", precision="bf16")
    assert embedder.precision == "bf16"
    assert caplog.records == []


@pytest.mark.parametrize("value", ["fp16", "int8", "BF16"])
def test_an_unknown_precision_is_one_line_naming_the_valid_ones(value, tmp_path, capsys):
    code = main(["build", "--out", str(tmp_path / "build"), "--precision", value])
    err = capsys.readouterr().err
    assert code != 0
    assert err.strip().count("\n") == 0
    assert f"--precision {value!r} is unknown; use one of fp32, bf16" in err
    assert not (tmp_path / "build").exists()


def test_a_dask_worker_without_the_builds_precision_stops_the_run_in_one_line(monkeypatch):
    from distributed import LocalCluster, get_worker

    def only_workers_lack_it(precision: str, device: str) -> str | None:
        try:
            get_worker()
        except ValueError:
            return None  # the client has it
        return None if precision == "fp32" else NO_BF16

    monkeypatch.setattr(models, "precision_problem", only_workers_lack_it)
    embedder = make_embedder("minilm", device="cpu", precision="bf16")
    assert embedder.precision == "bf16"
    # Worker threads in this process, so that they see the patched check; the model is never loaded.
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        engine = DaskEngine(cluster.scheduler_address)
        try:
            with pytest.raises(UserError, match=f"--precision bf16: {NO_BF16} on Dask worker") as raised:
                embed_all(["a text", "another text"], embedder, EmbeddingCache(None, embedder.name), engine=engine)
        finally:
            engine.close()
    assert "\n" not in str(raised.value)


@pytest.mark.model
def test_bf16_vectors_are_close_to_fp32_but_not_the_same():
    if precision_problem("bf16", "cpu") is not None:
        pytest.skip(precision_problem("bf16", "cpu"))
    texts = ["Low-rank adapters fine-tune large language models cheaply.", "Graph neural networks for molecules."]
    fp32 = MiniLMEmbedder(device="cpu").transform(texts)
    bf16 = MiniLMEmbedder(device="cpu", precision="bf16").transform(texts)
    assert np.min(np.sum(fp32 * bf16, axis=1)) > 0.999
    assert not np.array_equal(fp32, bf16)
