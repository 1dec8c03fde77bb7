"""Find topics with BERTopic (UMAP + HDBSCAN), with parameters fitted to the corpus size.

Stock BERTopic puts all 38 sample abstracts in the outlier topic. What changes here:
- UMAP neighbours and HDBSCAN sizes scale with the number of papers (`choose_parameters`);
  HDBSCAN's `min_samples` stays small, since its default (= min_cluster_size) collapses
  small corpora into two or three clusters and leaves many outliers;
- keywords and labels come from cleaned phrases, re-ranked by closeness to the topic
  (`pipeline.keywords`), not from BERTopic's raw word counts;
- outliers move to their nearest topic by default, flagged so nobody mistakes them for
  core members; `confidence` says how close each paper sits to its topic's centre;
- papers matched to user-named topics (`pipeline.named_topics`) form those topics and the
  rest are clustered; names no paper matched are reported instead of vanishing.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd

from pipeline.acronyms import preferred_acronyms
from pipeline.embed import Embedder
from pipeline.errors import UserError
from pipeline.keywords import TopicTerms, display_forms, keyword_min_df, topic_terms, unit_centre
from pipeline.labels import corpus_modifiers, make_labels, topic_phrases
from pipeline.named_topics import match_named_topics
from pipeline.settings import BuildSettings
from pipeline.timing import StageTimer

log = logging.getLogger(__name__)

SMALL_CORPUS = 200
GIANT_TOPIC = 0.5  # a topic holding more than this share of a larger corpus means HDBSCAN kept a
MAX_TOPIC_SHARE = 0.2  # root-level split (seen: 79% + 21% of 2,000 abstracts); refit with this cap


@dataclass(frozen=True)
class TopicParameters:
    """The resolved clustering parameters, recorded in the manifest."""

    umap_neighbors: int
    umap_components: int
    min_topic_size: int
    max_topic_size: int  # 0: no limit; set when HDBSCAN lumped most papers into one topic
    hdbscan_min_samples: int
    keyword_min_df: int


def choose_parameters(n_papers: int, settings: BuildSettings) -> TopicParameters:
    """Parameters that give a handful of topics for dozens of papers and tens for thousands."""
    if n_papers < SMALL_CORPUS:
        neighbors = int(np.clip(round(n_papers / 4), 5, 15))
        size = settings.min_topic_size or 3
        return TopicParameters(neighbors, 10, size, 0, 1, keyword_min_df(n_papers))
    size = settings.min_topic_size or max(5, round(np.sqrt(n_papers) / 2))
    return TopicParameters(15, 5, size, 0, max(1, size // 5), keyword_min_df(n_papers))


@dataclass
class Topics:
    """Per-paper assignments and the topic table, in paper order."""

    topic_id: np.ndarray  # int, -1 only when outliers are kept
    was_outlier: np.ndarray  # bool: the clustering left this paper out
    confidence: np.ndarray  # float in [0, 1]
    table: pd.DataFrame  # topic_id, label, keywords, keyword_weights, size, named
    unmatched_names: dict[str, float]  # named topics no paper matched -> the best paper's score
    parameters: TopicParameters

    def parameters_dict(self) -> dict:
        return asdict(self.parameters)


def find_topics(
    abstracts: list[str],
    embeddings: np.ndarray,
    *,
    settings: BuildSettings,
    embedder: Embedder,
    timer: StageTimer | None = None,
) -> Topics:
    """Cluster `embeddings` into topics and describe each with keywords and a label.

    `timer` receives the stages 'reduce' (UMAP), 'cluster' (HDBSCAN and the rest of
    BERTopic's fit, outliers included) and 'keywords'.
    """
    timer = timer or StageTimer()
    from bertopic import BERTopic
    from umap import UMAP

    named = match_named_topics(
        settings.named_topics, abstracts, embeddings, embedder.transform, threshold=settings.named_topic_threshold
    )
    matched = sorted(set(named.paper_name[named.paper_name >= 0].tolist()))
    names = {topic: settings.named_topics[j] for topic, j in enumerate(matched)}  # named topics come first
    rest = np.flatnonzero(named.paper_name < 0)  # clustered as usual
    params = choose_parameters(len(rest), settings)
    clusterer = _clusterer(params)
    # BERTopic's own keywords go unused: `pipeline.keywords.topic_terms` recomputes them after outliers move.
    model = BERTopic(
        umap_model=timer.watch(
            UMAP(
                n_neighbors=params.umap_neighbors,
                n_components=params.umap_components,
                min_dist=0.0,
                metric="cosine",
                random_state=settings.seed,
            ),
            "reduce",
        ),
        hdbscan_model=clusterer,
        language=None,
    )
    rest_abstracts = [abstracts[i] for i in rest]
    with timer.stage("cluster"):  # UMAP inside is timed as "reduce"
        clustered, _ = model.fit_transform(rest_abstracts, embeddings[rest])
    clustered = np.asarray(clustered)
    params = replace(params, max_topic_size=clusterer.max_cluster_size)
    if (clustered == -1).all() and not names:
        raise UserError(
            f"found no topics among {len(abstracts)} papers: they are too few or too alike; "
            "add papers or lower --min-topic-size"
        )
    was_outlier = np.zeros(len(abstracts), dtype=bool)
    was_outlier[rest] = clustered == -1
    if was_outlier.any() and not settings.keep_outliers and (clustered >= 0).any():
        with timer.stage("cluster"):
            clustered = np.asarray(
                model.reduce_outliers(
                    rest_abstracts, list(clustered), embeddings=embeddings[rest], strategy="embeddings"
                )
            )
    assigned = np.array([matched.index(j) if j >= 0 else -1 for j in named.paper_name])
    assigned[rest] = np.where(clustered >= 0, clustered + len(names), -1)
    if (assigned == -1).any() and not settings.keep_outliers:  # the clustering found nothing: named topics take them
        assigned = _to_nearest_topic(embeddings, assigned)
    with timer.stage("keywords"):
        terms = topic_terms(abstracts, assigned, embeddings, embedder.transform, top_n=settings.keywords_per_topic)
        table = _topic_table(assigned, abstracts, terms, names)
    closest = named.unmatched()
    for name, score in closest.items():
        log.warning(
            "named topic %r: no paper matched (the best scored %.2f, below the threshold %.2f); "
            "lower --named-topic-threshold to include it",
            name,
            score,
            settings.named_topic_threshold,
        )
    return Topics(
        topic_id=assigned.astype(np.int64),
        was_outlier=was_outlier,
        confidence=closeness_to_centre(embeddings, assigned),
        table=table,
        unmatched_names=closest,
        parameters=params,
    )


def _clusterer(params: TopicParameters):
    """HDBSCAN that refits with a size cap when it lumps most of a larger corpus into one topic."""
    from hdbscan import HDBSCAN

    class NoGiantTopicHDBSCAN(HDBSCAN):
        def fit(self, X, y=None):
            super().fit(X, y)
            clustered = self.labels_[self.labels_ >= 0]
            largest = np.bincount(clustered).max() if len(clustered) else 0
            if len(X) >= SMALL_CORPUS and largest > GIANT_TOPIC * len(X) and not self.max_cluster_size:
                self.max_cluster_size = int(MAX_TOPIC_SHARE * len(X))
                super().fit(X, y)
            return self

    return NoGiantTopicHDBSCAN(
        min_cluster_size=params.min_topic_size,
        min_samples=params.hdbscan_min_samples,
        max_cluster_size=params.max_topic_size,
        metric="euclidean",
        cluster_selection_method="eom",
    )


def _to_nearest_topic(embeddings: np.ndarray, topic_id: np.ndarray) -> np.ndarray:
    """Each paper of topic -1 moved to the topic whose centre is closest."""
    topics = np.unique(topic_id[topic_id >= 0])
    centres = np.stack([unit_centre(embeddings[topic_id == t]) for t in topics])
    nearest = topics[(embeddings @ centres.T).argmax(axis=1)]
    return np.where(topic_id >= 0, topic_id, nearest)


def closeness_to_centre(embeddings: np.ndarray, topic_id: np.ndarray) -> np.ndarray:
    """Cosine similarity between each paper and its topic's mean embedding, clipped to [0, 1].

    Papers in topic -1 (kept outliers) get 0.
    """
    confidence = np.zeros(len(topic_id), dtype=np.float64)
    for topic in np.unique(topic_id[topic_id >= 0]):
        members = topic_id == topic
        confidence[members] = embeddings[members] @ unit_centre(embeddings[members])
    return np.clip(confidence, 0.0, 1.0)


def _topic_table(
    assigned: np.ndarray, abstracts: list[str], terms: dict[int, TopicTerms], names: dict[int, str]
) -> pd.DataFrame:
    topic_ids = sorted(terms)
    forms = display_forms(abstracts, {w for t in terms.values() for w, _ in [*t.keywords, *t.naming]})
    shown = {t: [forms[w] for w, _ in terms[t].keywords] for t in topic_ids}
    naming = [[(forms[w], score) for w, score in terms[t].naming] for t in topic_ids]
    phrases = topic_phrases(abstracts, assigned.tolist(), topic_ids)
    acronyms = preferred_acronyms(abstracts, [term for ranked in naming for term, _ in ranked])
    made = make_labels(naming, acronyms=acronyms, modifiers=corpus_modifiers(abstracts), phrases=phrases)
    labels = dict(zip(topic_ids, made, strict=True))
    labels.update(names)
    if -1 in labels:
        labels[-1] = "Outliers (no topic)"
    sizes = pd.Series(assigned).value_counts()
    return pd.DataFrame(
        {
            "topic_id": topic_ids,
            "label": [labels[t] for t in topic_ids],
            "keywords": [shown[t] for t in topic_ids],
            "keyword_weights": [[s for _, s in terms[t].keywords] for t in topic_ids],
            "size": [int(sizes[t]) for t in topic_ids],
            "named": [t in names for t in topic_ids],
        }
    )
