"""UMAP with shared exact neighbours and numba's compiled code kept on disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.fit import reduce
from topic_explorer.pipeline.fit.reduce import nearest_neighbours, umap_class
from topic_explorer.pipeline.map.layout import umap_embed

ROOT = Path(__file__).resolve().parents[2]


def test_neighbours_are_exact_nearest_by_cosine_with_each_point_first():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(50, 8)).astype(np.float32)
    neighbours = nearest_neighbours(vectors, 6)
    assert neighbours.indices[:, 0].tolist() == list(range(50))
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    expected = np.argsort(-(unit @ unit.T), axis=1)[:, :6]
    np.testing.assert_array_equal(neighbours.indices, expected)
    assert (np.diff(neighbours.distances, axis=1) >= -1e-6).all()


def test_neighbours_found_a_few_papers_at_a_time_are_the_same():
    """The same neighbours; their distances equal to float rounding (a few rows at a time take other BLAS kernels,
    which sum in another order; chunks of hundreds of rows gave the same bits at 19,308 papers)."""
    vectors = np.random.default_rng(1).normal(size=(300, 16)).astype(np.float32)
    whole = nearest_neighbours(vectors, 8)  # 300 papers' distances fit in the working memory at once
    chunked = nearest_neighbours(vectors, 8, working_memory_mb=300 * 8 * 7 / 2**20)  # 7 papers' distances at a time
    np.testing.assert_array_equal(chunked.indices, whole.indices)
    np.testing.assert_allclose(chunked.distances, whole.distances, rtol=0, atol=1e-6)


def test_sparse_rows_found_a_few_papers_at_a_time_are_the_same_bit_for_bit():
    """The words' TF-IDF rows are searched in smaller chunks than dense vectors: a sparse product sums each row
    alone, so the chunk changes neither the neighbours nor a bit of their distances."""
    rows = sparse.random(300, 80, density=0.05, format="csr", dtype=np.float32, random_state=2)
    whole = nearest_neighbours(rows, 8, working_memory_mb=300 * 8 * 300 / 2**20)  # every distance at once
    chunked = nearest_neighbours(rows, 8, working_memory_mb=300 * 8 * 7 / 2**20)  # 7 papers' distances at a time
    by_default = nearest_neighbours(rows, 8)
    np.testing.assert_array_equal(chunked.indices, whole.indices)
    np.testing.assert_array_equal(chunked.distances, whole.distances)
    np.testing.assert_array_equal(by_default.distances, whole.distances)


def test_sparse_rows_are_searched_within_a_smaller_working_memory_than_dense_vectors(monkeypatch):
    import sklearn

    budgets, context = [], sklearn.config_context

    def recording(**options):
        budgets.append(options["working_memory"])
        return context(**options)

    monkeypatch.setattr(sklearn, "config_context", recording)
    nearest_neighbours(np.eye(5, dtype=np.float32), 2)
    nearest_neighbours(sparse.eye(5, dtype=np.float32, format="csr"), 2)
    assert budgets == [reduce.NEIGHBOUR_SEARCH_MB, reduce.SPARSE_NEIGHBOUR_SEARCH_MB]
    assert reduce.SPARSE_NEIGHBOUR_SEARCH_MB < reduce.NEIGHBOUR_SEARCH_MB


def test_umap_keeps_its_compiled_code_on_disk():
    from numba.core.dispatcher import Dispatcher

    umap_class()
    import umap.umap_

    compiled = [v for v in vars(umap.umap_).values() if isinstance(v, Dispatcher)]
    assert compiled
    assert all(type(f._cache).__name__ != "NullCache" for f in compiled)


def test_the_same_neighbours_and_seed_give_the_same_layout():
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(60, 16)).astype(np.float32)
    neighbours = nearest_neighbours(vectors, 11)
    first = umap_embed(vectors, neighbours, n_neighbors=10, n_components=2, min_dist=0.1, seed=4)
    again = umap_embed(vectors, neighbours, n_neighbors=10, n_components=2, min_dist=0.1, seed=4)
    np.testing.assert_array_equal(first, again)
    assert neighbours.indices[0, 0] == 0  # UMAP marks far neighbours in place: ours stay untouched


@pytest.mark.slow
def test_a_build_with_freshly_compiled_code_equals_one_from_the_disk_cache(tmp_path):
    """numba compiles afresh into an empty cache folder (about a minute); the topics must not change."""

    def build(out: Path, env: dict[str, str]) -> Path:
        command = [
            sys.executable,
            "-m",
            "topic_explorer.pipeline.cli",
            "build",
            "--out",
            str(out),
            "--embedder",
            "tfidf",
            "--quiet",
        ]
        subprocess.run(command, cwd=ROOT, env={**os.environ, **env}, check=True)
        return out

    cold = read_build(build(tmp_path / "cold", {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}))
    warm = read_build(build(tmp_path / "warm", {}))
    pd.testing.assert_frame_equal(cold.papers, warm.papers)
    pd.testing.assert_frame_equal(cold.topics, warm.topics)
