"""The per-paper work, applied to one batch of papers: title, embed, assign, place.

`apply_batch` is a pure function of the batch and the fitted model. The build runs it on every
batch of papers, in this process or as a Dask task (see `pipeline.apply.engine`), and `topic-explorer add`
runs it on the new papers. Fit-sample papers arrive with their topic and position already fixed by
the fit; every other paper is assigned to its nearest topic centre (as `BERTopic.transform` assigns it)
and placed among its nearest fit-sample papers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from topic_explorer.pipeline.buildfolder.model import TopicModel, assign, closeness_to_centre
from topic_explorer.pipeline.describe.titles import titles_or_derived
from topic_explorer.pipeline.embed.models import Embedder
from topic_explorer.pipeline.map.place import MapLayout, place

NOT_FIXED = -2  # in `Batch.fixed_topic`: the paper was not in the fit sample
NO_PAPER = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Batch:
    """A batch of papers: abstracts, any vectors already known (from the cache), what the fit fixed."""

    start: int  # position of the batch's first paper among the papers being applied (it names the batch)
    abstracts: list[str]
    titles: list[str]  # '' where the source has none: derived here
    vectors: np.ndarray  # float32 [n, d]; rows of NaN still to be embedded
    fixed_topic: np.ndarray  # int64 [n]: the fit's topic (-1 only with --keep-outliers), or NOT_FIXED
    fixed_poor: np.ndarray  # bool [n]: the fit found the paper fits its topic poorly (False where not fixed)
    fixed_xy: np.ndarray  # float32 [n, 2]: the fit's map position, or NaN


@dataclass(frozen=True)
class Fixed:
    """What the fit decided for its sample's papers: topics, poor fits, map positions and vectors.

    A build's fit sample, or nothing (`Fixed.none`) for the papers `add` brings: batches of either are
    made by one function, so both go through the same stages.
    """

    rows: np.ndarray  # positions of the sample among the papers being applied, sorted
    topic_id: np.ndarray  # per sample paper
    fits_poorly: np.ndarray
    xy: np.ndarray
    vectors: np.ndarray  # float32 [sample, d]

    @classmethod
    def none(cls, dimensions: int) -> Fixed:
        """No paper fixed: every paper is embedded, assigned and placed."""
        return cls(NO_PAPER, NO_PAPER, NO_PAPER.astype(bool), np.zeros((0, 2), np.float32),
                   np.zeros((0, dimensions), np.float32))  # fmt: skip

    def batch(self, start: int, abstracts: list[str], titles: list[str]) -> Batch:
        """The batch of papers from position `start`, with what the fit fixed and the vectors of its sample papers."""
        n = len(abstracts)
        where = np.full(n, -1, dtype=np.int64)
        low, high = np.searchsorted(self.rows, [start, start + n])
        where[self.rows[low:high] - start] = np.arange(low, high)
        in_sample = where >= 0
        topic = np.full(n, NOT_FIXED, dtype=np.int64)
        topic[in_sample] = self.topic_id[where[in_sample]]
        poor = np.zeros(n, dtype=bool)
        poor[in_sample] = self.fits_poorly[where[in_sample]]
        xy = np.full((n, 2), np.nan, dtype=np.float32)
        xy[in_sample] = self.xy[where[in_sample]]
        known = np.full((n, self.vectors.shape[1]), np.nan, dtype=np.float32)
        known[in_sample] = self.vectors[where[in_sample]]
        return Batch(start, abstracts, titles, known, topic, poor, xy)


@dataclass(frozen=True)
class Fitted:
    """Everything `apply_batch` needs besides the batch; shipped once to each Dask worker."""

    embedder: Embedder
    model: TopicModel
    layout: MapLayout
    keep_outliers: bool


@dataclass(frozen=True)
class BatchResult:
    """Per paper: title, vector, topic, confidence, poor-fit flag, position."""

    titles: list[str]
    vectors: np.ndarray
    embedded: np.ndarray  # bool: this vector was computed here (the caller stores it in the cache)
    topic_id: np.ndarray
    confidence: np.ndarray
    fits_poorly: np.ndarray
    xy: np.ndarray


def embed_texts(texts: list[str], embedder: Embedder) -> np.ndarray:
    """Vectors for `texts`, as a task the engine runs: a block of `embed_all`, or a batch's papers not yet embedded."""
    return embedder.transform(texts)


def apply_batch(batch: Batch, fitted: Fitted) -> BatchResult:
    """Embed what is missing, then assign and place every paper in `batch` the fit did not already decide."""
    vectors = batch.vectors.copy()
    missing = np.isnan(vectors).any(axis=1)
    if missing.any():
        vectors[missing] = embed_texts([batch.abstracts[i] for i in np.flatnonzero(missing)], fitted.embedder)
    fixed = batch.fixed_topic != NOT_FIXED
    assignment = assign(vectors, fitted.model)
    # A paper fits no topic well when it sits farther from its nearest topic's centre than almost all of that
    # topic's own papers; the fit decided it for its own papers (only those its clustering left out can).
    fits_poorly = np.where(fixed, batch.fixed_poor, assignment.fits_poorly)
    topic_id = np.where(fixed, batch.fixed_topic, assignment.topic_id)
    if fitted.keep_outliers:
        topic_id = np.where(fits_poorly, -1, topic_id)
    xy = batch.fixed_xy.copy()
    unplaced = np.isnan(xy).any(axis=1)
    if unplaced.any():
        xy[unplaced] = place(vectors[unplaced], fitted.layout)
    return BatchResult(
        titles=titles_or_derived(batch.titles, batch.abstracts),
        vectors=vectors,
        embedded=missing,
        topic_id=topic_id.astype(np.int64),
        confidence=closeness_to_centre(vectors, topic_id, fitted.model),
        fits_poorly=fits_poorly.astype(bool),
        xy=xy,
    )
