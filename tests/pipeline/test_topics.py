"""Topic finding: parameters by corpus size, outliers, confidence, named topics."""

import numpy as np
import pytest

from pipeline.embed import TfidfEmbedder
from pipeline.ingest import load_corpus, sample_files
from pipeline.settings import BuildSettings
from pipeline.topics import TopicParameters, _clusterer, choose_parameters, closeness_to_centre, find_topics


@pytest.fixture(scope="module")
def sample_tfidf():
    abstracts = load_corpus(sample_files()).papers["abstract"].tolist()
    embedder = TfidfEmbedder(seed=1)
    return abstracts, embedder.fit_transform(abstracts), embedder


def test_parameters_scale_with_corpus_size():
    small, medium, large = (choose_parameters(n, BuildSettings()) for n in (38, 2000, 20000))
    assert (small.umap_neighbors, small.min_topic_size, small.hdbscan_min_samples) == (10, 3, 1)
    assert medium.min_topic_size == 22 and large.min_topic_size == 71
    assert large.hdbscan_min_samples < large.min_topic_size
    assert choose_parameters(20000, BuildSettings(min_topic_size=50)).min_topic_size == 50


def test_a_giant_topic_is_split_by_refitting_with_a_size_cap():
    """Four close groups and one far group: plain HDBSCAN returns 400 + 100 papers; we want five topics."""
    from hdbscan import HDBSCAN

    rng = np.random.default_rng(0)
    centres = [(0, 0), (1, 0), (0, 1), (1, 1), (20, 20)]
    points = np.vstack([rng.normal(centre, 0.25, size=(100, 2)) for centre in centres])
    plain = HDBSCAN(min_cluster_size=22, min_samples=4).fit(points).labels_
    assert sorted(np.bincount(plain[plain >= 0])) == [100, 400]
    clusterer = _clusterer(TopicParameters(15, 5, 22, 0, 4, 2)).fit(points)
    sizes = np.bincount(clusterer.labels_[clusterer.labels_ >= 0])
    assert len(sizes) == 5 and sizes.max() <= 100
    assert clusterer.max_cluster_size == 100


def test_confidence_is_closeness_to_the_topic_centre():
    embeddings = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    confidence = closeness_to_centre(embeddings, np.array([0, 0, -1]))
    assert confidence[2] == 0.0
    assert confidence[0] == pytest.approx(confidence[1]) and 0.9 < confidence[0] < 1.0


def test_outliers_are_moved_by_default_and_flagged(sample_tfidf):
    abstracts, embeddings, embedder = sample_tfidf
    moved = find_topics(abstracts, embeddings, settings=BuildSettings(seed=1), embedder=embedder)
    kept = find_topics(abstracts, embeddings, settings=BuildSettings(seed=1, keep_outliers=True), embedder=embedder)
    assert (moved.topic_id >= 0).all()
    np.testing.assert_array_equal(moved.was_outlier, kept.was_outlier)
    np.testing.assert_array_equal(kept.topic_id == -1, kept.was_outlier)
    if kept.was_outlier.any():
        assert -1 in kept.table["topic_id"].tolist()
        assert (kept.confidence[kept.was_outlier] == 0).all()
    assert kept.table["size"].sum() == moved.table["size"].sum() == len(abstracts)


def test_named_topics_take_their_name_and_unmatched_names_are_reported(sample_tfidf):
    abstracts, embeddings, embedder = sample_tfidf
    settings = BuildSettings(seed=1, named_topics=("federated learning", "quantum chromodynamics"))
    topics = find_topics(abstracts, embeddings, settings=settings, embedder=embedder)
    named = topics.table[topics.table["named"]]
    assert named["label"].tolist() == ["federated learning"] and named["topic_id"].tolist() == [0]
    matched = np.flatnonzero(topics.topic_id == 0)
    assert len(matched) >= 2 and all("federated" in abstracts[i].lower() for i in matched)
    assert not topics.was_outlier[matched].any()
    assert list(topics.unmatched_names) == ["quantum chromodynamics"]
    assert (topics.table.loc[~topics.table["named"], "size"] > 0).all()
