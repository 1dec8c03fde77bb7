"""Named topics: acronyms read from the corpus, relative matching, and the sample's five names."""

import numpy as np
import pandas as pd
import pytest

from tests.sample_groups import FEDERATED, NAMED, THEORY
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.fit.named_topics import (
    MIN_NAME_SIMILARITY,
    NAME_TEMPLATE,
    describe,
    match_named_topics,
    name_forms,
)
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings
from topic_explorer.pipeline.text.acronyms import _phrase_counts, corpus_acronyms, preferred_acronyms

SAMPLE_NAMES = ("LoRA / PEFT", "federated learning", "RLHF", "KV cache", "learning theory")


def test_acronyms_are_read_as_the_corpus_spells_them_out():
    texts = [
        "Low-Rank Adaptation (LoRA) is cheap. We use LoRA with Parameter-Efficient Fine-Tuning (PEFT).",
        "Reinforcement Learning from Human Feedback (RLHF) aligns models; the Key-Value (KV) cache grows.",
        "A KV-cache (KV) trick, and the (LLM) alone, and (see above).",
    ]
    assert corpus_acronyms(texts) == {
        "KV": "Key-Value",
        "LoRA": "Low-Rank Adaptation",
        "PEFT": "Parameter-Efficient Fine-Tuning",
        "RLHF": "Reinforcement Learning from Human Feedback",
    }


def test_a_name_is_spelled_out_in_every_form_the_corpus_uses():
    acronyms = {"LoRA": "Low-Rank Adaptation", "KV": "Key-Value", "FL": "Federated Learning"}
    assert name_forms("LoRA / PEFT", acronyms) == ["LoRA", "Low-Rank Adaptation", "PEFT"]
    assert name_forms("KV cache", acronyms) == ["KV cache", "Key-Value cache"]
    assert name_forms("federated learning", acronyms) == ["federated learning", "FL"]
    assert describe("LoRA or PEFT", acronyms) == ["Low-Rank Adaptation (LoRA)", "PEFT"]


def test_a_name_is_also_written_without_the_words_most_of_the_corpus_uses():
    forms = name_forms("federated learning", {}, generic=frozenset({"learning", "models"}))
    assert forms == ["federated learning", "federated"]
    assert name_forms("learning", {}, generic=frozenset({"learning"})) == ["learning"]  # nothing specific left


class TableEmbedder:
    """Embeds each known text as a fixed vector: matching tested on geometry chosen by hand.

    A name is embedded as it is and as the matcher's query about a paper (`NAME_TEMPLATE`): both get its vector.
    """

    def __init__(self, vectors: dict[str, list[float]]):
        self.vectors = {text: np.asarray(v, dtype=float) / np.linalg.norm(v) for text, v in vectors.items()}
        self.vectors |= {NAME_TEMPLATE.format(text): v for text, v in self.vectors.items()}

    def __call__(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts])


def _unit(rows: list[list[float]]) -> np.ndarray:
    rows = np.asarray(rows, dtype=float)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


# Axes: 0 federated, 1 LoRA, 2 reinforcement learning, 3 human feedback, 4 diffusion, 5 shared "learning",
# 6 nothing in the corpus.
ABSTRACTS = [
    "Federated learning across clients.",
    "Federated learning with client drift.",
    "Low-Rank Adaptation (LoRA) of language models.",
    "LoRA adapters for fine-tuning.",
    "Reinforcement Learning from Human Feedback (RLHF) for alignment.",
    "Preference optimisation from pairwise human choices.",  # RLHF without the word: near the RLHF paper
    "Regret bounds for tabular reinforcement learning.",  # near RLHF only through "reinforcement learning"
    "Tabular reinforcement learning with low switching cost.",
    "Diffusion models for images.",
    "Diffusion models for audio.",
]
EMBEDDINGS = _unit(
    [
        [1, 0, 0, 0, 0, 1, 0],
        [0.9, 0.1, 0, 0, 0, 1, 0],
        [0, 1, 0, 0, 0, 1, 0],
        [0.1, 0.9, 0, 0, 0, 1, 0],
        [0, 0, 0.6, 1, 0, 1, 0],
        [0, 0, 0.3, 1, 0.1, 1, 0],
        [0, 0, 1, 0.5, 0, 1, 0],
        [0, 0, 1, 0.45, 0, 1, 0],
        [0, 0, 0, 0, 1, 1, 0],
        [0, 0, 0, 0, 0.9, 1.1, 0],
    ]
)
NAMES = TableEmbedder(
    {
        "federated learning": [1, 0, 0, 0, 0, 1, 0],
        "Low-Rank Adaptation (LoRA)": [0, 1, 0, 0, 0, 1, 0],
        "Reinforcement Learning from Human Feedback (RLHF)": [0, 0, 1, 1, 0, 1, 0],
        "medieval poetry": [0, 0, 0, 0, 0, 0, 1],
    }
)


def test_each_paper_joins_the_name_it_is_clearly_closest_to():
    names = ["federated learning", "LoRA", "RLHF"]
    match = match_named_topics(names, ABSTRACTS, EMBEDDINGS, NAMES, threshold=0.8)
    joined = {name: [i for i in range(len(ABSTRACTS)) if match.paper_name[i] == j] for j, name in enumerate(names)}
    assert joined == {"federated learning": [0, 1], "LoRA": [2, 3], "RLHF": [4, 5]}
    assert (match.paper_name[8:] == -1).all()
    assert match.unmatched() == {}


def test_closeness_through_a_shared_word_alone_does_not_join_a_name():
    """The tabular-RL papers score high for RLHF, but neither says RLHF nor sits next to a paper that does."""
    match = match_named_topics(["RLHF"], ABSTRACTS, EMBEDDINGS, NAMES, threshold=0.5)
    assert match.paper_score[6] >= 0.5
    assert match.paper_name[6] == -1
    assert match.paper_name[7] == -1
    assert match.paper_name[4] == 0
    assert match.paper_name[5] == 0


def test_a_name_no_paper_uses_rests_on_the_papers_closest_to_it():
    """No abstract says 'feedback learning': the three papers nearest to it describe it, and their neighbours join."""
    names = TableEmbedder({"feedback learning": [0, 0, 0.45, 1, 0, 1, 0]})
    match = match_named_topics(["feedback learning"], ABSTRACTS, EMBEDDINGS, names, threshold=0.8)
    members = set(np.flatnonzero(match.paper_name == 0).tolist())
    assert {4, 5} < members <= {4, 5, 6, 7}  # more than the single closest paper, nothing federated or diffusion


def test_a_paper_joins_the_best_name_that_takes_it():
    """Paper 6 scores higher on RLHF, which does not take it (no RLHF word near it), so it joins tabular RL."""
    names = TableEmbedder(
        {
            "Reinforcement Learning from Human Feedback (RLHF)": [0, 0, 1, 1, 0, 1, 0],
            "tabular reinforcement learning": [0, 0, 1, 0.2, 0, 1, 0],
        }
    )
    match = match_named_topics(["RLHF", "tabular reinforcement learning"], ABSTRACTS, EMBEDDINGS, names, threshold=0.5)
    assert match.paper_name[4] == 0
    assert match.paper_name[6] == 1
    assert match.paper_name[7] == 1


def test_a_higher_threshold_keeps_fewer_papers():
    loose = match_named_topics(["RLHF"], ABSTRACTS, EMBEDDINGS, NAMES, threshold=0.5)
    strict = match_named_topics(["RLHF"], ABSTRACTS, EMBEDDINGS, NAMES, threshold=2.5)
    assert set(np.flatnonzero(strict.paper_name == 0)) < set(np.flatnonzero(loose.paper_name == 0))


def test_a_name_foreign_to_the_corpus_matches_nothing_and_is_reported():
    match = match_named_topics(["federated learning", "medieval poetry"], ABSTRACTS, EMBEDDINGS, NAMES, threshold=1)
    assert (match.paper_name != 1).all()
    assert list(match.unmatched()) == ["medieval poetry"]
    assert (EMBEDDINGS @ NAMES(["medieval poetry"])[0]).max() < MIN_NAME_SIMILARITY


def test_no_names_match_no_papers():
    match = match_named_topics([], ABSTRACTS, EMBEDDINGS, NAMES, threshold=1)
    assert (match.paper_name == -1).all()
    assert match.unmatched() == {}


@pytest.fixture(scope="module")
def named_build(tmp_path_factory, cache_dir) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sample built with the real model and the five names its users expect."""
    out = tmp_path_factory.mktemp("builds") / "named"
    run_build([], out, BuildSettings(cache_dir=cache_dir, named_topics=SAMPLE_NAMES))
    build = read_build(out)
    return build.papers, build.topics


def _members(papers: pd.DataFrame, topics: pd.DataFrame, name: str) -> set[str]:
    topic = topics.loc[topics["named"] & (topics["label"] == name), "topic_id"]
    assert len(topic) == 1, f"{name!r} matched no paper"
    return set(papers.loc[papers["topic_id"] == topic.iloc[0], "paper_id"])


@pytest.mark.model
@pytest.mark.parametrize("name", [n for n in SAMPLE_NAMES if n != "learning theory"])
def test_each_sample_name_gets_the_papers_a_reader_would_put_there(named_build, name):
    papers, topics = named_build
    members = _members(papers, topics, name)
    expected = NAMED[name]
    assert members <= expected.allowed, f"unrelated papers pulled into {name!r}"
    assert expected.required <= members, f"{name!r} misses papers a reader puts there"


@pytest.mark.model
def test_learning_theory_gets_most_theory_papers_and_nothing_unrelated(named_build):
    papers, topics = named_build
    members = _members(papers, topics, "learning theory")
    assert members <= NAMED["learning theory"].allowed
    assert len(members & THEORY) >= 4, "a reader puts at least 4 of the 6 theory papers under learning theory"


@pytest.mark.model
def test_every_sample_name_is_matched_and_the_federated_papers_stay_with_fl_or_lora(named_build):
    papers, topics = named_build
    assert sorted(topics.loc[topics["named"], "label"]) == sorted(SAMPLE_NAMES)  # topic ids go by size
    named_fl_or_lora = _members(papers, topics, "federated learning") | _members(papers, topics, "LoRA / PEFT")
    assert named_fl_or_lora >= FEDERATED
    assert (~topics["named"]).sum() >= 2  # the papers no name took are clustered as usual


def test_the_acronyms_a_corpus_prefers_are_those_it_uses_more_than_their_long_forms():
    texts = [
        "Low-Rank Adaptation (LoRA) is cheap; LoRA adapters and LoRA ranks.",
        "Causal representation learning (CRL) finds latents; causal representation learning is hard.",
    ]
    terms = ["low-rank adaptation", "causal representation learning", "adapters"]
    assert preferred_acronyms(texts, terms) == {"LoRA": "Low-Rank Adaptation"}
    assert preferred_acronyms(texts, ["adapters"]) == {}
    assert preferred_acronyms(texts, ["causal representation learning"]) == {}  # written out as often as "CRL"
    texts.append("CRL and CRL again.")
    assert preferred_acronyms(texts, ["causal representation learning"]) == {"CRL": "Causal representation learning"}


def test_a_long_form_is_counted_where_a_paper_writes_it_not_across_two_papers():
    words = [["low", "rank", "adaptation", "low", "rank", "adaptation"], ["low", "rank"], ["adaptation", "x"]]
    counts = _phrase_counts(iter(words), ["low rank adaptation", "rank adaptation", "adaptation x", "absent phrase"])
    assert counts == {"low rank adaptation": 2, "rank adaptation": 2, "adaptation x": 1}
    assert _phrase_counts([["a", "a", "a"]], ["a a"]) == {"a a": 1}  # one occurrence ends before the next starts
    assert _phrase_counts([["a", "b", "a"]], ["a", "a b"]) == {"a": 2, "a b": 1}
