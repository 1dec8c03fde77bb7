"""Keyword cleaning, candidate phrases and spelling for display."""

import re
from collections import Counter, defaultdict
from itertools import pairwise

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from topic_explorer.pipeline.describe.keywords import (
    MIN_PAPERS_PER_KEYWORD,
    _ctfidf_candidates,
    _drop_repeats,
    class_tfidf,
    display_forms,
    topic_terms,
)
from topic_explorer.pipeline.describe.terms import PaperTerms, TermCounts
from topic_explorer.pipeline.text.clean import TOKEN_PATTERN, clean_for_keywords, phrases, strip_markup


def test_strip_markup_keeps_words_and_drops_latex_and_markdown():
    text = r"We propose *JME* and **AnDPro** with $\mathbf{S} + \mathbf{L}$ in \texttt{torch}, 5\\% faster."
    assert strip_markup(text) == "We propose JME and AnDPro with S + L in torch, 5% faster."


def test_clean_for_keywords_removes_math_citations_urls_and_html():
    text = (
        r"Sparse plus $(\mathbf{S})$ decomposition [12, 13] as in (Smith et al., 2020) and [moitra et al2023], "
        "see https://github.com/x/y or <b>bold</b>; state-of-the-art results."
    )
    cleaned = clean_for_keywords(text)
    for debris in ("mathbf", "12", "smith", "moitra", "github", "<b>", "state"):
        assert debris not in cleaned
    assert "sparse plus" in cleaned
    assert "bold" in cleaned


def test_phrases_never_cross_punctuation_stop_words_or_numbers():
    terms = phrases("Low-Rank Adaptation (LoRA) of large language models is a KV-cache trick.")
    assert {"low rank adaptation", "lora", "large language models", "kv cache"} <= set(terms)
    assert "adaptation lora" not in terms
    assert "lora large" not in terms
    terms = phrases("We fine-tune Llama 2 models on 3D scenes.")
    assert "llama models" not in terms
    assert {"llama", "models", "3d scenes"} <= set(terms)


def test_phrase_fragments_and_plural_twins_are_dropped_but_words_stay():
    ranked = [("bayesian neural", 1.0), ("bayesian", 0.9), ("bayesian neural networks", 0.8), ("posterior", 0.7)]
    assert _drop_repeats(ranked, fragments=True) == [
        ("bayesian", 0.9),
        ("bayesian neural networks", 0.8),
        ("posterior", 0.7),
    ]
    assert _drop_repeats(ranked, fragments=False) == ranked  # naming terms keep their fragments
    assert _drop_repeats([("memory", 0.7), ("memories", 0.6), ("robots", 0.5), ("robot", 0.4)], fragments=False) == [
        ("memory", 0.7),
        ("robots", 0.5),
    ]


def test_display_forms_use_the_corpus_spelling_but_not_sentence_starts():
    texts = ["Federated learning with LoRA adapters.", "We combine LoRA with federated learning and low-rank updates."]
    forms = display_forms(texts, {"lora", "federated learning", "low rank"})
    assert forms == {"lora": "LoRA", "federated learning": "federated learning", "low rank": "low-rank"}


def _forms_read_per_call(texts: list[str], terms: set[str]) -> dict[str, str]:
    """display_forms as it was before the corpus's spellings were read once: every call reads every text for the
    wanted words only. The oracle for the property below."""
    word = re.compile(TOKEN_PATTERN)
    spellings, joiners = defaultdict(Counter), defaultdict(Counter)
    wanted = {w for term in terms for w in term.split()}
    pairs = {p for term in terms for p in pairwise(term.split())}
    for text in texts:
        plain, previous = strip_markup(text), None
        for match in word.finditer(plain):
            lower = match.group(0).lower()
            if lower in wanted and not re.search(r"(?:^|[.!?:]\s+)$", plain[max(0, match.start() - 3) : match.start()]):
                spellings[lower][match.group(0)] += 1
            gap = plain[previous[1] : match.start()] if previous else None
            if gap in (" ", "-") and (previous[0], lower) in pairs:
                joiners[previous[0], lower][gap] += 1
            previous = (lower, match.end())

    def spell(w: str) -> str:
        if not spellings[w]:
            return w
        best, count = spellings[w].most_common(1)[0]
        return best if best != w and count >= 2 * spellings[w].get(w, 0) else w

    forms = {}
    for term in terms:
        words = term.split()
        form = spell(words[0])
        for a, b in pairwise(words):
            form += (joiners[a, b].most_common(1)[0][0] if joiners.get((a, b)) else " ") + spell(b)
        forms[term] = form
    return forms


_SPELLINGS = st.sampled_from(["lora", "LoRA", "Lora", "low", "Low", "rank", "RANK", "kv", "KV", "cache", "x2", "X2"])
_TEXTS = st.lists(
    st.lists(st.tuples(_SPELLINGS, st.sampled_from([" ", "-", ". ", ", ", "  ", ".\n", "--"])), max_size=12).map(
        lambda run: "".join(w + gap for w, gap in run)
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=200, deadline=None)
@given(texts=_TEXTS, other=_TEXTS)
def test_display_forms_read_once_per_corpus_spell_as_reading_every_call_did(texts, other):
    terms = {"lora", "low rank", "kv cache", "rank lora", "x2", "low rank kv", "cache", "missing words"}
    for corpus in (texts, other, texts):  # a new corpus is read anew; returning to one gives its own spellings
        assert display_forms(corpus, terms) == _forms_read_per_call(corpus, terms)
        assert display_forms(corpus, {"low rank"}) == {"low rank": _forms_read_per_call(corpus, terms)["low rank"]}


def test_topic_terms_prefer_terms_several_papers_share():
    abstracts = [
        "Federated learning trains models across clients. QCS QCS QCS QCS is our name.",
        "Federated learning with heterogeneous clients and privacy.",
        "Federated learning under client drift.",
        "Reinforcement learning from human feedback aligns language models with rewards.",
        "Reward models and human feedback for reinforcement learning.",
        "Human feedback and reward hacking in reinforcement learning.",
    ]
    topic_id = np.array([0, 0, 0, 1, 1, 1])
    rng = np.random.default_rng(0)
    centres = {0: rng.normal(size=8), 1: rng.normal(size=8)}
    counts = PaperTerms.count(abstracts).topic_counts(topic_id, np.array([0, 1]))
    terms = topic_terms(counts, class_tfidf(counts), centres, lambda terms: rng.normal(size=(len(terms), 8)), top_n=5)
    fed = [term for term, _ in terms[0].keywords]
    assert "federated learning" in fed
    assert "qcs" not in fed
    assert "human feedback" in [term for term, _ in terms[1].keywords]
    assert all(term not in ("qcs",) for term, _ in terms[0].naming)


def dense_candidates(counts: TermCounts, weights, count: int) -> dict[int, list[tuple[str, float]]]:
    """The candidates as first written, over the whole topics x terms table at once: the reference."""
    weights = sparse.csr_matrix(weights).toarray()
    users = counts.papers.toarray()
    shared = np.where(users >= np.minimum(MIN_PAPERS_PER_KEYWORD, counts.sizes)[:, None], weights, 0)
    weights = np.where((shared > 0).any(axis=1)[:, None], shared, weights)
    result = {}
    for row, topic in enumerate(counts.topic_ids):
        ranked = np.argsort(-weights[row], kind="stable")[:count]
        result[int(topic)] = [(counts.terms[i], float(weights[row, i])) for i in ranked if weights[row, i] > 0]
    return result


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda topics: st.tuples(
            st.lists(st.lists(st.integers(0, 3), min_size=12, max_size=12), min_size=topics, max_size=topics),
            st.lists(st.integers(1, 4), min_size=topics, max_size=topics),
            st.integers(1, 14),
        )
    )
)
def test_candidates_one_topic_at_a_time_equal_the_whole_table_at_once(drawn):
    """Ties (equal weights) included: the rows hold small whole numbers, so many terms score alike."""
    uses, sizes, count = drawn
    papers = sparse.csr_matrix(np.minimum(np.array(uses), np.array(sizes)[:, None]))
    counts = TermCounts(
        np.arange(len(uses)), tuple(f"t{i:02d}" for i in range(12)), sparse.csr_matrix(np.array(uses)), papers,
        np.array(sizes),
    )  # fmt: skip
    weights = class_tfidf(counts) if papers.nnz else sparse.csr_matrix(papers.shape)
    assert _ctfidf_candidates(counts, weights, count) == dense_candidates(counts, weights, count)
