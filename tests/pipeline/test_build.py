"""The whole pipeline: determinism, embedding reuse, and the bundled sample with the real model."""

import re

import numpy as np
import pandas as pd
import pytest

from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.ingest.corpus import load_corpus, sample_files
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings


def _cold_build(corpus, out, model=None, **settings):
    """A build with an empty cache folder of its own, so every stage is computed, none reused: two such builds are
    equal only if the pipeline itself is deterministic."""
    result = run_build(
        [corpus], out, BuildSettings(cache_dir=out.with_name(out.name + "-cache"), **settings), embedder=model
    )
    build = read_build(result.path)
    assert build.manifest["stage_cache"]["reused"] == []
    return build


def test_same_input_settings_and_seed_give_identical_builds(metadata_corpus, tmp_path):
    first = _cold_build(metadata_corpus, tmp_path / "a", embedder="tfidf", seed=7)
    second = _cold_build(metadata_corpus, tmp_path / "b", embedder="tfidf", seed=7)
    pd.testing.assert_frame_equal(first.papers, second.papers)
    pd.testing.assert_frame_equal(first.topics, second.topics)
    np.testing.assert_array_equal(first.embeddings(), second.embeddings())


def test_another_seed_draws_another_map_of_the_same_topics(metadata_corpus, tmp_path, fake_embedder):
    builds = [_cold_build(metadata_corpus, tmp_path / str(seed), fake_embedder, seed=seed) for seed in (1, 2)]
    pd.testing.assert_frame_equal(builds[0].topics, builds[1].topics)
    pd.testing.assert_series_equal(builds[0].papers["topic_id"], builds[1].papers["topic_id"])
    assert not np.allclose(builds[0].papers["x"], builds[1].papers["x"])


def test_a_rebuild_with_papers_added_embeds_only_the_new_ones(metadata_corpus, tmp_path, fake_embedder):
    corpus = pd.read_csv(metadata_corpus)
    smaller = tmp_path / "smaller.csv"
    corpus.head(30).to_csv(smaller, index=False)
    settings = BuildSettings(cache_dir=tmp_path / "cache")
    run_build([smaller], tmp_path / "one", settings, embedder=fake_embedder)
    result = run_build([metadata_corpus], tmp_path / "two", settings, embedder=fake_embedder)
    assert (result.cache.reused, result.cache.embedded) == (30, 8)
    assert read_build(result.path).manifest["embedder"]["papers_embedded"] == 8


def test_from_200_papers_the_map_lays_out_the_nearest_of_the_topics_neighbours(tmp_path, fake_embedder):
    """The topics' graph joins each paper to its `CLUSTER_NEIGHBORS` nearest; the map keeps `MAP_NEIGHBORS` of them,
    as it did before the graph grew (a map drawn on 30 neighbours blurs its regions)."""
    from topic_explorer.pipeline.fit.clusters import CLUSTER_NEIGHBORS, MAP_NEIGHBORS, SMALL_CORPUS
    from topic_explorer.pipeline.fit.reduce import nearest_neighbours
    from topic_explorer.pipeline.map.layout import map_coordinates

    fields = [["robot", "grasp", "gripper"], ["galaxy", "star", "orbit"], ["protein", "enzyme", "cell"]]
    abstracts = [f"{' '.join(fields[i % 3])} study {i} of {fields[i % 3][i % 2]} number {i // 3}." for i in range(240)]
    corpus = tmp_path / "papers.csv"
    pd.DataFrame({"abstract": abstracts}).to_csv(corpus, index=False)
    settings = BuildSettings(cache_dir=tmp_path / "cache", seed=3)
    build = read_build(run_build([corpus], tmp_path / "build", settings, embedder=fake_embedder).path)
    assert len(build.papers) >= SMALL_CORPUS
    parameters = build.manifest["parameters"]
    assert (parameters["graph_neighbors"], parameters["map_neighbors"]) == (CLUSTER_NEIGHBORS, MAP_NEIGHBORS)
    vectors = build.embeddings()
    neighbours = nearest_neighbours(vectors, CLUSTER_NEIGHBORS + 1)
    expected = map_coordinates(vectors, neighbours, seed=3, n_neighbors=MAP_NEIGHBORS)
    np.testing.assert_allclose(build.papers[["x", "y"]].to_numpy(dtype=np.float32), expected, atol=1e-6)


@pytest.mark.model
def test_sample_build_meets_what_its_users_expect(sample_build):
    """The bundled sample with defaults: about a dozen fine topics under a level of 5-8 themes, at most 10% of
    papers fitting poorly, topics a reader recognises."""
    build = read_build(sample_build)
    papers, topics = build.papers, build.topics
    assert 8 <= len(topics) <= 14
    assert any(5 <= n <= 8 for n in build.hierarchy.groupby("level").size())
    assert papers["fits_poorly"].mean() <= 0.10
    assert (papers["topic_id"] >= 0).all()

    federated = papers[papers["abstract"].str.count(r"(?i)federated") >= 2]
    assert len(federated) == 4
    assert federated["topic_id"].value_counts().iloc[0] >= 3, "the federated-learning papers belong together"

    keywords = " | ".join(" | ".join(k).lower() for k in topics["keywords"])
    for theme in ("low-rank adaptation", "lora", "federated", "kv cache", "reinforcement learning", "reward", "regret"):
        assert theme in keywords, theme
    for debris in ("mathbf", "texttt", "\\", "$", "*", "et al"):
        assert debris not in keywords
    assert topics["label"].is_unique
    assert (topics["label"].str.len().between(3, 60)).all()
    assert build.manifest["quality"]["coherence_npmi"] > 0


@pytest.mark.model
def test_sample_titles_are_derived_and_readable(sample_build):
    titles = read_build(sample_build).papers["title"]
    assert "FedASK: Differentially Private Federated Low Rank Adaptation with Double SKetching" in set(titles)
    assert titles.map(lambda t: bool(re.search(r"[A-Za-z]", t))).all()


def test_a_build_derives_the_titles_a_corpus_read_into_memory_gets(sample_build):
    built = read_build(sample_build).papers.set_index("paper_id")["title"].sort_index()
    loaded = load_corpus(sample_files()).papers.set_index("paper_id")["title"].sort_index()
    assert built.to_dict() == loaded.to_dict()
