"""Labels: noun phrases of 2-5 words, no generic or adjective head, the field's acronyms, distinct."""

import re
from collections import Counter

import pytest

from topic_explorer.pipeline.describe.labels import (
    MAX_LABEL_WORDS,
    corpus_modifiers,
    is_name,
    make_labels,
    topic_phrases,
)

ACRONYMS = {
    "RLHF": "Reinforcement Learning from Human Feedback",
    "LoRA": "Low-Rank Adaptation",
    "PEFT": "Parameter-Efficient Fine-Tuning",
    "KV": "Key-Value",
    "FL": "Federated Learning",
}


def _weighted(*terms: str) -> list[tuple[str, float]]:
    return [(term, 1.0 - i / 10) for i, term in enumerate(terms)]


@pytest.mark.parametrize(
    ("term", "ok"),
    [
        ("optimal", False),  # an adjective alone
        ("noisy linear", False),  # a fragment headed by an adjective
        ("self-supervised", False),
        ("learning", False),  # a generic noun alone
        ("efficient models", False),  # a generic noun with a vague modifier
        ("meta learning utilizes", False),  # a verb after its subject
        ("reinforcement learning", True),
        ("large language models", True),
        ("regret bounds", True),
        ("KV cache", True),
        ("RLHF", True),
    ],
)
def test_a_label_term_needs_a_specific_noun_head(term, ok):
    assert is_name(term, frozenset()) is ok


def test_the_corpus_tells_which_words_are_modifiers():
    texts = ["Causal effects and causal graphs.", "A causal model of causal discovery.", "Causal inference."]
    modifiers = corpus_modifiers(texts)
    assert "causal" in modifiers and "effects" not in modifiers and "inference" not in modifiers
    assert not is_name("causal", modifiers)


def test_labels_use_the_acronym_the_field_uses_and_pair_single_words():
    naming = [
        _weighted("reinforcement learning from human feedback", "preference optimization", "reward"),
        _weighted("key value cache", "memory", "eviction"),
        _weighted("low rank adaptation", "large language models", "parameter efficient fine tuning"),
        _weighted("federated learning", "clients", "privacy"),
        _weighted("large language models", "regret", "bandits"),
    ]
    labels = make_labels(naming, acronyms=ACRONYMS)
    assert labels[0] == "RLHF and preference optimization"
    assert labels[1] == "KV cache"
    assert labels[2] == "LoRA / PEFT"  # the topic's own acronym, not the shared "large language models"
    assert labels[3] == "Federated learning"  # "FL" alone says less than the words
    assert labels[4] == "Large language models"  # it weighs most here (1.0 against 0.9 in topic 2)


def test_a_modifier_is_completed_with_the_phrase_its_topic_uses():
    phrases = [Counter({"causal representation learning": 3, "causal effect": 2}), Counter()]
    naming = [_weighted("causal", "temporal", "features"), _weighted("optimal", "visual", "regret", "bandits")]
    labels = make_labels(naming, phrases=phrases)
    assert labels == ["Causal representation learning", "Regret and bandits"]


def test_labels_stay_distinct_when_topics_share_their_best_terms():
    naming = [
        [("large language models", 0.5), ("KV cache", 0.45), ("memory", 0.3)],
        [("large language models", 0.9), ("LoRA", 0.8), ("fine-tuning", 0.7)],
        [("large language models", 0.4), ("KV cache", 0.3), ("memory", 0.2), ("attention", 0.1)],
    ]
    labels = make_labels(naming)
    assert labels[:2] == ["KV cache", "Large language models"]  # a term names the topic where it weighs most
    assert len(set(labels)) == 3


def test_topic_phrases_count_each_topics_papers():
    texts = ["Causal representation learning.", "Causal representation learning again.", "KV cache eviction."]
    counts = topic_phrases(texts, [0, 0, 1], [0, 1])
    assert counts[0]["causal representation learning"] == 2 and counts[1]["kv cache eviction"] == 1


def check_label_rules(labels: list[str]) -> None:
    """The rules every label of a build must follow (also applied to the sample build)."""
    assert len({label.lower() for label in labels}) == len(labels), labels
    for label in labels:
        assert 2 <= len(label.replace(" / ", " ").split()) <= MAX_LABEL_WORDS, label
        for part in re.split(r" and | / ", label):
            assert is_name(part, frozenset()), f"{part!r} in {label!r} is headed by a generic word or an adjective"


@pytest.mark.model
def test_sample_labels_are_distinct_short_noun_phrases(sample_build):
    from topic_explorer.pipeline.buildfolder.read import read_build

    labels = read_build(sample_build).topics["label"].tolist()
    check_label_rules(labels)
