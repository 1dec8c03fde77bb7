"""Theme names a reader would write: a group of the topic tree named for its largest parts (`theme_name`), led by
the name its topics share where one sets it apart (`theme_field`): "Quantum: error correction and spin liquids".

The parts' names are topic labels (`labels`); the words' rules (what can stand as a name, stems, acronyms) are
the labels' own, so a theme and its topics are named alike.
"""

from __future__ import annotations

import re

import numpy as np
from scipy import sparse

from topic_explorer.pipeline.describe.boundwords import BoundWords
from topic_explorer.pipeline.describe.labels import capitalise, is_acronym, is_name, normal_words, stems
from topic_explorer.pipeline.describe.terms import TermCounts

THEME_COVER = 0.6  # a theme is named for its largest parts until they hold this share of its papers ...
THEME_PARTS = 3  # ... naming at most this many
THEME_FIELD_REACH = 0.25  # a theme's field is a name at least this share of its papers use ...
THEME_FIELD_SPREAD = 0.5  # ... as much in topics holding at least this share of its papers
THEME_FIELD_LIFT = 2.0  # ... and at least this many times the share of the corpus's papers using it
NO_BOUND_WORDS = BoundWords(frozenset(), frozenset())  # theme_field's default: every word may end a name


def theme_name(parts: list[tuple[str, int]], field: str = "") -> str:
    """A theme's name from the names of its parts, (name, papers): its largest parts until they hold `THEME_COVER` of
    its papers, at least two when it has two, at most `THEME_PARTS` ("3D reconstruction, video generation and MRI").
    A part's name counts for its first part ("LLMs and unlearning" -> "LLMs"), and not when it says no more than a
    part already named ("Time series" beside "Time series forecasting"); names sharing their last word share it once
    ("Quantum and condensed matter physics"). `field`, the name its topics share (`theme_field`), leads the name
    when no part named says it: "Vision: 3D reconstruction and video generation"."""
    if len(parts) == 1:
        return parts[0][0]  # the same group as its one part
    listed = _theme_parts(parts)
    if field and listed and not stems(field) & stems(listed) and _initials(field) not in stems(listed):
        return f"{capitalise(field)}: {_lowered(listed)}"
    return listed


def theme_field(
    keywords: list[str],
    counts: TermCounts,
    rows: list[int],
    bound: BoundWords = NO_BOUND_WORDS,
    generic: frozenset[str] = frozenset(),
) -> str:
    """The name a theme's topics share, of its `keywords` (best first; its topics are `rows` of `counts`): the first
    name (`is_name`) that `THEME_FIELD_REACH` of the theme's papers use, `THEME_FIELD_LIFT` times as often as the
    corpus's papers do, and that much in at least two of its topics holding `THEME_FIELD_SPREAD` of its papers: it
    names the whole theme, not its largest topic, and sets it apart ("Quantum"; not "Dataset", "Efficient");
    "" when none does."""
    index = {term: i for i, term in enumerate(counts.terms)}
    found = [(k, index[normal_words(k)]) for k in keywords if normal_words(k) in index and is_name(k, bound, generic)]
    if not found:
        return ""
    columns = [i for _, i in found]
    papers = sparse.csr_matrix(counts.papers)
    sizes = counts.sizes[rows].astype(np.float64)
    used = papers[rows][:, columns].toarray()  # [topics, names]
    reach = used.sum(axis=0) / max(sizes.sum(), 1.0)
    corpus = np.asarray(papers[:, columns].sum(axis=0)).ravel() / max(float(counts.sizes.sum()), 1.0)
    holding = used >= THEME_FIELD_REACH * sizes[:, None]
    spread = (sizes[:, None] * holding).sum(axis=0) / max(sizes.sum(), 1.0)
    shared = (reach >= THEME_FIELD_REACH) & (reach >= THEME_FIELD_LIFT * corpus) & (holding.sum(axis=0) >= 2)
    return next((k for (k, _), ok, s in zip(found, shared, spread, strict=True) if ok and s >= THEME_FIELD_SPREAD), "")


def _initials(name: str) -> str:
    """'large language models' -> 'llm', the stem of the acronym a part may carry ("LLMs"); "" for one word."""
    words = normal_words(name).split()
    return "".join(w[0] for w in words) if len(words) > 1 else ""


def _theme_parts(parts: list[tuple[str, int]]) -> str:
    """The names of a theme's largest parts, listed (`theme_name`)."""
    ordered = sorted(parts, key=lambda part: -part[1])
    total = sum(papers for _, papers in ordered)
    chosen: list[str] = []
    held = 0
    for name, papers in ordered:
        if len(chosen) == THEME_PARTS or (len(chosen) >= 2 and held >= THEME_COVER * total):
            break
        core = _core(name)
        if core and not any(stems(core) <= stems(c) or stems(c) <= stems(core) for c in chosen):
            chosen.append(core)
            held += papers
    if len(chosen) < 2:
        return chosen[0] if chosen else ""
    lasts = {stems(c.split()[-1]).pop() if stems(c.split()[-1]) else "" for c in chosen}
    if len(lasts) == 1 and all(len(c.split()) > 1 for c in chosen):  # "quantum physics", "condensed matter physics"
        head = chosen[-1].split()[-1]
        chosen = [" ".join(c.split()[:-1]) for c in chosen[:-1]] + [chosen[-1]]
        return capitalise(_listed([chosen[0], *map(_lowered, chosen[1:])]).removesuffix(head).rstrip() + " " + head)
    return capitalise(_listed([chosen[0], *map(_lowered, chosen[1:])]))


def _core(name: str) -> str:
    """A name without its long form in brackets, and only its first part when it joins several."""
    name = re.sub(r"\s*\([^)]*\)", "", name).strip()
    return re.split(r", | and |: ", name, maxsplit=1)[0].strip()


def _listed(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _lowered(name: str) -> str:
    """A name inside a list: lowercase unless it starts with an acronym ("MRI") or a capital inside a word ("GoRA")."""
    first = name.split()[0]
    return (
        name
        if is_acronym(first) or not name[:1].isupper() or first[1:] != first[1:].lower()
        else name[:1].lower() + name[1:]
    )
