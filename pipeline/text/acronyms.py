"""The acronyms a corpus defines: "Low-Rank Adaptation (LoRA)" -> {"LoRA": "Low-Rank Adaptation"}.

Users name topics the way their field speaks ("RLHF", "KV cache") and MiniLM knows little of
acronyms: "RLHF" scores 0.30 against the RLHF papers, "Reinforcement Learning from Human
Feedback" 0.54. The corpus itself spells most acronyms out once, so named topics and labels
read the expansions from there. Matching follows Schwartz & Hearst (2003): each of the
acronym's letters is found, in order and from the end, in the words before the parenthesis,
and its first letter starts a word.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import lru_cache

from topic_explorer.pipeline.text.clean import strip_markup

# "(LoRA)", "(KV)", "(SE-POPO)": letters and digits, at least two capitals, nothing else inside.
_DEFINITION = re.compile(r"\(([A-Za-z0-9][A-Za-z0-9-]{1,11})s?\)")
_WORD = re.compile(r"[\w'-]+")
_TOKEN = re.compile(r"[\w-]+")  # an acronym in use: "LoRA", "SE-POPO"
_MAX_EXTRA_WORDS = 4  # a long form has at most len(acronym letters) + this many words


def corpus_acronyms(texts: list[str]) -> dict[str, str]:
    """Each acronym the texts define with its most common long form, as the texts spell it."""
    return dict(_corpus_acronyms(tuple(texts)))


@lru_cache(maxsize=1)
def _corpus_acronyms(texts: tuple[str, ...]) -> dict[str, str]:
    seen: dict[str, Counter] = defaultdict(Counter)
    for text in texts:
        for acronym, long_form in _definitions(strip_markup(text)):
            seen[acronym][long_form] += 1
    return {acronym: forms.most_common(1)[0][0] for acronym, forms in sorted(seen.items())}


def preferred_acronyms(texts: list[str], terms: Iterable[str]) -> dict[str, str]:
    """Acronyms whose long form is one of `terms` (or inside one) and that the texts use more
    often than that long form: "LoRA" for "low-rank adaptation", but not "CRL" for "causal
    representation learning".
    """
    spans = set()  # every run of words inside a wanted term: a long form must be one of them
    for term in terms:
        words = _normal(term).split()
        spans.update(" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1))
    return {
        acronym: long_form for acronym, long_form in _preferred(tuple(texts)).items() if _normal(long_form) in spans
    }


@lru_cache(maxsize=1)
def _preferred(texts: tuple[str, ...]) -> dict[str, str]:
    """Every acronym the texts define and use more often than its long form, read once per corpus: the fit's
    topics and every level of the tree ask about the same texts."""
    defined = _corpus_acronyms(texts)
    plain = [strip_markup(text) for text in texts]
    uses = Counter(token for text in plain for token in _TOKEN.findall(text) if token in defined)
    written = _phrase_counts((_normal(text).split() for text in plain), [_normal(f) for f in defined.values()])
    return {acronym: form for acronym, form in defined.items() if uses[acronym] > written[_normal(form)]}


def _phrase_counts(texts: Iterable[list[str]], phrases: list[str]) -> Counter:
    """How often each phrase (words joined by single spaces) is written in the texts (lists of words), each
    occurrence ending before the next starts: one pass over the words, however many phrases, each word looking
    up the phrases that start with it and the next word (thousands start with "multi" in 50,000 abstracts)."""
    by_start: dict[tuple[str, ...], set[tuple[str, ...]]] = defaultdict(set)
    for phrase in phrases:
        words = tuple(phrase.split())
        by_start[words[:2]].add(words)
    singles = any(len(start) == 1 for start in by_start)
    counts: Counter = Counter()
    for words in texts:
        free_from: dict[tuple[str, ...], int] = {}  # a phrase's next occurrence starts at or after this word
        for i, start in enumerate(zip(words, [*words[1:], ""], strict=True)):
            found = by_start.get(start, ())
            if singles:
                found = [*found, *by_start.get(start[:1], ())]
            for phrase in found:
                if i >= free_from.get(phrase, 0) and tuple(words[i : i + len(phrase)]) == phrase:
                    counts[" ".join(phrase)] += 1
                    free_from[phrase] = i + len(phrase)
    return counts


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def _definitions(text: str) -> list[tuple[str, str]]:
    found = []
    for match in _DEFINITION.finditer(text):
        acronym = match.group(1)
        if sum(c.isupper() for c in acronym) < 2:
            continue
        words = _WORD.findall(text[max(0, match.start() - 200) : match.start()])
        letters = [c for c in acronym if c.isalnum()]
        window = words[-(len(letters) + _MAX_EXTRA_WORDS) :]
        long_form = _long_form(letters, window)
        if long_form:
            found.append((acronym, long_form))
    return found


def _long_form(letters: list[str], words: list[str]) -> str | None:
    """The shortest run of `words` ending the sentence part whose letters spell the acronym."""
    text = " ".join(words)
    position = len(text) - 1
    for index in range(len(letters) - 1, -1, -1):
        letter = letters[index].lower()
        while position >= 0:
            char = text[position].lower()
            at_word_start = position == 0 or not text[position - 1].isalnum()
            if char == letter and (index > 0 or at_word_start):
                break
            position -= 1
        if position < 0:
            return None
        position -= 1
    start = text.rfind(" ", 0, position + 1) + 1
    long_form = text[start:].strip(" -")
    if len(long_form.split()) < 2 and "-" not in long_form:
        return None  # "(KV)" after "KV-cache": a word, not a long form
    return long_form
