"""Benchmark: does the MiniLM embed stage's memory grow with the number of abstracts it embeds?

    python benchmarks/embed_memory.py --texts 3000
    PYTHONPATH=OTHER python benchmarks/embed_memory.py --texts 3000     # another checkout (OTHER/topic_explorer)

Embeds a seeded sample of ../shared/data/ml_venues_by_field (skipped with a message when absent) the way a
build's embed stage does (`embed_all`: blocks of 128 texts, no cache), in this process, and prints its resident
memory after the model loads and after every `--every` texts, then the growth in MiB per 1,000 texts from the
first report to the last. The vectors a build keeps are 1.5 KB a text, so anything near 1.5 MiB per 1,000 is
flat; a build of 19,308 abstracts once grew by 1,100 MiB here (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.embed_speed import DATA, abstracts  # noqa: E402
from topic_explorer.pipeline.apply.loop import BLOCK_TEXTS, embed_all  # noqa: E402
from topic_explorer.pipeline.embed.cache import EmbeddingCache  # noqa: E402
from topic_explorer.pipeline.embed.models import MiniLMEmbedder  # noqa: E402


def resident_mib() -> float:
    return psutil.Process().memory_info().rss / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=3000, help="abstracts to embed (default 3000)")
    parser.add_argument("--every", type=int, default=4 * BLOCK_TEXTS, help="report after this many texts (512)")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipping: {DATA} is absent", file=sys.stderr)
        return 0
    texts = abstracts(args.texts)
    embedder = MiniLMEmbedder(device="cpu")
    embedder.transform(["A short text, so the model loads before anything is measured."])
    code = Path(sys.modules[MiniLMEmbedder.__module__].__file__).parents[2]
    print(f"{embedder.name}, {len(texts):,} abstracts, the code in {code}")
    print(f"after the model loads: {resident_mib():,.0f} MiB")
    no_cache = EmbeddingCache(None, embedder.name)
    reports: list[tuple[int, float]] = []
    start = time.perf_counter()
    for done in range(args.every, len(texts) + args.every, args.every):
        embed_all(texts[done - args.every : done], embedder, no_cache)
        reports.append((min(done, len(texts)), resident_mib()))
        print(f"after {reports[-1][0]:>6,} texts: {reports[-1][1]:,.0f} MiB  ({time.perf_counter() - start:.0f} s)")
    (first, low), (last, high) = reports[0], reports[-1]
    if last > first:
        print(f"growth: {(high - low) / (last - first) * 1000:+.1f} MiB per 1,000 texts (from {first:,} to {last:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
