"""Benchmark: how much the topics move when the vectors move a little (issue 19, goal 2, beyond the seed).

    python benchmarks/topic_robustness.py --corpora ml5k arxiv5k-a --cache-dir /work/embcache

The clustering draws no random number, so the same vectors give the same topics whatever `--seed` says:
over seeds its adjusted Rand index (ARI) is 1 by construction. What can still move topics is the vectors:
another embedding batch size or backend changes them in the last float digits, and a corpus that gains or loses
papers changes the neighbour graph. This fits the topics (`fit_topics`, default settings) on each corpus's
cached MiniLM vectors, then on the same vectors with Gaussian noise of a given size relative to each unit
vector (renormalised), and prints the ARI of every paper's topic against the unperturbed fit: 1e-6 is float
rounding, 1e-4 and 1e-3 are well beyond it (MiniLM's own vectors of one text differ by about 1e-7 between batch
sizes). For comparison, the ARI of stock UMAP + HDBSCAN between two seeds on the same vectors is given in
docs/benchmarks.md. Corpora as `topic_resolution.py` draws them; every vector must be in the cache (fill it
with one `topic-explorer build ... --cache-dir DIR` per corpus).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from topic_resolution import CORPORA, corpus_file

from topic_explorer.pipeline.apply.loop import embed_all
from topic_explorer.pipeline.embed.cache import EmbeddingCache
from topic_explorer.pipeline.embed.models import MiniLMEmbedder
from topic_explorer.pipeline.fit.topics import fit_topics
from topic_explorer.pipeline.ingest.corpus import load_corpus
from topic_explorer.pipeline.settings import BuildSettings, default_cache_dir

NOISE = (1e-6, 1e-4, 1e-3)  # Gaussian noise per unit vector, as a share of its length


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=["ml5k"])
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir())
    args = parser.parse_args()
    from sklearn.metrics import adjusted_rand_score

    embedder = MiniLMEmbedder()
    cache = EmbeddingCache(args.cache_dir, embedder.name)
    embed = partial(embed_all, embedder=embedder, cache=cache)  # keyword candidates; cached after the first run
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.corpora:
            source = corpus_file(name, Path(scratch))
            if source is None:
                print(f"skipping {name}: its file is not in ../shared/data", file=sys.stderr)
                continue
            texts = load_corpus([source]).papers["abstract"].tolist()
            found = cache.get(texts)
            if any(v is None for v in found):
                missing = sum(v is None for v in found)
                print(f"skipping {name}: {missing} vectors not in {args.cache_dir}", file=sys.stderr)
                continue
            vectors = np.stack(found)
            started = time.perf_counter()
            reference = fit_topics(vectors, texts, settings=BuildSettings(), embed=embed).topic_id
            seconds = time.perf_counter() - started
            rng = np.random.default_rng(0)
            scores = []
            for noise in NOISE:
                moved = vectors + rng.normal(0, noise / np.sqrt(vectors.shape[1]), vectors.shape).astype(np.float32)
                moved /= np.linalg.norm(moved, axis=1, keepdims=True)
                moved_topics = fit_topics(moved, texts, settings=BuildSettings(), embed=embed).topic_id
                scores.append(f"{noise:g}: {adjusted_rand_score(reference, moved_topics):.3f}")
            print(f"{name}: {len(set(reference.tolist()))} topics (fit {seconds:.0f} s); ARI against the unperturbed "
                  f"topics with noise {', '.join(scores)}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
