"""Search a build by meaning and by words together; find a paper's similar papers by meaning.

A query ranks every paper twice: by meaning (cosine of its embedding, made with the build's own embedder
(`query_embedder`), to each paper's: MiniLM, or the build's fitted TF-IDF) and by its words (BM25 over
titles and abstracts, `search.word_index`). The two rankings are fused by reciprocal rank (`fuse`): a paper
the words find but the embedding ranks low still comes up ("clients" in a federated-learning paper that
"privacy-preserving" pulls away from), and words no paper uses change nothing. `search_scores` is the one
ranking that `topic-explorer search` and the dashboard both call. Measured at 100,000 papers x 384
dimensions, a query takes tens of milliseconds, so similar papers are computed on demand rather than
stored in the build.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.read import read_embedder_state
from topic_explorer.pipeline.buildfolder.schema import Build
from topic_explorer.pipeline.embed.threads import torch_threads
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.settings import DEFAULT_DEVICE

if TYPE_CHECKING:
    from topic_explorer.pipeline.embed.models import Embedder
    from topic_explorer.pipeline.search.word_index import WordIndex

DEFAULT_TOP = 10
MAX_QUERY_CHARS = 1000  # a query is a phrase or a paragraph, not a document
SIMILARITY_CHUNK = 20_000  # rows multiplied at a time: bounds the memory a memory-mapped build needs
# A query is one short text: torch's threads only wait on each other. Measured with MiniLM on 2 busy cores:
# 0.67 s per query with 2 threads, 0.015 s with 1.
QUERY_THREADS = 1
# Reciprocal-rank fusion's constant (Cormack, Clarke & Buettcher 2009, who found 60 good across collections):
# a paper's share from one ranking is 1 / (FUSION_K + its rank there), so the first few places of either
# ranking count for about as much as each other, and a ranking's tail adds little.
FUSION_K = 60
# How much a place by words counts against the same place by meaning. Measured with benchmarks/search_quality.py
# (precision at 10, arXiv category and ml_venues field names as queries): by meaning alone .567 and .620; fused
# with words at full weight .530 and .580 (a name like "Computation and Language" is not the words papers use);
# at 0.3, .593 and .660, and "privacy-preserving training of a shared model across many clients" still finds 3
# of the sample's 4 federated papers in its top 5 (2 by meaning alone). Between 0.2 and 0.3 the figures barely
# move; at 0.1 words stop lifting anything. Words read by the keywords' tokenizer (`search.tokens`: hyphens split,
# academic filler dropped, any alphabet) since: by words .403 and .440 (were .377 and .420), fused .593 and .620
# (were .593 and .660); on seed 1 fused .593 and .660 (were .597 and .660).
WORDS_WEIGHT = 0.3
# The relevance bar: a match is a paper whose meaning similarity (cosine) to the query reaches it, so a query
# nothing in the corpus is about finds nothing rather than its quota of the least unrelated papers. Read from
# queries on the sample and 5,000 arXiv papers: with MiniLM, papers on the query's subject score 0.4 to 0.7 and
# unrelated ones under 0.3 ("cooking recipes for pasta" and a nonsense word top out at 0.30 and 0.31 among 5,000;
# "privacy-preserving training across many clients" finds secure aggregation at 0.39, rule-based explanations at
# 0.35). A fitted TF-IDF space (SVD) is coarser: among 5,000 arXiv papers the pasta query reaches 0.59 and
# federated papers 0.4 to 0.8; among the sample's 38 the query's own subject scores 0.4 to 0.75, the rest under 0.3.
RELEVANCE_BARS = {"tfidf": 0.4}
DEFAULT_RELEVANCE = 0.35  # MiniLM, and any other embedder


@dataclass(frozen=True)
class Ranked:
    """Row positions in the build's papers, best first, and their scores (search: fused; similar: cosine)."""

    rows: np.ndarray  # int64
    scores: np.ndarray  # float32


def similarities(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of `vectors` (unit rows, possibly memory-mapped) to the unit `query`."""
    query = np.asarray(query, dtype=np.float32).ravel()
    out = np.empty(len(vectors), dtype=np.float32)
    for start in range(0, len(vectors), SIMILARITY_CHUNK):
        out[start : start + SIMILARITY_CHUNK] = np.asarray(vectors[start : start + SIMILARITY_CHUNK]) @ query
    return out


def best(scores: np.ndarray, top: int, among: np.ndarray | None = None) -> Ranked:
    """The `top` highest `scores`, best first; `among` (a boolean mask) limits the candidates.

    Ties go to the earlier row, so the same scores always give the same order.
    """
    candidates = np.flatnonzero(among) if among is not None else np.arange(len(scores))
    top = max(0, min(top, len(candidates)))
    if not top:
        return Ranked(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))
    values = scores[candidates]
    if top < len(candidates):  # the `top`-th best score, then every better row and the earliest equal ones
        threshold = -np.partition(-values, top - 1)[top - 1]
        above = np.flatnonzero(values > threshold)
        keep = np.concatenate([above, np.flatnonzero(values == threshold)[: top - len(above)]])
        candidates, values = candidates[keep], values[keep]
    order = np.lexsort((candidates, -values))
    return Ranked(candidates[order].astype(np.int64), values[order].astype(np.float32))


def similar_rows(vectors: np.ndarray, row: int, top: int = DEFAULT_TOP) -> Ranked:
    """The `top` papers closest to the paper at `row`, itself left out."""
    among = np.ones(len(vectors), dtype=bool)
    among[row] = False
    return best(similarities(vectors, np.asarray(vectors[row])), top, among)


def check_query(query: str) -> str:
    """The query, stripped; a `UserError` for an empty or over-long one."""
    query = " ".join(str(query).split())
    if not query:
        raise UserError('the search query is empty; describe the papers you want, e.g. "federated learning"')
    if len(query) > MAX_QUERY_CHARS:
        raise UserError(f"the search query has {len(query):,} characters; shorten it to at most {MAX_QUERY_CHARS:,}")
    return query


def query_embedder(build_path: Path, manifest: dict, device: str = DEFAULT_DEVICE) -> Embedder:
    """The embedder that made the build at `build_path` (its `manifest`), so a query lands in its space.

    Reads only the TF-IDF space it needs, not the build (a `UserError` if that cannot be rebuilt). Imported
    here: the dashboard loads the embedding stack only when someone first searches by meaning.
    """
    from topic_explorer.pipeline.embed.models import embedder_for

    described = manifest.get("embedder") or {}
    state = read_embedder_state(build_path)
    if state is None and str(described.get("name", "")).startswith("tfidf"):
        raise UserError(f"{build_path} keeps no TF-IDF space to search with (made by an older version); rebuild it")
    return embedder_for(described, state, device=device)


def query_vector(embedder: Embedder, query: str) -> np.ndarray:
    """The unit vector of `query` in the build's space (a `UserError` for an empty or over-long query)."""
    query = check_query(query)
    with torch_threads(QUERY_THREADS):
        return embedder.transform([query])[0]


def word_index(papers: pd.DataFrame) -> WordIndex:
    """The words half of search: BM25 over each paper's title and abstract (the same text for every caller).

    Imported here: scipy and scikit-learn load when someone first searches, not with the dashboard.
    """
    from topic_explorer.pipeline.search.word_index import WordIndex

    return WordIndex.build((papers["title"].astype(str) + "\n" + papers["abstract"].astype(str)).tolist())


def ranks(scores: np.ndarray) -> np.ndarray:
    """Each row's place when `scores` are sorted best first (1 = best); tied scores share the best of their places.

    numpy's default argsort (SIMD quicksort) is about 15x its stable sort at 100,000 papers; ties are settled here,
    so their order in the sort does not matter.
    """
    order = np.argsort(-scores)
    ordered = scores[order]
    starts = np.concatenate([[True], ordered[1:] != ordered[:-1]])
    places = np.empty(len(scores), dtype=np.float32)
    places[order] = np.maximum.accumulate(np.where(starts, np.arange(len(scores)), 0)) + 1
    return places


def fuse(meaning: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Reciprocal-rank fusion of a ranking by meaning and one by words (weighted), scaled so 1 is first in both.

    Every paper has a place by meaning; only papers holding a query word (a BM25 score above 0) have one by
    words, so a query whose words no paper uses ranks by meaning alone.
    """
    fused = 1 / (FUSION_K + ranks(meaning))
    found = words > 0
    fused[found] += WORDS_WEIGHT / (FUSION_K + ranks(words[found]))
    return (fused * (FUSION_K + 1) / (1 + WORDS_WEIGHT)).astype(np.float32)


def search_scores(vectors: np.ndarray, words: WordIndex, embedder: Embedder, query: str) -> np.ndarray:
    """Every paper's search score for `query`: meaning and words fused (a `UserError` for a bad query)."""
    return search_parts(vectors, words, embedder, query)[0]


def search_parts(
    vectors: np.ndarray, words: WordIndex, embedder: Embedder, query: str
) -> tuple[np.ndarray, np.ndarray]:
    """Every paper's fused score (the order) and its meaning similarity to `query` (the relevance bar's measure)."""
    meaning = similarities(vectors, query_vector(embedder, query))
    return fuse(meaning, words.scores(check_query(query))), meaning


def default_relevance(manifest: dict) -> float:
    """The relevance bar a search starts with for the build a `manifest` describes (`RELEVANCE_BARS`)."""
    name = str((manifest.get("embedder") or {}).get("name", ""))
    return next((bar for prefix, bar in RELEVANCE_BARS.items() if name.startswith(prefix)), DEFAULT_RELEVANCE)


def relevant(scores: np.ndarray, relevance: np.ndarray, bar: float, among: np.ndarray | None = None) -> Ranked:
    """Every paper whose `relevance` reaches `bar` (among the `among` mask), best `scores` first: no quota.

    A query nothing is about finds nothing, however many papers the filters keep.
    """
    passing = relevance >= bar
    if among is not None:
        passing &= among
    return best(scores, int(passing.sum()), passing)


def search(build: Build, embedder: Embedder, query: str, top: int = DEFAULT_TOP) -> Ranked:
    """The `top` papers of `build` that best match `query`, by meaning and by words."""
    return best(search_scores(build.embeddings(mmap=True), word_index(build.papers), embedder, query), top)


def row_of(build: Build, paper_id: str) -> int:
    """The row of `paper_id` in the build; a `UserError` naming how to find ids when it is not there."""
    matches = np.flatnonzero(build.papers["paper_id"].to_numpy() == paper_id)
    if not len(matches):
        raise UserError(
            f"no paper {paper_id!r} in {build.path}; paper ids look like p0123456789ab "
            '(find them with: topic-explorer search BUILD "some words")'
        )
    return int(matches[0])
