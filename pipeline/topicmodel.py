"""The fitted model a build keeps, and the per-paper stages that apply it to any batch of papers.

Fitting (UMAP + HDBSCAN, the map's layout) runs once, on the fit sample. What it leaves behind is
small and stored in the build, without pickle:
- `TopicModel`: each topic's centre in embedding space and how close its own papers sit to it;
- `MapLayout`: the fit sample's embeddings and map positions, which new papers are placed among.

`assign` and `place` are pure functions of a batch of embeddings and the model, so they run the
same in-process, in `topic-explorer add`, and as Dask tasks on a cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

POOR_FIT_QUANTILE = 0.05  # a paper closer to its topic than only 5% of the topic's own papers fits it poorly
PLACE_NEIGHBOURS = 10  # a new paper is placed among this many nearest fit-sample papers
PLACE_SHARPNESS = 0.02  # softmax temperature over their cosine similarities: the closest dominate
PLACE_ROWS = 256  # papers placed at once: 256 x 50,000 similarities take about 200 MB


@dataclass(frozen=True)
class Assignment:
    """Per paper: its topic, how close it sits to the topic's centre (0-1), and whether it fits poorly."""

    topic_id: np.ndarray  # int64
    confidence: np.ndarray  # float32, cosine similarity to the topic's centre, clipped to [0, 1]
    fits_poorly: np.ndarray  # bool


@dataclass(frozen=True)
class TopicModel:
    """Topic centres (unit vectors) and, per topic, the similarity below which a paper fits it poorly."""

    topic_ids: np.ndarray  # int64 [k]
    centres: np.ndarray  # float32 [k, d]
    poor_fit_below: np.ndarray  # float32 [k]

    @classmethod
    def fit(cls, vectors: np.ndarray, labels: np.ndarray) -> TopicModel:
        """Centres from each topic's papers (label >= 0); thresholds from their similarities."""
        topic_ids = np.unique(labels[labels >= 0])
        centres = np.stack([unit_centre(vectors[labels == t]) for t in topic_ids])
        return cls.from_centres(topic_ids, centres, vectors, labels)

    @classmethod
    def from_centres(cls, topic_ids: np.ndarray, centres: np.ndarray, vectors: np.ndarray, labels: np.ndarray):
        """Given centres (any length: they are scaled to 1), the thresholds from each topic's papers' similarities
        (`labels`: a paper's topic, or -1 for papers that should not set the bar)."""
        centres = np.stack([unit_centre(c[None, :]) for c in np.asarray(centres, dtype=np.float64)])
        below = [_quantile(vectors[labels == t] @ c) for t, c in zip(topic_ids, centres, strict=True)]
        return cls(
            np.asarray(topic_ids, dtype=np.int64), centres.astype(np.float32), np.asarray(below, dtype=np.float32)
        )


def _quantile(similarities: np.ndarray) -> float:
    """The bar below which a paper fits a topic poorly; -1 (nothing below) for a topic without such papers."""
    return float(np.quantile(similarities, POOR_FIT_QUANTILE)) if len(similarities) else -1.0


def unit_centre(vectors: np.ndarray) -> np.ndarray:
    """The mean of `vectors`, scaled to length 1: a topic's centre, for cosine similarities."""
    centre = vectors.mean(axis=0)
    return centre / (np.linalg.norm(centre) or 1.0)


def assign(vectors: np.ndarray, model: TopicModel) -> Assignment:
    """Each paper to the topic whose centre is most similar; flagged when it fits that topic poorly."""
    similarity = vectors @ model.centres.T
    best = similarity.argmax(axis=1)
    closeness = similarity[np.arange(len(vectors)), best]
    return Assignment(
        topic_id=model.topic_ids[best],
        confidence=np.clip(closeness, 0.0, 1.0).astype(np.float32),
        fits_poorly=closeness < model.poor_fit_below[best],
    )


def closeness_to_centre(vectors: np.ndarray, topic_id: np.ndarray, model: TopicModel) -> np.ndarray:
    """Cosine similarity between each paper and its own topic's centre, clipped to [0, 1]; 0 in topic -1."""
    rows = {int(t): i for i, t in enumerate(model.topic_ids)}
    confidence = np.zeros(len(topic_id), dtype=np.float32)
    for topic in np.unique(topic_id[topic_id >= 0]):
        members = topic_id == topic
        confidence[members] = vectors[members] @ model.centres[rows[int(topic)]]
    return np.clip(confidence, 0.0, 1.0)


@dataclass(frozen=True)
class MapLayout:
    """The fit sample's embeddings and map positions: the reference new papers are placed among."""

    vectors: np.ndarray  # float32 [m, d]
    xy: np.ndarray  # float32 [m, 2]


def place(vectors: np.ndarray, layout: MapLayout) -> np.ndarray:
    """Map positions for new papers: the similarity-weighted mean position of their nearest fit-sample papers.

    A paper that repeats a fit-sample paper lands on it; one between two topics lands between them.
    """
    if not len(vectors):
        return np.zeros((0, 2), dtype=np.float32)
    k = min(PLACE_NEIGHBOURS, len(layout.vectors))
    placed = []
    for start in range(0, len(vectors), PLACE_ROWS):  # a whole batch against 50,000 papers would take 1.6 GB
        similarity = vectors[start : start + PLACE_ROWS] @ layout.vectors.T
        nearest = np.argpartition(-similarity, k - 1, axis=1)[:, :k]
        close = np.take_along_axis(similarity, nearest, axis=1)
        weights = np.exp((close - close.max(axis=1, keepdims=True)) / PLACE_SHARPNESS)
        weights /= weights.sum(axis=1, keepdims=True)
        placed.append(np.einsum("nk,nkd->nd", weights, layout.xy[nearest]))
    return np.concatenate(placed).astype(np.float32)
