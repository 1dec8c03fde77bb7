"""An on-disk embedding cache, so a rebuild embeds only texts it has not seen.

Entries are keyed by the embedder's name (model and windowing) and the SHA-256 of the
exact text, so a changed text or a changed model never reuses a stale vector. Storage is
`diskcache` (SQLite underneath), safe to share between processes.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.embed import Embedder

log = logging.getLogger(__name__)

STORE_EVERY = 128  # texts embedded between cache writes and progress updates
PROGRESS_FROM = 100  # smaller jobs (a few topic names) finish before a bar would help


@dataclass
class CacheStats:
    reused: int = 0
    embedded: int = 0


class CachedEmbedder:
    """Wraps a stateless embedder (one whose vector for a text never depends on the corpus)."""

    def __init__(self, inner: Embedder, cache_dir: Path, *, progress: bool = False):
        self.inner = inner
        self.progress = progress
        self.name = inner.name
        self.cache_dir = Path(cache_dir) / "embeddings"
        self.stats = CacheStats()

    def fit_transform(self, texts: list[str]) -> np.ndarray:
        return self.transform(texts)

    def transform(self, texts: list[str]) -> np.ndarray:
        from diskcache import Cache
        from tqdm.auto import tqdm

        keys = [self._key(text) for text in texts]
        with Cache(str(self.cache_dir)) as cache:
            found = {key: cache.get(key) for key in dict.fromkeys(keys)}
            missing = [key for key, value in found.items() if value is None]
            text_of = dict(zip(keys, texts, strict=True))
            show = self.progress and len(missing) >= PROGRESS_FROM
            bar = tqdm(total=len(missing), desc="Embedding", unit="text", disable=not show, leave=False)
            for start in range(0, len(missing), STORE_EVERY):  # an interrupted run keeps its work
                block = missing[start : start + STORE_EVERY]
                vectors = self.inner.transform([text_of[key] for key in block])
                with cache.transact():
                    for key, vector in zip(block, vectors, strict=True):
                        found[key] = np.asarray(vector, dtype=np.float32).tobytes()
                        cache.set(key, found[key])
                bar.update(len(block))
            bar.close()
        self.stats.embedded += len(missing)
        self.stats.reused += len(found) - len(missing)
        log.debug("embeddings: %d reused from cache, %d computed", len(found) - len(missing), len(missing))
        return np.stack([np.frombuffer(found[key], dtype=np.float32) for key in keys])

    def _key(self, text: str) -> str:
        return f"{self.name}:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"
