"""The per-batch loops `build`, `add` and the Dask path share: papers (`apply_papers`, `apply_all`) and texts
alone (`embed_all`).

`apply_papers` turns batches of ingested papers into the rows the build folder stores (`paper_rows`): a
build's papers and the papers `add` brings are made into rows by the same two functions.

Each batch is looked up in the embedding cache, sent through `apply_batch` by the engine (here or
on a Dask worker), and its new vectors stored in the cache under the batch's *own* texts: the
engine hands every result back beside the batch it came from, so nothing is matched by a count.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from topic_explorer.pipeline.apply.batches import (
    NOT_FIXED,
    Batch,
    BatchResult,
    Fitted,
    Fixed,
    apply_batch,
    embed_texts,
)
from topic_explorer.pipeline.apply.engine import Engine, InProcess
from topic_explorer.pipeline.buildfolder.schema import STORED_PAPER_COLUMNS
from topic_explorer.pipeline.embed.cache import CacheStats, EmbeddingCache
from topic_explorer.pipeline.embed.models import Embedder

BLOCK_TEXTS = 128  # texts per block in `embed_all`: one embedding task, cache write and progress update
PROGRESS_FROM = 100  # smaller jobs (a few topic names) finish before a bar would help

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AppliedPapers:
    """One batch of papers as the build folder stores them, with their vectors."""

    rows: pd.DataFrame  # STORED_PAPER_COLUMNS, then the batch's metadata columns
    vectors: np.ndarray
    titles_derived: int  # papers whose source gave no title


def apply_papers(
    papers: Iterable[pd.DataFrame],
    fitted: Fitted,
    fixed: Fixed,
    *,
    engine: Engine,
    cache: EmbeddingCache,
    stats: CacheStats,
    progress: tuple[str, int] | None = None,
) -> Iterator[AppliedPapers]:
    """Batches of ingested papers (paper_id, title or '', abstract, metadata) as stored rows, in order.

    `fixed` holds what the fit decided for its sample (positions count papers across the batches);
    `progress` is a bar's description and total, the papers outside the sample.
    """
    from tqdm.auto import tqdm

    held: dict[int, pd.DataFrame] = {}  # each batch's papers (metadata stays here), by the batch's start

    def batches() -> Iterator[Batch]:
        start = 0
        for frame in papers:
            held[start] = frame
            yield fixed.batch(start, frame["abstract"].tolist(), frame["title"].tolist())
            start += len(frame)

    description, total = progress or ("", 0)
    with tqdm(total=total, desc=description, unit="paper", disable=not total) as bar:
        for batch, result in apply_all(batches(), fitted, engine=engine, cache=cache, stats=stats, on_done=bar.update):
            frame = held.pop(batch.start)
            rows = paper_rows(frame, result, batch.fixed_topic != NOT_FIXED)
            yield AppliedPapers(rows, result.vectors, int((frame["title"] == "").sum()))


def paper_rows(papers: pd.DataFrame, result: BatchResult, in_sample: np.ndarray) -> pd.DataFrame:
    """The stored rows of a batch of ingested `papers`: the stages' results, then the papers' metadata."""
    core = pd.DataFrame(
        {
            "paper_id": papers["paper_id"].to_numpy(),
            "title": result.titles,
            "abstract": papers["abstract"].to_numpy(),
            "topic_id": result.topic_id,
            "confidence": result.confidence.round(4),
            "fits_poorly": result.fits_poorly,
            "fit_sample": in_sample,
            "x": result.xy[:, 0],
            "y": result.xy[:, 1],
        }
    )
    assert list(core.columns) == list(STORED_PAPER_COLUMNS)
    metadata_columns = [c for c in papers.columns if c not in ("paper_id", "title", "abstract")]
    return pd.concat([core, papers[metadata_columns].reset_index(drop=True)], axis=1)


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
    blocks = [missing[start : start + BLOCK_TEXTS] for start in range(0, len(missing), BLOCK_TEXTS)]
    for block, block_vectors in engine.map(embed_texts, blocks, embedder=embedder):
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
