"""Benchmark: our result cache against `joblib.Memory` doing the same job, cold and warm, in one run.

    python benchmarks/stage_cache_libraries.py CORPUS [CORPUS ...] [--papers 5000] [--embedder tfidf]

The joblib side swaps the build's `ResultCache` for `JoblibResults`: the same results, asked for with the same key
inputs (the cache version, `code_version()` and each result's inputs), but hashed by joblib and stored by its
pickle-based store instead of our digest and our `write`/`read` (arrays, JSON, Parquet, the BERTopic model
as the build saves it). Each build runs in a new process, into its own scratch cache folder, in the order
ours-cold, joblib-cold, ours-warm, joblib-warm. Per build: the wall and CPU seconds of `run_build` and the
result cache's size on disk; the warm builds must give the cold builds' topic ids and map positions (checked).
Code size: the lines of each side's cache code (ours: the store and every result's keyed wrapper; joblib's: the
adapter below, plus the keys the results would still have to build).
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("ours", "joblib")
# Our cache's code: the store, and each result's keyed wrapper (whole modules, or the wrapper functions' lines).
OURS = {
    "pipeline/cache/store.py": None,
    "pipeline/fit/stored.py": None,
    "pipeline/fit/remembered.py": None,
    "pipeline/map/layout.py": "def remembered_map",
    "pipeline/describe/hierarchy.py": "def remembered_hierarchy",
    "pipeline/evaluate/quality.py": "def remembered_assess",
    "pipeline/embed/cache.py": "def remembered_embedder",
}


class JoblibResults:
    """`ResultCache`'s interface over `joblib.Memory`: joblib hashes the key, pickles the result."""

    def __init__(self, directory: Path | None):
        import joblib

        from topic_explorer.pipeline.cache.store import ResultCounts

        self.memory = joblib.Memory(None if directory is None else Path(directory) / "joblib", verbose=0)
        self.counts = ResultCounts()

    def run(self, name, inputs, compute, *, write, read):
        import numpy as np

        from topic_explorer.pipeline.cache.store import RESULT_CACHE_VERSION, code_version

        cached = self.memory.cache(_computed, ignore=["compute"])
        # joblib's hash of an array depends on its memory layout: a vector array read back from the cache (C order)
        # would miss the entry its computed twin (F order) made. Laid out alike, the same values find it.
        inputs = [np.ascontiguousarray(part) if isinstance(part, np.ndarray) else part for part in inputs]
        key = (name, RESULT_CACHE_VERSION, code_version(), inputs)
        found = self.memory.location is not None and cached.check_call_in_cache(*key, compute)
        (self.counts.reused if found else self.counts.computed).append(name)
        return cached(*key, compute)


def _computed(name, version, code, inputs, compute):
    return compute()


def one_build(variant: str, files: list[Path], cache: Path, out: Path, embedder: str) -> dict:
    """One build in this process; its timings and the result cache's counts, as JSON-ready values."""
    from topic_explorer.pipeline.run import build
    from topic_explorer.pipeline.settings import BuildSettings

    if variant == "joblib":
        build.ResultCache = JoblibResults
    settings = BuildSettings(embedder=embedder, cache_dir=cache)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:  # joblib says so when it cannot store a result
        warnings.simplefilter("always")
        build.run_build(files, out, settings)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    manifest = json.loads((out / "manifest.json").read_text())
    unstored = sorted({str(w.message).split("Exception: ")[-1] for w in caught if "Unable to cache" in str(w.message)})
    return {"wall": wall, "cpu": cpu, "stage_cache": manifest["stage_cache"], "unstored": unstored}


def folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20 if path.exists() else 0.0


def code_lines() -> dict[str, int]:
    """Non-blank lines of each side's cache code."""
    ours = 0
    for name, start in OURS.items():
        lines = (ROOT / name).read_text().splitlines()
        if start is not None:
            first = next(i for i, line in enumerate(lines) if line.startswith(start))
            end = next((i for i in range(first + 1, len(lines)) if lines[i].startswith(("def ", "class "))), len(lines))
            lines = lines[first:end]
        ours += sum(1 for line in lines if line.strip())
    source = Path(__file__).read_text().splitlines()
    first = next(i for i, line in enumerate(source) if line.startswith("class JoblibResults"))
    last = next(i for i, line in enumerate(source) if line.startswith("def one_build"))
    return {"ours": ours, "joblib": sum(1 for line in source[first:last] if line.strip())}


def sample_of(path: Path, papers: int, folder: Path) -> Path:
    """The first `papers` records of a JSON Lines corpus, as a file of their own."""
    out = folder / f"{path.name.split('.')[0]}-{papers}.jsonl"
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as source, open(out, "w", encoding="utf-8") as target:
        for n, line in enumerate(source):
            if n >= papers:
                break
            target.write(line)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, nargs="*", help="corpora, each built alone (default: the sample)")
    parser.add_argument("--papers", type=int, default=0, help="take the first N records of each corpus")
    parser.add_argument("--embedder", default="tfidf")
    parser.add_argument("--one", nargs="+", metavar="VARIANT CACHE OUT FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        variant, cache, out, *files = args.one
        print(json.dumps(one_build(variant, [Path(f) for f in files], Path(cache), Path(out), args.embedder)))
        return 0
    from topic_explorer.pipeline.cache.store import RESULTS_DIR
    from topic_explorer.pipeline.ingest.corpus import sample_files

    print("code lines (non-blank):", code_lines())
    with tempfile.TemporaryDirectory(prefix="result-cache-bench-") as scratch:
        scratch = Path(scratch)
        corpora = [[sample_of(c, args.papers, scratch) if args.papers else c] for c in args.corpus]
        for files in corpora or [sample_files()]:
            name = "+".join(f.name for f in files)
            rows = {}
            for run in ("cold", "warm"):
                for variant in VARIANTS:
                    cache, out = scratch / f"cache-{variant}", scratch / f"out-{variant}-{run}-{len(rows)}"
                    command = [sys.executable, __file__, "--embedder", args.embedder, "--one", variant, cache, out]
                    done = subprocess.run([*map(str, command), *map(str, files)], capture_output=True, text=True)
                    if done.returncode:
                        print(done.stderr[-3000:])
                        return 1
                    result = json.loads(done.stdout.strip().splitlines()[-1])
                    result["cache_mb"] = folder_mb(cache / RESULTS_DIR) + folder_mb(cache / "joblib")
                    papers = pd.read_parquet(out / "papers.parquet", columns=["paper_id", "topic_id", "x", "y"])
                    rows[variant, run] = result | {"papers": papers}
            print(f"\n{name} ({len(rows['ours', 'cold']['papers']):,} papers, {args.embedder})")
            for (variant, run), r in rows.items():
                took = f"wall {r['wall']:5.1f} s, cpu {r['cpu']:5.1f} s, cache {r['cache_mb']:5.1f} MB"
                counts = f"reused {len(r['stage_cache']['reused'])}, computed {r['stage_cache']['computed']}"
                print(
                    f"  {variant:6} {run}: {took}, {counts}"
                    + (f"; not stored: {r['unstored']}" if r["unstored"] else "")
                )
            for run in ("cold", "warm"):
                ratio = rows["joblib", run]["cpu"] / rows["ours", run]["cpu"]
                print(f"  joblib/ours cpu, {run}: {ratio:.2f}x")
            for variant in VARIANTS:
                same = rows[variant, "cold"]["papers"].equals(rows[variant, "warm"]["papers"])
                print(f"  {variant}: warm build gives the cold build's topics and map: {same}")
            same = rows["ours", "cold"]["papers"].equals(rows["joblib", "cold"]["papers"])
            print(f"  ours and joblib give the same topics and map: {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
