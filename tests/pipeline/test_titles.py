"""Titles derived from untitled abstracts name the method when the abstract does."""

import re

import pytest

from topic_explorer.pipeline.describe.titles import MAX_WORDS, derive_title
from topic_explorer.pipeline.ingest.corpus import load_corpus, sample_files
from topic_explorer.pipeline.text.clean import strip_markup


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        (
            "Background. In this paper, we propose FedASK (Differentially Private Federated Low Rank Adaptation "
            "with Double SKetching) , a novel federated LoRA framework.",
            "FedASK: Differentially Private Federated Low Rank Adaptation with Double SKetching",
        ),
        (
            "We introduce Linearly Constrained Diffusion Implicit Models (CDIM), a fast and accurate approach.",
            "CDIM: Linearly Constrained Diffusion Implicit Models",
        ),
        (
            "We propose *Joint Moment Estimation* (JME), a method for estimating moments.",
            "JME: Joint Moment Estimation",
        ),
        (
            "Context here. We propose RoLoRA, a federated framework using alternating optimization.",
            "RoLoRA: A federated framework using alternating optimization",
        ),
        (
            "This paper investigates low-rank structure in the gradients of two-layer networks.",
            "Low-rank structure in the gradients of two-layer networks",
        ),
    ],
)
def test_title_names_the_method_or_the_main_claim(abstract, title):
    assert derive_title(abstract) == title


def test_background_acronyms_are_not_taken_for_the_method():
    abstract = (
        "Large Language Models (LLMs) are costly. To address this, we introduce NSNQuant, a calibration-free "
        "Vector Quantization (VQ) technique designed for low-bit compression of the KV cache."
    )
    assert derive_title(abstract).startswith("NSNQuant: A calibration-free Vector Quantization")


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        (  # the name comes first, in the passive; never the pronoun sentence before it
            "While LLMs succeed, they are at risk of being stolen. As a solution, TEE-based inference was proposed. "
            "LoRO is presented in this paper, which leverages dense mask to completely obfuscate parameters.",
            "LoRO: Dense mask to completely obfuscate parameters",
        ),
        (  # a bare "framework" keeps what it is for
            "SNNs are efficient. To enable high-performance SNN training under limited resources, we propose an "
            "enhanced self-distillation framework, jointly optimized with rate-based backpropagation.",
            "An enhanced self-distillation framework for high-performance SNN training under limited resources",
        ),
        (  # no count, no "novel"; the name set off by dashes
            "Costs matter. We propose two novel model-free RL algorithms\u2014Q-EarlySettled-LowCost and "
            "FedQ-EarlySettled-LowCost\u2014that are the first to do so.",
            "Q-EarlySettled-LowCost: Model-free RL algorithms",
        ),
        (
            "Instruction tuning is data efficient. It leads to our approach Quadratic Coreset Selection (QCS) that "
            "reconciles sequence-level and token-level influence.",
            "QCS: Quadratic Coreset Selection",
        ),
        (  # words that point back at text the reader cannot see ("these difficulties") are dropped
            "Creativity remains a challenge. This paper presents an approach to tackle these difficulties in the "
            "domain of chess puzzles. We then introduce an RL framework with novel rewards based on engine statistics.",
            "An approach for chess puzzles",
        ),
        (  # what the first sentence says the paper investigates, without asides and citations
            "We investigate implications of the (extended) low-degree conjecture (recently formalized in [moitra "
            "et al2023]) in the context of the symmetric stochastic block model. For this, we design a test.",
            "Implications of the low-degree conjecture for the symmetric stochastic block model",
        ),
    ],
)
def test_a_title_is_a_noun_phrase_not_a_sentence(abstract, title):
    assert derive_title(abstract) == title


def test_a_long_title_keeps_its_subject_and_says_where_it_was_cut():
    """Cutting before "for" (and at 12 words) lost the subject and cost 0.03 of cosine to the real titles."""
    title = derive_title(
        "This paper investigates low-rank structure in the gradients of the training loss for two-layer neural "
        "networks while relaxing the usual isotropy assumptions."
    )
    assert title == "Low-rank structure in the gradients of the training loss for two-layer neural networks"
    title = derive_title(
        "We study the problem of estimating the number of distinct species of insects and birds from a small "
        "number of noisy photographs taken by volunteers in the field."
    )
    assert title == "Estimating the number of distinct species of insects and birds from a small number\u2026"
    assert len(title.split()) <= MAX_WORDS


def test_the_sentence_stating_the_contribution_beats_a_background_opening():
    abstract = (
        "Deep learning has changed many fields in recent years. "
        "Graph neural networks are popular for molecules, yet message passing on molecular graphs is slow. "
        "We propose a sparse message passing scheme for molecular graphs that skips distant atoms."
    )
    assert derive_title(abstract) == "A sparse message passing scheme for molecular graphs"


def test_a_background_opening_that_names_the_subject_is_kept_when_nothing_is_stated():
    abstract = (
        "Protein folding simulations remain expensive for large proteins. "
        "Coarse-grained protein models trade accuracy for speed in folding simulations. "
        "Results on twelve proteins show folding times within ten percent of all-atom simulations."
    )
    assert derive_title(abstract) == "Protein folding simulations remain expensive for large proteins"


def test_a_title_never_ends_on_a_small_word():
    for abstract in load_corpus(sample_files()).papers["abstract"]:
        last = derive_title(abstract).rstrip("\u2026").split()[-1].lower()
        assert last not in {"of", "for", "the", "a", "an", "and", "in", "to", "with", "on", "by"}, abstract[:80]


SAMPLE_TITLES = {  # the three bad titles, as a reader would accept them
    "p431967708cc9": "Q-EarlySettled-LowCost: Model-free RL algorithms",
    "pa27d68159ecd": "An enhanced self-distillation framework for high-performance SNN training under limited "
    "computational resources",
    "p4b5d4bf557ef": "LoRO: Dense mask to completely obfuscate parameters",
}
_PRONOUN = re.compile(r"^(?:they|it|this|these|those|we|our|its|their)\b", re.IGNORECASE)
_INTRODUCED_NAME = re.compile(r"\bwe (?:propose|introduce|present)\s+(?:\w+\s+)?([A-Z][A-Za-z0-9]*[A-Z][\w-]*)[ ,(]")


def test_every_sample_title_reads_as_a_title():
    papers = load_corpus(sample_files()).papers
    titles = dict(zip(papers["paper_id"], papers["title"], strict=True))
    assert {paper_id: titles[paper_id] for paper_id in SAMPLE_TITLES} == SAMPLE_TITLES
    for abstract, title in zip(papers["abstract"], papers["title"], strict=True):
        assert title == derive_title(abstract)
        description = title.split(": ", 1)[-1]
        assert 0 < len(description.split()) <= MAX_WORDS, title
        assert not _PRONOUN.match(title), title
        assert "novel" not in title.lower(), title
        assert not re.match(r"^(?:two|three|four)\b", description, re.IGNORECASE), title
        assert not any(mark in title for mark in ("$", "\\", "**")), title


def test_a_sample_title_keeps_the_name_the_abstract_introduces():
    """When an abstract says "we propose NAME", its title starts with "NAME: "."""
    papers = load_corpus(sample_files()).papers
    introduced = [
        (match.group(1), title)
        for abstract, title in zip(papers["abstract"], papers["title"], strict=True)
        if (match := _INTRODUCED_NAME.search(strip_markup(abstract)))
    ]
    assert len(introduced) >= 5
    assert [title for name, title in introduced if not title.startswith(f"{name}: ")] == []


def test_the_sample_names_its_methods():
    """Titles that start with the method's name, as "FedASK: ..." does: at least 20 of the 38."""
    titles = [derive_title(a) for a in load_corpus(sample_files()).papers["abstract"]]
    assert sum(bool(re.match(r"^\S+: ", t)) for t in titles) >= 20
