"""Describe each topic for readers: its keywords, spelled as the corpus spells them, and a label.

Describing needs only the topics' term counts, their c-TF-IDF weights, their centres, and a sample of
the corpus's own text for spellings, acronyms and phrases. BERTopic calls it through its representation
models when it fits the topics (`pipeline.describe.representation`); the topic tree calls it for each
level's groups (`pipeline.describe.hierarchy`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import sparse

from topic_explorer.pipeline.buildfolder.model import TopicModel
from topic_explorer.pipeline.describe.boundwords import bound_words
from topic_explorer.pipeline.describe.keywords import class_tfidf, display_forms, topic_terms
from topic_explorer.pipeline.describe.labels import make_labels
from topic_explorer.pipeline.describe.naming_terms import generic_terms, named_terms
from topic_explorer.pipeline.describe.terms import TermCounts
from topic_explorer.pipeline.text.acronyms import corpus_acronyms, preferred_acronyms

OUTLIER_LABEL = "Outliers (no topic)"


def describe_topics(
    counts: TermCounts,
    model: TopicModel,
    names: dict[int, str],
    *,
    texts: list[str],
    embed_terms: Callable[[list[str]], np.ndarray],
    keywords_per_topic: int,
    weights: sparse.spmatrix | None = None,
) -> pd.DataFrame:
    """One row per topic with papers: topic_id, label, keywords, keyword_weights, size, named.

    `weights` are the topics' c-TF-IDF (rows as in `counts`; BERTopic's own when it fits), computed from
    `counts` when not given. `texts` are where spellings, acronyms and the words a label may not end with
    are read: the fit sample, so describing stays cheap however big the build.
    """
    centres = dict(zip(model.topic_ids.tolist(), model.centres, strict=True))
    weights = class_tfidf(counts) if weights is None else weights
    terms = topic_terms(counts, weights, centres, embed_terms, top_n=keywords_per_topic)
    sizes = dict(zip(counts.topic_ids.tolist(), counts.sizes.tolist(), strict=True))
    topic_ids = [t for t in sorted(terms) if sizes.get(t, 0) > 0]
    expansions = corpus_acronyms(texts)
    completed = named_terms(counts, {t: terms[t].naming for t in topic_ids}, expansions)
    forms = display_forms(texts, {w for t in topic_ids for w, _ in [*terms[t].keywords, *completed[t]]})
    naming = [[(forms[w], score) for w, score in completed[t]] for t in topic_ids]
    keywords = [[forms[w] for w, _ in terms[t].keywords] for t in topic_ids]
    acronyms = preferred_acronyms(texts, [term for ranked in naming for term, _ in ranked])
    made = make_labels(
        naming,
        keywords=keywords,
        acronyms=acronyms,
        expansions=expansions,
        bound=bound_words(texts),
        generic=generic_terms(counts),
    )
    labels = dict(zip(topic_ids, made, strict=True)) | names
    if -1 in labels:
        labels[-1] = OUTLIER_LABEL
    return pd.DataFrame(
        {
            "topic_id": pd.Series(topic_ids, dtype=np.int64),
            "label": [labels[t] for t in topic_ids],
            "keywords": keywords,
            "keyword_weights": [[s for _, s in terms[t].keywords] for t in topic_ids],
            "size": pd.Series([sizes[t] for t in topic_ids], dtype=np.int64),
            "named": [t in names for t in topic_ids],
        }
    )


def with_sizes(topics: pd.DataFrame, topic_id: np.ndarray) -> pd.DataFrame:
    """`topics` with each topic's size over every paper; topic -1 added when papers outside the fit sample
    are the first to fit no topic (`--keep-outliers`)."""
    sizes = pd.Series(topic_id).value_counts()
    table = topics.copy()
    if -1 in sizes.index and -1 not in set(table["topic_id"]):
        outliers = {"topic_id": -1, "label": OUTLIER_LABEL, "keywords": [], "keyword_weights": [], "named": False}
        table = pd.concat([pd.DataFrame([outliers]), table], ignore_index=True)
    table["size"] = table["topic_id"].map(sizes).fillna(0).astype(np.int64)
    return table.astype({"topic_id": np.int64})


def topic_sizes(table: pd.DataFrame) -> dict[int, int]:
    """Topic id -> papers, as BERTopic's `topic_sizes_` holds them."""
    return dict(zip(table["topic_id"].astype(int), table["size"].astype(int), strict=True))
