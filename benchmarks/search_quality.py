"""Benchmark: how well search ranks, by meaning alone, by words alone and both fused (what search does now).

    .venv/bin/python benchmarks/search_quality.py                  # 30 papers per category or field
    .venv/bin/python benchmarks/search_quality.py --per-label 60   # a fairer top 10, twice the embedding
    .venv/bin/python benchmarks/search_quality.py --seed 1         # other papers: the weights were set on seed 0

A corpus whose papers carry a label is searched with each label's name as the query ("Computer Vision and
Pattern Recognition" for cs.CV); precision at 10 is the share of the ten best matches that carry that label.
The corpus: up to --per-label papers (seeded) of each of the 30 commonest primary categories of
../shared/data/arxiv_2024_2026_part1.jsonl.gz, named as arXiv names them, and the 5 fields of
ml_venues_by_field.jsonl.gz ("Natural Language Processing" for NLP). Rankings use the functions
`topic-explorer search` uses (pipeline/search/ranked.py) on MiniLM embeddings of the abstracts (through the build's
embedding cache: a rerun embeds nothing) and BM25 over title and abstract. Printed: per query and on average,
precision at 10 by meaning (search before hybrid search), by words, and fused (`fuse`, with its weights).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TOP = 10  # precision at 10: what fits on a screen of results
ARXIV_NAMES = {  # arXiv's own names for its categories
    "cs.CV": "Computer Vision and Pattern Recognition",
    "cs.CL": "Computation and Language",
    "cs.LG": "Machine Learning",
    "cs.AI": "Artificial Intelligence",
    "cs.RO": "Robotics",
    "quant-ph": "Quantum Physics",
    "cond-mat.mtrl-sci": "Materials Science",
    "cs.CR": "Cryptography and Security",
    "astro-ph.GA": "Astrophysics of Galaxies",
    "cs.HC": "Human-Computer Interaction",
    "cond-mat.mes-hall": "Mesoscale and Nanoscale Physics",
    "cs.SE": "Software Engineering",
    "cond-mat.str-el": "Strongly Correlated Electrons",
    "cs.CY": "Computers and Society",
    "cs.IR": "Information Retrieval",
    "eess.IV": "Image and Video Processing",
    "cs.IT": "Information Theory",
    "cs.SD": "Sound",
    "cond-mat.stat-mech": "Statistical Mechanics",
    "astro-ph.CO": "Cosmology and Nongalactic Astrophysics",
    "math.RT": "Representation Theory",
    "physics.chem-ph": "Chemical Physics",
    "cs.GR": "Graphics",
    "cond-mat.supr-con": "Superconductivity",
    "cs.NE": "Neural and Evolutionary Computing",
    "cs.GT": "Computer Science and Game Theory",
    "cs.CE": "Computational Engineering, Finance, and Science",
    "cs.NI": "Networking and Internet Architecture",
    "math.OC": "Optimization and Control",
    "cs.DC": "Distributed, Parallel, and Cluster Computing",
}
ML_VENUES_NAMES = {
    "ML": "Machine Learning",
    "CV": "Computer Vision",
    "NLP": "Natural Language Processing",
    "Robotics": "Robotics",
    "LearningTheory": "Learning Theory",
}


def labelled(file_name: str, column: str, names: dict[str, str], per_label: int, seed: int = 0) -> pd.DataFrame:
    """Up to `per_label` papers (seeded) of each label in `names`: title, abstract, label."""
    chosen: dict[str, list[dict]] = defaultdict(list)
    with gzip.open(DATA / file_name, "rt", encoding="utf-8") as lines:
        for row in map(json.loads, lines):
            if row.get(column) in names and row.get("abstract"):
                chosen[row[column]].append(row)
    rng = random.Random(seed)
    rows = [row for label in names for row in rng.sample(chosen[label], min(per_label, len(chosen[label])))]
    return pd.DataFrame(
        {
            "title": [r.get("title") or "" for r in rows],
            "abstract": [r["abstract"] for r in rows],
            "label": [r[column] for r in rows],
        }
    )


def precision(papers: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """Precision at TOP per label's name, ranking by meaning, by words and fused."""
    from topic_explorer.pipeline.apply.loop import embed_all
    from topic_explorer.pipeline.embed.cache import EmbeddingCache
    from topic_explorer.pipeline.embed.models import MiniLMEmbedder
    from topic_explorer.pipeline.search.ranked import best, fuse, query_vector, similarities, word_index
    from topic_explorer.pipeline.settings import default_cache_dir

    embedder = MiniLMEmbedder(device="cpu")
    vectors = embed_all(
        papers["abstract"].tolist(), embedder, EmbeddingCache(default_cache_dir(), embedder.name), progress=True
    )
    index = word_index(papers)
    labels = papers["label"].to_numpy()
    rows = []
    for label, query in names.items():
        meaning = similarities(vectors, query_vector(embedder, query))
        words = index.scores(query)
        row = {"query": query, "papers": int((labels == label).sum())}
        for name, scores in (("meaning", meaning), ("words", words), ("fused", fuse(meaning, words))):
            row[name] = float(np.mean(labels[best(scores, TOP).rows] == label))
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-label", type=int, default=30, metavar="N", help="papers per label (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="which papers are drawn (default %(default)s)")
    args = parser.parse_args()
    corpora = [
        ("arXiv primary categories", "arxiv_2024_2026_part1.jsonl.gz", "category", ARXIV_NAMES),
        ("ml_venues fields", "ml_venues_by_field.jsonl.gz", "field", ML_VENUES_NAMES),
    ]
    for title, file_name, column, names in corpora:
        if not (DATA / file_name).exists():
            print(f"skipping {title}: {DATA / file_name} is not there", file=sys.stderr)
            continue
        papers = labelled(file_name, column, names, args.per_label, args.seed)
        table = precision(papers, names)
        print(f"\n{title}: {len(papers):,} papers, {len(names)} queries, precision at {TOP}")
        print(table.to_string(index=False, float_format=lambda x: f"{x:.2f}"))
        means = table[["meaning", "words", "fused"]].mean()
        wins = (table["fused"] > table["meaning"]).sum(), (table["fused"] < table["meaning"]).sum()
        print(
            f"mean: meaning {means['meaning']:.3f} · words {means['words']:.3f} · fused {means['fused']:.3f}"
            f" (fused above meaning on {wins[0]} queries, below on {wins[1]})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
