"""The fitted topic model a build keeps: each topic's centre and the bar below which a paper fits it poorly.

Fitting sets it once, on the fit sample (`fit.topics`: centres are BERTopic's topic embeddings); the build
folder stores it without pickle and reads it back, and `apply.assign` assigns any batch of papers with it.
Pure numpy, so the build folder can hold it without importing a stage.
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
