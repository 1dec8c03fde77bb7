"""Benchmark: how close derived titles come to the real ones, with the real titles hidden.

    .venv/bin/python benchmarks/title_scores.py                        # ml_venues seeds 0-2, arXiv seeds 0-1
    .venv/bin/python benchmarks/title_scores.py --at 819a271 8f75936   # also the titles of earlier commits

Each sample is 400 papers drawn with a seed from a corpus in ../shared/data whose papers carry their real
titles. Every deriver sees the abstract as the build's ingest cleans it; its title is compared with the
real one (markup stripped) by the cosine of their all-MiniLM-L6-v2 embeddings, the model the builds use.
Printed per sample: the mean cosine of the abstract's first sentence (the baseline a title must beat),
of this tree's titles and of each commit's given with --at (their `derive_title`, loaded from git); the
share of this tree's titles at least as close as the first sentence; the cost of deriving (seconds per
1,000 papers, each deriver timed in this run). Embeddings go through the build's embedding cache, so a rerun
embeds only new titles. `audit_labels_and_titles.py` writes these figures into docs/title-audit.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SAMPLE_SIZE = 400  # papers per sample: the size the figures were measured at
CORPORA = {  # name: (file, seeds)
    "ml_venues": ("ml_venues_by_field.jsonl.gz", (0, 1, 2)),
    "arxiv": ("arxiv_2024_2026_part1.jsonl.gz", (0, 1)),
}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")


@dataclass(frozen=True)
class Sample:
    name: str
    abstracts: list[str]
    titles: list[str]


@dataclass(frozen=True)
class Scores:
    sample: str
    means: dict[str, float]  # deriver -> mean cosine to the real titles
    as_close: float  # share of this tree's titles at least as close as the first sentence
    seconds_per_1000: dict[str, float]  # deriver -> its cost of deriving, timed in this run


def samples(corpora: dict[str, tuple[str, tuple[int, ...]]] = CORPORA) -> list[Sample]:
    """Seeded samples of papers with real titles, abstracts cleaned as the build's ingest cleans them."""
    out = []
    for name, (file_name, seeds) in corpora.items():
        path = DATA / file_name
        if not path.exists():
            print(f"skipping {name}: {path} is not there", file=sys.stderr)
            continue
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            rows = [row for row in map(json.loads, lines) if row.get("title") and row.get("abstract")]
        for seed in seeds:
            chosen = random.Random(seed).sample(rows, SAMPLE_SIZE)
            abstracts = [" ".join(row["abstract"].split()) for row in chosen]  # whitespace collapsed, as ingest does
            out.append(Sample(f"{name} seed {seed}", abstracts, [row["title"] for row in chosen]))
    return out


def first_sentence(abstract: str) -> str:
    """The baseline: the abstract's first sentence, markup stripped, uncut."""
    from topic_explorer.pipeline.text.clean import strip_markup

    return _SENTENCE_END.split(strip_markup(abstract), maxsplit=1)[0]


def deriver_at(commit: str) -> Callable[[str], str]:
    """`derive_title` as it was at `commit` (its titles module and the markup cleaner it imported)."""

    def show(*paths: str) -> str:
        for path in paths:
            done = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"], capture_output=True, text=True)
            if done.returncode == 0:
                return done.stdout
        raise SystemExit(f"{commit} has none of {paths}")

    cleaner: dict = {"__name__": f"clean_at_{commit}"}
    exec(show("pipeline/text/clean.py", "pipeline/textclean.py"), cleaner)
    source = re.sub(
        r"^from \S+ import strip_markup$", "", show("pipeline/describe/titles.py", "pipeline/titles.py"), flags=re.M
    )
    titles: dict = {"__name__": f"titles_at_{commit}", "strip_markup": cleaner["strip_markup"]}
    exec(source, titles)
    return titles["derive_title"]


def score(sample_list: list[Sample], derivers: dict[str, Callable[[str], str]]) -> list[Scores]:
    """Mean MiniLM cosine of each deriver's titles (and the first sentence) to the real titles, per sample."""
    from topic_explorer.pipeline.describe.titles import derive_title
    from topic_explorer.pipeline.embed.cache import EmbeddingCache, embed_all
    from topic_explorer.pipeline.embed.models import MiniLMEmbedder
    from topic_explorer.pipeline.settings import default_cache_dir
    from topic_explorer.pipeline.text.clean import strip_markup

    embedder = MiniLMEmbedder(device="cpu")
    cache = EmbeddingCache(default_cache_dir(), embedder.name)

    def embed(texts: list[str]) -> np.ndarray:
        return embed_all(texts, embedder, cache)

    results = []
    for sample in sample_list:
        real = embed([strip_markup(title) for title in sample.titles])
        titles = {"first sentence": [first_sentence(a) for a in sample.abstracts]}
        seconds = {}
        for name, derive in {"this tree": derive_title, **derivers}.items():
            start = time.perf_counter()
            titles[name] = [derive(abstract) for abstract in sample.abstracts]
            seconds[name] = (time.perf_counter() - start) / len(sample.abstracts) * 1000
        cosines = {name: (embed(texts) * real).sum(axis=1) for name, texts in titles.items()}
        as_close = float(np.mean(cosines["this tree"] >= cosines["first sentence"]))
        means = {name: float(c.mean()) for name, c in cosines.items()}
        results.append(Scores(sample.name, means, as_close, seconds))
    return results


def table(results: list[Scores]) -> str:
    """The figures as a markdown table, one row per sample."""
    names, timed_names = list(results[0].means), list(results[0].seconds_per_1000)
    lines = [
        "| sample | "
        + " | ".join(names)
        + " | as close as the first sentence | seconds per 1,000 papers: "
        + " / ".join(timed_names)
        + " |",
        "|---|" + "---|" * (len(names) + 2),
    ]
    for r in results:
        cells = " | ".join(f"{r.means[n]:.3f}" for n in names)
        costs = " / ".join(f"{r.seconds_per_1000[n]:.2f}" for n in timed_names)
        lines.append(f"| {r.sample} | {cells} | {r.as_close:.0%} | {costs} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--at", nargs="*", default=[], metavar="COMMIT", help="also score the titles of these commits")
    args = parser.parse_args()
    sample_list = samples()
    if not sample_list:
        print("no corpus with real titles in ../shared/data: nothing to measure", file=sys.stderr)
        return 2
    print(table(score(sample_list, {commit: deriver_at(commit) for commit in args.at})))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
