"""Benchmark: a build's wall time, CPU time and peak memory per stage, cold and then warm, in one run.

    python benchmarks/build_cost.py CORPUS --embedder tfidf
    python benchmarks/build_cost.py CORPUS --embeddings /work/embcache     # MiniLM from a filled embedding cache
    python benchmarks/build_cost.py CORPUS --embedder tfidf --cold-only     # memory at 100,000 papers
    python benchmarks/build_cost.py CORPUS --before ../old-checkout         # the same cold build from another checkout

Each build is `topic-explorer build` in a new process, as a user runs it, into a scratch cache folder:
- cold: an empty result cache (with --embeddings, a copy of that cache's embeddings, so nothing is embedded);
- warm: the same command again, every stage's result now in the cache.
Per stage, the manifest's wall and CPU seconds and the process's peak memory (MiB) at the stage's end; per build,
wall, CPU and peak memory of the whole process (as `/usr/bin/time -v` gives them: the largest one process reached),
and the peak of the build with its worker processes (the clustering's views run in one per core), summed over them
every 0.2 s: resident (RSS, shared pages counted in each) and proportional (PSS, shared pages split among them).
The warm build must give the cold build's topics, tree and map: the script checks topics.parquet and
hierarchy.parquet byte for byte and the papers' topic_id, x and y, and says so. On a shared machine compare CPU
time; wall time says how busy it was.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("ingest", "embed", "reduce", "cluster", "keywords", "layout", "assign", "hierarchy", "evaluate")
SAME_FILES = ("topics.parquet", "hierarchy.parquet")
SAME_PAPER_COLUMNS = ["paper_id", "topic_id", "x", "y"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, nargs="+")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--embeddings", type=Path, help="a cache folder whose embeddings the builds start from")
    parser.add_argument("--cold-only", action="store_true", help="no warm rebuild (a memory measurement)")
    parser.add_argument(
        "--before", type=Path, help="another checkout (e.g. a git worktree): its cold build runs first, in the same run"
    )
    parser.add_argument("--keep", type=Path, help="keep the builds here instead of deleting them")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="build-cost-"))
    try:
        runs = {}
        if args.before:
            runs["before, cold"] = build(args, args.before.resolve(), scratch / "before", "cold")
        runs["cold"] = build(args, ROOT, scratch / "this", "cold")
        if not args.cold_only:
            runs["warm"] = build(args, ROOT, scratch / "this", "warm")
        report(runs)
        if "warm" in runs:
            print("\nwarm build = cold build:", same_result(runs["cold"]["path"], runs["warm"]["path"]))
        if args.keep:
            shutil.copytree(scratch, args.keep, dirs_exist_ok=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def build(args: argparse.Namespace, checkout: Path, folder: Path, name: str) -> dict:
    """One `topic-explorer build` from `checkout` in a new process, with its cache in `folder`."""
    cache = folder / "cache"
    if not cache.exists():
        cache.mkdir(parents=True)
        if args.embeddings:
            shutil.copytree(args.embeddings / "embeddings", cache / "embeddings")
    out = folder / name
    command = [
        sys.executable, "-m", "topic_explorer.pipeline.cli", "build",
        *map(str, args.corpus), "--out", str(out), "--embedder", args.embedder, "--cache-dir", str(cache), "--quiet",
    ]  # fmt: skip
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=checkout, env=running(checkout, folder))
    with TreeMemory(process.pid) as tree:
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{name} build failed (status {status})")
    manifest = json.loads((out / "manifest.json").read_text())
    print(f"{name}: {wall:.1f} s wall, reused {manifest.get('stage_cache', {}).get('reused')}", file=sys.stderr)
    return {
        "path": out,
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak": usage.ru_maxrss / 1024,
        "tree": tree,
        "manifest": manifest,
    }


class TreeMemory:
    """The memory of a process and its descendants, summed, sampled every `every` seconds from a thread while the
    `with` block runs: its peaks (MiB), when they came (seconds after the start) and how many processes there were."""

    def __init__(self, pid: int, every: float = 0.2):
        self.pid, self.every = pid, every
        self.peaks = {"rss": (0.0, 0.0, 0), "pss": (0.0, 0.0, 0)}  # MiB, seconds, processes
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> TreeMemory:
        self._start = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        import psutil

        try:
            root = psutil.Process(self.pid)
        except psutil.NoSuchProcess:
            return
        while not self._stop.wait(self.every):
            sums, count = {"rss": 0, "pss": 0}, 0
            try:
                processes = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                return
            for process in processes:
                try:
                    memory = process.memory_full_info()
                except (psutil.NoSuchProcess, psutil.ZombieProcess):
                    continue
                sums["rss"] += memory.rss
                sums["pss"] += memory.pss
                count += 1
            for key, value in sums.items():
                if value / 2**20 > self.peaks[key][0]:
                    self.peaks[key] = (value / 2**20, time.perf_counter() - self._start, count)

    def describe(self) -> str:
        return ", ".join(
            f"{key.upper()} {mib:,.0f} MiB ({processes} processes, {seconds:,.0f} s in)"
            for key, (mib, seconds, processes) in self.peaks.items()
        )


def running(checkout: Path, folder: Path) -> dict[str, str]:
    """An environment in which `topic_explorer.pipeline` is `checkout`'s code (first on the path, before the
    installed package), so a build runs the checkout it was asked for, however the package was installed."""
    package = folder / "code" / "topic_explorer"
    package.mkdir(parents=True, exist_ok=True)
    for name in ("pipeline", "dashboard"):
        if not (package / name).exists():
            (package / name).symlink_to(checkout / name)
    return os.environ | {"PYTHONPATH": str(package.parent)}


def report(runs: dict[str, dict]) -> None:
    names = list(runs)
    print("| stage | " + " | ".join(f"{n}: wall s | {n}: CPU s | {n}: peak MiB" for n in names) + " |")
    print("|---|" + "---|---|---|" * len(names))
    for stage in STAGES:
        cells = []
        for run in runs.values():
            manifest = run["manifest"]
            cells += [
                f"{manifest['seconds'].get(stage, 0):.1f}",
                f"{manifest.get('cpu_seconds', {}).get(stage, 0):.1f}",
                f"{manifest.get('peak_memory_mb', {}).get(stage, 0):,.0f}",
            ]
        print(f"| {stage} | " + " | ".join(cells) + " |")
    cells = [f"**{r['wall']:.1f}** | **{r['cpu']:.1f}** | **{r['peak']:,.0f}**" for r in runs.values()]
    print("| whole process | " + " | ".join(cells) + " |")
    for name, run in runs.items():
        print(f"{name}: the build with its worker processes, summed, at its peak: {run['tree'].describe()}")


def same_result(cold: Path, warm: Path) -> str:
    differ = [name for name in SAME_FILES if (cold / name).read_bytes() != (warm / name).read_bytes()]
    papers = [pd.read_parquet(path / "papers.parquet", columns=SAME_PAPER_COLUMNS) for path in (cold, warm)]
    if not papers[0].equals(papers[1]):
        differ.append("papers' topic_id, x, y")
    return "yes (topics.parquet, hierarchy.parquet, papers' topic_id, x, y)" if not differ else f"NO: {differ}"


if __name__ == "__main__":
    sys.exit(main())
