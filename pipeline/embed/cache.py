"""An on-disk embedding cache, so a rebuild embeds only texts it has not seen.

Entries are keyed by the embedder's name (model, windowing and precision) and the SHA-256 of the exact
text, so a changed text, model or precision (bf16 vectors differ from fp32's) never reuses a stale vector.
Storage is `diskcache` (SQLite underneath), safe to share between processes. The cache stays with the
process that runs the build: the loops in `pipeline.apply.loop` look it up before texts go to the embedder (here or on
Dask workers) and fill it as their vectors come back, batch by batch, so an interrupted run keeps its work.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from topic_explorer.pipeline.cache.store import ResultCache, read_arrays, write_arrays
from topic_explorer.pipeline.embed.models import Embedder


@dataclass
class CacheStats:
    reused: int = 0
    embedded: int = 0


class EmbeddingCache:
    """Vectors by embedder name and text; `None` in `directory` means nothing is kept (a corpus-fitted embedder)."""

    def __init__(self, directory: Path | None, embedder_name: str):
        self.directory = Path(directory) / "embeddings" if directory is not None else None
        self.embedder_name = embedder_name

    def key(self, text: str) -> str:
        return f"{self.embedder_name}:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"

    def get(self, texts: list[str]) -> list[np.ndarray | None]:
        if self.directory is None:
            return [None] * len(texts)
        from diskcache import Cache

        with Cache(str(self.directory)) as cache:
            found = [cache.get(self.key(text)) for text in texts]
        return [None if value is None else np.frombuffer(value, dtype=np.float32) for value in found]

    def fill(self, texts: list[str], vectors: np.ndarray, rows: np.ndarray) -> None:
        """Put the vectors it has for `texts[rows]` into `vectors` (whose other rows stay as they are)."""
        for row, vector in zip(rows, self.get([texts[i] for i in rows]), strict=True):
            if vector is not None:
                vectors[row] = vector

    def keep_new(self, texts: list[str], vectors: np.ndarray, embedded: np.ndarray, looked_up: int, stats: CacheStats):
        """Store the vectors a batch computed (`embedded` rows), and count them with the `looked_up` papers."""
        new = np.flatnonzero(embedded)
        self.put([texts[i] for i in new], vectors[new])
        stats.embedded += len(new)
        stats.reused += looked_up - len(new)

    def put(self, texts: list[str], vectors: np.ndarray) -> None:
        if self.directory is None:
            return
        from diskcache import Cache

        with Cache(str(self.directory)) as cache, cache.transact():
            for text, vector in zip(texts, vectors, strict=True):
                cache.set(self.key(text), np.asarray(vector, dtype=np.float32).tobytes())


def remembered_embedder(
    results: ResultCache, embedder: Embedder, texts: list[str], compute: Callable[[], tuple[Embedder, np.ndarray]]
) -> tuple[Embedder, np.ndarray]:
    """`compute()` (an embedder that learns its space from `texts`, fitted, and their vectors), or its result from
    the result cache; keyed by the texts and the embedder's kind, name and settings (its public attributes)."""
    made_with = {name: value for name, value in vars(embedder).items() if not name.startswith("_")}

    def write(result: tuple[Embedder, np.ndarray], folder: Path) -> None:
        fitted, vectors = result
        write_arrays(folder, vectors=vectors, **{f"state_{name}": value for name, value in fitted.state().items()})

    def read(folder: Path) -> tuple[Embedder, np.ndarray]:
        arrays = read_arrays(folder)
        state = {name.removeprefix("state_"): value for name, value in arrays.items() if name.startswith("state_")}
        return type(embedder).from_state(state), arrays["vectors"]

    inputs = [texts, type(embedder).__name__, embedder.name, made_with]
    return results.run("embedder", inputs, compute, write=write, read=read)
