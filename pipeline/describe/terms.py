"""Per-topic term statistics: counted batch by batch, summed across batches, kept with the build.

Keywords come from how often each topic's papers use each candidate term. The candidates (the
vocabulary) are fixed once, from the fit sample, so counts from any batch of papers, on any
machine, line up and simply add; `topic-explorer add` adds the new papers' counts to the build's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from topic_explorer.pipeline.settings import TWO_PAPERS_FROM
from topic_explorer.pipeline.text.clean import phrases


def keyword_min_df(n_papers: int) -> int:
    """In how many papers a term must occur to be a keyword candidate (`TWO_PAPERS_FROM`)."""
    return 1 if n_papers < TWO_PAPERS_FROM else 2


def vocabulary(abstracts: list[str]) -> tuple[str, ...]:
    """The candidate keywords: words and short phrases (`textclean.phrases`), rare ones dropped on larger corpora."""
    from sklearn.feature_extraction.text import CountVectorizer

    counter = CountVectorizer(analyzer=phrases, min_df=keyword_min_df(len(abstracts)))
    counter.fit(abstracts)
    return tuple(sorted(str(term) for term in counter.get_feature_names_out()))


@dataclass(frozen=True)
class TermCounts:
    """Per topic (rows, in `topic_ids` order) and term (columns): uses, and papers using it."""

    topic_ids: np.ndarray  # int64 [k]
    terms: tuple[str, ...]  # [v]
    counts: sparse.csr_matrix  # [k, v] how often the topic's papers use the term
    papers: sparse.csr_matrix  # [k, v] how many of the topic's papers use it
    sizes: np.ndarray  # int64 [k] papers counted per topic

    def __add__(self, other: TermCounts) -> TermCounts:
        if self.terms != other.terms or not np.array_equal(self.topic_ids, other.topic_ids):
            raise ValueError("term counts over different topics or vocabularies do not add up")
        return TermCounts(
            self.topic_ids, self.terms, self.counts + other.counts, self.papers + other.papers, self.sizes + other.sizes
        )

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


def count_terms(
    abstracts: list[str], topic_id: np.ndarray, topic_ids: np.ndarray, terms: tuple[str, ...]
) -> TermCounts:
    """Term statistics of one batch of papers; `topic_ids` (sorted) fixes the rows, `terms` the columns."""
    from sklearn.feature_extraction.text import CountVectorizer

    counter = CountVectorizer(analyzer=phrases, vocabulary=list(terms))
    per_paper = counter.transform(abstracts) if len(abstracts) else sparse.csr_matrix((0, len(terms)))
    rows = np.searchsorted(topic_ids, topic_id)
    membership = sparse.csr_matrix(
        (np.ones(len(topic_id)), (rows, np.arange(len(topic_id)))), shape=(len(topic_ids), len(topic_id))
    )
    counts = (membership @ per_paper).astype(np.int64).tocsr()
    papers = (membership @ (per_paper > 0).astype(np.int64)).astype(np.int64).tocsr()
    sizes = np.bincount(rows, minlength=len(topic_ids)).astype(np.int64)
    return TermCounts(np.asarray(topic_ids, dtype=np.int64), terms, counts, papers, sizes)


def class_tfidf(counts: sparse.spmatrix) -> np.ndarray:
    """c-TF-IDF as BERTopic computes it with `reduce_frequent_words=True` (a test checks they agree).

    Term frequency per topic (l1-normalised, square-rooted) times log(1 + average words per topic /
    the term's frequency over all topics). Written out here so a build never imports BERTopic (5-8 s).
    """
    counts = sparse.csr_matrix(counts, dtype=np.float64)
    frequency = np.asarray(counts.sum(axis=0)).ravel()
    average = int(np.asarray(counts.sum(axis=1)).mean()) if counts.shape[0] else 0
    with np.errstate(divide="ignore"):
        idf = np.log(average / frequency + 1)
    totals = np.asarray(counts.sum(axis=1)).ravel()
    tf = sparse.diags(1 / np.where(totals == 0, 1, totals)) @ counts
    tf.data = np.sqrt(tf.data)
    return (tf @ sparse.diags(idf)).toarray()
