"""Our keywords and labels as BERTopic representation models.

BERTopic computes each topic's c-TF-IDF and hands it to its representation models. Ours are:
- `KeywordsNearCentre` (the "Main" representation): candidates by c-TF-IDF among terms at least two
  of the topic's papers use, re-ranked by closeness to the topic's centre and spelled as the corpus
  spells them (`pipeline.describe.keywords`);
- `ReadableLabels` (the "Label" aspect): a short name a reader would write, or the name the user
  gave with `--topics` (`pipeline.describe.labels`). The build sets it as BERTopic's custom label.
Both read one `TopicDescriber`, which describes the topics once per c-TF-IDF it is given.

Importing this module imports BERTopic: only fitting does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import pandas as pd
from bertopic.representation import BaseRepresentation
from scipy import sparse

from topic_explorer.pipeline.buildfolder.model import TopicModel
from topic_explorer.pipeline.describe.terms import PaperTerms, TermCounts
from topic_explorer.pipeline.describe.topics import describe_topics
from topic_explorer.pipeline.timing import StageTimer

LABEL_ASPECT = "Label"  # the name of the labels' aspect in `topic_model.topic_aspects_`


class TopicDescriber:
    """Describes BERTopic's topics of the fit sample: keywords, labels, and the term counts behind them.

    `paper_names` holds, per fit-sample paper, the `--topics` name it joined (None for the others): a topic
    made of such papers takes that name as its label.
    """

    def __init__(
        self,
        texts: list[str],
        terms: PaperTerms,
        embeddings: np.ndarray,
        embed_terms: Callable[[list[str]], np.ndarray],
        *,
        keywords_per_topic: int,
        paper_names: list[str | None],
        timer: StageTimer,
    ):
        self.texts = texts
        self.terms = terms
        self.embeddings = embeddings
        self.embed_terms = embed_terms
        self.keywords_per_topic = keywords_per_topic
        self.paper_names = paper_names
        self.timer = timer
        self.described: pd.DataFrame | None = None  # one row per topic, as `describe_topics` makes it
        self.counts: TermCounts | None = None  # the fit sample's term counts per topic
        self._for: int | None = None  # id() of the c-TF-IDF `described` was made from

    def describe(self, documents: pd.DataFrame, c_tf_idf: sparse.spmatrix) -> pd.DataFrame:
        """The topics of `documents` (BERTopic's frame: Document, ID, Topic), described with `c_tf_idf`."""
        if self._for == id(c_tf_idf) and self.described is not None:
            return self.described
        with self.timer.stage("keywords"):
            topic_of_paper = np.empty(len(self.texts), dtype=np.int64)
            topic_of_paper[documents["ID"].to_numpy(dtype=np.int64)] = documents["Topic"].to_numpy(dtype=np.int64)
            topic_ids = np.unique(topic_of_paper)
            counts = self.terms.topic_counts(topic_of_paper, topic_ids)
            self.described = describe_topics(
                counts,
                TopicModel.fit(self.embeddings, topic_of_paper),
                self._names(topic_of_paper),
                texts=self.texts,
                embed_terms=self.embed_terms,
                keywords_per_topic=self.keywords_per_topic,
                weights=c_tf_idf,
            )
        self.counts, self._for = counts, id(c_tf_idf)
        return self.described

    def _names(self, topic_of_paper: np.ndarray) -> dict[int, str]:
        """Topic -> the `--topics` name most of its named papers joined."""
        joined: dict[int, Counter] = {}
        for topic, name in zip(topic_of_paper.tolist(), self.paper_names, strict=True):
            if name is not None and topic >= 0:
                joined.setdefault(topic, Counter())[name] += 1
        return {topic: names.most_common(1)[0][0] for topic, names in joined.items()}


class KeywordsNearCentre(BaseRepresentation):
    """BERTopic's main representation: each topic's keywords, best first, with their scores."""

    def __init__(self, describer: TopicDescriber):
        self.describer = describer

    def extract_topics(self, topic_model, documents, c_tf_idf, topics) -> dict[int, list[tuple[str, float]]]:
        table = self.describer.describe(documents, c_tf_idf)
        return {  # a topic with no word at all (its papers are only stop words) gets BERTopic's own empty entry
            int(row.topic_id): list(zip(row.keywords, map(float, row.keyword_weights), strict=True)) or [("", 0.0)]
            for row in table.itertuples()
        }


class ReadableLabels(BaseRepresentation):
    """A representation aspect of one term per topic: its readable label (as BERTopic's LLM labellers give)."""

    def __init__(self, describer: TopicDescriber):
        self.describer = describer

    def extract_topics(self, topic_model, documents, c_tf_idf, topics) -> dict[int, list[tuple[str, float]]]:
        table = self.describer.describe(documents, c_tf_idf)
        return {int(row.topic_id): [(row.label, 1.0)] for row in table.itertuples()}
