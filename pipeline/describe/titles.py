"""Short readable titles for papers that come without one.

A researcher scanning a table wants "FedASK: Differentially Private Federated Low Rank
Adaptation with Double SKetching", not the first 80 characters of an abstract. A title is
measured by how close it comes, in meaning, to the one the authors wrote (MiniLM cosine with
the real titles hidden: `benchmarks/audit_labels_and_titles.py --score`). What that taught:

- The abstract's first sentence is a strong baseline: it names the field. A title must name
  the field too, not only the artefact ("A new network architecture" says nothing).
- The sentence that states the contribution ("we propose X", "this paper studies X", after
  any opening clause) usually beats it, when it shares the abstract's own recurring words:
  candidates (the first sentence and each such statement) are scored by the distinct words
  they share with the rest of the abstract, plus a bonus for stating the contribution, minus
  a little per sentence of distance from the start.
- A method's own name leads ("FedASK: ..."): its spelled-out name when that is a title in
  itself (five words or more), otherwise the best statement of what it is and does.
- Cutting titles short loses the subject: 14 words at most, cut at a clause boundary, never
  before "of" or "for" on purpose (cutting there and at 12 words cost 0.03 of cosine).

Everything here is a pure function of one abstract's text: cheap (well under a millisecond a
paper), deterministic, the same on every Dask worker.
"""

from __future__ import annotations

import re
from collections import Counter

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from topic_explorer.pipeline.text.clean import KEPT_WORDS, STOP_WORDS, TOKEN_PATTERN, strip_markup

MAX_WORDS = 14  # real titles run 8-12 words; 12 with cuts before prepositions lost the subject (docs/title-audit.md)
SPELLED_OUT_WORDS = 5  # a spelled-out name this long is a title ("Linearly Constrained Diffusion Implicit Models")
STATES_CONTRIBUTION = 4.0  # score bonus, in shared words, for "we propose / this paper studies ..."
PER_SENTENCE = 0.5  # score cost, in shared words, of each sentence between a candidate and the start
POINTS_BACK_COST = 3.0  # score cost, in shared words, of a title that points back at text the reader cannot see
SHARED_COUNTED = 3  # a word's share of the score grows with the sentences it recurs in, up to this many

# A method name: a token with two capitals or a capital and a digit ("FedASK", "CDIM", "3BASiL-TM",
# "Q-EarlySettled-LowCost").
_NAME = r"(?=[0-9]?[A-Z][A-Za-z0-9-]*[A-Z0-9])[0-9]?[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*"
_KIND = r"(?:algorithm|method|framework|approach|model|technique|system)s?"
# An expansion: capitalised words with small joining words ("Federated Optimization with ...").
_CAP_WORD = r"[A-Z][\w'-]*"
_JOIN = r"(?:of|for|with|via|and|in|on|the|to|by|from|a|an)"
_EXPANSION = rf"{_CAP_WORD}(?:\s(?:{_CAP_WORD}|{_JOIN}))*\s{_CAP_WORD}"
_DESCRIPTION = r"(?:a|an|the)\s[^.;:]+"
_BRACKETED = r"[^()]{3,120}"

# (pattern, whether the name must be the initials of its expansion), most telling first:
# what the sentence introduces right after "we propose", then a name spelled out anywhere.
_NAMED = [
    (re.compile(rf"^(?P<name>{_NAME})\s*\((?P<expansion>{_BRACKETED})\)"), True),
    (re.compile(rf"^(?P<name>{_NAME}),\s+(?P<expansion>{_EXPANSION}),"), False),
    (re.compile(rf"^(?P<name>{_NAME}),\s+(?P<expansion>{_DESCRIPTION})"), False),
    (re.compile(rf"^(?P<expansion>{_DESCRIPTION}?),?\s+(?:called|named|dubbed|termed)\s+(?P<name>{_NAME})"), False),
    (re.compile(rf"(?P<expansion>{_EXPANSION})\s*\((?P<name>{_NAME})\)"), True),
    (re.compile(rf"(?P<name>{_NAME})\s*\((?P<expansion>{_BRACKETED})\)"), True),
    # "two model-free RL algorithms—Q-EarlySettled-LowCost and ...", "a corresponding algorithm, EXP3-N-CS,"
    (
        re.compile(rf"^(?P<expansion>[^.;:—]+?{_KIND})\s*(?:—|---|,)\s*(?P<name>{_NAME})(?=\s*(?:—|---|,|\sand\s))"),
        False,
    ),
]
_INTRO_VERB = re.compile(
    r"\b(?:we|this (?:paper|work))\b[^.]*?\b(?:propose|introduce|present|develop|design)s?\s+"
    r"|\b(?:leads? to |is )?our (?:approach|method|framework|algorithm|model),?\s+",
    re.IGNORECASE,
)
# "LoRO is presented in this paper, which leverages ...": the name first, in the passive.
_PASSIVE_INTRO = re.compile(
    rf"(?P<name>{_NAME}) is (?:presented|proposed|introduced) in this (?:paper|work),?\s*(?:which\s+)?"
    r"(?:leverages|uses|exploits|employs|applies)?\s*(?P<expansion>[^.;]+)"
)
# A sentence that states the contribution: an optional opening clause, the authors, a verb of making or studying.
# Verbs of finding ("we show that ...") are left out: what follows is a claim, not a subject.
_STATING_VERBS = (
    r"investigat|stud|explor|tackl|consider|examin|address|analy[sz]|revisit|focus(?:es)? on|develop|propos|"
    r"introduc|present|design|describ|provid|formulat|deriv|build|construct|offer|put forward|review|survey|"
    r"report|give|extend|evaluat|compar|identif|delve into|assess|benchmark|quantif|characteri[sz]|devis|creat|"
    r"release|curat|collect|outline|discuss|demonstrate the use of"
)
_STATES = re.compile(
    r"^(?:[^,;]{0,80},\s*)?"
    r"(?:(?:this|the|our) (?:paper|work|study|article|review|survey|letter|thesis)|we)\s+"
    r"(?:(?:\w+ly|have|also|first|then|further|here|now)\s+)*"
    rf"(?:{_STATING_VERBS})[a-z]*\s+(?:and\s+(?:\w+ly\s+)?(?:{_STATING_VERBS})[a-z]*\s+)?"  # "identify and analyze"
    r"(?:(?:on|into|with)\s+)?(?:the (?:problem|task|question|issue) of\s+)?",
    re.IGNORECASE,
)
_OPENING = re.compile(  # discourse words a title can do without
    r"^(?:and|however|specifically|additionally|moreover|furthermore|overall|in contrast|in particular|finally|"
    r"thus|therefore|consequently|as a result|to this end|in addition|notably|importantly|recently)\s*,?\s+"
    r"|^[\"'\u201c\u2018]+",
    re.IGNORECASE,
)
_POINTS_BACK = re.compile(r"\b(?:these|those|this|such|the above)\s+(?!paper|work\b)\w+", re.IGNORECASE)
_PRONOUN_START = re.compile(r"^(?:they|it|this|these|those|we|our|its|their|such)\b", re.IGNORECASE)
_PURPOSE = re.compile(
    r"^to\s+(?:enable|achieve|support|allow|facilitate|improve|address|tackle)\s+(?P<goal>[^,]+),", re.IGNORECASE
)
_GENERIC_HEAD = re.compile(rf"\b(?:{_KIND}|strateg(?:y|ies)|pipelines?)$", re.IGNORECASE)
# Words a title can do without, and the shorter way to say them.
_TRIMS = [
    (re.compile(r"\s*\((?=[a-z])[^()]*\)|\s*\([A-Z][A-Za-z0-9-]*s?\)|\s*\[[^\[\]]*\]"), ""),  # asides, (VQ), [12]
    (re.compile(r"\bnovel(?:\s+and|,)?\s+", re.IGNORECASE), ""),
    (re.compile(r"^(?:two|three|four|several)\s+", re.IGNORECASE), ""),
    (re.compile(r"\s+(?:specifically\s+)?designed\s+(?=for\b)"), " "),
    (re.compile(r"\bin the (?:context|domain|setting) of\b"), "for"),
    (re.compile(r"\s+to\s+\w+\s+(?:some of\s+)?(?:these|those|this|such)\s+\w+"), ""),  # "to tackle these difficulties"
    (re.compile(r"\s*(?:---|\u2014)\s*"), " \u2014 "),  # "eviction---which": a dash a reader sees
    (re.compile(r"^(a)n?\s+(?=[aeiou])", re.IGNORECASE), r"\1n "),  # "a novel estimation" lost "novel": "an estimation"
    (re.compile(r"^(a)n\s+(?=[^aeiou\s])", re.IGNORECASE), r"\1 "),
]
_DANGLING = frozenset(ENGLISH_STOP_WORDS) - KEPT_WORDS  # words a title does not end on: 'of', 'the', 'and'
_SUBORDINATOR = re.compile(r"^(?:while|although|though|despite|since|because)\s+", re.IGNORECASE)
_SUBORDINATE = re.compile(r"^(?:while|although|though|despite|as|since|because)\b[^,]*,\s*", re.IGNORECASE)
_TOKEN = re.compile(TOKEN_PATTERN)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")
_CLAUSE_BREAK = re.compile(  # commas and colons inside numbers and names ("65,000", "x:y") do not break
    r"\s*(?:---|\u2014|;|:(?=\s)|,(?=\s)|\s(?:which|that|where|while|whose)\s"
    r"|\sand\s(?=(?:demonstrate|show|prove|evaluate|validate|establish|provide|propose|introduce|present)))\s*"
)


def titles_or_derived(titles: list[str], abstracts: list[str]) -> list[str]:
    """Each source title, or one derived from its abstract where the source gave none (''): the one route, in
    the build's batches (`pipeline.apply.batches`) and for a corpus read into memory (`load_corpus`)."""
    return [title or derive_title(abstract) for title, abstract in zip(titles, abstracts, strict=True)]


def derive_title(abstract: str) -> str:
    """A title of at most ~14 words for an untitled abstract; never empty for non-empty text."""
    sentences = [s for s in _SENTENCE_END.split(strip_markup(abstract)) if s.strip()] or [abstract.strip()]
    named = _named(sentences)
    if not named:
        return _contribution(sentences) or _shorten(_describe(sentences[0])) or "Untitled"
    name, expansion, spelled_out, position = named
    expansion = _shorten(_describe(expansion))
    if spelled_out and len(expansion.split()) >= SPELLED_OUT_WORDS:
        return f"{name}: {expansion}"
    return f"{name}: {_contribution(sentences, name, (expansion, position))}"


def _named(sentences: list[str]) -> tuple[str, str, bool, int] | None:
    """The method the abstract introduces: its name, what follows it, whether that spells the name out, and where."""
    for position, sentence in enumerate(sentences):
        if offer := _INTRO_VERB.search(sentence):
            for pattern, needs_initials in _NAMED:
                match = pattern.search(sentence[offer.end() :])
                if match and (not needs_initials or _initials_fit(match["name"], match["expansion"])):
                    spelled_out = needs_initials or (  # "FOCUS, Federated Optimization with Exact Convergence, ..."
                        bool(re.fullmatch(_EXPANSION, match["expansion"]))
                        and _initials_fit(match["name"], match["expansion"])
                    )
                    return match["name"], match["expansion"], spelled_out, position
    for position, sentence in enumerate(sentences):
        if match := _PASSIVE_INTRO.search(sentence):
            return match["name"], match["expansion"], False, position
    return None


def _contribution(sentences: list[str], name: str = "", described: tuple[str, int] | None = None) -> str:
    """The best title-length statement of what the paper is about: see the module's docstring for the score.

    With a `name`, what the abstract says right after it (`described`: the words and their sentence) competes too.
    """
    recurring = Counter(word for sentence in sentences for word in _words(sentence))
    candidates = [(described[0], True, described[1])] if described else []
    for position, sentence in enumerate(sentences):
        states = _STATES.match(sentence)
        if states:
            candidates.append((_with_purpose(sentence, sentence[states.end() :]), True, position))
        elif not position and not name:  # a named method is titled by what it is, not by the field
            candidates += [(_SUBORDINATOR.sub("", sentence), False, 0), (_SUBORDINATE.sub("", sentence), False, 0)]
    best, best_score = "", float("-inf")
    for body, states, position in candidates:
        if name:  # "FedASK (Expansion), a ..." after "we propose": the name is said already
            body = re.sub(rf"^{re.escape(name)}\s*(?:\([^()]*\))?\s*,?\s*", "", body)
        body = _OPENING.sub("", _OPENING.sub("", body))
        if len(body.split()) < 2 or _PRONOUN_START.match(body):
            continue
        title = _shorten(_describe(body))
        shared = sum(min(recurring[word], SHARED_COUNTED) - 1 for word in _words(title))
        score = shared + STATES_CONTRIBUTION * states - PER_SENTENCE * position
        if _POINTS_BACK.search(title):  # "difficulties that these methods encounter": which methods?
            score -= POINTS_BACK_COST
        if score > best_score:
            best, best_score = title, score
    return best or _shorten(_describe(sentences[0]))


def _with_purpose(sentence: str, offer: str) -> str:
    """'To enable SNN training, we propose a distillation framework' -> '... framework for SNN training'."""
    head = _first_clause(offer)
    purpose = _PURPOSE.match(sentence)
    if purpose and _GENERIC_HEAD.search(head.rstrip(" ,")):
        return f"{head} for {purpose['goal']}"
    return offer


def _words(text: str) -> set[str]:
    """The distinct content words of `text`, 'models' and 'model' as one."""
    return {
        w[:-1] if w.endswith("s") and not w.endswith("ss") else w
        for w in set(_TOKEN.findall(text.lower())) - STOP_WORDS
    }


def _describe(text: str) -> str:
    """A description without hype, counts or asides: 'Two novel RL algorithms' -> 'RL algorithms'."""
    for pattern, replacement in _TRIMS:
        text = pattern.sub(replacement, text.strip())
    return _capitalise(text)


def _first_clause(text: str) -> str:
    return _CLAUSE_BREAK.split(text, maxsplit=1)[0]


def _initials_fit(name: str, expansion: str) -> bool:
    """'CDIM' abbreviates 'Constrained Diffusion Implicit Models'; 'LLMs' does not abbreviate 'a b'."""
    letters = [c.lower() for c in name if c.isupper()]
    initials = {w[0].lower() for w in re.split(r"[\s-]+", expansion) if w}
    return bool(letters) and sum(c in initials for c in letters) >= len(letters) * 0.5


def _capitalise(text: str) -> str:
    text = text.strip().rstrip(" .")
    return text[:1].upper() + text[1:]


def _shorten(text: str) -> str:
    """The first clause, cut to MAX_WORDS words and ending on a word that carries meaning.

    A clause that ends on a bare "framework" keeps its relative clause ("a plug-and-play
    framework that enables adaptive selection of model structures"). A cut inside a clause
    ends with an ellipsis, so the reader knows there was more.
    """
    head = _first_clause(text)
    relative = re.match(r"\s+(?:that|which)\s+", text[len(head) :])
    if relative and _GENERIC_HEAD.search(head):
        head = f"{head} that {_first_clause(text[len(head) + relative.end() :])}"
    words = head.split() if len(head.split()) >= 4 else text.split()
    cut = len(words) > MAX_WORDS
    words = words[:MAX_WORDS]
    while len(words) > 3 and words[-1].lower().strip(",;:.") in _DANGLING:
        words.pop()
    return " ".join(words).rstrip(" ,;:.") + ("\u2026" if cut else "")
