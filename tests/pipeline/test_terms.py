"""Keyword candidates: counted once per paper, summed per topic, read back by BERTopic's vectorizer."""

import numpy as np
import pandas as pd
import pytest
from bertopic.vectorizers import ClassTfidfTransformer
from sklearn.feature_extraction.text import CountVectorizer

from topic_explorer.pipeline.describe.keywords import class_tfidf
from topic_explorer.pipeline.describe.terms import DOCUMENT_END, PaperTerms, TermCounts, keyword_min_df
from topic_explorer.pipeline.settings import TWO_PAPERS_FROM
from topic_explorer.pipeline.text.clean import phrases
from topic_explorer.pipeline.text.counting import count_terms

ABSTRACTS = [
    "Federated learning with many clients and differential privacy.",
    "Clients in federated learning share low-rank adapters",  # no full stop: the next paper must not run on
    "KV cache eviction speeds up long-context inference $with an unclosed",  # a stray $ must not eat the next one
    "Compressing the KV cache of large language models.",
]
TOPICS = np.array([0, 0, 1, 1])


def made_corpus(n_papers: int) -> list[str]:
    """Papers of words drawn from a small list, with full stops: phrases used once, in one paper twice, in papers
    far apart."""
    rng = np.random.default_rng(0)
    words = "sparse graph neural cache token model diffusion kernel robust quantum agent memory".split()
    return [
        " ".join(rng.choice([*words, "."], size=rng.integers(3, 30)).tolist()) + " " + ("$x$ " * (row % 3))
        for row in range(n_papers)
    ]


def countvectorizers(abstracts: list[str]):
    """The count as scikit-learn's CountVectorizer made it (the keyword candidates' count until chunks)."""
    counter = CountVectorizer(analyzer=phrases, min_df=keyword_min_df(len(abstracts)))
    counts = counter.fit_transform(abstracts).tocsr()
    return tuple(counter.get_feature_names_out().tolist()), counts


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


@pytest.mark.parametrize("n_papers", [len(ABSTRACTS), TWO_PAPERS_FROM + 50])
@pytest.mark.parametrize("chunk", [1, 7, 10_000])
def test_the_count_in_chunks_is_countvectorizers_count(n_papers, chunk):
    """The same terms and, per paper, the same counts in the same order, whichever chunks the papers come in."""
    abstracts = ABSTRACTS if n_papers == len(ABSTRACTS) else made_corpus(n_papers)
    terms, counts = countvectorizers(abstracts)
    counted = PaperTerms.count(abstracts, chunk=chunk)
    assert counted.terms == terms
    np.testing.assert_array_equal(counted.counts.indptr, counts.indptr)
    np.testing.assert_array_equal(counted.counts.indices, counts.indices)
    np.testing.assert_array_equal(counted.counts.data, counts.data)
    assert counted.counts.dtype == np.int64


@pytest.mark.parametrize("chunk", [1, 7, 10_000])
def test_counting_another_analyzers_terms_in_chunks_is_countvectorizers_count(chunk):
    """Any analyzer (here the TF-IDF embedder's words and bigrams), in the dtype asked: the same terms and matrix,
    each row's entries in the order the corpus first used them, as CountVectorizer leaves them."""
    abstracts = made_corpus(TWO_PAPERS_FROM + 50)
    analyze = CountVectorizer(ngram_range=(1, 2)).build_analyzer()
    expected = CountVectorizer(analyzer=analyze, min_df=2, dtype=np.float64)
    counts = expected.fit_transform(abstracts)
    terms, counted = count_terms(abstracts, analyze, 2, chunk=chunk, dtype=np.float64)
    assert terms == tuple(expected.get_feature_names_out().tolist())
    np.testing.assert_array_equal(counted.indptr, counts.indptr)
    np.testing.assert_array_equal(counted.indices, counts.indices)
    np.testing.assert_array_equal(counted.data, counts.data)
    assert counted.dtype == np.float64
    assert not counted.has_sorted_indices  # the order of first use, which scipy's astype would have lost


def test_the_made_corpus_has_phrases_of_two_papers_seven_chunks_apart_and_phrases_of_one():
    """So the count in chunks of 7 must keep a phrase on its second paper, chunks later, and drop phrases of one."""
    abstracts = made_corpus(TWO_PAPERS_FROM + 50)
    terms, counts = countvectorizers(abstracts)
    every_phrase = {phrase for text in abstracts for phrase in phrases(text)}
    by_term = counts.tocsc()
    chunks_apart = [
        by_term.indices[by_term.indptr[t] : by_term.indptr[t + 1]] // 7
        for t in range(len(terms))
        if by_term.indptr[t + 1] - by_term.indptr[t] == 2
    ]
    assert len(every_phrase) > len(terms)
    assert sum(int(first != second) for first, second in chunks_apart) > 10
