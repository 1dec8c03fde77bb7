"""Labels: one name of 1-5 words a topic's papers use, judged by the corpus's own statistics, distinct."""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.sample_groups import NAMED
from topic_explorer.pipeline.describe.boundwords import BoundWords, bound_words
from topic_explorer.pipeline.describe.keywords import class_tfidf, topic_terms
from topic_explorer.pipeline.describe.labels import MAX_LABEL_WORDS, capitalise, is_name, make_labels
from topic_explorer.pipeline.describe.naming_terms import _stem, generic_terms, named_terms
from topic_explorer.pipeline.describe.terms import PaperTerms
from topic_explorer.pipeline.describe.theme_names import theme_field, theme_name

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
        ("x x", False),  # letters, not words
        ("k-means clustering", True),  # a letter inside a name
        ("T cells", True),
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
    assert "causal" in bound.modifiers
    assert "networks" in bound.heads
    assert "effects" not in bound.modifiers
    assert "causal" not in bound.heads


def test_a_compound_the_corpus_writes_before_other_words_is_no_name():
    texts = [
        "Long-term forecasting of load.",
        "Long-term memory of agents.",
        "Long-term dependencies in series.",
        "A penalty term for the loss.",
        "The entropy term of the policy.",
        "The regularization term and the trade-off.",
        "A trade-off between speed and cost.",
        "The trade-off of accuracy.",
    ]
    bound = bound_words(texts)
    assert "long term" in bound.modifiers  # "long-term" is written before another word: it says what kind
    assert "term" not in bound.modifiers  # the word alone ends its phrase as often
    assert "trade off" not in bound.modifiers  # a compound the corpus writes as a noun
    naming = [_scored("long term", "long term memory"), _scored("long term", "load forecasting"), _scored("trade off")]
    labels = make_labels(naming, bound=bound)
    assert labels == ["Long term memory", "Load forecasting", "Trade off"]  # the phrase it qualifies, or the next


def test_a_compound_ending_in_an_acronym_is_judged_as_a_compound():
    texts = [
        "Human-AI collaboration in teams.",
        "Human-AI interaction at work.",
        "Human-AI teaming for decisions.",
        "We fine-tune GPT-4 and LoRA adapters.",
    ]
    bound = bound_words(texts)
    assert "human ai" in bound.modifiers  # written before another word: it says what kind of collaboration
    assert not is_name("human-AI", bound)
    assert is_name("human-AI collaboration", bound)
    assert is_name("GPT-4", bound)  # an acronym with its version: a name however the corpus writes it
    assert is_name("federated LoRA", bound)
    naming = [_scored("human-AI", "human-AI collaboration"), _scored("GPT-4")]
    assert make_labels(naming, bound=bound) == ["Human-AI collaboration", "GPT-4"]


@pytest.mark.parametrize(
    ("label", "shown"),
    [
        ("human-AI teaming", "Human-AI teaming"),  # an acronym later in a compound does not keep its start small
        ("t-SNE plots", "t-SNE plots"),  # a letter joined to an acronym is the acronym's own spelling
        ("mRNA design", "mRNA design"),
        ("e-mail", "E-mail"),
        ("LoRA", "LoRA"),
    ],
)
def test_a_label_starts_with_a_capital_unless_it_starts_with_an_acronym(label, shown):
    assert capitalise(label) == shown


def test_a_name_takes_back_the_stop_words_the_corpus_hyphenates_before_it():
    texts = [
        "In-context learning of tasks.",
        "We study in-context learning.",
        "In-context learning emerges in transformers.",
        "Context windows grow.",
        "Long context windows cost memory.",
    ]
    bound = bound_words(texts)
    assert bound.prefixes["context learning"] == "in"  # counted as "context learning": "in" is a stop word
    assert "context" not in bound.prefixes  # "context windows" is written without it
    labels = make_labels([_scored("context learning"), _scored("context windows")], bound=bound)
    assert labels == ["In-context learning", "Context windows"]
    generic = frozenset({"context learning"})  # a phrase most of a corpus writes stays generic once prefixed
    labels = make_labels(
        [_scored("context learning", "transformers"), _scored("context windows")], bound=bound, generic=generic
    )
    assert labels == ["Transformers", "Context windows"]


def test_generic_terms_are_those_many_papers_use():
    abstracts = [f"Learning with topic{i} words and topic{i} ideas." for i in range(10)]
    counts = PaperTerms.count(abstracts).topic_counts(np.arange(10) % 2, np.array([0, 1]))
    generic = generic_terms(counts)
    assert "learning" in generic
    assert "topic3" not in generic


def test_labels_use_the_acronym_the_field_uses():
    naming = [
        _scored("reinforcement learning from human feedback", "preference optimization", "reward"),
        _scored("key value cache", "memory", "eviction"),
        _scored("low rank adaptation", "adapters"),
        _scored("federated learning", "clients", "privacy"),
    ]
    assert make_labels(naming, acronyms=ACRONYMS) == ["RLHF", "KV cache", "LoRA", "Federated learning"]


def test_an_acronym_label_carries_its_long_form_when_it_fits():
    naming = [_scored("reinforcement learning from human feedback", "reward"), _scored("low rank adaptation")]
    labels = make_labels(naming, acronyms=ACRONYMS, expansions=ACRONYMS)
    assert labels == ["RLHF", "LoRA (low-rank adaptation)"]  # RLHF's long form would make six words


def _counts(abstracts: list[str], topics: list[int]):
    return PaperTerms.count(abstracts).topic_counts(np.array(topics), np.array(sorted(set(topics))))


def test_a_word_spread_over_topics_gives_way_to_the_phrase_its_topic_writes():
    abstracts = [
        "Time series forecasting with transformers.",
        "Time series forecasting of demand.",
        "Time series forecasting under drift.",
        "Training time of robots grows.",
        "Robot time budgets in planning.",
        "Planning time of robot arms.",
        "Time limits for walking robots.",
        "Quantization of weights; quantization of activations.",
        "Quantization for edge devices.",
    ]
    counts = _counts(abstracts, [0, 0, 0, 1, 1, 1, 1, 2, 2])
    named = named_terms(counts, {0: [("time", 1.0), ("forecasting", 0.5)], 2: [("quantization", 1.0)]})
    assert named[0][0] == ("time series forecasting", 1.0)  # "time" is as much the robots' word
    assert named[2] == [("quantization", 1.0)]  # its papers are all this topic's: the field's own name


def test_a_single_word_gives_way_to_a_phrase_covering_its_topic_unless_its_users_are_the_topic_s():
    languages = ["Machine translation across languages.", "Languages and machine translation.", "Rare languages."]
    galaxies = ["Star formation in galaxies."] * 5 + ["Galaxies merge."] * 5
    abstracts = [*languages, "Languages of code.", *galaxies, "Languages of robots.", "Robots in languages."]
    counts = _counts(abstracts, [0, 0, 0, 0, *[2] * 10, 1, 1])
    naming = {0: [("languages", 1.0), ("machine translation", 0.8)], 2: [("galaxies", 1.0), ("star formation", 0.8)]}
    named = named_terms(counts, naming)
    assert named[0][0] == ("machine translation", 1.0)  # a third of the papers writing "languages" are not the topic's
    assert named[2][0] == ("galaxies", 1.0)  # every paper writing "galaxies" is the topic's: the field's own name


def test_a_word_the_topic_writes_before_another_of_its_words_gives_way_to_that_pair():
    theory = ["Regret bounds for bandits.", "Minimizing regret in bandits.", "Regret of bandits.", "Lower bounds."]
    languages = ["English languages differ.", "Rare languages fade.", "Languages of English speakers."]
    robots = ["Robots feel regret.", "Languages of robots.", "Robots walk."]
    counts = _counts([*theory, *languages, *robots], [0, 0, 0, 0, 1, 1, 1, 2, 2, 2])
    named = named_terms(counts, {0: [("regret", 1.0)], 1: [("languages", 1.0)]})
    assert named[0] == [("regret bounds", 1.0), ("regret", 1.0)]  # "bounds" gathers in the topic too
    assert named[1] == [("languages", 1.0)]  # "English languages" is one part of the topic, not its name
    both = named_terms(counts, {0: [("regret", 1.0), ("bounds", 0.5)]})
    assert both[0] == [("regret", 1.0), ("bounds", 0.5)]  # "bounds" names the topic itself: the pair narrows it


def test_a_phrase_the_corpus_continues_is_completed():
    abstracts = ["Low rank adaptation of models.", "Low rank adaptation again.", "Low rank adaptation for LLMs."]
    counts = _counts([*abstracts, "Robots walk.", "Robots run."], [0, 0, 0, 1, 1])
    assert named_terms(counts, {0: [("low rank", 0.9)]})[0] == [("low rank adaptation", 0.9)]


def test_a_word_written_in_two_phrases_stands_for_neither():
    two = ["Speculative decoding of drafts.", "Speculative decoding at scale.", "Greedy decoding.", "Greedy decoding."]
    one = ["Speculative decoding verifies.", "Speculative decoding drafts.", "Drafts verify."]
    brains = ["Decoding brain signals.", "Decoding neural activity.", "Decoding images.", "Decoding speech."]
    counts = _counts([*two, *brains, "Decoding motion.", *one], [0] * 4 + [1] * 5 + [2] * 3)
    named = named_terms(counts, {0: [("decoding", 1.0)], 2: [("decoding", 1.0)]})
    assert named[2] == [("speculative decoding", 1.0)]  # "decoding" is as much the brain papers' word
    assert not [term for term, _ in named[0] if " " in term]  # speculative and greedy: the topic writes both


@pytest.mark.parametrize(
    ("team_posts", "nhl_score", "named"),
    [(4, 0.9, True), (4, 0.7, False), (6, 0.9, False)],  # nearly the best term, half as written as "team": its name
)
def test_a_word_few_short_posts_write_names_their_topic_when_it_is_theirs_alone(team_posts, nhl_score, named):
    hockey = ["NHL playoffs tonight.", "NHL trade rumours.", *["Our team lost."] * team_posts]
    hockey += ["Goalie saves.", "Puck drop.", "Overtime again.", "Fans cheer.", "Season ends.", "Ice is cold."]
    work = ["Team meeting at work."] * team_posts  # half of those writing "team" are the hockey topic's
    counts = _counts([*hockey, *work], [0] * len(hockey) + [1] * len(work))
    names = dict(named_terms(counts, {0: [("team", 1.0), ("nhl", nhl_score)]})[0])
    assert ("nhl" in names) == named  # written by 2 posts of 10-12, under DEFINING_REACH, and by no other topic
    assert "team" in names  # 4 or 6 of the topic's posts: it defines the topic as before


@pytest.mark.parametrize(("others", "completed"), [(30, True), (45, False)])
def test_a_phrase_of_two_papers_completes_no_word_of_a_large_topic(others, completed):
    topic = ["Speculative decoding of drafts.", "Speculative decoding at scale.", *["Decoding."] * 3]
    topic += ["Bias in chatbots."] * others  # two papers of 35 (6%) may name it; two of 50 (4%) may not
    counts = _counts([*topic, *["Decoding brain signals."] * 6], [0] * len(topic) + [1] * 6)
    named = named_terms(counts, {0: [("decoding", 1.0)]})
    assert (("speculative decoding", 1.0) in named[0]) == completed


def test_a_word_whose_inflections_gather_in_its_topic_names_it():
    robots = ["Robot grasping of cups.", "Grasping in clutter.", "Learning grasping.", "Stable grasps.", "Grasps."]
    elsewhere = ["Grasping the theory.", "Grasping concepts.", "Grasping meaning.", "Grasping ideas."]
    counts = _counts([*robots, "Multi-finger grasps.", *elsewhere], [0] * 6 + [1] * 4)
    naming = {0: [("grasping", 1.0), ("suction cups", 0.5)]}
    assert named_terms(counts, naming)[0][0] == ("grasping", 1.0)  # 6 of 10 grasp* papers
    alone = _counts([*robots[:3], "Suction cups.", "Clutter.", "Arms.", *elsewhere], [0] * 6 + [1] * 4)
    assert named_terms(alone, naming)[0] == [("suction cups", 0.5)]  # 3 of 7 "grasping" papers, no "grasps"


@pytest.mark.parametrize(
    ("words", "joined"),
    [(("grasp", "grasps", "grasping"), True), (("embedding", "embeddings"), True), (("bias", "biases"), True),
     (("class", "classes"), True), (("galaxy", "galaxies"), True), (("news", "new"), False), (("bias", "bia"), False)],
)  # fmt: skip
def test_a_word_s_inflections_share_its_stem(words, joined):
    assert (len({_stem(word) for word in words}) == 1) == joined


def test_the_tail_of_an_acronym_s_long_form_gives_way_to_the_acronym():
    abstracts = ["RLHF aligns models with human feedback.", "RLHF from human feedback at scale.", "Robots walk."]
    counts = _counts(abstracts, [0, 0, 1])
    named = named_terms(counts, {0: [("human feedback", 0.8)]}, ACRONYMS)
    assert named[0] == [("rlhf", 0.8)]


def test_a_phrase_inside_an_acronym_s_long_form_gives_way_to_the_acronym_its_topic_writes_as_often():
    lora = ["GoRA adapts low-rank adaptation (LoRA); LoRA ranks vary.", "Low-rank masks, not LoRA; LoRA-free."]
    counts = _counts([*lora, "Low-rank RNNs model low-rank dynamics.", "Low-rank neural circuits."], [0, 0, 1, 1])
    named = named_terms(counts, {0: [("low rank", 0.9)], 1: [("low rank", 0.9)]}, ACRONYMS)
    assert named[0] == [("lora", 0.9)]  # the topic writes LoRA four times, "low rank" twice
    assert named[1] == [("low rank", 0.9)]  # no LoRA here: the low-rank RNNs keep their phrase


WORDS = ["Robots", "Quantum", "Galaxies", "Proteins", "Music", "Finance", "Privacy"]  # names no other contains


def _each_alone(*topics: tuple[str, int]) -> list[list[tuple[str, int]]]:
    """A theme's parts when each is one topic (the finest level)."""
    return [[topic] for topic in topics]


def test_a_theme_is_named_for_its_largest_topics():
    parts = _each_alone(("Quantum physics", 50), ("Condensed matter physics", 40), ("Optics", 5))
    assert theme_name(parts) == "Quantum and condensed matter physics"
    parts = _each_alone(("3D reconstruction", 30), ("Video generation", 20), ("MRI", 20), ("Fonts", 15))
    assert theme_name(parts) == "3D reconstruction, video generation and MRI"
    assert theme_name(_each_alone(("LLMs and unlearning", 90), ("RAG", 10))) == "LLMs and RAG"  # never one alone
    parts = _each_alone(("Time series forecasting", 30), ("Time series", 20), ("Weather", 10))
    assert theme_name(parts) == "Time series forecasting and weather"  # "Time series" says no more


def test_a_theme_names_what_fills_its_large_part_beside_its_small_one():
    physics = [[("Magnetic materials", 257), ("Quantum", 153), ("Galaxies", 113)], [("Lie algebra", 75)]]
    assert theme_name(physics) == "Magnetic materials, quantum and lie algebra"  # not "... and lie algebra" alone
    balanced = [[("Federated learning", 4), ("LoRA", 2)], [("Regret bound", 4), ("KV cache", 3), ("RLHF", 3)]]
    assert theme_name(balanced) == "Federated learning, regret bound and KV cache"  # the largest, of both parts


@given(
    st.lists(
        st.lists(st.tuples(st.sampled_from(WORDS), st.integers(1, 50)), min_size=1, max_size=4),
        min_size=2,
        max_size=4,
    )
)
def test_a_theme_of_several_parts_is_never_named_for_one_of_them(parts):
    """Whatever its parts, a theme's name holds names from two of them (when two have names that say something
    different), so it is never one part's own name."""
    name = theme_name(parts)
    named = {i for i, topics in enumerate(parts) for label, _ in topics if re.search(rf"\b{label}\b", name, re.I)}
    distinct = {label.lower() for topics in parts for label, _ in topics}
    assert len(named) >= 2 or len(distinct) == 1


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


def test_a_name_taken_as_an_acronym_is_not_taken_again_in_its_long_form():
    """Topic 0 takes "LLMs" (its only name, owned by topic 1); topic 1's names are then all taken, and its label
    qualifies the name it shares instead of repeating it unabbreviated: a reader sees two topics named
    "LLMs (large language models)" and "Large language models" as one name twice."""
    naming = [
        [("large language models", 0.97), ("pretraining data", 0.3)],
        [("large language models", 1.0), ("LLMs", 0.9), ("biases", 0.3)],
    ]
    acronyms = {"LLMs": "large language models"}
    labels = make_labels(naming, acronyms=acronyms, expansions=acronyms)
    assert labels == ["LLMs (large language models)", "LLMs and biases"]


def test_a_topic_whose_every_term_is_taken_qualifies_its_name_by_its_best_free_keyword():
    naming = [[("large language models", 0.4), ("LLM unlearning", 0.3)], [("large language models", 0.38)]]
    keywords = [["unlearning", "large language models"], ["models", "causal", "biases", "personality"]]
    acronyms = {"LLMs": "large language models"}
    bound = BoundWords(modifiers=frozenset({"causal"}), heads=frozenset())
    labels = make_labels(
        naming, keywords=keywords, acronyms=acronyms, expansions=acronyms, bound=bound, generic=frozenset({"models"})
    )
    assert labels == ["LLMs (large language models)", "LLMs and biases"]  # not "models" (generic), "causal" (modifier)
    assert make_labels(naming, acronyms=acronyms, expansions=acronyms)[1] == "Large language models (1)"


def test_a_long_form_taken_first_keeps_its_acronym_from_another_topic():
    naming = [[("large language models", 1.0)], [("LLMs", 0.9), ("jailbreak attacks", 0.3)]]
    assert make_labels(naming, expansions={"LLMs": "large language models"}) == [
        "Large language models",
        "LLMs and jailbreak attacks",
    ]


def test_a_longer_name_that_scores_nearly_as_well_is_preferred():
    naming = [[("agents", 0.44), ("web agents", 0.42), ("safety", 0.2)], [("attacks", 0.5), ("jailbreak", 0.1)]]
    assert make_labels(naming) == ["Web agents", "Attacks"]


def test_a_word_that_cannot_stand_alone_gives_its_place_to_the_name_holding_it():
    naming = [[("bandits", 0.38), ("regret bounds", 0.35), ("contextual bandits", 0.32)]]
    bound = BoundWords(modifiers=frozenset(), heads=frozenset({"bandits"}))  # the corpus writes "... bandits"
    assert make_labels(naming, bound=bound) == ["Contextual bandits"]


def test_a_topic_without_a_name_takes_its_best_term_and_a_weak_name_gives_way_to_it():
    naming = [[("attack", 0.18), ("models", 0.13), ("success", 0.01)], [("data", 0.3), ("analysis", 0.2)]]
    bound = BoundWords(modifiers=frozenset(), heads=frozenset({"attack"}))
    # "success" passes as a name but scores far below "attack"; topic 1 has no name at all ("data" is generic)
    assert make_labels(naming, bound=bound, generic=frozenset({"models", "data"})) == ["Attack", "Analysis"]


def test_a_topic_without_a_name_is_named_by_a_word_before_a_letter():
    naming = [[("o", 0.46), ("r", 0.43), ("ax", 0.2)], [("x x", 0.5), ("p", 0.4)]]
    # no term of either is a name; "ax" is a word, though a poor one; "x x" and "p" are letters only
    assert make_labels(naming) == ["Ax", "X x"]


def test_a_compound_modifier_far_ahead_of_its_topic_s_names_gives_way_to_the_name_holding_it():
    bound = BoundWords(modifiers=frozenset({"multi agent", "zero shot", "few shot", "quantum"}), heads=frozenset())
    naming = [
        [("multi-agent", 0.64), ("LLM agents", 0.30), ("multi-agent systems", 0.27)],  # names under half the best
        [("zero-shot", 0.69), ("few-shot", 0.63)],  # no name at all: the best term stays
        [("quantum", 0.9), ("quantum computing", 0.3)],  # a modifier word qualifies too many names to give way
    ]
    assert make_labels(naming, bound=bound) == ["Multi-agent systems", "Zero-shot", "Quantum"]


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
    assert "large language models" in naming
    assert "differential privacy" in naming
    assert "language models" not in naming
    assert "language" not in naming  # always written inside the longer phrase


def test_a_naming_phrase_stays_beside_a_longer_one_of_a_few_of_its_papers():
    abstracts = [
        *["Dexterous manipulation with hands."] * 3,
        *["Dexterous manipulation tasks: dexterous manipulation tasks, dexterous manipulation tasks."] * 2,
        *["Robot walking."] * 3,
    ]
    topic_id = np.array([0] * 5 + [1] * 3)
    counts = PaperTerms.count(abstracts).topic_counts(topic_id, np.array([0, 1]))
    centres = {0: np.ones(4) / 2, 1: np.ones(4) / 2}
    terms = topic_terms(counts, class_tfidf(counts), centres, lambda t: np.ones((len(t), 4)) / 2, top_n=10)
    naming = [term for term, _ in terms[0].naming]
    assert {"dexterous manipulation", "dexterous manipulation tasks"} <= set(naming)  # written by 5 papers, by 2


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


@pytest.mark.model
def test_sample_themes_are_named_for_what_they_hold(sample_build):
    from topic_explorer.pipeline.buildfolder.read import read_build

    build = read_build(sample_build)
    tree, topic_labels = build.hierarchy, dict(zip(build.topics["topic_id"], build.topics["label"], strict=True))
    for level, groups in tree.groupby("level"):
        assert groups["label"].str.lower().is_unique, groups["label"].tolist()
        for group in groups.itertuples():
            finer = tree[(tree["level"] == level + 1) & (tree["parent_id"] == group.group_id)]
            parts = finer["label"].tolist() if len(finer) else [topic_labels[t] for t in group.topic_ids]
            if len(set(map(tuple, finer["topic_ids"]))) > 1 or (not len(finer) and len(group.topic_ids) > 1):
                assert group.label not in parts, f"{group.label!r} is one part's name of {parts}"


RECOGNISED = {  # what a reader accepts as the name of each of the sample's five (`tests.sample_groups.NAMED`)
    "LoRA / PEFT": r"lora|low-rank adaptation|peft|parameter-efficient",
    "federated learning": r"federated",
    "RLHF": r"rlhf|preference|human feedback",
    "KV cache": r"kv cache|key-value",
    "learning theory": r"theory|theoretical|regret bound|bandit|sample complexity",
}
CLUSTERING = (  # the lead's clustering (issue 29) still alternates between two cuts of these papers
    "one cut keeps GoRA with LoRO ('LoRA (low-rank adaptation)') and the four federated papers apart ('Federated "
    "learning'); the other puts GoRA with the federated papers, named for LoRA"
)
NOT_YET = {  # names the default build does not reach yet (docs/label-audit.md)
    "federated learning": pytest.mark.xfail(reason=CLUSTERING, strict=False),
}


@pytest.mark.model
@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=NOT_YET[name]) if name in NOT_YET else name for name in RECOGNISED]
)
def test_the_sample_names_its_five_as_a_reader_would(sample_build, name):
    from topic_explorer.pipeline.buildfolder.read import read_build

    build = read_build(sample_build)
    holding = build.papers[build.papers["paper_id"].isin(NAMED[name].required)]["topic_id"].mode()[0]
    label = build.topics.set_index("topic_id").at[holding, "label"]
    assert re.search(RECOGNISED[name], label, re.IGNORECASE), f"{name}: {label!r}"


def test_a_theme_is_led_by_the_name_its_topics_share_unless_a_part_says_it():
    parts = _each_alone(("Error correction", 50), ("Spin liquids", 40), ("Optics", 5))
    assert theme_name(parts, "quantum") == "Quantum: error correction and spin liquids"
    assert theme_name([[("Quantum error correction", 50)], *parts[1:]], "quantum") == (
        "Quantum error correction and spin liquids"
    )
    parts = _each_alone(("LLMs (large language models)", 30), ("Multi-agent", 20), ("Reasoning", 20), ("RAG", 15))
    assert theme_name(parts, "LLMs") == "LLMs, multi-agent and reasoning"  # a part says it: no "LLMs: LLMs, ..."


def test_a_theme_s_field_is_a_name_most_of_its_topics_use():
    abstracts = [
        "Quantum circuits correct errors.",
        "Quantum codes correct errors.",
        "Quantum spin liquids order.",
        "Quantum magnets and spin liquids.",
        "Photonic chips guide light.",
        *[f"Robots grasp cups number {i}." for i in range(6)],
    ]
    counts = _counts(abstracts, [0, 0, 1, 1, 2, *[3] * 6])
    assert theme_field(["errors", "quantum", "spin liquids"], counts, [0, 1, 2]) == "quantum"  # 4 of 5, two topics
    assert theme_field(["errors", "spin liquids"], counts, [0, 1, 2]) == ""  # each in one topic only
    assert theme_field(["robots", "quantum"], counts, [2, 3]) == ""  # the robots are one topic
