"""Words the corpus rarely writes on their own, read from the corpus itself: the modifiers ("causal", "high-quality"),
the heads ("networks") and the stop words it hyphenates before a word ("in-context"). `labels` keeps them out of
names, or gives them back to a name.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise

from topic_explorer.pipeline.text.clean import STOP_WORDS, strip_markup, word_runs

BOUND_SHARE = 0.75  # a word written before (after) another content word this often is a modifier (a head)
MIN_BOUND_USES = 3  # ... when the corpus uses it at least this often
BOUND_SAMPLE = 2000  # abstracts read for those statistics: enough, and cheap at 20k papers
_HYPHENATED = re.compile(r"\b((?:[a-z0-9]+-)+[a-z0-9]+)\b(?:\s+([a-z][a-z0-9]*))?")


@dataclass(frozen=True)
class BoundWords:
    """Words the corpus rarely writes on their own, read from which content words it puts next to them."""

    # mostly written before another content word: a word ("causal", "humanoid") or a hyphenated compound ("long term"
    # of "long-term forecasting"); never the last words of a name
    modifiers: frozenset[str]
    heads: frozenset[str]  # mostly written after another content word ("networks", "tasks"): never a label alone
    # a word or two the corpus mostly writes hyphenated after stop words, which counting drops: "context learning" ->
    # "in", "distribution generalization" -> "out-of"; a name starting with them takes them back ("In-context learning")
    prefixes: dict[str, str] = field(default_factory=dict)


def bound_words(texts: list[str]) -> BoundWords:
    """The corpus's modifiers, heads and hyphenated prefixes (`BOUND_SHARE`), from a sample of its abstracts
    (`BOUND_SAMPLE`). A two-word compound is judged by its hyphenated uses: English hyphenates a compound before the
    word it qualifies ("high-quality images"), so one written before another content word in most of its hyphenated
    uses says what kind of thing, not which.

    Read once per corpus: the fit's topics and every level of the tree ask for the same texts' (on 5,000 arXiv
    abstracts it was half the tree's time, six reads of 2.6 s)."""
    return _bound_words(tuple(texts))


@lru_cache(maxsize=1)
def _bound_words(texts: tuple[str, ...]) -> BoundWords:
    before, after, total, compounds = Counter(), Counter(), Counter(), Counter()
    hyphenated: defaultdict[str, Counter] = defaultdict(Counter)  # word (or two) -> stop words hyphenated before it
    step = max(1, len(texts) // BOUND_SAMPLE)
    for text in texts[::step]:
        for run in word_runs(text):
            total.update([*run, *map(" ".join, pairwise(run))])
            before.update(run[:-1])
            after.update(run[1:])
        for chain, following in _HYPHENATED.findall(strip_markup(text).lower()):
            parts = chain.split("-")
            if len(parts) == 2 and not STOP_WORDS.intersection(parts):  # a compound: "high-quality", "fine-tuning"
                compounds[" ".join(parts)] += 1
                before[" ".join(parts)] += bool(following) and following not in STOP_WORDS
            lead = next((k for k, part in enumerate(parts) if part not in STOP_WORDS), len(parts))
            if 0 < lead < len(parts):
                rest = [*parts[lead:], following] if following else parts[lead:]
                hyphenated[rest[0]]["-".join(parts[:lead])] += 1
                if len(rest) > 1 and rest[1] not in STOP_WORDS:
                    hyphenated[" ".join(rest[:2])]["-".join(parts[:lead])] += 1
    single = [(w, n) for w, n in total.items() if n >= MIN_BOUND_USES and " " not in w]
    common = single + [(w, n) for w, n in compounds.items() if n >= MIN_BOUND_USES]
    prefixes = {}
    for words, stops in hyphenated.items():
        stop, n = stops.most_common(1)[0]
        if total[words] >= MIN_BOUND_USES and n >= BOUND_SHARE * total[words]:
            prefixes[words] = stop
    return BoundWords(
        modifiers=frozenset(w for w, n in common if before[w] >= BOUND_SHARE * n),
        heads=frozenset(w for w, n in single if after[w] >= BOUND_SHARE * n),
        prefixes=prefixes,
    )


NO_BOUND_WORDS = BoundWords(frozenset(), frozenset())  # a corpus read for none: every word may end a name
