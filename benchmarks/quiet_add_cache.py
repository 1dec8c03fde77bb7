"""Check: a quiet `add` of many papers leaves an embedding cache a later build can trust (issue 17).

    python benchmarks/quiet_add_cache.py                    # 2,100 ml_venues papers, batches of 2,000
    python benchmarks/quiet_add_cache.py --papers 300 --batch-size 100

The bundled sample is built; `topic-explorer add --quiet` then adds the papers (several batches) with a fresh
embedding cache; a build of the sample plus the same papers reads that cache. Printed: how many of the added
papers' vectors differ between the build `add` wrote and the build made from the cache (the bug this guards
against stored later batches' vectors under the first batch's texts: every paper of the first batch differed),
and how many the cache served. Reads ../shared/data (skipped with a message when absent). Exits 1 on any
difference.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "ml_venues_by_field.jsonl.gz"


def _cli(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "topic_explorer.pipeline.cli", *args], check=True)


def _vectors(build: Path) -> dict[str, np.ndarray]:
    from topic_explorer.pipeline.buildfolder.read import read_build

    read = read_build(build)
    return dict(zip(read.papers["abstract"], read.embeddings(), strict=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=2100)
    parser.add_argument("--batch-size", type=int, default=2000)
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} is absent")
        return 0
    with gzip.open(DATA, "rt") as lines:
        records = [json.loads(line) for _, line in zip(range(args.papers), lines, strict=False)]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        papers = tmp / "papers.jsonl"
        papers.write_text("".join(json.dumps({"abstract": r["abstract"], "title": r["title"]}) + "\n" for r in records))
        cache, added, rebuilt = tmp / "cache", tmp / "added", tmp / "rebuilt"
        _cli("build", "--out", str(added), "--cache-dir", str(cache), "--quiet")
        _cli("add", str(added), str(papers), "--cache-dir", str(cache), "--batch-size", str(args.batch_size), "--quiet")
        sample = Path(__file__).resolve().parents[1] / "pipeline" / "ingest" / "sample"
        inputs = sorted(str(p) for p in sample.glob("*.txt"))
        _cli("build", *inputs, str(papers), "--out", str(rebuilt), "--cache-dir", str(cache), "--quiet")
        before, after = _vectors(added), _vectors(rebuilt)
        texts = [r["abstract"] for r in records if r["abstract"] in before]
        differ = sum(not np.array_equal(before[t], after[t]) for t in texts)
        print(f"papers added quietly: {len(texts)} in batches of {args.batch_size}")
        print(f"vectors that differ between the add's build and the build from its cache: {differ}")
        embedder = json.loads((rebuilt / "manifest.json").read_text())["embedder"]
        print(f"the rebuild embedded {embedder['papers_embedded']} papers, read {embedder['papers_from_cache']} cached")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
