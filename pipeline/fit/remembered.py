"""The fit's inner results through the result cache (`pipeline.cache`), each keyed here, beside the fit.

What each key holds:
- neighbours: the vectors and how many neighbours;
- clusters (BERTopic's clustering model): the vectors, the texts, their neighbours, the papers matched to named
  topics, the clustering parameters and the settings the topics depend on.
Both are called from inside BERTopic's fit; the whole fit is kept by `fit.stored`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from topic_explorer.pipeline.cache.store import ResultCache, read_arrays, read_values, write_arrays, write_values
from topic_explorer.pipeline.fit.clusters import TopicParameters
from topic_explorer.pipeline.fit.reduce import Neighbours


def neighbours(results: ResultCache, vectors: np.ndarray, k: int, compute: Callable[[], Neighbours]) -> Neighbours:
    """`compute()` (the `k` nearest neighbours of `vectors`), or its stored result."""

    def write(found: Neighbours, folder: Path) -> None:
        write_arrays(folder, indices=found.indices, distances=found.distances)

    def read(folder: Path) -> Neighbours:
        arrays = read_arrays(folder)
        return Neighbours(arrays["indices"], arrays["distances"])

    return results.run("neighbours", [vectors, k], compute, write=write, read=read)


class RememberedClusters:
    """A clustering model for BERTopic's `hdbscan_model` slot: `clustering`'s fit, or its stored result.

    `inputs` are what the clustering was made with besides the vectors it is fitted on; after `fit` it has the
    attributes fitting reads (`labels_`, `left_out_`, `fits_poorly_`, `parameters_`).
    """

    def __init__(self, clustering, results: ResultCache, inputs: list):
        self.clustering = clustering
        self.results = results
        self.inputs = inputs

    def fit(self, X: np.ndarray, y: None = None) -> RememberedClusters:
        def compute():
            return self.clustering.fit(X)

        def write(fitted, folder: Path) -> None:
            write_arrays(folder, labels=fitted.labels_, left_out=fitted.left_out_, fits_poorly=fitted.fits_poorly_)
            write_values(folder, {"parameters": fitted.parameters_.as_dict()})

        def read(folder: Path) -> SimpleNamespace:  # the fitted attributes, as a fitted model has them
            arrays, values = read_arrays(folder), read_values(folder)
            return SimpleNamespace(
                labels_=arrays["labels"],
                left_out_=arrays["left_out"],
                fits_poorly_=arrays["fits_poorly"],
                parameters_=TopicParameters(**values["parameters"]),
            )

        fitted = self.results.run("clusters", [X, *self.inputs], compute, write=write, read=read)
        self.labels_, self.left_out_ = fitted.labels_, fitted.left_out_
        self.fits_poorly_, self.parameters_ = fitted.fits_poorly_, fitted.parameters_
        return self
