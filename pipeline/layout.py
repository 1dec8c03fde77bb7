"""2-D map coordinates for the dashboard, from the same embeddings the topics came from."""

from __future__ import annotations

import numpy as np


def map_coordinates(embeddings: np.ndarray, *, seed: int, neighbors: int) -> np.ndarray:
    """UMAP to two dimensions (seeded, so the same build draws the same map).

    Scaled into [0, 1] by the larger side, so the map keeps its shape.
    """
    from umap import UMAP

    points = UMAP(
        n_neighbors=min(neighbors, len(embeddings) - 1),
        n_components=2,
        min_dist=0.1,
        metric="cosine",
        random_state=seed,
    ).fit_transform(embeddings)
    low, high = points.min(axis=0), points.max(axis=0)
    return ((points - low) / (max(high - low) or 1.0)).astype(np.float32)
