"""Short readable titles for papers that come without one.

A researcher scanning a table wants "FedASK: Differentially Private Federated Low Rank
Adaptation with Double SKetching", not the first 80 characters of an abstract. So we look
for what the authors say they introduce ("we propose X (Expansion)", "we present X, a ...",
"X is presented in this paper", "our approach X (Expansion)") and fall back to what the
first sentence says the paper studies. A title is a noun phrase, never a sentence: no
pronoun subject ("They are ..."), no "novel" or counting ("Two novel ..."), no phrase that
points back at text the reader cannot see ("these difficulties"), and a bare "framework" or
"method" keeps what it is for ("... self-distillation framework for SNN training").
"""

from __future__ import annotations

import re

from topic_explorer.pipeline.text.clean import strip_markup

MAX_WORDS = 12
MIN_WORDS = 5  # a title cut shorter than this says too little

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
_PRONOUN_START = re.compile(r"^(?:they|it|this|these|those|we|our|its|their|such)\b", re.IGNORECASE)
_POINTS_BACK = re.compile(r"\b(?:these|those|this|such|the above)\s+(?!paper|work\b)\w+", re.IGNORECASE)
_PURPOSE = re.compile(
    r"^to\s+(?:enable|achieve|support|allow|facilitate|improve|address|tackle)\s+(?P<goal>[^,]+),", re.IGNORECASE
)
_GENERIC_HEAD = re.compile(rf"\b(?:{_KIND}|strateg(?:y|ies)|pipelines?)$", re.IGNORECASE)
_BARE_KIND = re.compile(rf"^(?:a|an|the)\s+(?:\w+\s+(?:and\s+)?){{0,2}}?{_KIND}\s+(?:to|in|for)\b", re.IGNORECASE)
# Words a title can do without, and the shorter way to say them.
_TRIMS = [
    (re.compile(r"\s*\((?=[a-z])[^()]*\)|\s*\([A-Z][A-Za-z0-9-]*s?\)|\s*\[[^\[\]]*\]"), ""),  # asides, (VQ), [12]
    (re.compile(r"\bnovel(?:\s+and|,)?\s+", re.IGNORECASE), ""),
    (re.compile(r"^(?:two|three|four|several)\s+", re.IGNORECASE), ""),
    (re.compile(r"\s+(?:specifically\s+)?designed\s+(?=for\b)"), " "),
    (re.compile(r"\bin the (?:context|domain|setting) of\b"), "for"),
    (re.compile(r"\s+to\s+\w+\s+(?:some of\s+)?(?:these|those|this|such)\s+\w+"), ""),  # "to tackle these difficulties"
]
_BREAK_BEFORE = frozenset("of for in on with under across from by via over without".split())
_SUBORDINATE = re.compile(r"^(?:while|although|though|despite|as|since|because)\b[^,]*,\s*", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")
_LEAD_IN = re.compile(
    r"^(?:in this (?:paper|work),?\s*)?(?:this (?:paper|work)|we)\s+(?:\w+ly\s+)?"
    r"(?:investigates?|stud(?:y|ies)|explores?|tackles?|considers?|examines?|addresses?|analy[sz]es?)\s+",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r"\s*(?:---|\u2014|;|:|,|\s(?:which|that|where|while|whose)\s"
    r"|\sand\s(?=(?:demonstrate|show|prove|evaluate|validate|establish|provide)))\s*"
)


def derive_title(abstract: str) -> str:
    """A title of at most ~12 words for an untitled abstract; never empty for non-empty text."""
    sentences = _SENTENCE_END.split(strip_markup(abstract))
    offers = [(s, match.string[match.end() :]) for s in sentences if (match := _INTRO_VERB.search(s))]
    for _, offer in offers:
        for pattern, needs_initials in _NAMED:
            match = pattern.search(offer)
            if match and (not needs_initials or _initials_fit(match["name"], match["expansion"])):
                return f"{match['name']}: {_shorten(_describe(match['expansion']))}"
    for sentence in sentences:
        if match := _PASSIVE_INTRO.search(sentence):
            return f"{match['name']}: {_shorten(_describe(match['expansion']))}"
    studied = _LEAD_IN.sub("", sentences[0])
    if studied != sentences[0] and not _PRONOUN_START.match(studied):
        return _shorten(_describe(studied))  # "We investigate X": X is the paper's subject
    studied = _SUBORDINATE.sub("", studied)
    claims = [_describe(_with_purpose(sentence, offer)) for sentence, offer in offers]
    claims = [c for c in claims if not _POINTS_BACK.search(_first_clause(c))] or claims
    claims.sort(key=lambda claim: bool(_BARE_KIND.match(claim)))  # "an RL framework ..." before "an approach to ..."
    for claim in [*claims, studied, *sentences[1:]]:
        if claim and not _PRONOUN_START.match(claim):
            return _shorten(_describe(claim)) or "Untitled"
    return _shorten(_describe(sentences[0])) or "Untitled"


def _with_purpose(sentence: str, offer: str) -> str:
    """'To enable SNN training, we propose a distillation framework' -> '... framework for SNN training'."""
    head = _first_clause(offer)
    purpose = _PURPOSE.match(sentence)
    if purpose and _GENERIC_HEAD.search(head.rstrip(" ,")):
        return f"{head} for {purpose['goal']}"
    return offer


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
    """The first clause, or the first MAX_WORDS words, whichever reads as a title.

    A clause that ends on a bare "framework" keeps its relative clause ("a plug-and-play
    framework that enables adaptive selection of model structures").
    """
    head = _first_clause(text)
    relative = re.match(r"\s+(?:that|which)\s+", text[len(head) :])
    if relative and _GENERIC_HEAD.search(head):
        head = f"{head} that {_first_clause(text[len(head) + relative.end() :])}"
    words = head.split() if len(head.split()) >= 4 else text.split()
    if len(words) <= MAX_WORDS:
        return " ".join(words).rstrip(" ,;:.")
    # Cut before a preposition, so the title ends on its noun: "... the training loss", not "... two-layer neural…"
    cuts = [i for i in range(MIN_WORDS, MAX_WORDS + 1) if words[i].lower() in _BREAK_BEFORE]
    if cuts:
        return " ".join(words[: cuts[-1]]).rstrip(" ,;:.")
    return " ".join(words[:MAX_WORDS]).rstrip(" ,;:.") + "\u2026"
