"""Describe each topic for readers: its keywords, spelled as the corpus spells them, and a label.

Describing is separate from fitting: it needs only the topics' term counts (summed over every
paper), their centres, and a sample of the corpus's own text for spellings, acronyms and phrases.
So `topic-explorer add` describes the grown build again without refitting anything.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from topic_explorer.pipeline.describe.keywords import display_forms, topic_terms
from topic_explorer.pipeline.describe.labels import corpus_modifiers, make_labels, topic_phrases
from topic_explorer.pipeline.describe.terms import TermCounts
from topic_explorer.pipeline.text.acronyms import preferred_acronyms
from topic_explorer.pipeline.topicmodel import TopicModel

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
    described = _Keywords(counts, model, texts, embed_terms, keywords_per_topic)
    topic_ids = described.topic_ids
    naming = [[(described.forms[w], score) for w, score in described.terms[t].naming] for t in topic_ids]
    acronyms = preferred_acronyms(texts, [term for ranked in naming for term, _ in ranked])
    phrases = topic_phrases(texts, text_topics.tolist(), topic_ids)
    made = make_labels(naming, acronyms=acronyms, modifiers=corpus_modifiers(texts), phrases=phrases)
    labels = dict(zip(topic_ids, made, strict=True)) | names
    if -1 in labels:
        labels[-1] = OUTLIER_LABEL
    table = described.table()
    table.insert(1, "label", [labels[t] for t in topic_ids])
    table["named"] = [t in names for t in topic_ids]
    return table


def topic_keywords(
    counts: TermCounts,
    model: TopicModel,
    *,
    texts: list[str],
    embed_terms: Callable[[list[str]], np.ndarray],
    keywords_per_topic: int,
) -> pd.DataFrame:
    """One row per topic with papers: topic_id, keywords, keyword_weights, size; no labels.

    For `add`, which keeps the labels readers know and only needs the keywords of the grown topics.
    """
    return _Keywords(counts, model, texts, embed_terms, keywords_per_topic).table()


class _Keywords:
    """Each topic's ranked terms, spelled as the corpus spells them."""

    def __init__(
        self,
        counts: TermCounts,
        model: TopicModel,
        texts: list[str],
        embed_terms: Callable[[list[str]], np.ndarray],
        keywords_per_topic: int,
    ):
        centres = dict(zip(model.topic_ids.tolist(), model.centres, strict=True))
        self.terms = topic_terms(counts, centres, embed_terms, top_n=keywords_per_topic)
        self.sizes = dict(zip(counts.topic_ids.tolist(), counts.sizes.tolist(), strict=True))
        self.topic_ids = [t for t in sorted(self.terms) if self.sizes.get(t, 0) > 0]
        wanted = {w for t in self.topic_ids for w, _ in [*self.terms[t].keywords, *self.terms[t].naming]}
        self.forms = display_forms(texts, wanted)

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "topic_id": pd.Series(self.topic_ids, dtype=np.int64),
                "keywords": [[self.forms[w] for w, _ in self.terms[t].keywords] for t in self.topic_ids],
                "keyword_weights": [[s for _, s in self.terms[t].keywords] for t in self.topic_ids],
                "size": pd.Series([self.sizes[t] for t in self.topic_ids], dtype=np.int64),
            }
        )
