"""Our clustering as BERTopic's `hdbscan_model`: named topics first, then clusters of the rest.

BERTopic accepts any clustering model with `fit` and `labels_`. This one takes the embeddings whole
(BERTopic's `umap_model` is `BaseDimensionalityReduction()`, which passes them through), because it
runs its own reductions: UMAP on shared exact neighbours, several seeded runs by consensus on small
corpora (`pipeline.fit.clusters`). It then does what BERTopic's `reduce_outliers(strategy="embeddings")`
does, in the same fit: each paper the clustering left out joins the topic whose papers' centre is
closest, unless `keep_outliers` keeps the ones that fit it poorly in topic -1.
"""

from __future__ import annotations

import numpy as np

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.fit.clusters import TopicParameters, find_clusters
from topic_explorer.pipeline.fit.reduce import Neighbours
from topic_explorer.pipeline.timing import StageTimer
from topic_explorer.pipeline.topicmodel import TopicModel, assign


class TopicClusters:
    """Topics of the fit sample. After `fit`: `labels_` (every paper's topic), `left_out_` (the papers the
    clustering put in no cluster), `fits_poorly_` (left out, and far from the topic they joined) and
    `parameters_` (the clustering's parameters as finally used)."""

    def __init__(
        self,
        parameters: TopicParameters,
        *,
        seed: int,
        neighbours: Neighbours,
        named: np.ndarray,
        keep_outliers: bool,
        timer: StageTimer,
    ):
        """`named` holds, per paper, the index of the `--topics` name it joined, or -1: named papers keep their
        name's topic (numbered first, in the names' order) and the rest are clustered."""
        self.parameters = parameters
        self.seed = seed
        self.neighbours = neighbours
        self.named = named
        self.keep_outliers = keep_outliers
        self.timer = timer

    def fit(self, X: np.ndarray, y: None = None) -> TopicClusters:
        matched = sorted(set(self.named[self.named >= 0].tolist()))
        labels = np.full(len(X), -1, dtype=np.int64)
        for topic, index in enumerate(matched):
            labels[self.named == index] = topic
        rest = np.flatnonzero(self.named < 0)
        self.parameters_ = self.parameters
        if len(rest) > self.parameters.min_topic_size:
            shared = self.neighbours if len(rest) == len(X) else None  # neighbours among the rest otherwise
            clusters, self.parameters_ = find_clusters(
                X[rest], self.parameters, seed=self.seed, neighbours=shared, timer=self.timer
            )
            labels[rest] = np.where(clusters >= 0, clusters + len(matched), -1)
        if (labels < 0).all():
            raise UserError(
                f"found no topics among {len(X)} papers: they are too few or too alike; "
                "add papers or lower --min-topic-size"
            )
        self.left_out_ = labels < 0
        self.fits_poorly_ = np.zeros(len(X), dtype=bool)
        joined = assign(X[self.left_out_], TopicModel.fit(X, labels))
        labels[self.left_out_] = joined.topic_id
        self.fits_poorly_[self.left_out_] = joined.fits_poorly
        if self.keep_outliers:
            labels[self.fits_poorly_] = -1
        self.labels_ = labels
        return self
