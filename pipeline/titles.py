"""Short readable titles for papers that come without one.

A researcher scanning a table wants "FedASK: Differentially Private Federated Low Rank
Adaptation with Double SKetching", not the first 80 characters of an abstract. So we look
for what the authors say they introduce ("we propose X (Expansion)", "we present X, a ...")
and fall back to the main claim of the first sentence.
"""

from __future__ import annotations

import re

from pipeline.textclean import strip_markup

MAX_WORDS = 14

# A method name: a token with two capitals or a capital and a digit ("FedASK", "CDIM", "3BASiL-TM").
_NAME = r"[0-9]?[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*"
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
]
_INTRO_VERB = re.compile(
    r"\b(?:we|this (?:paper|work))\b[^.]*?\b(?:propose|introduce|present|develop|design)s?\s+",
    re.IGNORECASE,
)
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
    """A title of at most ~14 words for an untitled abstract; never empty for non-empty text."""
    sentences = _SENTENCE_END.split(strip_markup(abstract))
    offers = [match.string[match.end() :] for s in sentences if (match := _INTRO_VERB.search(s))]
    for offer in offers:
        for pattern, needs_initials in _NAMED:
            match = pattern.search(offer)
            if match and (not needs_initials or _initials_fit(match["name"], match["expansion"])):
                return f"{match['name']}: {_shorten(_capitalise(match['expansion']))}"
    claim = offers[0] if offers else _SUBORDINATE.sub("", _LEAD_IN.sub("", sentences[0]))
    return _shorten(_capitalise(claim)) or "Untitled"


def _initials_fit(name: str, expansion: str) -> bool:
    """'CDIM' abbreviates 'Constrained Diffusion Implicit Models'; 'LLMs' does not abbreviate 'a b'."""
    letters = [c.lower() for c in name if c.isupper()]
    initials = {w[0].lower() for w in re.split(r"[\s-]+", expansion) if w}
    return bool(letters) and sum(c in initials for c in letters) >= len(letters) * 0.5


def _capitalise(text: str) -> str:
    text = text.strip().rstrip(" .")
    return text[:1].upper() + text[1:]


def _shorten(text: str) -> str:
    """The first clause, or the first MAX_WORDS words, whichever reads as a title."""
    head = _CLAUSE_BREAK.split(text, maxsplit=1)[0]
    words = head.split() if len(head.split()) >= 4 else text.split()
    if len(words) <= MAX_WORDS:
        return " ".join(words).rstrip(" ,;:.")
    return " ".join(words[:MAX_WORDS]).rstrip(" ,;:.") + "\u2026"
