"""Keyword candidates: counted once per paper, summed per topic, read back by BERTopic's vectorizer."""

import numpy as np
import pandas as pd
from bertopic.vectorizers import ClassTfidfTransformer

from topic_explorer.pipeline.describe.keywords import class_tfidf
from topic_explorer.pipeline.describe.terms import DOCUMENT_END, PaperTerms, TermCounts

ABSTRACTS = [
    "Federated learning with many clients and differential privacy.",
    "Clients in federated learning share low-rank adapters",  # no full stop: the next paper must not run on
    "KV cache eviction speeds up long-context inference $with an unclosed",  # a stray $ must not eat the next one
    "Compressing the KV cache of large language models.",
]
TOPICS = np.array([0, 0, 1, 1])


def test_topic_counts_are_the_sums_of_their_papers_counts():
    terms = PaperTerms.count(ABSTRACTS)
    counts = terms.topic_counts(TOPICS, np.array([0, 1]))
    column = terms.terms.index("kv cache")
    assert counts.sizes.tolist() == [2, 2]
    assert counts.papers[1, column] == 2
    assert counts.papers[0, column] == 0
    assert counts.counts.sum() == terms.counts.sum()


def test_bertopics_vectorizer_reads_a_topics_joined_text_as_the_sum_of_its_papers():
    """BERTopic joins a topic's texts with spaces; each paper ends with DOCUMENT_END, so its counts are its own."""
    terms = PaperTerms.count(ABSTRACTS)
    joined = [" ".join(a + DOCUMENT_END for a in ABSTRACTS[:2]), " ".join(a + DOCUMENT_END for a in ABSTRACTS[2:])]
    through_bertopic = terms.vectorizer().fit_transform(joined)
    summed = terms.topic_counts(TOPICS, np.array([0, 1])).counts
    assert (through_bertopic != summed).nnz == 0
    assert "adapters kv" not in terms.terms
    assert "inference compressing" not in terms.terms


def test_an_unknown_text_is_read_afresh():
    terms = PaperTerms.count(ABSTRACTS)
    unknown = terms.vectorizer().fit_transform(["Federated learning and the KV cache." + DOCUMENT_END])
    row = dict(zip(terms.terms, unknown.toarray()[0], strict=True))
    assert row["federated learning"] == 1
    assert row["kv cache"] == 1


def test_counts_survive_the_round_trip_through_their_stored_form():
    counts = PaperTerms.count(ABSTRACTS).topic_counts(TOPICS, np.array([0, 1]))
    back = TermCounts.from_frame(counts.to_frame(), pd.Series(counts.sizes, index=counts.topic_ids))
    assert back.terms == counts.terms
    assert (back.counts != counts.counts).nnz == 0
    assert (back.papers != counts.papers).nnz == 0
    assert back.sizes.tolist() == counts.sizes.tolist()


def test_groups_of_topics_are_weighed_by_bertopics_own_class_tfidf():
    counts = PaperTerms.count(ABSTRACTS).topic_counts(TOPICS, np.array([0, 1]))
    expected = ClassTfidfTransformer(reduce_frequent_words=True).fit_transform(counts.counts).toarray()
    np.testing.assert_array_equal(class_tfidf(counts).toarray(), expected)
