"""Term statistics: counted per batch, summed across batches, stored and read back."""

import numpy as np
import pandas as pd
import pytest

from topic_explorer.pipeline.describe.terms import TermCounts, class_tfidf, count_terms, vocabulary

ABSTRACTS = [
    "Federated learning with many clients and differential privacy.",
    "Clients in federated learning share low-rank adapters.",
    "KV cache eviction speeds up long-context inference.",
    "Compressing the KV cache of large language models.",
]
TOPICS = np.array([0, 0, 1, 1])


def test_counts_from_batches_add_up_to_the_counts_of_the_whole():
    terms = vocabulary(ABSTRACTS)
    whole = count_terms(ABSTRACTS, TOPICS, np.array([0, 1]), terms)
    halves = count_terms(ABSTRACTS[::2], TOPICS[::2], np.array([0, 1]), terms) + count_terms(
        ABSTRACTS[1::2], TOPICS[1::2], np.array([0, 1]), terms
    )
    assert (whole.counts != halves.counts).nnz == 0 and (whole.papers != halves.papers).nnz == 0
    assert whole.sizes.tolist() == [2, 2]
    column = terms.index("kv cache")
    assert whole.papers[1, column] == 2 and whole.papers[0, column] == 0


def test_counts_survive_the_round_trip_through_their_stored_form():
    terms = vocabulary(ABSTRACTS)
    counts = count_terms(ABSTRACTS, TOPICS, np.array([0, 1]), terms)
    back = TermCounts.from_frame(counts.to_frame(), pd.Series(counts.sizes, index=counts.topic_ids))
    assert back.terms == counts.terms and (back.counts != counts.counts).nnz == 0
    assert (back.papers != counts.papers).nnz == 0 and back.sizes.tolist() == counts.sizes.tolist()


def test_counts_over_different_vocabularies_refuse_to_add():
    first = count_terms(ABSTRACTS, TOPICS, np.array([0, 1]), vocabulary(ABSTRACTS))
    second = count_terms(ABSTRACTS, TOPICS, np.array([0, 1]), vocabulary(ABSTRACTS[:2]))
    with pytest.raises(ValueError):
        first + second


def test_class_tfidf_matches_bertopics():
    from bertopic.vectorizers import ClassTfidfTransformer

    counts = count_terms(ABSTRACTS, TOPICS, np.array([0, 1]), vocabulary(ABSTRACTS)).counts
    expected = ClassTfidfTransformer(reduce_frequent_words=True).fit_transform(counts).toarray()
    np.testing.assert_allclose(class_tfidf(counts), expected, rtol=1e-12)
