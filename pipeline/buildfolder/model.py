"""The fitted topic model a build keeps (each topic's centre and the bar below which a paper fits it poorly),
and `assign`, which puts any batch of papers in their closest topics with it.

Fitting sets the model once, on the fit sample (`fit.topics`: centres are BERTopic's topic embeddings); the
build folder stores it without pickle and reads it back. Pure numpy functions of a batch of embeddings and the
model, so they run the same in-process, in `topic-explorer add`, inside the fit (papers the clustering left
out) and as Dask tasks on a cluster; and the build folder holds the model without importing a stage.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

POOR_FIT_QUANTILE = 0.05  # a paper closer to its topic than only 5% of the topic's own papers fits it poorly


@dataclass(frozen=True)
class TopicModel:
    """Topic centres (unit vectors) and, per topic, the similarity below which a paper fits it poorly."""

    topic_ids: np.ndarray  # int64 [k]
    centres: np.ndarray  # float32 [k, d]
    poor_fit_below: np.ndarray  # float32 [k]

    @classmethod
    def fit(cls, vectors: np.ndarray, topic_id: np.ndarray) -> TopicModel:
        """Centres from each topic's papers (`topic_id` per paper, >= 0); thresholds from their similarities."""
        topic_ids = np.unique(topic_id[topic_id >= 0])
        centres = np.stack([unit_centre(vectors[topic_id == t]) for t in topic_ids])
        return cls.from_centres(topic_ids, centres, vectors, topic_id)

    @classmethod
    def from_centres(cls, topic_ids: np.ndarray, centres: np.ndarray, vectors: np.ndarray, topic_id: np.ndarray):
        """Given centres (any length: they are scaled to 1), the thresholds from each topic's papers' similarities
        (`topic_id`: a paper's topic, or -1 for papers that should not set the bar)."""
        centres = np.stack([unit_centre(c[None, :]) for c in np.asarray(centres, dtype=np.float64)])
        below = [_quantile(vectors[topic_id == t] @ c) for t, c in zip(topic_ids, centres, strict=True)]
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


@dataclass(frozen=True)
class Assignment:
    """Per paper: its topic, how close it sits to the topic's centre (0-1), and whether it fits poorly."""

    topic_id: np.ndarray  # int64
    confidence: np.ndarray  # float32, cosine similarity to the topic's centre, clipped to [0, 1]
    fits_poorly: np.ndarray  # bool


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
