"""Fit the topic model on the fit sample: topics the user named first, then clusters of the rest.

Fitting is the one stage that sees many papers at once; everything per paper afterwards applies
its result (`pipeline.topicmodel`). Topic ids: the named topics that matched come first (0, 1,
...) in the order the user gave them, then the clusters.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.fit.clusters import TopicParameters, choose_parameters, find_clusters
from topic_explorer.pipeline.fit.named_topics import match_named_topics
from topic_explorer.pipeline.fit.reduce import Neighbours, nearest_neighbours
from topic_explorer.pipeline.settings import BuildSettings
from topic_explorer.pipeline.timing import StageTimer
from topic_explorer.pipeline.topicmodel import TopicModel

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Fit:
    """What fitting found on the sample, in sample order."""

    labels: np.ndarray  # int64 topic per sample paper; -1 where the clustering left it out
    names: dict[int, str]  # topic id -> the user's name, for named topics that matched
    unmatched_names: dict[str, float]  # named topics no paper matched -> the closest paper's similarity
    model: TopicModel
    parameters: TopicParameters
    neighbours: Neighbours  # of the whole sample, shared with the map's layout


def fit_topics(
    vectors: np.ndarray,
    abstracts: list[str],
    *,
    settings: BuildSettings,
    embed: Callable[[list[str]], np.ndarray],
    timer: StageTimer | None = None,
) -> Fit:
    """Named topics, clusters and their centres, from the fit sample's embeddings and abstracts.

    `embed` turns the user's topic names into vectors (the build's embedder). `timer` receives
    'reduce' (neighbours and UMAP) and 'cluster'.
    """
    timer = timer or StageTimer()
    params = choose_parameters(len(vectors), settings)
    with timer.stage("reduce"):
        neighbours = nearest_neighbours(vectors, max((params.umap_neighbors, *params.consensus_neighbors)) + 1)
    match = match_named_topics(
        settings.named_topics, abstracts, vectors, embed, threshold=settings.named_topic_threshold
    )
    named, unmatched = match.paper_name, match.unmatched()
    matched = sorted(set(named[named >= 0].tolist()))
    names = {topic: settings.named_topics[index] for topic, index in enumerate(matched)}
    labels = np.full(len(vectors), -1, dtype=np.int64)
    for topic, index in enumerate(matched):
        labels[named == index] = topic
    rest = np.flatnonzero(named < 0)
    if len(rest) > params.min_topic_size:
        shared = neighbours if len(rest) == len(vectors) else None  # neighbours among the rest otherwise
        clusters, params = find_clusters(vectors[rest], params, seed=settings.seed, neighbours=shared, timer=timer)
        labels[rest] = np.where(clusters >= 0, clusters + len(names), -1)
    if (labels < 0).all():
        raise UserError(
            f"found no topics among {len(vectors)} papers: they are too few or too alike; "
            "add papers or lower --min-topic-size"
        )
    for name, score in unmatched.items():
        log.warning(
            "named topic %r: no paper matched (the best scored %.2f, below the threshold %.2f); "
            "lower --named-topic-threshold to include it",
            name,
            score,
            settings.named_topic_threshold,
        )
    return Fit(labels, names, unmatched, TopicModel.fit(vectors, labels), params, neighbours)
