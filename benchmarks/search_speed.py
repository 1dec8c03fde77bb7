"""Benchmark: the server's time to search a build (meaning and words fused) and to find a paper's similar papers.

    python benchmarks/search_speed.py BUILD [--queries 10] [--app]
    python benchmarks/search_speed.py --synthetic 100000 --out DIR   # a MiniLM-sized build of random vectors

Direct calls to the functions the dashboard and `topic-explorer search` run (no browser, no Streamlit), in
this fresh process, so the first query pays for loading the model as a user's first search does:
- model load: the build's embedder made and run once (MiniLM: torch and the weights; TF-IDF: its saved space);
- word index: BM25 over every title and abstract, made once per build (the dashboard keeps it per build
  version, as it keeps the embeddings), beside bm25s's tokeniser and index on the same texts when bm25s is
  installed (it is not a dependency: this is the comparison that left it out);
- first query: embedding the query, cosine similarity to every paper (memory-mapped embeddings), BM25 scores,
  reciprocal-rank fusion, the best 50;
- later queries: the same for other queries (median and max), and by meaning alone (the ranking before
  words were added: what fusion costs);
- similar papers: one paper against every paper, the best 10 (median and max over 20 papers);
- baseline: the dashboard's word filter (one word in every title and abstract), timed the same way.
Ratios are against the baseline's median. With --app, the whole page instead: Streamlit's AppTest runs
dashboard/app.py in this process (no browser): a session's first run, reruns after a word search (the
baseline), the rerun with the first search (model load and word index included) and reruns with later queries.
A synthetic build (random unit vectors, MiniLM's name and size) times
the search itself at sizes no real MiniLM build here has; its rankings mean nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from topic_explorer.pipeline.buildfolder.read import read_build  # noqa: E402
from topic_explorer.pipeline.buildfolder.write import write_build  # noqa: E402
from topic_explorer.pipeline.search.ranked import (  # noqa: E402
    best,
    query_embedder,
    query_vector,
    search_scores,
    similar_rows,
    similarities,
    word_index,
)

QUERIES = (
    "privacy-preserving training of a shared model across many clients",
    "reinforcement learning from human feedback",
    "compressing the key value cache of large language models",
    "graph neural networks for molecules",
    "uncertainty estimates of deep networks",
    "robot grasping from camera images",
    "theory of generalisation in overparameterised models",
    "diffusion models for image generation",
    "speech recognition in noisy rooms",
    "fairness of classifiers across groups",
    "quantum error correction codes",
)
TOP = 50
WORDS = "model data learning network training graph privacy robot image language theory quantum".split()


def timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def synthetic_build(n: int, out: Path, dimensions: int = 384, seed: int = 0) -> Path:
    """`n` papers with random unit vectors, declared as embedded by MiniLM (for the server's search time only)."""
    from topic_explorer.pipeline.embed.models import MiniLMEmbedder

    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, dimensions)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    words = np.asarray(WORDS)
    papers = pd.DataFrame(
        {
            "paper_id": [f"p{i:012x}" for i in range(n)],
            "title": [f"Synthetic paper {i}" for i in range(n)],
            "abstract": [" ".join(words[rng.integers(0, len(words), 30)]) for _ in range(n)],
            "topic_id": rng.integers(0, 50, n),
            "confidence": np.float32(0.5),
            "fits_poorly": False,
            "x": rng.random(n, dtype=np.float32),
            "y": rng.random(n, dtype=np.float32),
        }
    )
    topics = pd.DataFrame(
        {
            "topic_id": np.arange(50),
            "label": [f"Topic {t}" for t in range(50)],
            "keywords": [["w"]] * 50,
            "keyword_weights": [[1.0]] * 50,
            "size": papers["topic_id"].value_counts().reindex(range(50), fill_value=0).to_numpy(),
            "named": False,
            "coherence": np.nan,
        }
    )
    manifest = {"embedder": {"name": MiniLMEmbedder().name, "dimensions": dimensions}, "counts": {"papers": n}}
    return write_build(out, papers, topics, vectors, manifest)


def measure(path: Path, n_queries: int) -> None:
    load_seconds, build = timed(lambda: read_build(path))
    vectors = build.embeddings(mmap=True)
    text = (build.papers["title"] + "\n" + build.papers["abstract"]).str.lower()
    baseline = [timed(lambda w=w: text.str.contains(w, regex=False).to_numpy())[0] for w in WORDS[:5]]
    model_seconds, embedder = timed(lambda: _loaded(build))
    index_seconds, index = timed(lambda: word_index(build.papers))
    bm25s_seconds = _bm25s_index(build.papers)

    def query(q: str):
        return best(search_scores(vectors, index, embedder, q), TOP)

    first, _ = timed(lambda: query(QUERIES[0]))
    later = [timed(lambda q=q: query(q))[0] for q in QUERIES[1 : 1 + n_queries]]
    by_meaning = [  # the ranking before words were added, for what fusion costs
        timed(lambda q=q: best(similarities(vectors, query_vector(embedder, q)), TOP))[0]
        for q in QUERIES[1 : 1 + n_queries]
    ]
    rows = np.random.default_rng(1).choice(len(build.papers), size=min(20, len(build.papers)), replace=False)
    similar = [timed(lambda r=r: similar_rows(vectors, int(r), 10))[0] for r in rows]
    base = statistics.median(baseline)
    name = build.manifest.get("embedder", {}).get("name")
    print(f"{path} · {len(build.papers):,} papers · {vectors.shape[1]} dimensions · embedder {name}")
    print(f"  (reading the build: {load_seconds:.2f} s)")
    print(f"  {'':34}{'seconds':>10}{'x baseline':>12}")
    report = [
        ("baseline: word filter (median)", base),
        ("model load (first search only)", model_seconds),
        ("word index (first search only)", index_seconds),
        *([("  bm25s's index instead (not used)", bm25s_seconds)] if bm25s_seconds is not None else []),
        ("first query", first),
        (f"later queries (median of {len(later)})", statistics.median(later)),
        ("later queries (max)", max(later)),
        ("  by meaning alone (median)", statistics.median(by_meaning)),
        (f"similar papers (median of {len(similar)})", statistics.median(similar)),
        ("similar papers (max)", max(similar)),
    ]
    for label, seconds in report:
        print(f"  {label:34}{seconds:10.3f}{seconds / base:12.1f}")


def measure_app(path: Path, n_queries: int) -> None:
    """Server time of whole page runs (AppTest), searches against the word filter."""
    import os

    from streamlit.testing.v1 import AppTest

    from topic_explorer.dashboard.logic.data import BUILD_ENV
    from topic_explorer.dashboard.ui.sidebar import ABOUT_KEY, WORDS_KEY

    os.environ[BUILD_ENV] = str(path)
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
    first_run, _ = timed(at.run)
    word = [timed(lambda w=w: at.text_input(key=WORDS_KEY).set_value(w).run())[0] for w in ("model", "data", "")]
    first, _ = timed(lambda: at.text_input(key=ABOUT_KEY).set_value(QUERIES[0]).run())
    later = [timed(lambda q=q: at.text_input(key=ABOUT_KEY).set_value(q).run())[0] for q in QUERIES[1 : 1 + n_queries]]
    assert not at.exception, at.exception
    base = statistics.median(word)
    print(f"{path} · the whole page (AppTest, server time only)")
    print(f"  {'':34}{'seconds':>10}{'x baseline':>12}")
    for label, seconds in [
        ("first run of a session", first_run),
        ("baseline: rerun after a word filter", base),
        ("rerun: first search", first),
        (f"rerun: later searches (median of {len(later)})", statistics.median(later)),
        ("rerun: later searches (max)", max(later)),
    ]:
        print(f"  {label:34}{seconds:10.3f}{seconds / base:12.1f}")


def _bm25s_index(papers: pd.DataFrame) -> float | None:
    """Seconds for bm25s (if installed) to tokenise and index the same texts; None without it."""
    try:
        import bm25s
    except ImportError:
        return None
    texts = (papers["title"].astype(str) + "\n" + papers["abstract"].astype(str)).tolist()
    start = time.perf_counter()
    bm25s.BM25().index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    return time.perf_counter() - start


def _loaded(build):
    embedder = query_embedder(build.path, build.manifest, device="cpu")
    query_vector(embedder, "warm up")
    return embedder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", nargs="?", type=Path, help="a build folder")
    parser.add_argument("--queries", type=int, default=10, help=f"later queries to time (at most {len(QUERIES) - 1})")
    parser.add_argument("--synthetic", type=int, metavar="N", help="first write a synthetic MiniLM build of N papers")
    parser.add_argument("--out", type=Path, help="where the synthetic build goes")
    parser.add_argument("--app", action="store_true", help="also time whole page runs with AppTest")
    args = parser.parse_args()
    path = args.build
    if args.synthetic:
        if not args.out:
            parser.error("--synthetic needs --out DIR")
        seconds, path = timed(lambda: synthetic_build(args.synthetic, args.out))
        print(f"wrote a synthetic build of {args.synthetic:,} papers to {path} in {seconds:.1f} s")
    if path is None:
        parser.error("give a BUILD, or --synthetic N --out DIR")
    n_queries = min(args.queries, len(QUERIES) - 1)
    (measure_app if args.app else measure)(path, n_queries)  # each in a fresh process: the model loads once


if __name__ == "__main__":
    main()
