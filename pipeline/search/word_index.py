"""BM25 over the papers' titles and abstracts: the word half of search (search/ranked.py fuses it with meaning).

The index is a sparse matrix of BM25 weights, papers x words (scipy), built when a build is first searched:
a query's scores are the sum of its words' columns, milliseconds at 100,000 papers. Building is the cost
(benchmarks/search_speed.py measures it): words are found by one compiled regex per paper and numbered by
pandas' hash table in one pass over all of them, rather than word by word in Python. bm25s (PyPI) indexes the
same way but tokenises word by word; measured at 100,000 arXiv abstracts it took several times as long, so it
did not earn its place. Words are lowercased, English stop words dropped and a plural 's' folded ('clients'
finds 'client'), the same for papers and queries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import chain

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

# BM25's usual constants (Robertson & Zaragoza 2009; bm25s and Lucene default to the same):
K1 = 1.5  # how fast repeats of a word stop adding to a paper's score
B = 0.75  # how much a long paper's counts are discounted
_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # "low-rank" is one word, as readers type it


@dataclass(frozen=True)
class WordIndex:
    """BM25 weights of every paper's words (papers x words, column-compressed) and the words' numbers."""

    weights: sparse.csc_matrix
    words: dict[str, int]

    @classmethod
    def build(cls, texts: list[str] | pd.Series) -> WordIndex:
        """The index of `texts` (one per paper, e.g. title and abstract), in their order."""
        found = [_WORD.findall(text.lower()) for text in texts]
        lengths = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
        codes, spellings = pd.factorize(np.fromiter(chain.from_iterable(found), dtype=object, count=int(lengths.sum())))
        folded = [_fold(spelling) for spelling in spellings]
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
        columns = sorted({self.words[w] for w in map(_fold, _WORD.findall(query.lower())) if w in self.words})
        if not columns:
            return np.zeros(self.weights.shape[0], dtype=np.float32)
        return np.asarray(self.weights[:, columns].sum(axis=1), dtype=np.float32).ravel()


def _fold(spelling: str) -> str:
    """The word a spelling counts as: '' for a stop word or a bare number; a plural 's' dropped."""
    if spelling in ENGLISH_STOP_WORDS or spelling.isdigit() or len(spelling) < 2:
        return ""
    if len(spelling) > 3 and spelling.endswith("s") and not spelling.endswith(("ss", "us", "is")):
        return spelling[:-1]
    return spelling


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
