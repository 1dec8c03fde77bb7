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


def theme_name(parts: list[list[tuple[str, int]]], field: str = "") -> str:
    """A theme's name from its parts' topics, (label, papers) per part: its largest topics' names until they hold
    `THEME_COVER` of its papers, at most `THEME_PARTS` ("3D reconstruction, video generation and MRI"), and always
    the largest of a second part when it has several ("Magnetic, quantum and lie algebra": a theme is never named
    for one of its parts alone, and a small part is named beside what fills the large one, not instead of it).
    A label counts for its first part ("LLMs and unlearning" -> "LLMs"), and not when it says no more than a name
    chosen ("Time series" beside "Time series forecasting"); names sharing their last word share it once ("Quantum
    and condensed matter physics"). `field`, the name its topics share (`theme_field`), leads the name when no part
    named says it: "Vision: 3D reconstruction and video generation"."""
    chosen = _theme_parts(parts)
    said = set().union(*map(stems, chosen))
    listed = _listed_names(chosen)
    if field and listed and not stems(field) & said and _initials(field) not in said:
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


def _theme_parts(parts: list[list[tuple[str, int]]]) -> list[str]:
    """The names of a theme's largest topics, by size, a second part's among them (`theme_name`)."""
    total = sum(papers for topics in parts for _, papers in topics)
    topics = sorted(
        ((_core(label), papers, part) for part, held in enumerate(parts) for label, papers in held),
        key=lambda topic: -topic[1],
    )
    chosen: list[tuple[str, int, int]] = []

    def says_more(core: str) -> bool:
        return bool(core) and not any(stems(core) <= stems(c) or stems(c) <= stems(core) for c, _, _ in chosen)

    for topic in topics:
        if len(chosen) == THEME_PARTS or (len(chosen) >= 2 and sum(p for _, p, _ in chosen) >= THEME_COVER * total):
            break
        if says_more(topic[0]):
            chosen.append(topic)
    if len({part for _, _, part in chosen}) == 1 and len(parts) > 1:  # one part alone: name a second one's largest
        second = next((t for t in topics if t[2] != chosen[0][2] and says_more(t[0])), None)
        if second is not None:
            chosen = sorted([*chosen[: THEME_PARTS - 1], second], key=lambda topic: -topic[1])
    return [core for core, _, _ in chosen]


def _listed_names(chosen: list[str]) -> str:
    """Names listed in one: "A, b and c"; "Quantum and condensed matter physics" when all end in one word."""
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
