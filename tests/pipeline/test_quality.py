"""Coherence, diversity and agreement figures on cases worked out by hand."""

import math

import numpy as np
import pandas as pd

from topic_explorer.pipeline.evaluate.quality import assess, coherence_per_topic, diversity, label_agreement

TEXTS = ["apple banana", "apple banana", "cherry date", "cherry date apple"]


def test_npmi_is_high_for_words_that_always_appear_together_and_minus_one_for_never():
    together, never = coherence_per_topic(TEXTS, [["cherry", "date"], ["banana", "date"]])
    assert math.isclose(together, 1.0)
    assert math.isclose(never, -1.0)


def test_npmi_matches_the_formula_for_partial_overlap():
    (score,) = coherence_per_topic(TEXTS, [["apple", "banana"]])
    p_a, p_b, p_ab = 3 / 4, 2 / 4, 2 / 4
    assert math.isclose(score, math.log(p_ab / (p_a * p_b)) / -math.log(p_ab))


def test_multiword_and_hyphenated_keywords_match_their_phrase():
    texts = ["low-rank adaptation of models", "low rank adaptation again", "unrelated text"]
    (score,) = coherence_per_topic(texts, [["Low-rank", "adaptation"]])
    assert math.isclose(score, 1.0)


def test_diversity_counts_distinct_keywords():
    assert diversity([["a", "b"], ["b", "c"]]) == 3 / 4
    assert diversity([["a", "b"], ["c", "d"]]) == 1.0


def test_agreement_is_perfect_for_a_relabelled_partition_and_ignores_missing_labels():
    topics = np.array([0, 0, 1, 1, 2])
    labels = pd.Series(["x", "x", "y", "y", None])
    agreement = label_agreement(topics, labels)
    assert agreement["labelled_papers"] == 4
    assert math.isclose(agreement["nmi"], 1.0)
    assert math.isclose(agreement["ari"], 1.0)
    assert math.isclose(agreement["purity"], 1.0)


def test_assess_leaves_the_outlier_topic_out_of_coherence():
    topics = pd.DataFrame(
        {"topic_id": [-1, 0], "label": ["Outliers", "Fruit"], "keywords": [["zzz", "yyy"], ["cherry", "date"]]}
    )
    quality = assess(TEXTS, np.array([0, -1, 0, 0]), np.array([False, True, False, False]), topics)
    assert quality.n_topics == 1
    assert quality.per_topic["topic_id"].tolist() == [0]
    assert math.isclose(quality.poorly_fitting_share, 0.25)
