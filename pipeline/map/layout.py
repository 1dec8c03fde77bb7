"""The map's layout: 2-D positions for the fit sample, from the same neighbours the topics came from."""

from __future__ import annotations

import numpy as np

from topic_explorer.pipeline.cache.store import ResultCache, read_arrays, write_arrays
from topic_explorer.pipeline.fit.reduce import Neighbours, umap_class

MAP_MIN_DIST = 0.1  # how tightly UMAP may pack points on the map (0 stacks near-duplicates)


def map_coordinates(vectors: np.ndarray, neighbours: Neighbours, *, seed: int, n_neighbors: int) -> np.ndarray:
    """UMAP to two dimensions (seeded, so the same build draws the same map), scaled into [0, 1].

    Scaled by the larger side, so the map keeps its shape.
    """
    points = umap_embed(vectors, neighbours, n_neighbors=n_neighbors, n_components=2, min_dist=MAP_MIN_DIST, seed=seed)
    low, high = points.min(axis=0), points.max(axis=0)
    return ((points - low) / (max(high - low) or 1.0)).astype(np.float32)


def remembered_map(results: ResultCache, vectors: np.ndarray, neighbours: Neighbours, *, seed: int, n_neighbors: int):
    """`map_coordinates`, or its result from the result cache; keyed by everything it takes."""
    inputs = [vectors, neighbours.indices, neighbours.distances, n_neighbors, seed]

    def compute() -> np.ndarray:
        return map_coordinates(vectors, neighbours, seed=seed, n_neighbors=n_neighbors)

    write = lambda xy, folder: write_arrays(folder, xy=xy)  # noqa: E731
    return results.run("layout", inputs, compute, write=write, read=lambda folder: read_arrays(folder)["xy"])


def umap_embed(
    vectors: np.ndarray,
    neighbours: Neighbours,
    *,
    n_neighbors: int,
    n_components: int,
    min_dist: float,
    seed: int,
) -> np.ndarray:
    """UMAP of `vectors` to `n_components` dimensions, seeded, on precomputed cosine neighbours."""
    n_neighbors = max(2, min(n_neighbors, len(vectors) - 1, neighbours.k))
    umap = umap_class()(
        n_neighbors=n_neighbors,
        n_components=min(n_components, max(1, len(vectors) - 2)),
        min_dist=min_dist,
        metric="cosine",
        random_state=seed,
        n_jobs=1,  # a seed makes UMAP single-threaded anyway; saying so silences its warning
        # Sliced copies: UMAP marks far neighbours in place, and below 4,096 points it would not
        # trim extra columns itself.
        precomputed_knn=(neighbours.indices[:, :n_neighbors].copy(), neighbours.distances[:, :n_neighbors].copy()),
    )
    return umap.fit_transform(vectors).astype(np.float32)
