"""Titles derived from untitled abstracts name the method when the abstract does."""

import pytest

from pipeline.ingest import load_corpus, sample_files
from pipeline.titles import MAX_WORDS, derive_title


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


def test_every_sample_title_is_short_and_free_of_markup():
    for abstract in load_corpus(sample_files()).papers["abstract"]:
        title = derive_title(abstract)
        assert 0 < len(title.split()) <= MAX_WORDS + 2
        assert not any(mark in title for mark in ("$", "\\", "**"))
