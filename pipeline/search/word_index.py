"""BM25 over the papers' titles and abstracts: the word half of search (search/ranked.py fuses it with meaning).

The index is a sparse matrix of BM25 weights, papers x words (scipy), built when a build is first searched:
a query's scores are the sum of its words' columns, milliseconds at 100,000 papers. Building is the cost
(benchmarks/search_speed.py measures it): words are found by one compiled regex per paper and numbered by
pandas' hash table in one pass over all of them, rather than word by word in Python. bm25s (PyPI) indexes the
same way but tokenises word by word; measured at 100,000 arXiv abstracts it took several times as long, so it
did not earn its place. Papers and queries are split into words by `search.tokens`, the keywords' own rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np
import pandas as pd
from scipy import sparse

from topic_explorer.pipeline.search.tokens import spellings, term, terms

# BM25's usual constants (Robertson & Zaragoza 2009; bm25s and Lucene default to the same):
K1 = 1.5  # how fast repeats of a word stop adding to a paper's score
B = 0.75  # how much a long paper's counts are discounted


@dataclass(frozen=True)
class WordIndex:
    """BM25 weights of every paper's words (papers x words, column-compressed) and the words' numbers."""

    weights: sparse.csc_matrix
    words: dict[str, int]

    @classmethod
    def build(cls, texts: list[str] | pd.Series) -> WordIndex:
        """The index of `texts` (one per paper, e.g. title and abstract), in their order."""
        found = [spellings(text) for text in texts]
        lengths = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
        codes, written = pd.factorize(np.fromiter(chain.from_iterable(found), dtype=object, count=int(lengths.sum())))
        folded = [term(spelling) for spelling in written]
        words = {word: i for i, word in enumerate(dict.fromkeys(w for w in folded if w))}
        word_of = np.array([words.get(w, -1) for w in folded], dtype=np.int64)[codes] if len(codes) else codes
        paper_of = np.repeat(np.arange(len(found)), lengths)
        keep = word_of >= 0
        shape = (len(found), len(words))
        counts = sparse.csr_matrix((np.ones(int(keep.sum()), np.float32), (paper_of[keep], word_of[keep])), shape=shape)
        counts.sum_duplicates()
        return cls(_bm25(counts), words)

    def scores(self, query: str) -> np.ndarray:
        """Each paper's BM25 score for the words of `query` (0 for a paper that has none of them)."""
        columns = sorted({self.words[word] for word in terms(query) if word in self.words})
        if not columns:
            return np.zeros(self.weights.shape[0], dtype=np.float32)
        return np.asarray(self.weights[:, columns].sum(axis=1), dtype=np.float32).ravel()


def _bm25(counts: sparse.csr_matrix) -> sparse.csc_matrix:
    """BM25 weight of each (paper, word) count: saturated by K1, discounted by length (B), times the word's IDF."""
    n_papers = counts.shape[0]
    length = np.asarray(counts.sum(axis=1), dtype=np.float32).ravel()
    mean_length = float(length.mean()) if n_papers and length.mean() > 0 else 1.0
    papers_with = np.bincount(counts.indices, minlength=counts.shape[1])
    idf = np.log1p((n_papers - papers_with + 0.5) / (papers_with + 0.5)).astype(np.float32)  # never negative
    rows = np.repeat(np.arange(n_papers), np.diff(counts.indptr))
    tf = counts.data
    counts.data = (tf * (K1 + 1) / (tf + K1 * (1 - B + B * length[rows] / mean_length)) * idf[counts.indices]).astype(
        np.float32
    )
    return counts.tocsc()
