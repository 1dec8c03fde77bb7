"""The one per-batch loop that `build`, `add` and the Dask path share.

Each batch is looked up in the embedding cache, sent through `apply_batch` by the engine (here or
on a Dask worker), and its new vectors stored in the cache under the batch's *own* texts: the
engine hands every result back beside the batch it came from, so nothing is matched by a count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

from topic_explorer.pipeline.apply.batches import NOT_FIXED, Batch, BatchResult, Fitted, apply_batch
from topic_explorer.pipeline.apply.engine import Engine
from topic_explorer.pipeline.embed.cache import CacheStats, EmbeddingCache


def apply_all(
    batches: Iterable[Batch],
    fitted: Fitted,
    *,
    engine: Engine,
    cache: EmbeddingCache,
    stats: CacheStats,
    on_done: Callable[[int], None] = lambda papers: None,
) -> Iterator[tuple[Batch, BatchResult]]:
    """Every batch through `apply_batch`, cache first; yields each batch with its result, in order.

    Papers the fit already placed (`fixed_topic != NOT_FIXED`) arrive with their vectors and are
    neither looked up nor counted; `on_done` gets the number of the others after each batch
    (a progress bar's update).
    """

    def looked_up() -> Iterator[Batch]:
        for batch in batches:
            cache.fill(batch.abstracts, batch.vectors, np.flatnonzero(np.isnan(batch.vectors).any(axis=1)))
            yield batch

    for batch, result in engine.map(apply_batch, looked_up(), fitted=fitted):
        outside_fit = int((batch.fixed_topic == NOT_FIXED).sum())
        cache.keep_new(batch.abstracts, result.vectors, result.embedded, outside_fit, stats)
        on_done(outside_fit)
        yield batch, result
