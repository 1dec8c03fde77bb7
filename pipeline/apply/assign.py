"""Each paper to its topic: the closest centre of the fitted `TopicModel`, flagged when it fits poorly.

Pure functions of a batch of embeddings and the model, so they run the same in-process, in
`topic-explorer add`, inside the fit (papers the clustering left out) and as Dask tasks on a cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from topic_explorer.pipeline.buildfolder.model import TopicModel


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
