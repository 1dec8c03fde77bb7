"""The per-batch loops `build`, `add` and the Dask path share: papers (`apply_all`) and texts alone (`embed_all`).

Each batch is looked up in the embedding cache, sent through `apply_batch` by the engine (here or
on a Dask worker), and its new vectors stored in the cache under the batch's *own* texts: the
engine hands every result back beside the batch it came from, so nothing is matched by a count.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from topic_explorer.pipeline.apply.batches import NOT_FIXED, Batch, BatchResult, Fitted, apply_batch, embed_batch
from topic_explorer.pipeline.apply.engine import Engine, InProcess
from topic_explorer.pipeline.embed.cache import CacheStats, EmbeddingCache
from topic_explorer.pipeline.embed.models import Embedder

BATCH_SIZE = 128  # texts per embedding task, cache write and progress update in `embed_all`
PROGRESS_FROM = 100  # smaller jobs (a few topic names) finish before a bar would help

log = logging.getLogger(__name__)


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


def embed_all(
    texts: list[str],
    embedder: Embedder,
    cache: EmbeddingCache,
    *,
    engine: Engine | None = None,
    progress: bool = False,
    stats: CacheStats | None = None,
) -> np.ndarray:
    """Vectors for `texts`: from the cache where it has them, from the embedder (via `engine`) otherwise."""
    from tqdm.auto import tqdm

    engine = engine or InProcess()
    unique = list(dict.fromkeys(texts))
    vectors = dict(zip(unique, cache.get(unique), strict=True))
    missing = [text for text, vector in vectors.items() if vector is None]
    bar = tqdm(
        total=len(missing), desc="Embedding", unit="text", disable=not (progress and len(missing) >= PROGRESS_FROM)
    )
    blocks = [missing[start : start + BATCH_SIZE] for start in range(0, len(missing), BATCH_SIZE)]
    for block, block_vectors in engine.map(embed_batch, blocks, embedder=embedder):
        cache.put(block, block_vectors)
        vectors.update(zip(block, block_vectors, strict=True))
        bar.update(len(block))
    bar.close()
    if stats is not None:
        stats.embedded += len(missing)
        stats.reused += len(unique) - len(missing)
    log.debug("embeddings: %d reused from cache, %d computed", len(unique) - len(missing), len(missing))
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([vectors[text] for text in texts]).astype(np.float32, copy=False)
