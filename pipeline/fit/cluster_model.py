"""Our clustering as BERTopic's `hdbscan_model`: named topics first, then the consensus of Leiden views.

BERTopic accepts any clustering model with `fit` and `labels_`. This one takes the embeddings whole
(BERTopic's `umap_model` is `BaseDimensionalityReduction()`, which passes them through) and reduces them
itself: UMAP's fuzzy graph over exact shared neighbours, blended with the same graph over the papers' words
and phrases (their TF-IDF rows, given beside the embeddings), clustered by `pipeline.fit.clusters`. It then
does what BERTopic's `reduce_outliers(strategy="embeddings")` does, in the same fit: each paper in a group too
small to be a topic joins the topic whose papers' centre is closest, unless `keep_outliers` keeps the ones that
fit it poorly in topic -1; from `SMALL_CORPUS` papers on, every paper then settles in its nearest centre's topic.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy import sparse

from topic_explorer.pipeline.buildfolder.model import TopicModel, assign
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.fit.clusters import SMALL_CORPUS, TopicParameters, find_clusters, topic_count
from topic_explorer.pipeline.fit.reduce import Neighbours, nearest_neighbours, neighbour_graph
from topic_explorer.pipeline.fit.settle import settle
from topic_explorer.pipeline.timing import StageTimer


class TopicClusters:
    """Topics of the fit sample. After `fit`: `labels_` (every paper's topic), `left_out_` (the papers in no
    cluster), `fits_poorly_` (left out, and far from the topic they joined) and `parameters_` (as used)."""

    def __init__(
        self,
        parameters: TopicParameters,
        *,
        neighbours: Neighbours,
        lexical: sparse.csr_matrix | None,
        named: np.ndarray,
        keep_outliers: bool,
        timer: StageTimer,
    ):
        """`neighbours` are the embeddings' (shared with the map); `lexical` holds each paper's unit TF-IDF row
        over its words and phrases (`PaperTerms.weighted`; None: the embeddings alone). `named` holds, per paper,
        the index of the `--topics` name it joined, or -1: named papers keep their name's topic (numbered first,
        in the names' order) and the rest are clustered."""
        self.parameters = parameters
        self.neighbours = neighbours
        self.lexical = lexical
        self.named = named
        self.keep_outliers = keep_outliers
        self.timer = timer

    def fit(self, X: np.ndarray, y: None = None) -> TopicClusters:
        params = self.parameters
        matched = sorted(set(self.named[self.named >= 0].tolist()))
        labels = np.full(len(X), -1, dtype=np.int64)
        for topic, index in enumerate(matched):
            labels[self.named == index] = topic
        rest = np.flatnonzero(self.named < 0)
        if len(rest) < len(X):  # the named papers are topics of their own: the rest get topics for their number
            params = replace(params, n_topics=topic_count(len(rest)))
        self.parameters_ = params
        with self.timer.stage("reduce"):
            graph = self._graph(X, rest, params)
        words = None if self.lexical is None or not params.lexical_weight else _rows(self.lexical, rest)
        with self.timer.stage("cluster"):
            clusters = find_clusters(graph, params, _rows(X, rest), words)
        labels[rest] = np.where(clusters >= 0, clusters + len(matched), -1)
        if (labels < 0).all():
            raise UserError(
                f"found no topics among {len(X)} papers: they are too few or too alike; "
                "add papers or lower --min-topic-size"
            )
        self.left_out_ = labels < 0
        self.fits_poorly_ = np.zeros(len(X), dtype=bool)
        # A paper left out of the clusters joins the nearest clustered topic: a named topic keeps exactly the
        # papers its name took (a drug-screening paper is not RLHF because it sits nearer RLHF than the rest).
        clustered = np.where(labels >= len(matched), labels, -1)
        labels[self.left_out_] = assign(
            X[self.left_out_], TopicModel.fit(X, clustered if (clustered >= 0).any() else labels)
        ).topic_id
        if len(rest) >= SMALL_CORPUS and (clustered >= 0).any():
            with self.timer.stage("cluster"):
                labels[rest] = len(matched) + settle(_rows(X, rest), labels[rest] - len(matched), words)
        self.fits_poorly_[self.left_out_] = assign(X[self.left_out_], TopicModel.fit(X, labels)).fits_poorly
        if self.keep_outliers:
            labels[self.fits_poorly_] = -1
        self.labels_ = labels
        return self

    def _graph(self, X: np.ndarray, rest: np.ndarray, params: TopicParameters) -> sparse.csr_matrix:
        """UMAP's fuzzy graph over the `rest` papers' embeddings, blended with the one over their words."""
        neighbours = self.neighbours if len(rest) == len(X) else nearest_neighbours(X[rest], self.neighbours.k)
        graph = neighbour_graph(_rows(X, rest), neighbours, n_neighbors=params.graph_neighbors)
        if self.lexical is None or not params.lexical_weight:
            return graph
        words = _rows(self.lexical, rest)
        lexical = neighbour_graph(words, nearest_neighbours(words, neighbours.k), n_neighbors=params.graph_neighbors)
        return ((1 - params.lexical_weight) * graph + params.lexical_weight * lexical).tocsr()


def _rows(matrix, rows: np.ndarray):
    """`matrix[rows]` for the sorted `rows`, without a copy when they are all of them (no `--topics`): at 100,000
    papers the fit sample's vectors and TF-IDF rows are 73 MB the build would hold twice through the clustering."""
    return matrix if len(rows) == matrix.shape[0] else matrix[rows]
