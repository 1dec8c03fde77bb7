"""Labels: one name of 1-5 words a topic's papers use, judged by the corpus's own statistics, distinct."""

import re

import numpy as np
import pytest

from topic_explorer.pipeline.describe.keywords import class_tfidf, topic_terms
from topic_explorer.pipeline.describe.labels import (
    MAX_LABEL_WORDS,
    BoundWords,
    bound_words,
    generic_terms,
    is_name,
    make_labels,
)
from topic_explorer.pipeline.describe.terms import PaperTerms

ACRONYMS = {
    "RLHF": "Reinforcement Learning from Human Feedback",
    "LoRA": "Low-Rank Adaptation",
    "KV": "Key-Value",
    "FL": "Federated Learning",
}
BOUND = BoundWords(modifiers=frozenset({"causal", "visual", "supervised"}), heads=frozenset({"networks", "tasks"}))


def _scored(*terms: str) -> list[tuple[str, float]]:
    return [(term, 1.0 - i / 10) for i, term in enumerate(terms)]


@pytest.mark.parametrize(
    ("term", "ok"),
    [
        ("causal", False),  # a modifier alone
        ("self-supervised", False),  # ends in a modifier
        ("networks", False),  # a head the corpus always qualifies
        ("neural networks", True),
        ("learning", False),  # generic in this corpus
        ("reinforcement learning", True),
        ("KV cache", True),
        ("RLHF", True),
        ("navigation", True),
        ("3D", False),  # too short to name a topic alone
        ("RL", False),
        ("3D vision", True),
        ("one two three four five six", False),  # too long
    ],
)
def test_a_name_is_judged_by_the_corpus_statistics_not_word_lists(term, ok):
    assert is_name(term, BOUND, generic=frozenset({"learning", "models"})) is ok


def test_the_corpus_tells_its_modifiers_and_its_heads():
    texts = [
        "Causal effects and causal graphs of neural networks.",
        "A causal model of causal discovery with deep networks.",
        "Causal inference for graph networks.",
    ]
    bound = bound_words(texts)
    assert "causal" in bound.modifiers and "networks" in bound.heads
    assert "effects" not in bound.modifiers and "causal" not in bound.heads


def test_generic_terms_are_those_many_papers_use():
    abstracts = [f"Learning with topic{i} words and topic{i} ideas." for i in range(10)]
    counts = PaperTerms.count(abstracts).topic_counts(np.arange(10) % 2, np.array([0, 1]))
    generic = generic_terms(counts)
    assert "learning" in generic and "topic3" not in generic


def test_labels_use_the_acronym_the_field_uses():
    naming = [
        _scored("reinforcement learning from human feedback", "preference optimization", "reward"),
        _scored("key value cache", "memory", "eviction"),
        _scored("low rank adaptation", "adapters"),
        _scored("federated learning", "clients", "privacy"),
    ]
    assert make_labels(naming, acronyms=ACRONYMS) == ["RLHF", "KV cache", "LoRA", "Federated learning"]


def test_a_shared_best_name_goes_to_its_topic_and_the_others_qualify_it():
    naming = [
        [("large language models", 0.5), ("unlearning", 0.45), ("bias", 0.3)],
        [("large language models", 0.9), ("syntax", 0.5)],
        [("large language models", 0.6), ("language model reasoning", 0.55), ("reasoning", 0.5)],
    ]
    labels = make_labels(naming)
    assert labels[1] == "Large language models"  # it weighs most there
    assert labels[0] == "Large language models and unlearning"
    assert labels[2] == "Large language models and reasoning"  # not "... and language model reasoning"
    assert len(set(labels)) == 3


def test_labels_never_repeat_a_name_in_another_form():
    naming = [[("GANs", 0.9), ("image synthesis", 0.5)], [("GAN", 0.8), ("mode collapse", 0.6)]]
    assert make_labels(naming) == ["GANs", "Mode collapse"]


def test_a_longer_name_that_scores_nearly_as_well_is_preferred():
    naming = [[("agents", 0.44), ("web agents", 0.42), ("safety", 0.2)], [("attacks", 0.5), ("jailbreak", 0.1)]]
    assert make_labels(naming) == ["Web agents", "Attacks"]


def test_a_topic_without_a_name_takes_its_best_term_and_a_weak_name_gives_way_to_it():
    naming = [[("attack", 0.18), ("models", 0.13), ("success", 0.01)], [("data", 0.3), ("analysis", 0.2)]]
    bound = BoundWords(modifiers=frozenset(), heads=frozenset({"attack"}))
    # "success" passes as a name but scores far below "attack"; topic 1 has no name at all ("data" is generic)
    assert make_labels(naming, bound=bound, generic=frozenset({"models", "data"})) == ["Attack", "Analysis"]


def test_a_fragment_is_named_by_the_phrase_its_papers_write():
    abstracts = [
        "Differential privacy for large language models.",
        "Differential privacy guarantees and large language models.",
        "Privacy of large language models under differential privacy.",
        "Robot grasping with suction.",
        "Robot grasping of cloth.",
        "Robot grasping in clutter.",
    ]
    topic_id = np.array([0, 0, 0, 1, 1, 1])
    counts = PaperTerms.count(abstracts).topic_counts(topic_id, np.array([0, 1]))
    centres = {0: np.ones(4) / 2, 1: np.ones(4) / 2}
    terms = topic_terms(counts, class_tfidf(counts), centres, lambda t: np.ones((len(t), 4)) / 2, top_n=10)
    naming = [term for term, _ in terms[0].naming]
    assert "large language models" in naming and "differential privacy" in naming
    assert "language models" not in naming and "language" not in naming  # always written inside the longer phrase


def check_label_rules(labels: list[str]) -> None:
    """The rules every label of a build must follow (also applied to the sample build)."""
    assert len({label.lower() for label in labels}) == len(labels), labels
    for label in labels:
        assert 1 <= len(label.replace(" / ", " ").split()) <= MAX_LABEL_WORDS, label
        parts = re.split(r" and | / ", label)
        assert len(parts) <= 2, label
        heads = [part.split()[-1].lower().rstrip("s") for part in parts]
        assert len(set(heads)) == len(heads), f"{label!r} repeats its head word"


@pytest.mark.model
def test_sample_labels_are_distinct_short_names(sample_build):
    from topic_explorer.pipeline.buildfolder.read import read_build

    build = read_build(sample_build)
    check_label_rules(build.topics["label"].tolist())
    for _, level in build.hierarchy.groupby("level"):
        check_label_rules(level["label"].tolist())
