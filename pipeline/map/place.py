"""New papers placed on the map among the fit sample's papers, whose positions the layout drew.

`place` is a pure function of a batch of embeddings and the `MapLayout`, so it runs the same in-process, in
`topic-explorer add`, and as Dask tasks on a cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PLACE_NEIGHBOURS = 10  # a new paper is placed among this many nearest fit-sample papers
PLACE_SHARPNESS = 0.02  # softmax temperature over their cosine similarities: the closest dominate
# Papers placed at once. Against 50,000 fit-sample papers the similarities, their negation and argpartition's
# copy and indices take 293 MiB at 256 rows: that was a 100,000-paper build's peak (assign, 2,514 MiB). At 128:
# 146 MiB, the same positions bit for bit, 13% more CPU in `place` (3.5 s against 3.1 s per 6,000 papers).
PLACE_ROWS = 128


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
