"""Topic labels a reader would accept as the topic's name: "KV cache", "Federated learning", "LoRA".

A label is the best of the topic's naming terms (`pipeline.describe.keywords.topic_terms`: the topic's own
words and phrases, fragments completed, ranked KeyBERT-style by closeness to the topic's centre and by
c-TF-IDF specificity) that can stand as a name. What can is read from the corpus itself, not from word
lists:
- a term the corpus uses in a large share of its papers ("learning", "models", "neural networks" in an ML
  corpus) names no part of it (`GENERIC_SHARE`);
- a term ending in a word the corpus mostly writes before another content word ("causal", "visual",
  "self-supervised"), or in a compound it mostly hyphenates before one ("high-quality", "long-term"), is a
  fragment, not a name, and a word it mostly writes after another ("networks", "tasks") is not a name alone
  (`boundwords.bound_words`);
- a single word names a topic only when it defines it: most of the papers using it are the topic's and many of the
  topic's papers use it (`naming_terms.DEFINING_SHARE`, `DEFINING_REACH`: "Quantization"; not "Time", "Data",
  "Features", which spread over many topics; in short posts fewer of them, `THIN_REACH`: "NHL"); otherwise it stands
  for the phrase the topic's papers write it in, as does a phrase the corpus mostly continues ("low-rank" -> "low-rank
  adaptation") (`naming_terms.named_terms`). Even a defining word gives way to a phrase of the topic that covers it
  (written by half its users, as particular to the topic) unless nearly all its users are the topic's (`STANDS_ALONE`:
  "Galaxies", "Hockey" stay; "Languages" -> "Machine translation"); a word the corpus writes after another (a head)
  gives its place to the name holding it ("Bandits" -> "Contextual bandits"), as does a compound the corpus hyphenates
  before other words ("Multi-robot" -> "Multi-robot systems"), and a word the topic defines without owning gives way
  to the pair its papers write it in before another word the topic defines ("Regret" -> "Regret bound");
- a name takes back the stop words the corpus hyphenates before its first words, which counting drops ("context
  learning" -> "In-context learning", `BoundWords.prefixes`);
- a term the corpus abbreviates takes the acronym the field uses ("low rank adaptation" -> "LoRA", "human
  feedback" -> "RLHF"), as does a phrase inside the acronym's long form that the topic writes less often than the
  acronym ("low-rank" -> "LoRA"), and an acronym label carries its long form where it fits ("LoRA (low-rank
  adaptation)");
- a term labels the topic where it weighs most, and labels are distinct within a set of topics.
A label is one name of 1-5 words; a topic whose best name another topic owns pairs it with its own best
name sharing no word with it ("LLMs and unlearning"), never with an echo of it ("Privacy and private"), and one
whose names other labels took pairs its best with its best free term ("LLMs and biases"). An acronym label and
its long form are one name: no two topics read "LLMs (large language models)" and "Large language models".
A theme (a group of the topic tree) is named from these labels in `theme_names`.
"""

from __future__ import annotations

import re

from topic_explorer.pipeline.describe.boundwords import NO_BOUND_WORDS, BoundWords

MAX_LABEL_WORDS = 5
MIN_NAME_SHARE = 0.5  # a name scoring under this share of the topic's best term says less than that term
LONGER_NAME_WINS = 0.8  # a name gives way to a longer name containing it that scores at least this share of it
MIN_ACRONYM_ALONE = 3  # "RLHF" and "LoRA" may stand for their long forms and alone; "FL", "RL", "3D" may not
_NORMAL = re.compile(r"[\s-]+")


def prefixed(term: str, prefixes: dict[str, str]) -> str:
    """`term` with the stop words the corpus hyphenates before its first words (`BoundWords.prefixes`): "context
    learning" -> "in-context learning", "body control" -> "whole-body control"."""
    words = normal_words(term).split()
    stop = prefixes.get(" ".join(words[:2])) or prefixes.get(words[0] if words else "")
    return f"{stop}-{term}" if stop else term


def expanded(label: str, expansions: dict[str, str]) -> str:
    """An acronym label with the long form the corpus defines, when both fit in `MAX_LABEL_WORDS`:
    "LoRA" -> "LoRA (low-rank adaptation)"; "RLHF" stays (its long form takes five words)."""
    long_form = _long_form(label, expansions)
    if not long_form or len(label.split()) + len(normal_words(long_form).split()) > MAX_LABEL_WORDS:
        return label
    words = ["-".join(p if is_acronym(p) else p.lower() for p in w.split("-")) for w in long_form.split()]
    return f"{label} ({' '.join(words)}{'s' if label.endswith('s') and not words[-1].endswith('s') else ''})"


def _long_form(label: str, expansions: dict[str, str]) -> str | None:
    """The long form the corpus defines for an acronym label ("LLMs" -> "large language models"), or None."""
    if not is_acronym(label):
        return None
    return expansions.get(label) or expansions.get(label[:-1] if label.endswith("s") else label)


def make_labels(
    naming: list[list[tuple[str, float]]],
    *,
    keywords: list[list[str]] | None = None,
    acronyms: dict[str, str] | None = None,
    expansions: dict[str, str] | None = None,
    bound: BoundWords = NO_BOUND_WORDS,
    generic: frozenset[str] = frozenset(),
) -> list[str]:
    """One distinct label per topic from its (display term, score) pairs, best first.

    `keywords` (per topic, best first) are the last resort of a topic whose every term other labels took: its best
    free keyword that can be a name qualifies its best name ("LLMs and biases": a topic whose one naming term,
    "large language models", went to a topic that weighs it more). `acronyms` maps acronyms to the long forms the
    corpus defines and prefers (`pipeline.text.acronyms.preferred_acronyms`); `expansions` maps every acronym the
    corpus defines to its long form, which follows an acronym label (`expanded`); `bound` holds the corpus's
    modifiers and heads (`bound_words`) and `generic` its generic terms (`generic_terms`).
    """
    short = {normal_words(long): acronym for acronym, long in (acronyms or {}).items()}
    expansions = expansions or {}

    def said(label: str) -> set[str]:
        """The names a label says: its own, and its long form's when it is an acronym the corpus defines. Two
        topics named "LLMs (large language models)" and "Large language models" are one name twice."""
        long_form = _long_form(label, expansions)
        return {_key(label)} | ({_key(long_form)} if long_form else set())

    def is_free(term: str) -> bool:
        """No label says the term, as written or as the corpus abbreviates it."""
        return not (said(term) | said(_abbreviate(term, short))) & taken

    naming = [[(prefixed(term, bound.prefixes), score) for term, score in terms] for terms in naming]
    generic = generic | {normal_words(prefixed(term, bound.prefixes)) for term in generic}  # as the names now read
    owner: dict[str, tuple[float, int]] = {}
    for topic, terms in enumerate(naming):
        for term, score in terms:
            key = normal_words(term)
            if key not in owner or score > owner[key][0]:
                owner[key] = (score, topic)
    labels: list[str] = []
    taken: set[str] = set()
    for topic, terms in enumerate(naming):
        names = [(t, owner[normal_words(t)][1] == topic) for t in _longer_first(terms, bound, generic)]
        options = [capitalise(" and ".join(_abbreviate(p, short) for p in parts)) for parts in _candidates(names)]
        label = next((o for o in options if not said(o) & taken), None)
        if label is None:
            free = [t for t, _ in terms if is_free(t)]
            free = free or [
                k for k in (keywords[topic] if keywords else []) if is_name(k, bound, generic) and is_free(k)
            ]
            term = _fallback(free, bound, generic)
            if term is None:
                label = f"{capitalise(terms[0][0])} ({topic})" if terms else f"Topic {topic}"
            else:  # its names are taken: its best one qualifies its free term where they read as one new name
                label = _qualified(_abbreviate(names[0][0], short), term) if names and _has_word(term) else ""
                label = label if label and not said(label) & taken else capitalise(term)
        taken |= said(label)
        labels.append(expanded(label, expansions))
    return labels


def _longer_first(terms: list[tuple[str, float]], bound: BoundWords, generic: frozenset[str]) -> list[str]:
    """The names among `terms` (`is_name`, scoring at least `MIN_NAME_SHARE` of the best term), best first, except
    that a name gives way to a longer name containing it that scores nearly as well (`LONGER_NAME_WINS`): "agents"
    to "web agents", "attacks" to "jailbreak attacks"."""
    floor = MIN_NAME_SHARE * max((score for _, score in terms), default=0.0)
    names = [(t, score) for t, score in terms if score >= floor and is_name(t, bound, generic)]
    ordered: list[str] = []
    for term, score in [(t, s) for t, s in terms if s >= floor]:
        if (term, score) not in names:
            key = normal_words(term)
            # a head ("bandits") or a compound modifier ("multi-robot"): the name holding it takes its place; not a
            # modifier word ("preference"): it qualifies too many of the topic's names to say which one is meant
            if key in bound.heads or (" " in key and key in bound.modifiers):
                ordered += _holding(key, [t for t, _ in names if t not in ordered])[:1]
            continue
        if term in ordered:
            continue
        inside = f" {normal_words(term)} "
        longer = [
            t
            for t, s in names
            if t != term and t not in ordered and inside in f" {normal_words(t)} " and s >= LONGER_NAME_WINS * score
        ]
        ordered += [*longer[:1], term]
    return ordered


def _candidates(names: list[tuple[str, bool]]) -> list[tuple[str, ...]]:
    """Labels to try, best first, from the topic's names (each with whether this topic owns it).

    The best name alone when the topic owns it; when another topic owns it (three topics of large language
    models), that name with the topic's best own name that shares no word with it ("LLMs and unlearning"),
    then the topic's own names alone, then the others.
    """
    if not names:
        return []
    own = [(t,) for t, mine in names if mine]
    best, mine = names[0]
    paired = [
        (best, t)
        for (t,) in own
        if not mine and not stems(t) & stems(best) and len(best.split()) + len(t.split()) < MAX_LABEL_WORDS
    ]
    return ([(best,)] if mine else paired[:1]) + own + [(t,) for t, mine in names if not mine]


def is_name(term: str, bound: BoundWords = NO_BOUND_WORDS, generic: frozenset[str] = frozenset()) -> bool:
    """A term that can stand as a topic's name: 1-5 words, not generic, not ending in a modifier, not a head alone."""
    words = normal_words(term).split()
    if not words or len(words) > MAX_LABEL_WORDS or " ".join(words) in generic:
        return False
    if len(words) == 1 and len(words[0]) < MIN_ACRONYM_ALONE:
        return False  # "3D", "AI": a word this short names no topic alone ("3D vision" can)
    if not _has_word(term):
        return False  # "x x": letters, not words ("k-means" and "T cells" are names)
    last = term.split()[-1]
    if is_acronym(last) and not any(part[:1].islower() for part in last.split("-")):
        return True  # "RLHF", "federated LoRA", "GPT-4"; not "human-AI", a compound the corpus may write as a modifier
    if words[-1] in bound.modifiers or " ".join(words[-2:]) in bound.modifiers:
        return False  # "causal", "self-supervised", "high-quality": they say what kind of thing, not which thing
    return not (len(words) == 1 and words[0] in bound.heads)


def _fallback(free: list[str], bound: BoundWords, generic: frozenset[str]) -> str | None:
    """When no name is left: the topic's best term no other label uses (of its `free` terms), or None. A best term
    that is a compound the corpus writes before other words says what kind of thing, not which ("Multi-agent",
    "Zero-shot", scoring twice the topic's names at 100,000 arXiv papers): a free name of any score takes its place,
    one holding it first ("Multi-agent systems"). A modifier word ("Quantum") stays, as in `_longer_first`: it
    qualifies too many of the topic's names for one to stand for it."""
    free = sorted(free, key=lambda t: not _has_word(t))  # "o" only when nothing else is free
    key = normal_words(free[0]) if free else ""
    if " " in key and key in bound.modifiers:
        names = [t for t in free if is_name(t, bound, generic)]
        free = [*_holding(key, names), *names, *free]
    return free[0] if free else None


def _qualified(name: str, term: str) -> str:
    """A topic's best name, which another topic took, qualified by its best free term ("LLMs and biases"), as
    `_candidates` qualifies a name another topic owns; the term alone when they share a word or are too long."""
    if stems(name) & stems(term) or len(name.split()) + len(term.split()) >= MAX_LABEL_WORDS:
        return capitalise(term)
    return capitalise(f"{name} and {term}")


def _has_word(term: str) -> bool:
    """Whether one of the term's words is longer than a letter: "o" and "x x" are what is left of code, math or a
    signature, and a reader could not tell what they name."""
    return any(len(word) > 1 for word in normal_words(term).split())


def _holding(key: str, names: list[str]) -> list[str]:
    """The `names` that hold the words of `key` (lowercase, as `normal_words` gives them) in order, in their order."""
    return [t for t in names if f" {key} " in f" {normal_words(t)} "]


def _abbreviate(term: str, short: dict[str, str]) -> str:
    """'low-rank adaptation' -> 'LoRA', 'key value cache' -> 'KV cache', as the corpus abbreviates them."""
    normal = normal_words(term)
    for long, acronym in sorted(short.items(), key=lambda kv: -len(kv[0])):
        if normal == long:
            return acronym if len(acronym) >= MIN_ACRONYM_ALONE else term  # "FL" says less than "federated learning"
        if f" {long} " in f" {normal} ":
            return f" {normal} ".replace(f" {long} ", f" {acronym} ").strip()
    return term


def stems(text: str) -> set[str]:
    """Lowercase words without a plural 's': 'GANs' and 'GAN training' share 'gan'."""
    words = normal_words(text).split()
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words}


def _key(label: str) -> str:
    """Labels with the same key are the same name: 'GAN' and 'GANs', 'Low-rank' and 'low rank'."""
    return " ".join(sorted(stems(label)))


def normal_words(text: str) -> str:
    return _NORMAL.sub(" ", text.lower()).strip()


def is_acronym(word: str) -> bool:
    return sum(c.isupper() for c in word) >= 2


def capitalise(label: str) -> str:
    """The label with a capital first letter, unless it starts with an acronym ("mRNA", "t-SNE"): "Human-AI"."""
    parts = label.split()[0].split("-")
    keep = is_acronym(parts[0]) or (len(parts[0]) == 1 and len(parts) > 1 and is_acronym(parts[1]))
    return label if keep or not label[:1].islower() else label[:1].upper() + label[1:]
