"""Topic labels a reader would accept as the topic's name: "KV cache", "Federated learning".

A label is made from the topic's naming terms (`pipeline.describe.keywords.topic_terms`), best first:
- a term whose head (its last word) is an adjective-like word ("optimal", "visual", "noisy
  linear") is a fragment, not a name; so is a generic noun alone or with a vague modifier
  ("learning", "models", "efficient approach"). What counts as adjective-like is read from the
  corpus: words it mostly writes before another content word ("causal effect", "visual cues");
- a term the corpus abbreviates takes the acronym the field uses ("reinforcement learning from
  human feedback" -> "RLHF", "low rank adaptation" -> "LoRA");
- a two- to four-word term names the topic alone; a single word is paired with the next
  term ("Watermarks and forgery attacks"), so every label has 2-5 words;
- a term labels the topic where it weighs most, and labels are distinct.
"""

from __future__ import annotations

import re
from collections import Counter

from topic_explorer.pipeline.text.clean import word_runs

MAX_LABEL_WORDS = 5
MODIFIER_SHARE = 0.9  # a word written before another content word this often is a modifier, not a head
MIN_MODIFIER_USES = 3  # ... when the corpus uses it at least this often
MIN_ACRONYM_ALONE = 3  # "RLHF" and "LoRA" may stand for their long forms; "FL" and "RL" may not
MODIFIER_SAMPLE = 2000  # abstracts read for modifier statistics: enough, and cheap at 20k papers
MIN_PHRASE_PAPERS = 2
FRAGMENT_SHARE = 0.6  # a phrase whose longer form is used at least this often is a fragment of it
MAX_COMPLETION_WORDS = 3  # longer phrases run into verbs ("neural networks generally prefer")
PHRASE_PAPERS = 300  # papers per topic whose phrases are counted: bounds the work on big topics

# Nouns that name no topic by themselves ("learning", "models") and modifiers too vague to make
# them specific ("efficient learning"); "reinforcement learning" and "language models" pass.
GENERIC_NOUNS = frozenset(
    """
    learning model models approach approaches method methods framework frameworks problem problems
    task tasks data performance training algorithm algorithms system systems analysis result
    results setting settings application applications technique techniques tool tools strategy
    strategies way ways work study studies quality accuracy efficiency effectiveness paper papers
    network networks design process solution solutions scenario scenarios issue issues dataset datasets
    feature features world
    """.split()
)
VAGUE_MODIFIERS = frozenset(
    """
    optimal novel efficient effective new simple general better best robust large small high low
    different various deep existing proposed standard traditional conventional key main strong neural
    machine
    """.split()
)
# Adjectives the corpus statistics can miss (a paper may end a phrase with them: "sparse and").
ADJECTIVES = frozenset(
    "sparse dense linear nonlinear sequential visual causal temporal spatial noisy like based using via".split()
)
# Verbs abstracts use after a subject; their -s reads like a plural noun ("meta learning utilizes").
VERBS = frozenset(
    "utilizes utilises leverages enables improves achieves requires allows outperforms proposes introduces "
    "yields reduces exhibits remains performs captures generalizes generalises demonstrates employs exploits "
    "incorporates suffers fails struggles relies".split()
)
_ADJECTIVE_ENDINGS = ("ical", "ive", "ous", "ful", "able", "ible", "ised", "ized", "ated")
_NORMAL = re.compile(r"[\s-]+")


def corpus_modifiers(texts: list[str]) -> frozenset[str]:
    """Words the corpus mostly writes before another content word: modifiers, never a label's head."""
    before, total = Counter(), Counter()
    step = max(1, len(texts) // MODIFIER_SAMPLE)
    for text in texts[::step]:
        for run in word_runs(text):
            total.update(run)
            before.update(run[:-1])
    return frozenset(w for w, n in total.items() if n >= MIN_MODIFIER_USES and before[w] >= MODIFIER_SHARE * n)


def topic_phrases(texts: list[str], topic_id: list[int] | tuple[int, ...], topics: list[int]) -> list[Counter]:
    """Per topic (in `topics` order), how many of its papers use each phrase of two to four words."""
    counts = {topic: Counter() for topic in topics}
    read = Counter()
    for text, topic in zip(texts, topic_id, strict=True):
        if topic in counts and read[topic] < PHRASE_PAPERS:
            read[topic] += 1
            counts[topic].update({" ".join(run[i : i + n]) for run in word_runs(text) for n in (2, 3, 4)
                                  for i in range(len(run) - n + 1)})  # fmt: skip
    return [counts[topic] for topic in topics]


def make_labels(
    naming: list[list[tuple[str, float]]],
    *,
    acronyms: dict[str, str] | None = None,
    modifiers: frozenset[str] = frozenset(),
    phrases: list[Counter] | None = None,
) -> list[str]:
    """One distinct label per topic from its (display term, weight) pairs, best first.

    `acronyms` maps acronyms to the long forms the corpus defines and prefers
    (`pipeline.text.acronyms.preferred_acronyms`);
    `modifiers` are the corpus's adjective-like words (`corpus_modifiers`); `phrases` counts
    each topic's phrases (`topic_phrases`), so a modifier the topic ranks high is completed
    with the noun its papers put after it ("causal" -> "causal representation learning").
    """
    short = {_normal(long): acronym for acronym, long in (acronyms or {}).items()}
    phrases = phrases or [Counter() for _ in naming]
    owner: dict[str, tuple[float, int]] = {}
    shared = {t for t, n in Counter(t for terms in naming for t, _ in terms).items() if n > 1}
    for topic, terms in enumerate(naming):
        for term, weight in terms:
            if term not in owner or weight > owner[term][0]:
                owner[term] = (weight, topic)
    labels: list[str] = []
    for topic, terms in enumerate(naming):
        ordered = [t for t, _ in terms if owner[t][1] == topic] + [t for t, _ in terms if owner[t][1] != topic]
        context = {w for t in ordered for w in _normal(t).split()}
        spelling = {w.lower(): w for t in ordered for w in t.split()} | {a.lower(): a for a in short.values()}
        completed = [_complete(t, phrases[topic], modifiers, spelling, context) for t in ordered]
        names = {}  # label term -> (whether other topics use it too, the words it stands for)
        for original, term in zip(ordered, completed, strict=True):
            name = _abbreviate(term, short)
            if is_name(name, modifiers) and name not in names:
                names[name] = (original in shared, _stems(f"{term} {name}"))
        label = next((c for c in _candidates(names) if c.lower() not in {x.lower() for x in labels}), None)
        labels.append(label or _fallback(list(names), ordered, labels, topic))
    return labels


def is_name(term: str, modifiers: frozenset[str]) -> bool:
    """A term that can head a label: no adjective-like head, no generic noun left unqualified."""
    words = term.split()
    head = words[-1].lower().rsplit("-", 1)[-1]  # "self-supervised" is headed by "supervised"
    if _is_acronym(words[-1]):
        return True
    if head in VAGUE_MODIFIERS | VERBS or head in modifiers or head in ADJECTIVES or _adjective_ending(head):
        return False
    if head in GENERIC_NOUNS:
        qualifiers = [w.lower() for w in words[:-1]]
        return any(q not in GENERIC_NOUNS and q not in VAGUE_MODIFIERS for q in qualifiers)
    return True


def _adjective_ending(word: str) -> bool:
    """'theoretical', 'expressive', 'supervised', 'learnable', 'generally': endings nouns rarely have."""
    if len(word) <= 5:
        return False
    return word.endswith((*_ADJECTIVE_ENDINGS, "ly")) or (word.endswith("ed") and not word.endswith("eed"))


def _complete(
    term: str, phrases: Counter, modifiers: frozenset[str], spelling: dict[str, str], context: set[str]
) -> str:
    """A modifier ("causal", "visual") becomes the topic's most used phrase that starts with it.

    Ties go to the phrase sharing most words with the topic's other terms ("causal
    representation learning" in a topic that also ranks "learning").
    """
    if is_name(term, modifiers) or len(term.split()) > 1 or term.lower() in GENERIC_NOUNS:
        return term  # a generic noun is a head already: what follows it is a verb ("networks fail")
    start = _normal(term) + " "
    options = [
        (n, len(set(p.split()[1:]) & context), p)
        for p, n in phrases.items()
        if p.startswith(start) and len(p.split()) <= MAX_COMPLETION_WORDS
    ]
    # used by two of the topic's papers, or by one and sharing a word with the topic's other terms
    options = [
        o
        for o in options
        if (o[0] >= MIN_PHRASE_PAPERS or o[1]) and is_name(o[2], modifiers) and not _fragment(o[2], o[0], phrases)
    ]
    if not options:
        return term
    best = max(options, key=lambda o: (o[0], o[1], -len(o[2])))[2]
    return " ".join(spelling.get(w, w) for w in best.split())


def _fragment(phrase: str, uses: int, phrases: Counter) -> bool:
    """'multimodal large language' is cut from 'multimodal large language models' (judged from 2 uses on)."""
    return uses >= MIN_PHRASE_PAPERS and any(
        p.startswith(phrase + " ") and n >= FRAGMENT_SHARE * uses for p, n in phrases.items()
    )


def _candidates(names: dict[str, tuple[bool, set[str]]]):
    """Labels to try, best first: a multi-word term alone, or a single word with a later term.

    `names` maps each term to whether other topics use it too and the word stems it stands
    for (an acronym stands for its long form's words too); a single word pairs with a
    term of its own topic first ("LoRA / PEFT", not "LoRA and LLMs"), and two acronyms are
    joined with a slash.
    """
    ordered = list(names)
    for position, name in enumerate(ordered):
        words = name.split()
        if len(words) >= 2:
            yield _capitalise(" ".join(words[:MAX_LABEL_WORDS]))
            continue
        later = ordered[position + 1 :]
        for other in [t for t in later if not names[t][0]] + [t for t in later if names[t][0]]:
            if names[other][1] & names[name][1]:  # "UDA and adaptation", "GANs / GAN training"
                continue
            joiner = " / " if _is_acronym(name) and _is_acronym(other) else " and "
            if len(words) + len(other.split()) + 1 <= MAX_LABEL_WORDS:
                yield _capitalise(f"{name}{joiner}{other}")


def _fallback(names: list[str], ordered: list[str], labels: list[str], topic: int) -> str:
    """When every candidate is taken: the best name with what sets it apart, or a numbered topic."""
    pool = names or [t for t in ordered if t]
    if not pool:
        return f"Topic {topic}"
    base = _capitalise(pool[0])
    for extra in pool[1:]:
        label = f"{base} and {extra}"
        if len(label.split()) <= MAX_LABEL_WORDS and label not in labels:
            return label
    return f"{base} ({topic})"


def _abbreviate(term: str, short: dict[str, str]) -> str:
    """'low-rank adaptation' -> 'LoRA', 'key value cache' -> 'KV cache', as the corpus abbreviates them."""
    normal = _normal(term)
    for long, acronym in sorted(short.items(), key=lambda kv: -len(kv[0])):
        if normal == long:
            return acronym if len(acronym) >= MIN_ACRONYM_ALONE else term  # "FL" says less than "federated learning"
        if f" {long} " in f" {normal} ":
            return f" {normal} ".replace(f" {long} ", f" {acronym} ").strip()
    return term


def _stems(text: str) -> set[str]:
    """Lowercase words without a plural 's': 'GANs' and 'GAN training' share 'gan'."""
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in _normal(text).split()}


def _normal(text: str) -> str:
    return _NORMAL.sub(" ", text.lower()).strip()


def _is_acronym(word: str) -> bool:
    return sum(c.isupper() for c in word) >= 2


def _capitalise(label: str) -> str:
    first = label.split()[0]
    return label if _is_acronym(first) or not first[:1].islower() else label[:1].upper() + label[1:]
