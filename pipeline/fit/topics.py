"""Fit the topic model on the fit sample, through BERTopic, with our sub-models in its slots.

    BERTopic(
        embedding_model   = the build's embedder (`pipeline.fit.bertopic_model.BuildEmbedder`; keyword candidates),
        umap_model        = BaseDimensionalityReduction()  (our clustering reduces by itself),
        hdbscan_model     = TopicClusters        (named topics, Ward's tree over UMAP's graph, outliers joined),
        vectorizer_model  = PaperTerms.vectorizer()  (words and phrases, each paper counted once),
        ctfidf_model      = ClassTfidfTransformer(reduce_frequent_words=True)  (BERTopic's own),
        representation_model = {"Main": KeywordsNearCentre, "Label": ReadableLabels},
    ).fit(abstracts, embeddings)

Once fitted, the model keeps BERTopic's plain sub-models in those slots (`bertopic_model.release_fit_inputs`): ours
read every paper of the fit sample, and the build holds the model until it saves it.

Fitting is the one stage that sees many papers at once; everything per paper afterwards applies its
result (`pipeline.buildfolder.model`): a paper joins the topic whose BERTopic topic embedding is closest, as
`BERTopic.transform` assigns it. Topic ids are BERTopic's: 0 is the largest topic.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.model import TopicModel
from topic_explorer.pipeline.cache.store import ResultCache
from topic_explorer.pipeline.describe.terms import DOCUMENT_END, PaperTerms, TermCounts
from topic_explorer.pipeline.fit.clusters import TopicParameters, choose_parameters
from topic_explorer.pipeline.fit.named_topics import match_named_topics
from topic_explorer.pipeline.fit.reduce import Neighbours, nearest_neighbours
from topic_explorer.pipeline.settings import BuildSettings
from topic_explorer.pipeline.timing import StageTimer

log = logging.getLogger(__name__)

DESCRIBING_ONLY = ("keywords_per_topic",)  # settings only the describing reads: a change re-describes the same topics


@dataclass(frozen=True)
class Fit:
    """What fitting found on the sample, in sample order."""

    bertopic: Any  # the fitted `bertopic.BERTopic`, or `stored.SavedBERTopic` when the fit was stored
    topic_id: np.ndarray  # int64 topic per sample paper, as papers.parquet's column (-1 only with --keep-outliers)
    left_out: np.ndarray  # bool per sample paper: the clustering put it in no cluster; it joined the nearest topic
    fits_poorly: np.ndarray  # bool per sample paper: left out, and far from the topic it joined
    topics: pd.DataFrame  # one row per topic: topic_id, label, keywords, keyword_weights, size (fit sample), named
    counts: TermCounts  # the fit sample's keyword candidates, counted per topic
    names: dict[int, str]  # topic id -> the user's name, for named topics that matched
    unmatched_names: dict[str, float]  # named topics no paper matched -> the closest paper's similarity
    model: TopicModel  # our topic model: each topic's centre and poor-fit bar, for `assign`
    parameters: TopicParameters
    neighbours: Neighbours  # of the whole sample, shared with the map's layout


def fit_topics(
    vectors: np.ndarray,
    abstracts: list[str],
    *,
    settings: BuildSettings,
    embed: Callable[[list[str]], np.ndarray],
    timer: StageTimer | None = None,
    results: ResultCache | None = None,
) -> Fit:
    """BERTopic fitted on the fit sample's embeddings and abstracts, with our clustering and naming.

    `embed` turns texts (the user's topic names, keyword candidates) into vectors with the build's embedder.
    `timer` receives 'reduce' (neighbours and UMAP), 'cluster' and 'keywords'. `results` keeps the neighbours and
    the clustering for the next fit of the same papers (`pipeline.fit.remembered`).
    """
    from bertopic import BERTopic
    from bertopic.dimensionality import BaseDimensionalityReduction
    from bertopic.vectorizers import ClassTfidfTransformer

    from topic_explorer.pipeline.describe.representation import (
        LABEL_ASPECT,
        KeywordsNearCentre,
        ReadableLabels,
        TopicDescriber,
    )
    from topic_explorer.pipeline.fit import remembered
    from topic_explorer.pipeline.fit.bertopic_model import BuildEmbedder, release_fit_inputs

    timer = timer or StageTimer()
    results = results or ResultCache(None)
    params = choose_parameters(len(vectors), settings)
    with timer.stage("reduce"):
        k = max(params.graph_neighbors, params.map_neighbors) + 1  # the map's neighbours are the first of them
        neighbours = remembered.neighbours(results, vectors, k, lambda: nearest_neighbours(vectors, k))
    match = match_named_topics(
        settings.named_topics, abstracts, vectors, embed, threshold=settings.named_topic_threshold
    )
    _warn_unmatched(match.unmatched(), settings.named_topic_threshold)
    with timer.stage("keywords"):
        terms = PaperTerms.count(abstracts)
    made_with = [abstracts, neighbours.indices, neighbours.distances, match.paper_name, params.as_dict()]
    clusters = remembered.RememberedClusters(
        topic_clusters(params, neighbours, terms, match.paper_name, settings, timer),
        results,
        [*made_with, _clustering_settings(settings)],
    )
    describer = TopicDescriber(
        abstracts, terms, vectors, embed, keywords_per_topic=settings.keywords_per_topic,
        paper_names=[match.names[j] if j >= 0 else None for j in match.paper_name.tolist()], timer=timer,
    )  # fmt: skip
    bertopic = BERTopic(
        embedding_model=BuildEmbedder(embed),
        umap_model=BaseDimensionalityReduction(),
        hdbscan_model=clusters,
        vectorizer_model=terms.vectorizer(),
        ctfidf_model=ClassTfidfTransformer(reduce_frequent_words=True),
        representation_model={"Main": KeywordsNearCentre(describer), LABEL_ASPECT: ReadableLabels(describer)},
        top_n_words=settings.keywords_per_topic,
        calculate_probabilities=False,
    )
    with warnings.catch_warnings(), timer.stage("keywords"):
        warnings.simplefilter("ignore")  # BERTopic's notes on sub-models it does not recognise
        bertopic.fit(_documents(abstracts), embeddings=vectors)
    topics = describer.described
    bertopic.set_topic_labels(dict(zip(topics["topic_id"].tolist(), topics["label"], strict=True)))
    topic_id = np.asarray(bertopic.topics_, dtype=np.int64)
    core = np.where(clusters.left_out_, -1, topic_id)  # the papers that set each topic's bar for fitting poorly
    ids = np.array(sorted(bertopic.topic_sizes_), dtype=np.int64)
    real = ids >= 0
    model = TopicModel.from_centres(ids[real], np.asarray(bertopic.topic_embeddings_)[real], vectors, core)
    names = {int(t): topics.loc[topics["topic_id"] == t, "label"].iloc[0] for t in topics["topic_id"][topics["named"]]}
    release_fit_inputs(bertopic)
    return Fit(
        bertopic=bertopic,
        topic_id=topic_id,
        left_out=clusters.left_out_,
        fits_poorly=clusters.fits_poorly_,
        topics=topics,
        counts=describer.counts,
        names=names,
        unmatched_names=match.unmatched(),
        model=model,
        parameters=clusters.parameters_,
        neighbours=neighbours,
    )


def topic_clusters(
    params: TopicParameters,
    neighbours: Neighbours,
    terms: PaperTerms,
    named: np.ndarray,
    settings: BuildSettings,
    timer: StageTimer | None = None,
):
    """Our clustering, as BERTopic's `hdbscan_model` (`TopicClusters`): its `fit(vectors).labels_` are the topics
    `fit_topics` gives, without naming them (the quality scorecard's resampled fits use it alone)."""
    from topic_explorer.pipeline.fit.cluster_model import TopicClusters

    return TopicClusters(
        params, neighbours=neighbours, lexical=terms.weighted(), named=named,
        keep_outliers=settings.keep_outliers, timer=timer or StageTimer(),
    )  # fmt: skip


def fit_inputs(vectors: np.ndarray, abstracts: list[str], settings: BuildSettings, embedder_name: str) -> list:
    """Everything `fit_topics` gives depends on, for the result cache's key of a whole fit: the vectors, the texts
    (their words blend into the clustering's graph and name the topics), every setting but the seed and how the
    work is spread, the clustering parameters those resolve to (`TopicParameters`, the words' weight included),
    and the embedder that embeds topic names and keyword candidates."""
    params = choose_parameters(len(vectors), settings)
    return [vectors, abstracts, settings.for_results(with_seed=False), params.as_dict(), embedder_name]


def _clustering_settings(settings: BuildSettings) -> dict:
    """The settings in the clustering's cache key: all the fit's (`for_results`) but `DESCRIBING_ONLY`."""
    values = settings.for_results(with_seed=False)
    return {name: value for name, value in values.items() if name not in DESCRIBING_ONLY}


def _documents(abstracts: list[str]) -> pd.Series:
    """The fit sample's abstracts as BERTopic reads them, each ended by `DOCUMENT_END`, in one Arrow string array
    that BERTopic's table of documents shares rather than copies. As a list, the ended copies were new Python
    strings held through the whole fit, at two bytes a character (`DOCUMENT_END` is not Latin-1), beside
    BERTopic's own copy: 129 and 63 MiB at 50,000 arXiv abstracts."""
    return pd.Series(abstracts, dtype="str") + DOCUMENT_END


def _warn_unmatched(unmatched: dict[str, float], threshold: float) -> None:
    for name, score in unmatched.items():
        log.warning(
            "named topic %r: no paper matched (the best scored %.2f, below the threshold %.2f); "
            "lower --named-topic-threshold to include it",
            name,
            score,
            threshold,
        )
