"""Keyword candidates, counted once per fit-sample paper, and their sums per topic.

Each fit-sample paper's words and short phrases (`pipeline.text.clean.phrases`) are counted once
(`PaperTerms.count`, in chunks: `text.counting`). BERTopic's c-TF-IDF, our keyword ranking, BERTopic's representative
documents and the topic tree all read those counts: BERTopic's vectorizer (`PaperTerms.vectorizer`) splits the
text it joins per topic back into its papers (`DOCUMENT_END`) and looks each one up, so no paper is
read twice and one paper's stray `$` never eats the next one's words. The per-topic sums
(`TermCounts`) are kept with the build for the topic tree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from topic_explorer.pipeline.settings import TWO_PAPERS_FROM
from topic_explorer.pipeline.text.clean import phrases
from topic_explorer.pipeline.text.counting import COUNT_CHUNK, count_terms

DOCUMENT_END = "\u2029"  # Unicode's paragraph separator: ends each paper in the text BERTopic joins per topic


def keyword_min_df(n_papers: int) -> int:
    """In how many papers a term must occur to be a keyword candidate (`TWO_PAPERS_FROM`)."""
    return 1 if n_papers < TWO_PAPERS_FROM else 2


@dataclass(frozen=True)
class PaperTerms:
    """Each paper's uses of each candidate term (rows in the order the papers were counted)."""

    terms: tuple[str, ...]  # [v], sorted
    counts: sparse.csr_matrix  # [n, v]
    rows: dict[str, int]  # abstract -> its row

    @classmethod
    def count(cls, abstracts: list[str], *, chunk: int = COUNT_CHUNK) -> PaperTerms:
        """The candidates of `abstracts` (rare ones dropped on larger corpora, `keyword_min_df`), counted per paper
        `chunk` papers at a time: the terms and counts scikit-learn's CountVectorizer(analyzer=phrases) gives."""
        terms, counts = count_terms(abstracts, phrases, keyword_min_df(len(abstracts)), chunk=chunk)
        return cls(terms, counts, {text: row for row, text in enumerate(abstracts)})

    def topic_counts(self, topic_of_paper: np.ndarray, topic_ids: np.ndarray) -> TermCounts:
        """The sums over each topic's papers; `topic_ids` (sorted) fixes the rows, `topic_of_paper` is per row."""
        rows = np.searchsorted(topic_ids, topic_of_paper)
        membership = sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.int64), (rows, np.arange(len(rows)))), shape=(len(topic_ids), len(rows))
        )
        return TermCounts(
            np.asarray(topic_ids, dtype=np.int64),
            self.terms,
            (membership @ self.counts).tocsr(),
            (membership @ (self.counts > 0).astype(np.int64)).tocsr(),
            np.bincount(rows, minlength=len(topic_ids)).astype(np.int64),
        )

    def weighted(self) -> sparse.csr_matrix:
        """Each paper as a unit-length TF-IDF row over the candidates (log-scaled uses x log(papers / papers
        using the term)): how much two papers share their words and phrases, for the clustering's lexical
        neighbours (`pipeline.fit.cluster_model`)."""
        counts = self.counts.astype(np.float32)
        used_by = np.asarray((counts > 0).sum(axis=0)).ravel()
        idf = np.log(counts.shape[0] / np.maximum(used_by, 1)).astype(np.float32)
        counts.data = np.log1p(counts.data)
        rows = counts.multiply(idf[None, :]).tocsr()
        norms = np.sqrt(np.asarray(rows.multiply(rows).sum(axis=1)).ravel())
        return (sparse.diags(1 / np.where(norms > 0, norms, 1)) @ rows).tocsr().astype(np.float32)

    def vectorizer(self):
        """BERTopic's `vectorizer_model`: scikit-learn's CountVectorizer over these candidates, reading known papers
        from their counts (texts given to BERTopic end with `DOCUMENT_END`)."""
        from sklearn.feature_extraction.text import CountVectorizer

        return CountVectorizer(analyzer=_KnownPapers(self), vocabulary=list(self.terms))


class _KnownPapers:
    """An analyzer: the terms of each paper in a text, from its counts when known, read afresh otherwise."""

    def __init__(self, papers: PaperTerms):
        self.papers = papers
        self.terms = np.asarray(papers.terms, dtype=object)

    def __call__(self, text: str) -> list[str]:
        found: list[str] = []
        for paper in text.split(DOCUMENT_END):
            paper = paper.strip()
            row = self.papers.rows.get(paper)
            if row is None:
                found += phrases(paper) if paper else []
                continue
            start, stop = self.papers.counts.indptr[row], self.papers.counts.indptr[row + 1]
            found.extend(
                np.repeat(self.terms[self.papers.counts.indices[start:stop]], self.papers.counts.data[start:stop])
            )
        return found


@dataclass(frozen=True)
class TermCounts:
    """Per topic (rows, in `topic_ids` order) and term (columns): uses, and papers using it."""

    topic_ids: np.ndarray  # int64 [k]
    terms: tuple[str, ...]  # [v]
    counts: sparse.csr_matrix  # [k, v] how often the topic's papers use the term
    papers: sparse.csr_matrix  # [k, v] how many of the topic's papers use it
    sizes: np.ndarray  # int64 [k] papers counted per topic

    def to_frame(self) -> pd.DataFrame:
        """Long form, one row per (topic, term) used: how the build stores them."""
        counts, papers = self.counts.tocoo(), self.papers.tocsr()
        return pd.DataFrame(
            {
                "topic_id": self.topic_ids[counts.row],
                "term": np.asarray(self.terms, dtype=object)[counts.col],
                "count": counts.data.astype(np.int64),
                "papers": np.asarray(papers[counts.row, counts.col]).ravel().astype(np.int64),
            }
        )

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, sizes: pd.Series) -> TermCounts:
        """The inverse of `to_frame`; `sizes` holds the papers per topic, indexed by topic id.

        Every candidate term was used by some fit-sample paper, so the frame holds the whole vocabulary.
        """
        terms = tuple(sorted(frame["term"].unique()))
        topic_ids = np.sort(sizes.index.to_numpy(dtype=np.int64))
        rows = np.searchsorted(topic_ids, frame["topic_id"].to_numpy())
        columns = pd.Index(terms).get_indexer(frame["term"])
        shape = (len(topic_ids), len(terms))
        counts = sparse.csr_matrix((frame["count"].to_numpy(), (rows, columns)), shape=shape)
        papers = sparse.csr_matrix((frame["papers"].to_numpy(), (rows, columns)), shape=shape)
        return cls(topic_ids, terms, counts, papers, sizes.loc[topic_ids].to_numpy(dtype=np.int64))
