"""Describe each topic for readers: its keywords, spelled as the corpus spells them, and a label.

Describing is separate from fitting: it needs only the topics' term counts (summed over every
paper), their centres, and a sample of the corpus's own text for spellings, acronyms and phrases.
So `topic-explorer add` describes the grown build again without refitting anything.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from pipeline.acronyms import preferred_acronyms
from pipeline.keywords import display_forms, topic_terms
from pipeline.labels import corpus_modifiers, make_labels, topic_phrases
from pipeline.terms import TermCounts
from pipeline.topicmodel import TopicModel

OUTLIER_LABEL = "Outliers (no topic)"


def describe_topics(
    counts: TermCounts,
    model: TopicModel,
    names: dict[int, str],
    *,
    texts: list[str],
    text_topics: np.ndarray,
    embed_terms: Callable[[list[str]], np.ndarray],
    keywords_per_topic: int,
) -> pd.DataFrame:
    """One row per topic with papers: topic_id, label, keywords, keyword_weights, size, named.

    `texts` (with their topics, `text_topics`) are where spellings, acronyms and label phrases are
    read: the fit sample, so describing stays cheap however big the build.
    """
    centres = dict(zip(model.topic_ids.tolist(), model.centres, strict=True))
    terms = topic_terms(counts, centres, embed_terms, top_n=keywords_per_topic)
    sizes = dict(zip(counts.topic_ids.tolist(), counts.sizes.tolist(), strict=True))
    topic_ids = [t for t in sorted(terms) if sizes.get(t, 0) > 0]
    forms = display_forms(texts, {w for t in topic_ids for w, _ in [*terms[t].keywords, *terms[t].naming]})
    naming = [[(forms[w], score) for w, score in terms[t].naming] for t in topic_ids]
    acronyms = preferred_acronyms(texts, [term for ranked in naming for term, _ in ranked])
    phrases = topic_phrases(texts, text_topics.tolist(), topic_ids)
    made = make_labels(naming, acronyms=acronyms, modifiers=corpus_modifiers(texts), phrases=phrases)
    labels = dict(zip(topic_ids, made, strict=True)) | names
    if -1 in labels:
        labels[-1] = OUTLIER_LABEL
    return pd.DataFrame(
        {
            "topic_id": pd.Series(topic_ids, dtype=np.int64),
            "label": [labels[t] for t in topic_ids],
            "keywords": [[forms[w] for w, _ in terms[t].keywords] for t in topic_ids],
            "keyword_weights": [[s for _, s in terms[t].keywords] for t in topic_ids],
            "size": pd.Series([sizes[t] for t in topic_ids], dtype=np.int64),
            "named": [t in names for t in topic_ids],
        }
    )
