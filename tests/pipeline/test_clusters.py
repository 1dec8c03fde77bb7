"""Clustering: parameters by corpus size, the giant-topic refit, and consensus for small corpora."""

import numpy as np

from topic_explorer.pipeline.fit.clusters import (
    CONSENSUS_REPEATS,
    TopicParameters,
    _hdbscan,
    _relabel,
    choose_parameters,
    find_clusters,
)
from topic_explorer.pipeline.settings import BuildSettings


def test_parameters_scale_with_corpus_size():
    small, medium, large = (choose_parameters(n, BuildSettings()) for n in (38, 2000, 20000))
    assert (small.umap_neighbors, small.min_topic_size, small.hdbscan_min_samples) == (10, 3, 1)
    assert medium.min_topic_size == 22 and large.min_topic_size == 71
    assert large.hdbscan_min_samples < large.min_topic_size
    assert choose_parameters(20000, BuildSettings(min_topic_size=50)).min_topic_size == 50


def test_small_corpora_are_clustered_by_consensus_over_several_neighbourhoods():
    small, large = choose_parameters(38, BuildSettings()), choose_parameters(2000, BuildSettings())
    assert small.consensus_neighbors == (5, 6, 8, 10, 12)
    assert small.consensus_runs == 5 * CONSENSUS_REPEATS
    assert large.consensus_neighbors == () and large.consensus_runs == 0
    assert small.as_dict()["consensus_runs"] == small.consensus_runs


def test_a_giant_topic_is_split_by_refitting_with_a_size_cap():
    """Four close groups and one far group: plain HDBSCAN returns 400 + 100 papers; we want five topics."""
    from hdbscan import HDBSCAN

    rng = np.random.default_rng(0)
    centres = [(0, 0), (1, 0), (0, 1), (1, 1), (20, 20)]
    points = np.vstack([rng.normal(centre, 0.25, size=(100, 2)) for centre in centres])
    plain = HDBSCAN(min_cluster_size=22, min_samples=4).fit(points).labels_
    assert sorted(np.bincount(plain[plain >= 0])) == [100, 400]
    labels, cap = _hdbscan(points, TopicParameters(15, 5, 22, 0, 4))
    sizes = np.bincount(labels[labels >= 0])
    assert len(sizes) == 5 and sizes.max() <= 100
    assert cap == 100


def test_consensus_finds_well_separated_groups_whatever_the_seed():
    rng = np.random.default_rng(3)
    directions = np.eye(16)[:4]
    vectors = np.vstack([d + rng.normal(0, 0.15, size=(10, 16)) for d in directions])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    params = choose_parameters(len(vectors), BuildSettings())
    truth = np.repeat(np.arange(4), 10)
    for seed in (0, 1, 7):
        labels, _ = find_clusters(vectors.astype(np.float32), params, seed=seed)
        assert (labels >= 0).mean() >= 0.9
        for group in range(4):  # each true group lands in one cluster of its own
            found = labels[(truth == group) & (labels >= 0)]
            assert len(set(found)) == 1
        assert len(set(labels[labels >= 0])) == 4


def test_same_seed_gives_the_same_clusters():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(60, 12)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    params = choose_parameters(len(vectors), BuildSettings())
    first, _ = find_clusters(vectors, params, seed=5)
    again, _ = find_clusters(vectors, params, seed=5)
    np.testing.assert_array_equal(first, again)


def test_groups_too_small_for_a_topic_become_outliers_and_the_rest_are_numbered_in_order():
    labels = _relabel(np.array([7, 7, 7, 2, 9, 9, 9, 2]), min_size=3)
    np.testing.assert_array_equal(labels, [0, 0, 0, -1, 1, 1, 1, -1])
