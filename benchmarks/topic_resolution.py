"""Benchmark: topics at every resolution, over seeds (issue 19, goals 1-3), with this code or another checkout's.

    python benchmarks/topic_resolution.py --corpora ml5k arxiv5k-a --seeds 0 1 2 3 4
    python benchmarks/topic_resolution.py --corpora ml5k --python ../base/.venv/bin/python   # another version

Each build is a real `topic-explorer build` (default settings but the seed, MiniLM unless --embedder), its
embeddings from the cache (`--cache-dir`: fill it once; embedding is not what is measured here). Printed per
corpus and seed: the finest topics (count, largest share, NMI against the corpus's labels) and each level of
the tree (groups, largest and smallest share, NMI); then, over seeds, the mean pairwise adjusted Rand index of
every paper's finest topic, and the fit's seconds (reduce + cluster + keywords + hierarchy, from the manifest).

Corpora (from ../shared/data, skipped with a message when absent):
  ml1k, ml5k, ml19k   1,000 / 5,000 seeded rows / all of ml_venues_by_field (label: field)
  arxiv5k-a, -b       5,000 seeded rows of arxiv_2024_2026_part1 / part2 (label: category)
  20ng                20 Newsgroups (label: category)
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = {  # file, rows (None: all), seed of the row sample, label column
    "ml1k": ("ml_venues_by_field.jsonl.gz", 1000, 0, "field"),
    "ml5k": ("ml_venues_by_field.jsonl.gz", 5000, 0, "field"),
    "ml19k": ("ml_venues_by_field.jsonl.gz", None, 0, "field"),
    "arxiv5k-a": ("arxiv_2024_2026_part1.jsonl.gz", 5000, 0, "category"),
    "arxiv5k-b": ("arxiv_2024_2026_part2.jsonl.gz", 5000, 1, "category"),
    "20ng": ("20newsgroups_bydate.jsonl.gz", None, 0, "category"),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=["ml5k"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--embedder", default="minilm", choices=("minilm", "tfidf"))
    parser.add_argument("--cache-dir", type=Path, help="embedding cache (default: the tool's)")
    parser.add_argument("--python", default=sys.executable, help="the Python whose topic-explorer builds")
    parser.add_argument("--json", type=Path, help="where to write the figures")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.corpora:
            source = corpus_file(name, Path(scratch))
            if source is None:
                print(f"skipping {name}: {DATA / CORPORA[name][0]} not found", file=sys.stderr)
                continue
            results[name] = measure(name, source, args, Path(scratch))
            if args.json:
                args.json.write_text(json.dumps(results, indent=2))
    return 0


def corpus_file(name: str, scratch: Path) -> Path | None:
    file, rows, seed, _ = CORPORA[name]
    source = DATA / file
    if not source.exists():
        return None
    if rows is None:
        return source
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        chosen = random.Random(seed).sample(lines.readlines(), rows)
    path = scratch / f"{name}.jsonl"
    path.write_text("".join(chosen), encoding="utf-8")
    return path


def measure(name: str, source: Path, args: argparse.Namespace, scratch: Path) -> dict:
    label = CORPORA[name][3]
    finest, runs = {}, []
    for seed in args.seeds:
        out = scratch / f"{name}-{seed}"
        command = [args.python, "-m", "topic_explorer.pipeline.cli", "build", str(source), "--out", str(out),
                   "--seed", str(seed), "--embedder", args.embedder, "--quiet"]  # fmt: skip
        if args.cache_dir:
            command += ["--cache-dir", str(args.cache_dir)]
        subprocess.run(command, check=True)
        papers = pd.read_parquet(out / "papers.parquet")
        manifest = json.loads((out / "manifest.json").read_text())
        truth = pd.read_json(source, lines=True, dtype=False)
        labels = dict(zip(truth["abstract"].map(lambda a: " ".join(str(a).split())), truth[label], strict=False))
        known = papers["abstract"].map(labels).notna().to_numpy()
        y = papers["abstract"].map(labels)[known].astype(str).to_numpy()
        run = describe(papers, out / "hierarchy.parquet", known, y)
        run["seconds"] = sum(manifest["seconds"].get(s, 0.0) for s in ("reduce", "cluster", "keywords", "hierarchy"))
        runs.append(run)
        finest[seed] = papers.set_index("paper_id")["topic_id"]
        print(f"{name} seed {seed}: {line(run)}", flush=True)
    pairs = [
        adjusted_rand(finest[a], finest[b]) for a, b in itertools.combinations(args.seeds, 2)
    ]  # papers matched by id
    summary = {
        "runs": runs,
        "mean_pairwise_ari": float(np.mean(pairs)) if pairs else None,
        "min_pairwise_ari": float(np.min(pairs)) if pairs else None,
        "mean_fit_seconds": float(np.mean([r["seconds"] for r in runs])),
    }
    print(f"{name}: mean pairwise ARI over seeds {args.seeds}: {summary['mean_pairwise_ari']:.3f} "
          f"(min {summary['min_pairwise_ari']:.3f}); fit {summary['mean_fit_seconds']:.1f} s", flush=True)  # fmt: skip
    return summary


def describe(papers: pd.DataFrame, tree_file: Path, known: np.ndarray, y: np.ndarray) -> dict:
    from sklearn.metrics import normalized_mutual_info_score as nmi

    n = len(papers)
    topic = papers["topic_id"].to_numpy()
    sizes = pd.Series(topic).value_counts()
    run = {"topics": int((sizes.index >= 0).sum()), "largest_share": float(sizes.max() / n),
           "nmi_finest": float(nmi(y, topic[known])), "levels": []}  # fmt: skip
    if tree_file.is_file():
        tree = pd.read_parquet(tree_file)
        for level, groups in tree.groupby("level"):
            group_of = {t: g for g, ids in zip(groups["group_id"], groups["topic_ids"], strict=True) for t in ids}
            grouped = np.array([group_of.get(t, -1) for t in topic])
            shares = pd.Series(grouped).value_counts() / n
            run["levels"].append({"level": int(level), "groups": len(groups), "largest_share": float(shares.max()),
                                  "smallest_share": float(shares.min()), "nmi": float(nmi(y, grouped[known])),
                                  "labels": groups["label"].tolist()})  # fmt: skip
    classes = len(set(y))
    closest = min(run["levels"], key=lambda lv: abs(lv["groups"] - classes), default=None)
    if closest is None or abs(run["topics"] - classes) <= abs(closest["groups"] - classes):
        run["nmi_at_label_count"] = run["nmi_finest"]
    else:
        run["nmi_at_label_count"] = closest["nmi"]
    return run


def adjusted_rand(a: pd.Series, b: pd.Series) -> float:
    from sklearn.metrics import adjusted_rand_score

    shared = a.index.intersection(b.index)
    return float(adjusted_rand_score(a[shared], b[shared]))


def line(run: dict) -> str:
    levels = "; ".join(
        f"{lv['groups']} groups max {lv['largest_share']:.0%} min {lv['smallest_share']:.1%} NMI {lv['nmi']:.3f}"
        for lv in run["levels"]
    )
    return (f"{run['topics']} topics, largest {run['largest_share']:.1%}, NMI {run['nmi_finest']:.3f} "
            f"(at the label count {run['nmi_at_label_count']:.3f}), fit {run['seconds']:.1f} s | {levels}")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
