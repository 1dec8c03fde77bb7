"""Benchmark: a build in this process against the same build on a local Dask cluster, and `add` against a build.

    python benchmarks/scale.py --papers 10000                       # MiniLM on 10,000 arXiv abstracts
    python benchmarks/scale.py --papers 100000 --embedder tfidf     # TF-IDF on all 100,000

The corpus is the first N abstracts of ../shared/data/arxiv_2024_2026_part{1,2}.jsonl.gz (skipped with a
message when absent); 1% more are kept aside for `add`. Each run is the real CLI in its own process with an
empty embedding cache (a cold build), watched from outside: wall time, the stage times from its manifest,
and the peak resident memory of every process it starts (the client and each Dask worker). Then `add` puts
the 1% into the in-process build, and its time is compared with that cold build's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ARXIV = ("arxiv_2024_2026_part1.jsonl.gz", "arxiv_2024_2026_part2.jsonl.gz")
CLI = [sys.executable, "-m", "topic_explorer.pipeline.cli"]
ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=10_000, help="build this many abstracts (default %(default)s)")
    parser.add_argument("--embedder", choices=("minilm", "tfidf"), default="minilm")
    parser.add_argument("--workers", type=int, default=2, help="Dask workers of the local cluster (default 2)")
    parser.add_argument("--fit-sample", type=int, help="passed to build (default: the build's own)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    if not all((DATA / name).exists() for name in ARXIV):
        print(f"skipping: the arXiv files are not in {DATA}", file=sys.stderr)
        return 0
    results = {"papers": args.papers, "embedder": args.embedder, "workers": args.workers, "runs": {}}
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        corpus, extra = write_corpus(scratch, args.papers)
        options = ["--embedder", args.embedder, "--quiet"]
        if args.fit_sample:
            options += ["--fit-sample", str(args.fit_sample)]
        runs = {
            "in this process": [*CLI, "build", str(corpus), "--out", str(scratch / "local"), *options],
            f"--dask local:{args.workers}": [
                *CLI, "build", str(corpus), "--out", str(scratch / "dask"), *options, "--dask", f"local:{args.workers}",
            ],
        }  # fmt: skip
        for name, command in runs.items():
            results["runs"][name] = watched([*command, "--cache-dir", str(scratch / f"cache-{len(results['runs'])}")])
            manifest = json.loads((Path(command[command.index("--out") + 1]) / "manifest.json").read_text())
            results["runs"][name]["stages"] = manifest["seconds"]
        add = [*CLI, "add", str(scratch / "local"), str(extra), "--quiet", "--cache-dir", str(scratch / "cache-0")]
        results["add"] = watched(add)
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


def write_corpus(folder: Path, papers: int) -> tuple[Path, Path]:
    """The first `papers` arXiv records, and 1% more for `add`, as JSON Lines."""
    wanted, lines = papers + max(1, papers // 100), []
    for name in ARXIV:
        with gzip.open(DATA / name, "rt", encoding="utf-8") as source:
            for line in source:
                lines.append(line)
                if len(lines) == wanted:
                    break
        if len(lines) == wanted:
            break
    corpus, extra = folder / "corpus.jsonl", folder / "extra.jsonl"
    corpus.write_text("".join(lines[:papers]), encoding="utf-8")
    extra.write_text("".join(lines[papers:]), encoding="utf-8")
    return corpus, extra


def watched(command: list[str]) -> dict:
    """Run `command`; its wall time and the peak resident memory (MB) of it and each process it starts."""
    peaks: dict[int, tuple[str, float]] = {}
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def sample() -> None:
        root = psutil.Process(process.pid)
        while not done.is_set():
            try:
                for member in [root, *root.children(recursive=True)]:
                    rss = member.memory_info().rss / 2**20
                    role = "client" if member.pid == process.pid else _role(member)
                    peaks[member.pid] = (role, max(rss, peaks.get(member.pid, ("", 0.0))[1]))
            except psutil.Error:
                pass
            time.sleep(0.25)

    watcher = threading.Thread(target=sample, daemon=True)
    start = time.perf_counter()
    watcher.start()
    _, err = process.communicate()
    wall = time.perf_counter() - start
    done.set()
    watcher.join()
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{err[-3000:]}")
    client = max((mb for role, mb in peaks.values() if role == "client"), default=0.0)
    workers = [round(mb) for role, mb in peaks.values() if role == "worker"]
    return {"wall_seconds": round(wall, 1), "client_peak_mb": round(client), "worker_peak_mb": sorted(workers)}


def _role(process: psutil.Process) -> str:
    try:
        cmdline = " ".join(process.cmdline())
    except psutil.Error:
        return "other"
    return "worker" if "spawn_main" in cmdline else "other"


def report(results: dict) -> str:
    runs = results["runs"]
    names = list(runs)
    stages = list(dict.fromkeys(s for run in runs.values() for s in run["stages"]))
    lines = [
        f"\n{results['papers']:,} arXiv abstracts, {results['embedder']}",
        "",
        f"| measure | {' | '.join(names)} | ratio |",
        "|---|---|---|---|",
    ]
    first, second = (runs[n] for n in names)
    rows = [(f"{s} (s)", first["stages"].get(s, 0), second["stages"].get(s, 0)) for s in stages]
    rows += [
        ("wall (s)", first["wall_seconds"], second["wall_seconds"]),
        ("client peak (MB)", first["client_peak_mb"], second["client_peak_mb"]),
        ("largest worker peak (MB)", max(first["worker_peak_mb"] or [0]), max(second["worker_peak_mb"] or [0])),
    ]
    for measure, a, b in rows:
        lines.append(f"| {measure} | {a} | {b} | {b / a:.2f} |" if a else f"| {measure} | {a} | {b} | |")
    add, cold = results["add"]["wall_seconds"], first["wall_seconds"]
    lines.append(f"\nadd {results['papers'] // 100:,} papers (1%): {add} s wall = {add / cold:.3f} of the cold build")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
