"""Topic keywords that read well, and the terms labels are made from.

Keywords start from BERTopic's c-TF-IDF (`ClassTfidfTransformer`, frequent words reduced) over cleaned
text: no LaTeX, markup or citations; English and academic stop words removed. Changes from stock
BERTopic make them read better (`pipeline.describe.representation` hands them to BERTopic as its
representation model):
- a keyword must be used by at least two of the topic's papers: a method name repeated
  eight times in one abstract ("QCS") no longer outranks what the topic's papers share;
- terms are words and phrases of up to four words that never cross punctuation or a stop
  word (`pipeline.text.clean.phrases`): "KV cache", "low-rank adaptation";
- candidates are re-ranked by closeness to the topic's centre (`topic_terms`);
- a phrase fragment gives way to the longer phrase, and a plural and its singular count once.
For display, keywords take the spelling the corpus uses most ("LoRA", "KV cache"). Labels are chosen
from each topic's naming terms (`pipeline.describe.labels`): the same candidates, each fragment
completed first with the longer phrase the topic's papers mostly write it in ("language models" ->
"large language models", "privacy" -> "differential privacy"), ranked KeyBERT-style by closeness to
the topic's centre and c-TF-IDF specificity.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import numpy as np
from scipy import sparse

from topic_explorer.pipeline.describe.terms import TermCounts
from topic_explorer.pipeline.text.clean import TOKEN_PATTERN, strip_markup

LABEL_POOL = 10  # labels draw on a topic's best naming terms only
MIN_PAPERS_PER_KEYWORD = 2
CANDIDATES_PER_KEYWORD = 2  # c-TF-IDF proposes this many candidates per keyword kept
LONGER_TERM_WINS = 0.6  # a phrase scoring at least this share of a shorter phrase in it replaces that one
KEYWORD_POWER = 2.0  # keyword score = closeness to the topic x (relative c-TF-IDF) ** KEYWORD_POWER
NAMING_POWER = 1.0  # the same for the terms a label is chosen from (0.5: as good a mean, more labels below 0.6)
FRAGMENT_SHARE = 0.6  # a term whose topic papers mostly (this share) write it inside one longer phrase stands for it
MAX_TERM_WORDS = 4  # as `pipeline.text.clean.phrases` cuts them
_WORD = re.compile(TOKEN_PATTERN)
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+)$")
_HYPHEN_PAIR = re.compile(r"(\w+)-(?=(\w+))")  # every pair of tokens written "a-b" is one of these


@dataclass
class TopicTerms:
    """A topic's describing terms, (lowercase term, score) pairs, best first."""

    keywords: list[tuple[str, float]]  # shown with the topic and scored for coherence
    naming: list[tuple[str, float]]  # what the label is made from: the most telling terms


def topic_terms(
    counts: TermCounts,
    weights: sparse.spmatrix,
    centres: dict[int, np.ndarray],
    embed_terms: Callable[[list[str]], np.ndarray],
    *,
    top_n: int,
) -> dict[int, TopicTerms]:
    """Keywords and naming terms of each topic, from its c-TF-IDF `weights` (rows and columns as in `counts`),
    which papers use each term (`counts`) and its centre in embedding space.

    c-TF-IDF proposes candidates; each is scored by how close its embedding is to the
    topic's centre times a power of its relative c-TF-IDF weight (in the spirit of
    BERTopic's KeyBERTInspired). Keywords use the square, so words the topic's papers share
    rank high (they make coherent, recognisable lists); naming terms (fragments completed first,
    `_completed`) use the weight itself, so the most telling phrases name the topic ("Regret bounds").
    `centres` maps each topic id to its unit centre; topics without one (the outliers) keep
    their c-TF-IDF order.
    """
    candidates = _ctfidf_candidates(counts, weights, CANDIDATES_PER_KEYWORD * top_n)
    naming = _completed(counts, weights, candidates)
    terms = sorted({term for pool in (candidates, naming) for pairs in pool.values() for term, _ in pairs})
    term_vectors = dict(zip(terms, embed_terms(terms), strict=True)) if terms else {}

    def ranked(
        pairs: list[tuple[str, float]], centre: np.ndarray | None, power: float, fragments: bool
    ) -> list[tuple[str, float]]:
        if not pairs:
            return []
        top = max(weight for _, weight in pairs)
        scores = [
            (1.0 if centre is None else max(float(term_vectors[term] @ centre), 0.0)) * (weight / top) ** power
            for term, weight in pairs
        ]
        return _drop_repeats(
            sorted(zip([t for t, _ in pairs], scores, strict=True), key=lambda p: -p[1]), fragments=fragments
        )

    return {
        topic: TopicTerms(
            keywords=ranked(pairs, centres.get(topic), KEYWORD_POWER, fragments=True)[:top_n],
            # a naming phrase stays beside a longer one holding it: that is often one group's ("dexterous
            # manipulation tasks", 8 papers, beside "dexterous manipulation", 23); `_completed` has already replaced
            # each phrase its papers mostly write longer, and labels prefer a longer name that scores nearly as well
            naming=ranked(naming[topic], centres.get(topic), NAMING_POWER, fragments=False)[:LABEL_POOL],
        )
        for topic, pairs in candidates.items()
    }


def _completed(
    counts: TermCounts, weights: sparse.spmatrix, candidates: dict[int, list[tuple[str, float]]]
) -> dict[int, list[tuple[str, float]]]:
    """Each topic's candidates with every fragment replaced by the phrase it stands for, with that phrase's weight.

    A term is a fragment when one phrase a word longer ("large language models" for "language models",
    "causal representation" for "causal") is used by at least `FRAGMENT_SHARE` of the topic's papers that use
    the term: the corpus itself says which words belong together, so no list of adjectives or verbs is needed.
    """
    index = {term: i for i, term in enumerate(counts.terms)}
    longer: dict[int, list[int]] = {}  # term -> the terms one word longer that contain it
    for term, i in index.items():
        words = term.split()
        if len(words) > 1:
            for part in (" ".join(words[:-1]), " ".join(words[1:])):
                if part in index:
                    longer.setdefault(index[part], []).append(i)
    weights = sparse.csr_matrix(weights)
    result = {}
    for row, topic in enumerate(counts.topic_ids):
        papers = counts.papers.getrow(row).toarray().ravel()
        row_weights = weights.getrow(row).toarray().ravel()
        completed: dict[str, float] = {}
        for term, weight in candidates[int(topic)]:
            i = index[term]
            while len(counts.terms[i].split()) < MAX_TERM_WORDS:
                best = max(longer.get(i, []), key=lambda j: papers[j], default=None)
                if best is None or papers[best] < FRAGMENT_SHARE * papers[i]:
                    break
                i = best
            completed.setdefault(counts.terms[i], float(row_weights[i]) if i != index[term] else weight)
        result[int(topic)] = list(completed.items())
    return result


def class_tfidf(counts: TermCounts) -> sparse.csr_matrix:
    """BERTopic's c-TF-IDF of summed term counts (a group of topics in the tree is described like a topic)."""
    from bertopic.vectorizers import ClassTfidfTransformer

    return ClassTfidfTransformer(reduce_frequent_words=True).fit_transform(counts.counts).tocsr()


def _ctfidf_candidates(counts: TermCounts, weights: sparse.spmatrix, count: int) -> dict[int, list[tuple[str, float]]]:
    """Each topic's best `count` terms by c-TF-IDF, among terms at least two of its papers use (or, in a topic whose
    papers share no term, among all its terms: a topic always has words to show).

    One topic at a time, over the terms it uses: the whole topics x terms table, dense, took 245 MB per copy for
    90 topics of 357,000 terms (100,000 arXiv abstracts), and this made four. Ties keep the terms' order.
    """
    weights = sparse.csr_matrix(weights)
    weights.sort_indices()
    users = sparse.csr_matrix(counts.papers)
    terms = np.asarray(counts.terms, dtype=object)
    result = {}
    for row, topic in enumerate(counts.topic_ids):
        start, stop = weights.indptr[row], weights.indptr[row + 1]
        columns, values = weights.indices[start:stop], weights.data[start:stop]
        used_by = users[row, columns].toarray().ravel() if len(columns) else np.zeros(0)
        shared = np.where(used_by >= min(MIN_PAPERS_PER_KEYWORD, counts.sizes[row]), values, 0)
        values = shared if (shared > 0).any() else values
        ranked = np.argsort(-values, kind="stable")[:count]
        result[int(topic)] = [(str(terms[columns[i]]), float(values[i])) for i in ranked if values[i] > 0]
    return result


def _drop_repeats(ranked: list[tuple[str, float]], *, fragments: bool) -> list[tuple[str, float]]:
    """Drop plural twins and, with `fragments`, phrase fragments, which repeat a better-ranked keyword.

    A phrase goes when a longer phrase containing it scores nearly as well ("bayesian neural"
    beside "bayesian neural networks"); single words stay, since papers share them most.
    """
    kept, singulars = [], set()
    for term, weight in ranked:
        fragment = (
            fragments
            and " " in term
            and any(
                f" {term} " in f" {longer} " and longer_weight >= LONGER_TERM_WINS * weight
                for longer, longer_weight in ranked
                if len(longer) > len(term)
            )
        )
        singular = _singular(term)
        if not fragment and singular not in singulars:
            singulars.add(singular)
            kept.append((term, weight))
    return kept


def _singular(term: str) -> str:
    last = term.rsplit(" ", 1)[-1]
    if len(last) > 4 and last.endswith("ies"):
        return term[:-3] + "y"
    if len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        return term[:-1]
    return term


def display_forms(texts: list[str], terms: set[str]) -> dict[str, str]:
    """The corpus's most common spelling of each lowercase term ('lora' -> 'LoRA').

    Words at the start of a sentence are not counted, so "Federated learning is ..." does
    not make every label capitalised. Words keep the joiner the corpus prefers ("low-rank").
    """
    spelled = corpus_spellings(texts)
    forms = {}
    for term in terms:
        words = term.split()
        form = spelled.words.get(words[0], words[0])
        for pair in _pairs(term):
            form += ("-" if pair in spelled.hyphenated else " ") + spelled.words.get(pair[1], pair[1])
        forms[term] = form
    return forms


@dataclass(frozen=True)
class Spellings:
    """How a corpus spells its words where that is not the lowercase term."""

    words: dict[str, str]  # lowercase word -> the spelling the corpus mostly writes ("lora" -> "LoRA")
    hyphenated: frozenset[tuple[str, str]]  # word pairs the corpus mostly writes with a hyphen ("low", "rank")


def corpus_spellings(texts: list[str]) -> Spellings:
    """The corpus's spellings, read once per corpus: the fit's topics and every level of the tree describe
    themselves from the same texts (on 5,000 arXiv abstracts, reading them for each description was a sixth of
    the fit)."""
    return _spellings(tuple(texts))


@lru_cache(maxsize=1)
def _spellings(texts: tuple[str, ...]) -> Spellings:
    plain = [strip_markup(text) for text in texts]
    # Only a pair the corpus ever hyphenates can be spelled otherwise than with a space; find those cheaply first.
    maybe_hyphenated = {(a.lower(), b.lower()) for text in plain for a, b in _HYPHEN_PAIR.findall(text)}
    seen: Counter = Counter()  # every spelling outside a sentence start, in the order the corpus first writes it
    joiners: dict[tuple[str, str], list] = {}  # pair -> [written with a space, with a hyphen, the joiner written first]
    for text in plain:
        previous = None  # (lowercase word, end offset) of the word just before
        for match in _WORD.finditer(text):
            word, start = match.group(0), match.start()
            lower = word.lower()
            # not at a sentence start (which follows whitespace: the search is skipped after anything else)
            if start and not (text[start - 1].isspace() and _SENTENCE_START.search(text[max(0, start - 3) : start])):
                seen[word] += 1
            if previous and (pair := (previous[0], lower)) in maybe_hyphenated:
                gap = text[previous[1] : start]
                if gap in (" ", "-"):
                    joiners.setdefault(pair, [0, 0, gap])[gap == "-"] += 1
            previous = (lower, match.end())
    best: dict[str, tuple[str, int]] = {}  # lowercase word -> its most common other spelling, the first on ties
    for word, count in seen.items():
        if word != (lower := word.lower()) and count > best.get(lower, ("", 0))[1]:
            best[lower] = (word, count)
    # Lowercase unless another spelling clearly dominates (acronyms, names).
    words = {lower: form for lower, (form, count) in best.items() if count >= 2 * seen[lower]}
    hyphenated = frozenset(
        pair for pair, (space, hyphen, first) in joiners.items() if hyphen > space or (hyphen == space and first == "-")
    )
    return Spellings(words, hyphenated)


def _pairs(term: str) -> list[tuple[str, str]]:
    return list(pairwise(term.split()))
