"""UMAP's graph and layouts, made cheap: neighbours found once and shared, compiled code kept on disk.

The clustering reads UMAP's fuzzy neighbour graph through its spectral layout (deterministic); the map
(`pipeline.map.layout`) is UMAP's seeded 2-D layout of the same graph.

Two costs dominated small builds and every new process:
- umap-learn compiles its numba functions in every new process (8-20 s) and asks numba to cache
  only a few of them; `umap_class` turns numba's on-disk cache on for the rest, so only the very
  first run on a machine pays (measured: a 38-paper fit from 8.5 s to 0.1 s in a new process);
- from 4,096 points UMAP finds neighbours with pynndescent, whose functions are compiled anew in
  every process (25-40 s at 5,000 papers). `nearest_neighbours` finds them exactly instead, by
  brute-force cosine similarity (1 s at 5,000 papers, about 15 s at 50,000), and the same
  neighbours serve the clustering's reduction and the map's layout.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy import sparse

log = logging.getLogger(__name__)

# scikit-learn's working memory for the neighbour search, in MB: it finds the neighbours of as many papers at a
# time as their distances to every paper fit in it. Its default (1,024) peaked at 1.8 GB for 19,308 papers; at
# 128 the neighbours and their distances were the same, bit for bit, found in half the CPU time (6.2-6.4 s against
# 11.5-12.7 s, interleaved runs on 128-dimensional vectors). Chunks of a few rows would change distances by float
# rounding (other BLAS kernels).
NEIGHBOUR_SEARCH_MB = 128
# The same for sparse rows (the words' TF-IDF, `pipeline.describe.terms`): scikit-learn budgets 8 bytes per distance
# but holds the chunk's sparse product, its dense copy and argpartition's int64 indices, more than the budget. A
# sparse product sums each row alone, so any chunk gives the same neighbours and distances, bit for bit. At 50,000
# arXiv papers the search rose 91 MiB above its start at 128, 4 at 64 or 32; each chunk also normalises and
# transposes every row again: 53, 67 and 85 CPU seconds.
SPARSE_NEIGHBOUR_SEARCH_MB = 64


@dataclass(frozen=True)
class Neighbours:
    """Each point's nearest neighbours, itself first: row indices and cosine distances."""

    indices: np.ndarray  # int64 [n, k]
    distances: np.ndarray  # float32 [n, k], ascending

    @property
    def k(self) -> int:
        return self.indices.shape[1]


def nearest_neighbours(
    vectors: np.ndarray | sparse.csr_matrix, k: int, *, working_memory_mb: float | None = None
) -> Neighbours:
    """The `k` nearest points to each point (itself included) by cosine distance, exactly.

    `vectors`: a dense array or sparse rows; `working_memory_mb` bounds each chunk's distances (by default
    `NEIGHBOUR_SEARCH_MB`, or `SPARSE_NEIGHBOUR_SEARCH_MB` for sparse rows).
    """
    import sklearn
    from scipy import sparse
    from sklearn.neighbors import NearestNeighbors

    if working_memory_mb is None:
        working_memory_mb = SPARSE_NEIGHBOUR_SEARCH_MB if sparse.issparse(vectors) else NEIGHBOUR_SEARCH_MB
    k = min(k, vectors.shape[0])
    index = NearestNeighbors(n_neighbors=k, metric="cosine", algorithm="brute").fit(vectors)
    with sklearn.config_context(working_memory=working_memory_mb):
        distances, indices = index.kneighbors(vectors)
    return Neighbours(indices.astype(np.int64), np.maximum(distances, 0).astype(np.float32))


def neighbour_graph(vectors: np.ndarray, neighbours: Neighbours, *, n_neighbors: int):
    """UMAP's fuzzy neighbour graph (a symmetric sparse matrix of edge weights) over the exact neighbours."""
    umap_class()  # numba's disk cache on
    from umap.umap_ import fuzzy_simplicial_set

    n_neighbors = max(2, min(n_neighbors, vectors.shape[0] - 1, neighbours.k))
    graph, _, _ = fuzzy_simplicial_set(
        vectors, n_neighbors, np.random.RandomState(0), "cosine",  # the state is unused with given neighbours
        knn_indices=neighbours.indices[:, :n_neighbors].copy(), knn_dists=neighbours.distances[:, :n_neighbors].copy(),
    )  # fmt: skip
    return graph.tocsr()


def spectral_layout(graph, n_components: int) -> np.ndarray:
    """A connected graph laid out by its normalised Laplacian's eigenvectors: UMAP's own spectral
    initialisation, deterministic (its random start only seeds the eigensolver, which converges alike)."""
    from umap.spectral import spectral_layout as laplacian_layout

    n = graph.shape[0]
    dims = min(n_components, n - 2)
    if dims < 1:
        return np.zeros((n, 1))
    return np.asarray(laplacian_layout(None, graph, dims, np.random.RandomState(0)), dtype=np.float64)


def umap_class() -> type:
    """umap-learn's UMAP, with numba's on-disk cache on for every function it compiles."""
    import umap

    if not getattr(umap, "_topic_explorer_cached", False):
        _cache_compiled_code("umap")
        umap._topic_explorer_cached = True
    return umap.UMAP


def _cache_compiled_code(package: str) -> None:
    """Ask numba to keep the compiled code of `package`'s functions on disk.

    Numba writes next to the package (or in its user-wide cache when that is read-only) and checks
    the source's timestamp, so an upgraded umap-learn is compiled afresh.
    """
    from numba.core.dispatcher import Dispatcher

    enabled = 0
    for name, module in list(sys.modules.items()):
        if name != package and not name.startswith(package + "."):
            continue
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and type(value._cache).__name__ == "NullCache":
                value.enable_caching()
                enabled += 1
    log.debug("numba cache enabled for %d functions of %s", enabled, package)
