"""Benchmark: the cluster stage alone (`find_clusters`, its consensus views in worker processes) on a build's fit
sample: wall, CPU (the view workers' included) and the peak memory of the process and its workers summed, for
this checkout and, interleaved in the same run, another one; the topics must be equal.

    python benchmarks/cluster_cost.py save CORPUS... --to DIR --embedder tfidf     # the inputs, saved once
    python benchmarks/cluster_cost.py run DIR --before ../old-checkout [--repeat 2]

`save` runs `topic-explorer build` up to its cluster stage with `find_clusters` replaced by one that saves what it
was given (the blended neighbour graph, the fit sample's vectors and TF-IDF rows, the parameters) to DIR and stops
the build. `run` clusters them in a new process per checkout (`build_cost.running`), samples that process and its
workers every 0.2 s (`build_cost.TreeMemory`: resident and proportional memory summed), and checks that every
checkout gives the same topics, label for label. On a shared machine compare CPU time and memory.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import sparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_cost import ROOT, TreeMemory, running


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    save = commands.add_parser("save", help="build up to the cluster stage and save its inputs")
    save.add_argument("corpus", type=Path, nargs="+")
    save.add_argument("--to", type=Path, required=True)
    save.add_argument("--embedder", default="tfidf")
    run = commands.add_parser("run", help="cluster the saved inputs, per checkout, in new processes")
    run.add_argument("inputs", type=Path)
    run.add_argument("--before", type=Path, help="another checkout, clustered first in each round")
    run.add_argument("--repeat", type=int, default=1, help="rounds (each: before, then this checkout)")
    run.add_argument("--processes", type=int, help="the views' processes (default: view_processes)")
    run.add_argument("--labels", type=Path, help="a .npy of topics to compare with (written when missing)")
    one = commands.add_parser("one", help=argparse.SUPPRESS)  # the clustering process `run` measures
    one.add_argument("inputs", type=Path)
    one.add_argument("labels", type=Path)
    one.add_argument("--processes", type=int)
    args = parser.parse_args()
    if args.command == "save":
        return save_inputs(args)
    if args.command == "one":
        return cluster_once(args)
    return compare(args)


def save_inputs(args: argparse.Namespace) -> int:
    """The build through the CLI, as a user runs it, stopped where the cluster stage would start."""
    import topic_explorer.pipeline.fit.cluster_model as cluster_model
    from topic_explorer.pipeline.cli.main import main as cli

    args.to.mkdir(parents=True, exist_ok=True)

    def saved(graph, params, vectors, words=None, processes=None):
        sparse.save_npz(args.to / "graph.npz", graph.tocsr(), compressed=False)
        np.save(args.to / "vectors.npy", vectors)
        if words is not None:
            sparse.save_npz(args.to / "words.npz", words.tocsr(), compressed=False)
        (args.to / "params.json").write_text(json.dumps(dataclasses.asdict(params)))
        print(f"saved {graph.shape[0]:,} papers' graph ({graph.nnz:,} entries) to {args.to}", file=sys.stderr)
        raise SystemExit(0)

    cluster_model.find_clusters = saved
    with tempfile.TemporaryDirectory() as scratch:
        options = ["--out", f"{scratch}/build", "--cache-dir", f"{scratch}/cache", "--embedder", args.embedder]
        return cli(["build", *map(str, args.corpus), *options, "--quiet"])


def cluster_once(args: argparse.Namespace) -> int:
    """The cluster stage in a process that holds what a build's holds by then (sklearn, which the neighbours and
    the embedders import), so that only the view workers' imports differ between checkouts."""
    import sklearn.neighbors  # noqa: F401

    from topic_explorer.pipeline.fit.clusters import TopicParameters, find_clusters

    graph = sparse.load_npz(args.inputs / "graph.npz")
    vectors = np.load(args.inputs / "vectors.npy")
    words = sparse.load_npz(args.inputs / "words.npz") if (args.inputs / "words.npz").exists() else None
    params = TopicParameters(**json.loads((args.inputs / "params.json").read_text()))
    np.save(args.labels, find_clusters(graph, params, vectors, words, processes=args.processes))
    return 0


def compare(args: argparse.Namespace) -> int:
    checkouts = {"this": ROOT} if args.before is None else {"before": args.before.resolve(), "this": ROOT}
    rows, labels = [], {}
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(args.repeat):
            for name, checkout in checkouts.items():
                folder = Path(scratch) / name
                out = folder / f"labels{round_}.npy"
                command = [sys.executable, __file__, "one", str(args.inputs), str(out)]
                command += [] if args.processes is None else ["--processes", str(args.processes)]
                start = time.perf_counter()
                process = subprocess.Popen(command, env=running(checkout, folder))
                with TreeMemory(process.pid) as tree:
                    _, status, usage = os.wait4(process.pid, 0)
                if status != 0:
                    raise SystemExit(f"{name}: the clustering failed (status {status})")
                rows.append((name, time.perf_counter() - start, usage.ru_utime + usage.ru_stime, tree.peaks))
                labels.setdefault(name, np.load(out))
                same = np.array_equal(labels[name], np.load(out))
                print(f"{name}, round {round_ + 1}: done; same topics as its first round: {same}", file=sys.stderr)
    first = rows[0]
    print("| checkout | wall s | CPU s (workers included) | peak PSS MiB, summed | peak RSS MiB, summed | processes |")
    print("|---|---|---|---|---|---|")
    for name, wall, cpu, peaks in rows:
        ratio = f" ({peaks['pss'][0] / first[3]['pss'][0]:.2f}x)" if name != first[0] else ""
        pss, rss = peaks["pss"], peaks["rss"]
        print(f"| {name} | {wall:,.1f} | {cpu:,.1f} | {pss[0]:,.0f}{ratio} | {rss[0]:,.0f} | {pss[2]} |")
    topics = next(iter(labels.values()))
    if args.labels and not args.labels.exists():
        np.save(args.labels, topics)
    if args.labels:
        print(f"the same labels as {args.labels}: {np.array_equal(topics, np.load(args.labels))}")
    print(f"{len(topics):,} papers, {topics.max() + 1} topics; the same labels in every checkout: "
          f"{all(np.array_equal(topics, other) for other in labels.values())}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
