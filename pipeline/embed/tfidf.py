"""The TF-IDF embedder: TF-IDF over cleaned words and bigrams, reduced by truncated SVD. No torch, seconds for
thousands of papers; its space is learnt from the fit sample and kept in the build as arrays."""

from __future__ import annotations

import numpy as np

from topic_explorer.pipeline.embed.vectors import unit_rows
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.settings import TWO_PAPERS_FROM
from topic_explorer.pipeline.text.clean import STOP_WORDS, TOKEN_PATTERN, clean_for_keywords
from topic_explorer.pipeline.text.counting import count_terms


class TfidfEmbedder:
    """TF-IDF over cleaned words and bigrams, reduced by SVD: a quick, torch-free stand-in.

    Its space is learnt from the fit sample (`fit`); `state`/`from_state` keep that space in the
    build as plain arrays, so papers added later and search queries land in the same space.
    """

    name = "tfidf-svd"
    fits_corpus = True

    def device_used(self) -> str:
        return "cpu"

    def __init__(self, *, dimensions: int = 128, seed: int = 42, max_terms: int = 50_000):
        self.dimensions = dimensions
        self.seed = seed  # the SVD's: fixed, never the build's
        self.max_terms = max_terms  # the vocabulary: the words and bigrams used most often
        self._tfidf = None
        self._components: np.ndarray | None = None

    def fit(self, texts: list[str]) -> TfidfEmbedder:
        """Learn the space: the vocabulary, idf weights and SVD that TfidfVectorizer(min_df, max_features).fit gives,
        the same arrays bit for bit, but counted in chunks (`text.counting.count_terms`): scikit-learn held every word
        and bigram of the sample as a Python string at once (millions at 50,000 arXiv abstracts: its fit rose 939 MiB
        above its start, this one 731; docs/benchmarks.md)."""
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfTransformer

        vectorizer = self._vectorizer()
        min_df = 2 if len(texts) >= TWO_PAPERS_FROM else 1
        terms, counts = count_terms(texts, vectorizer.build_analyzer(), min_df, dtype=vectorizer.dtype)
        if not terms:
            raise UserError("the papers share no words for the TF-IDF embedder (only stop words): add more papers")
        kept = _most_used(counts, vectorizer.max_features)
        matrix = counts[:, kept]
        del counts
        weights = TfidfTransformer(
            norm=vectorizer.norm,
            use_idf=vectorizer.use_idf,
            smooth_idf=vectorizer.smooth_idf,
            sublinear_tf=vectorizer.sublinear_tf,
        )
        matrix = weights.fit(matrix).transform(matrix, copy=False)  # weighted in place, as TfidfVectorizer does
        self._tfidf = self._vectorizer(vocabulary=[terms[i] for i in kept])
        self._tfidf.idf_ = weights.idf_
        components = max(1, min(self.dimensions, matrix.shape[0] - 1, matrix.shape[1] - 1))
        self._components = TruncatedSVD(n_components=components, random_state=self.seed).fit(matrix).components_
        return self

    def transform(self, texts: list[str]) -> np.ndarray:
        if self._tfidf is None:
            raise RuntimeError("TfidfEmbedder.transform before fit")
        return unit_rows(np.asarray(self._tfidf.transform(texts) @ self._components.T))

    def state(self) -> dict[str, np.ndarray]:
        """The fitted space as arrays (vocabulary, idf weights, SVD components), for the build."""
        terms = sorted(self._tfidf.vocabulary_, key=self._tfidf.vocabulary_.get)
        return {"terms": np.asarray(terms, dtype=str), "idf": self._tfidf.idf_, "components": self._components}

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray]) -> TfidfEmbedder:
        embedder = cls(dimensions=len(state["components"]))
        embedder._tfidf = embedder._vectorizer(vocabulary=[str(t) for t in state["terms"]])
        embedder._tfidf.idf_ = np.asarray(state["idf"], dtype=np.float64)
        embedder._components = np.asarray(state["components"])
        return embedder

    def _vectorizer(self, **options):
        from sklearn.feature_extraction.text import TfidfVectorizer

        return TfidfVectorizer(
            preprocessor=clean_for_keywords,
            token_pattern=TOKEN_PATTERN,
            stop_words=sorted(STOP_WORDS),
            ngram_range=(1, 2),
            max_features=self.max_terms,
            sublinear_tf=True,
            **options,
        )


def _most_used(counts, limit: int | None) -> np.ndarray:
    """The columns (sorted) of the `limit` terms used most often, as CountVectorizer's `max_features` picks them:
    the same sort over the same totals, so ties fall the same way."""
    if limit is None or counts.shape[1] <= limit:
        return np.arange(counts.shape[1])
    uses = np.asarray(counts.sum(axis=0)).ravel()
    return np.sort((-uses).argsort()[:limit])
