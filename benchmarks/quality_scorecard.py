"""Benchmark: the quality scorecard, our topics and tree against stock BERTopic's on the same vectors.

    python benchmarks/quality_scorecard.py --cache-dir /work/embcache
    python benchmarks/quality_scorecard.py --corpora arxiv-a --embedder tfidf
    python benchmarks/quality_scorecard.py --sides ours --subsets 6 --cache-dir /work/embcache

For each shared corpus (from ../shared/data, skipped with a message when absent) the topics are fitted on the
same vectors three times each, by our pipeline (`fit_topics` and `topic_hierarchy`, default settings) and by
stock BERTopic (default UMAP + HDBSCAN, English stop words, seed 0): on every paper, and on two random 90%
subsets (`--subsets N` for more). Printed per corpus, one row per side:

- NMI / AMI of the finest topics against each label set (stock BERTopic's outliers count as one topic);
- tree: dendrogram purity (Heller & Ghahramani 2005: for every pair of papers with the same label, the share of
  that label among the papers of the smallest tree node holding both) against the coarse and the fine labels,
  over the tree's levels; beside it BERTopic's `hierarchical_topics` over *our* finest topics, cut to the same
  group counts ("ward"); AMI of the level whose group count is nearest the coarse labels' count; and the map
  share: papers whose 10 nearest map neighbours are mostly in their own group, at the broadest level;
- stability: ARI on shared papers between the whole and each 90% subset, and between the two subsets; with
  `--subsets N` (N > 2), also the mean and the lowest over N subsets and every pair of them, since one pair's ARI
  moves by a few hundredths with any change to the clustering;
- the biggest topic's share, the topic count, and the fit's seconds (everything after embedding but the map).

Embeddings come from the embedding cache (`--cache-dir`): fill it once with a build of each corpus, or let this
script embed what is missing (MiniLM: about 20 abstracts a second on 2 cores). `--embedder tfidf` fits the
TF-IDF space on each whole corpus and needs no model.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import random
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SUBSET = 0.9  # share of the papers in each resampled build
SUBSETS = 2  # random 90% subsets per corpus (seeds 1, 2, ...): the first two are the "a" and "b" figures
MAP_NEIGHBOURS = 10
TERMS_CACHE: Path | None = None  # where keyword candidates' vectors are kept between fits (main sets it)


@dataclass(frozen=True)
class Corpus:
    file: str
    rows: int
    seed: int
    labels: dict[str, str]  # label set's name -> column (or "archive": the category's archive)
    coarse: str
    fine: str


CORPORA = {
    "ml_venues": Corpus("ml_venues_by_field.jsonl.gz", 5000, 0, {"field": "field", "venue": "venue"}, "field", "venue"),
    "arxiv-a": Corpus(
        "arxiv_2024_2026_part1.jsonl.gz", 5000, 0, {"archive": "archive", "category": "category"}, "archive", "category"
    ),
    "arxiv-b": Corpus(
        "arxiv_2024_2026_part2.jsonl.gz", 5000, 1, {"archive": "archive", "category": "category"}, "archive", "category"
    ),
    "20ng": Corpus(
        "20newsgroups_bydate.jsonl.gz", 5000, 0, {"supercategory": "supercategory", "newsgroup": "category"},
        "supercategory", "newsgroup",
    ),
}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=list(CORPORA))
    parser.add_argument("--embedder", default="minilm", choices=("minilm", "tfidf"))
    parser.add_argument("--cache-dir", type=Path, help="embedding cache (default: the tool's)")
    parser.add_argument("--sides", nargs="+", default=["ours", "stock"], choices=("ours", "stock"))
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--subsets", type=int, default=SUBSETS, help="random 90%% subsets per corpus (at least 2)")
    args = parser.parse_args()
    if args.subsets < 2:
        parser.error("--subsets needs at least 2: the figures compare two subsets")
    logging.basicConfig(level=logging.WARNING)
    global TERMS_CACHE
    TERMS_CACHE = args.cache_dir
    results = {}
    for name in args.corpora:
        papers = load(CORPORA[name])
        if papers is None:
            print(f"skipping {name}: {DATA / CORPORA[name].file} not found", file=sys.stderr)
            continue
        vectors = embed(papers["abstract"].tolist(), args.embedder, args.cache_dir)
        results[name] = {side: score(side, papers, vectors, CORPORA[name], args.subsets) for side in args.sides}
        print(table(name, CORPORA[name], results[name], len(papers)), flush=True)
        if args.json:
            args.json.write_text(json.dumps(results, indent=2))
    return 0


def load(corpus: Corpus) -> pd.DataFrame | None:
    """The corpus's seeded sample of rows, read as the pipeline reads them, with its label columns."""
    from topic_explorer.pipeline.ingest.corpus import load_corpus

    source = DATA / corpus.file
    if not source.exists():
        return None
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        chosen = random.Random(corpus.seed).sample(lines.readlines(), corpus.rows)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "corpus.jsonl"
        path.write_text("".join(chosen), encoding="utf-8")
        papers = load_corpus([path]).papers.reset_index(drop=True)
    if "category" in papers and "archive" in corpus.labels.values():
        papers["archive"] = papers["category"].astype("string").str.split(".").str[0]
    return papers


def embed(texts: list[str], embedder_name: str, cache_dir: Path | None) -> np.ndarray:
    from topic_explorer.pipeline.apply.loop import embed_all
    from topic_explorer.pipeline.embed.cache import EmbeddingCache
    from topic_explorer.pipeline.embed.models import make_embedder
    from topic_explorer.pipeline.settings import default_cache_dir

    embedder = make_embedder(embedder_name)
    if embedder.fits_corpus:
        return embedder.fit(texts).transform(texts)
    return embed_all(texts, embedder, EmbeddingCache(cache_dir or default_cache_dir(), embedder.name), progress=True)


def score(side: str, papers: pd.DataFrame, vectors: np.ndarray, corpus: Corpus, subsets: int = SUBSETS) -> dict:
    texts = papers["abstract"].tolist()
    n = len(texts)
    started = time.perf_counter()
    whole = (fit_ours if side == "ours" else fit_stock)(vectors, texts)
    seconds = time.perf_counter() - started
    topics = whole["topics"]
    result: dict = {"topics": len(set(topics.tolist()) - {-1}), "seconds": round(seconds, 1)}
    result["biggest"] = round(float(np.bincount(topics[topics >= 0]).max() / n), 3)
    result["left_out"] = round(float((topics < 0).mean()), 3)
    for label, column in corpus.labels.items():
        truth = papers[column]
        result[f"nmi_{label}"], result[f"ami_{label}"] = agreement(topics, truth)
    trees = {"tree": whole["tree"], "ward": whole["ward"]}
    xy = map_coordinates(vectors)
    for tree_name, levels in trees.items():
        if not levels:
            continue
        for label in (corpus.coarse, corpus.fine):
            column = corpus.labels[label]
            result[f"{tree_name}_purity_{label}"] = dendrogram_purity(topics, levels, papers[column])
        k = papers[corpus.labels[corpus.coarse]].nunique()
        nearest = min(levels, key=lambda level: abs(len(set(level.values())) - k))
        grouped = np.array([nearest.get(int(t), -1) for t in topics])
        result[f"{tree_name}_ami_{corpus.coarse}_at_{len(set(nearest.values()))}"] = agreement(
            grouped, papers[corpus.labels[corpus.coarse]]
        )[1]
        broadest = np.array([levels[0].get(int(t), -1) for t in topics])
        result[f"{tree_name}_groups"] = [len(set(level.values())) for level in levels]
        sizes = np.unique(broadest[broadest >= 0], return_counts=True)[1]
        result[f"{tree_name}_broadest_shares"] = sorted((round(float(size / n), 3) for size in sizes), reverse=True)
        result[f"{tree_name}_map_share"] = map_share(xy, broadest)
    result.update(stability(side, vectors, texts, topics, subsets))
    return result


def fit_ours(vectors: np.ndarray, texts: list[str], *, tree: bool = True) -> dict:
    """Our finest topics and tree levels, and BERTopic's `hierarchical_topics` over the same topics."""
    from topic_explorer.pipeline.apply.loop import embed_all
    from topic_explorer.pipeline.describe.hierarchy import topic_hierarchy
    from topic_explorer.pipeline.describe.terms import PaperTerms
    from topic_explorer.pipeline.embed.cache import EmbeddingCache
    from topic_explorer.pipeline.embed.models import make_embedder
    from topic_explorer.pipeline.fit.clusters import choose_parameters
    from topic_explorer.pipeline.fit.reduce import nearest_neighbours
    from topic_explorer.pipeline.fit.topics import fit_topics, topic_clusters
    from topic_explorer.pipeline.settings import BuildSettings

    if not tree:  # the topics alone, as `fit_topics` finds them
        settings = BuildSettings(cache_dir=Path(tempfile.gettempdir()))  # nothing is cached by the clustering alone
        params = choose_parameters(len(texts), settings)
        neighbours = nearest_neighbours(vectors, params.graph_neighbors + 1)
        named = np.full(len(texts), -1)
        clusters = topic_clusters(params, neighbours, PaperTerms.count(texts), named, settings)
        return {"topics": clusters.fit(vectors).labels_}
    with tempfile.TemporaryDirectory() as scratch:
        terms_embedder = make_embedder("minilm")
        embed_terms = partial(
            embed_all, embedder=terms_embedder, cache=EmbeddingCache(TERMS_CACHE, terms_embedder.name)
        )
        if vectors.shape[1] != 384:  # a TF-IDF build names topics with its own space
            embed_terms = _tfidf_terms(texts)
        fit = fit_topics(vectors, texts, settings=BuildSettings(cache_dir=Path(scratch)), embed=embed_terms)
        topics = np.asarray(fit.topic_id)
        hierarchy = topic_hierarchy(
            fit.counts, fit.model, texts=texts, text_topics=fit.topic_id, embed_terms=embed_terms
        )
    levels = [
        {
            int(t): int(row.group_id)
            for _, row in hierarchy[hierarchy["level"] == level].iterrows()
            for t in row.topic_ids
        }
        for level in sorted(hierarchy["level"].unique())
    ]
    counts = [len(set(level.values())) for level in levels]
    return {"topics": topics, "tree": levels, "ward": bertopic_levels(fit.bertopic, texts, counts)}


def _tfidf_terms(texts: list[str]):
    from topic_explorer.pipeline.embed.models import make_embedder

    embedder = make_embedder("tfidf").fit(texts)
    return embedder.transform


def fit_stock(vectors: np.ndarray, texts: list[str], *, tree: bool = True) -> dict:
    """Stock BERTopic on the same vectors: default UMAP (seed 0) and HDBSCAN, English stop words."""
    from bertopic import BERTopic
    from sklearn.feature_extraction.text import CountVectorizer
    from umap import UMAP

    model = BERTopic(
        umap_model=UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine", random_state=0),
        vectorizer_model=CountVectorizer(stop_words="english"),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        topics = np.asarray(model.fit_transform(texts, embeddings=vectors)[0])
    if not tree:
        return {"topics": topics}
    # BERTopic's tree over its own topics, cut to the level counts our tree would have for as many topics
    from topic_explorer.pipeline.describe.hierarchy import level_sizes

    counts = level_sizes(len(set(topics.tolist()) - {-1}))
    return {"topics": topics, "tree": bertopic_levels(model, texts, counts), "ward": []}


def bertopic_levels(model, texts: list[str], counts: list[int]) -> list[dict[int, int]]:
    """BERTopic's `hierarchical_topics` (ward over its c-TF-IDF rows) cut into each of `counts` groups.

    Its merged groups are named by c-TF-IDF words alone: only the tree's shape is scored here.
    """
    model.representation_model = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        merges = model.hierarchical_topics(texts).sort_values("Distance")
    topics = sorted(t for t in model.get_topics() if t >= 0)
    levels = []
    for k in counts:  # undo all but the last k - 1 merges: each topic's group is the highest node it reached
        node_of = {t: t for t in topics}
        for row in merges.head(max(len(topics) - k, 0)).itertuples():
            children = {int(row.Child_Left_ID), int(row.Child_Right_ID)}
            node_of = {t: int(row.Parent_ID) if node in children else node for t, node in node_of.items()}
        levels.append(node_of)
    return levels


def agreement(topics: np.ndarray, labels: pd.Series) -> tuple[float, float]:
    """NMI and AMI of `topics` against the papers' labels, over the papers that have one."""
    from sklearn.metrics import adjusted_mutual_info_score, normalized_mutual_info_score

    known = labels.notna().to_numpy()
    truth = labels[known].astype(str).to_numpy()
    found = topics[known]
    return (
        round(float(normalized_mutual_info_score(truth, found)), 3),
        round(float(adjusted_mutual_info_score(truth, found)), 3),
    )


def dendrogram_purity(topics: np.ndarray, levels: list[dict[int, int]], labels: pd.Series) -> float:
    """Heller & Ghahramani's dendrogram purity of the tree root > levels (broadest first) > topics > papers.

    A pair of same-label papers meets at the lowest node holding both (a topic, a group of some level, or the
    root) and scores the share of its label among that node's papers. Papers in no topic (-1) are left out.
    """
    known = labels.notna().to_numpy() & (topics >= 0)
    truth = pd.factorize(labels[known].astype(str))[0]
    tiers = [topics[known]] + [np.array([level[int(t)] for t in topics[known]]) for level in reversed(levels)]
    tiers.append(np.zeros(len(truth), dtype=np.int64))  # the root
    score, below, below_node = 0.0, None, None
    for tier in tiers:
        _, node = np.unique(tier, return_inverse=True)
        counts = np.zeros((node.max() + 1, truth.max() + 1))
        np.add.at(counts, (node, truth), 1)
        pairs = counts * (counts - 1) / 2  # same-label pairs inside each node
        meeting = pairs.copy()
        if below is not None:  # less the pairs that met in a node of the tier below
            parent = np.zeros(below.shape[0], dtype=np.int64)
            parent[below_node] = node
            np.subtract.at(meeting, parent, below)
        score += (meeting * counts / counts.sum(axis=1, keepdims=True)).sum()
        below, below_node = pairs, node
    same = np.bincount(truth)
    return round(float(score / (same * (same - 1) / 2).sum()), 3)


def map_coordinates(vectors: np.ndarray) -> np.ndarray:
    from topic_explorer.pipeline.fit.reduce import nearest_neighbours
    from topic_explorer.pipeline.map.layout import map_coordinates as layout

    return layout(vectors, nearest_neighbours(vectors, 16), seed=0, n_neighbors=15)


def map_share(xy: np.ndarray, groups: np.ndarray) -> float:
    """Share of papers whose `MAP_NEIGHBOURS` nearest map neighbours are mostly in their own group."""
    from sklearn.neighbors import NearestNeighbors

    keep = groups >= 0
    found = NearestNeighbors(n_neighbors=MAP_NEIGHBOURS + 1).fit(xy[keep]).kneighbors(xy[keep])[1][:, 1:]
    own = (groups[keep][found] == groups[keep][:, None]).mean(axis=1)
    return round(float((own > 0.5).mean()), 3)


def stability(side: str, vectors: np.ndarray, texts: list[str], whole: np.ndarray, subsets: int = SUBSETS) -> dict:
    """ARI on shared papers: the whole against each 90% subset, and the subsets against each other (the first two
    as "a" and "b"; with more, the mean and the lowest over every subset and every pair)."""
    from itertools import combinations

    from sklearn.metrics import adjusted_rand_score

    fit = fit_ours if side == "ours" else fit_stock
    n = len(texts)
    found = []
    for seed in range(1, subsets + 1):
        rows = np.sort(np.random.default_rng(seed).choice(n, int(SUBSET * n), replace=False))
        topics = np.full(n, -2, dtype=np.int64)  # -2: not in this subset
        topics[rows] = fit(vectors[rows], [texts[i] for i in rows], tree=False)["topics"]
        found.append(topics)

    def ari(a: np.ndarray, b: np.ndarray) -> float:
        shared = (a != -2) & (b != -2)
        return round(float(adjusted_rand_score(a[shared], b[shared])), 3)

    result = {"ari_whole_a": ari(whole, found[0]), "ari_whole_b": ari(whole, found[1]), "ari_a_b": ari(*found[:2])}
    if subsets > 2:
        wholes = [ari(whole, topics) for topics in found]
        pairs = [ari(a, b) for a, b in combinations(found, 2)]
        result |= {
            f"ari_whole_{subsets}_mean": round(float(np.mean(wholes)), 3), f"ari_whole_{subsets}_lowest": min(wholes),
            f"ari_pairs_{subsets}_mean": round(float(np.mean(pairs)), 3), f"ari_pairs_{subsets}_lowest": min(pairs),
            f"ari_pairs_{subsets}_all": pairs,
        }  # fmt: skip
    return result


def table(name: str, corpus: Corpus, sides: dict, n: int) -> str:
    keys = sorted({key for result in sides.values() for key in result})
    rows = [
        f"\n## {name} ({n} papers; coarse: {corpus.coarse}, fine: {corpus.fine})",
        "",
        "| | " + " | ".join(sides) + " |",
    ]
    rows.append("|---" * (len(sides) + 1) + "|")
    for key in keys:
        rows.append(f"| {key} | " + " | ".join(str(result.get(key, "")) for result in sides.values()) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
