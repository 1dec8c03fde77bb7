"""Which terms may name a topic: each topic's naming terms with its fragments completed, its words covered by
its own phrases, and its generic words set apart, all read from the corpus's counts rather than from word lists.

`labels.make_labels` then chooses each topic's label from these terms; `theme_names` names the themes.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy import sparse

from topic_explorer.pipeline.describe.boundwords import BOUND_SHARE, MIN_BOUND_USES
from topic_explorer.pipeline.describe.labels import MIN_NAME_SHARE, normal_words
from topic_explorer.pipeline.describe.terms import TermCounts

GENERIC_SHARE = 0.2  # a term used by at least this share of the corpus's papers names no part of it
DEFINING_SHARE = (
    0.5  # a single word names a topic alone when at least this share of the papers using it are the topic's
)
DEFINING_REACH = 0.3  # ... and at least this share of the topic's papers use it ("Quantization"; not "Time", "Data")
# Short texts (newsgroup posts) share few words: a word under DEFINING_REACH still names its topic when nearly all its
# users are the topic's (`STANDS_ALONE`), at least this share of those writing the topic's most written naming term
# write it ...
THIN_REACH = 0.5
THIN_SCORE = 0.8  # ... and it scores at least this share of the topic's best naming term ("NHL"; not "Taxes")
COMPLETION_SHARE = 0.3  # a phrase completes a term when this share of the topic's papers using the term write it
LONGER_USE = 0.6  # ... and a longer phrase holding it that this share of its users write completes it in turn
STANDS_ALONE = 0.8  # a defining word this share of whose users are the topic's is the field's own name ("Galaxies")
COVER_SHARE = 0.5  # ... otherwise a phrase this share of the word's users in the topic write names it first
MIN_COMPLETION_PAPERS = 2  # ... and at least this many (or all the topic's papers): one paper's phrase names no topic
COMPLETION_REACH = 0.05  # ... and at least this share of the topic's papers: "Cultural differences", 2 of 53, names
# no topic (at 0.03 it stayed; 0.08 lost "Stock trading" and others: docs/label-audit.md)


def generic_terms(counts: TermCounts) -> frozenset[str]:
    """Terms (lowercase, as counted) that at least `GENERIC_SHARE` of the counted papers use."""
    used_by = np.asarray(counts.papers.sum(axis=0)).ravel()
    total = max(int(counts.sizes.sum()), 1)
    return frozenset(np.asarray(counts.terms, dtype=object)[used_by >= GENERIC_SHARE * total].tolist())


def named_terms(
    counts: TermCounts, naming: dict[int, list[tuple[str, float]]], acronyms: dict[str, str] | None = None
) -> dict[int, list[tuple[str, float]]]:
    """Each topic's naming terms (lowercase, as counted) with every fragment replaced by the phrase the topic's papers
    write it in (`_completion`, keeping the fragment's score); a spread word they complete in no shared phrase is
    dropped, a phrase is kept.

    A fragment, read from the counts rather than from word lists:
    - a single word that does not define its topic: fewer than `DEFINING_SHARE` of the papers using it are the
      topic's, nor of its inflections' users summed (`_stem`: "grasp", "grasps", "grasping"; a paper writing two
      counts twice), or fewer than `DEFINING_REACH` of the topic's papers use it. "Time", "Data", "Features" are
      spread over many topics; "Quantization", "Federated" and "Grasping" gather in one. Where the topic's papers
      share few words (short posts), a word under `DEFINING_REACH` still names it when it is its own (`STANDS_ALONE`),
      nearly its best term (`THIN_SCORE`) and written by half as many papers as its most written term (`THIN_REACH`):
      "NHL", in 21% of a hockey topic's posts, where "team" (40%, half of whose users are the topic's) named it;
    - a phrase the corpus mostly (`BOUND_SHARE`) continues with another word ("low-rank" -> "low-rank adaptation").
    A phrase of two or more words inside an acronym's long form (`acronyms`, as the corpus defines them: "human
    feedback" and "reinforcement learning" in "reinforcement learning from human feedback", "low rank" in "low-rank
    adaptation") gives way to the acronym when the topic's papers write the acronym at least as often: the topic
    is about the thing the acronym names, not the broader phrase.
    """
    parts = {}  # phrase -> the acronym whose long form holds it (stop words break long forms into phrases)
    for acronym, long_form in (acronyms or {}).items():
        words = normal_words(long_form).split()
        for start in range(len(words) - 1):
            for stop in range(start + 2, len(words) + (start > 0)):
                parts.setdefault(" ".join(words[start:stop]), acronym.lower())
    lowered = {a.lower() for a in acronyms or {}}
    index = {term: i for i, term in enumerate(counts.terms)}
    papers = sparse.csr_matrix(counts.papers)
    uses = np.asarray(counts.counts.sum(axis=0)).ravel()
    corpus_papers = np.asarray(papers.sum(axis=0)).ravel()
    continued: Counter = Counter()  # uses of each phrase followed by another word, from the phrases one word longer
    for term, i in index.items():
        words = term.split()
        if len(words) > 1:
            continued[" ".join(words[:-1])] += int(uses[i])
    inflected: dict[str, list[int]] = {}  # a word's stem -> its inflections among the terms
    for term, i in index.items():
        if " " not in term:
            inflected.setdefault(_stem(term), []).append(i)
    family = {i: kin for kin in inflected.values() for i in kin}
    result = {}
    for row, topic in enumerate(counts.topic_ids.tolist()):
        if topic not in naming:
            continue
        start, stop = papers.indptr[row], papers.indptr[row + 1]
        here = dict(zip(papers.indices[start:stop].tolist(), papers.data[start:stop].tolist(), strict=True))
        written = counts.counts[row]
        two = min(MIN_COMPLETION_PAPERS, counts.sizes[row])  # two papers, or all of a smaller topic's
        least = max(two, COMPLETION_REACH * counts.sizes[row])
        most = max((here.get(index[t], 0) for t, _ in naming[topic] if t in index), default=0)
        best = naming[topic][0][1] if naming[topic] else 0.0
        kept: dict[str, float] = {}
        for term, score in naming[topic]:
            i = index.get(term)
            if i is None:
                kept.setdefault(term, score)
                continue
            single = " " not in term
            gathered = _gathered(here, corpus_papers, i, family[i]) if single else 0.0
            thin = single and here.get(i, 0) < DEFINING_REACH * counts.sizes[row]
            spread = thin or (single and gathered < DEFINING_SHARE)
            bound = not single and uses[i] >= MIN_BOUND_USES and continued[term] >= BOUND_SHARE * uses[i]
            acronym = index.get(parts.get(term, ""))
            if acronym is not None and here.get(acronym, 0) and written[0, acronym] >= written[0, i]:
                kept.setdefault(counts.terms[acronym], score)
            elif not (spread or bound):
                kept.setdefault(term, score)
            elif phrase := _completion(term, i, here, counts, least):
                kept.setdefault(phrase, score)
            elif bound:  # a phrase its papers never complete together still says more than the next term ("Low-rank")
                kept.setdefault(term, score)
            elif (
                thin
                and gathered >= STANDS_ALONE
                and score >= THIN_SCORE * best
                and here.get(i, 0) >= max(two, THIN_REACH * most)
            ):
                kept.setdefault(term, score)  # short posts: a word of the topic's own, as written as its terms are
        covered = _covered(kept, here, index, corpus_papers, lowered)
        defining = {  # words most of whose users are the topic's, written by many of its papers (two at least)
            j
            for j, used in here.items()
            if used >= DEFINING_SHARE * corpus_papers[j] and used >= max(DEFINING_REACH * counts.sizes[row], two)
        }
        words = {  # single words, not acronyms, that the corpus writes alone often enough to name a topic
            t
            for t, _ in covered
            if " " not in t
            and t in index
            and t not in lowered
            and uses[index[t]] >= MIN_BOUND_USES
            and continued[t] < BOUND_SHARE * uses[index[t]]
        }
        covered = _paired(covered, here, index, counts.terms, corpus_papers, defining, words)
        result[topic] = covered or naming[topic]  # a topic with no name left keeps its words to fall back on
    return result


def _covered(
    kept: dict[str, float], here: dict[int, int], index: dict[str, int], corpus: np.ndarray, acronyms: set[str]
) -> list[tuple[str, float]]:
    """`kept` (term -> score, best first) with each single word giving its place to the best phrase of the topic that
    covers it, the word following: a phrase scoring at least `MIN_NAME_SHARE` of the word, written by `COVER_SHARE` of
    the topic's papers using the word, and at least half as particular to the topic (its users that are the topic's).
    An acronym keeps its place, as does a word nearly all of whose users (`STANDS_ALONE`, two more counted against
    it: three papers prove little) are the topic's: the field's own name ("Galaxies"; "Languages" -> "Machine
    translation", whose papers are also the LLMs')."""
    ranked = list(kept.items())
    result: dict[str, float] = {}
    for term, score in ranked:
        if term in result:
            continue
        i = index.get(term)
        if (
            " " not in term
            and term not in acronyms
            and i is not None
            and here.get(i, 0) < STANDS_ALONE * (corpus[i] + MIN_COMPLETION_PAPERS)
        ):
            cover = [
                t
                for t, s in ranked
                if " " in t
                and t in index
                and t not in result
                and s >= MIN_NAME_SHARE * score
                and here.get(index[t], 0) >= COVER_SHARE * here.get(i, 0)
                and here.get(index[t], 0) / corpus[index[t]] >= COVER_SHARE * here.get(i, 0) / corpus[i]
            ]
            if cover:
                result[cover[0]] = score
        result.setdefault(term, score)
    return list(result.items())


def _paired(
    named: list[tuple[str, float]],
    here: dict[int, int],
    index: dict[str, int],
    terms: np.ndarray,
    corpus: np.ndarray,
    defining: set[int],
    words: set[str],
) -> list[tuple[str, float]]:
    """`named` (term, score; best first) with each of `words` that the topic defines but does not own (under
    `STANDS_ALONE` of its users are the topic's) preceded by the two-word phrase its papers write it first in, before
    another word the topic defines (`defining`: term indices), when most of the phrase's users are the topic's:
    "regret" -> "regret bound", "bound" gathering in the topic too. Such a phrase says what the papers hold about
    the word (they prove bounds on regret), where the word alone is a quantity every theory paper mentions. A pair
    whose other word names the topic itself ("bit quantization" beside "quantization") or with the word last
    ("English languages") narrows the topic to a part of it, so it is not taken."""
    result: dict[str, float] = {}
    names = {term for term, _ in named}
    for term, score in named:
        i = index.get(term)
        if term in words and here.get(i, 0) < STANDS_ALONE * (corpus[i] + MIN_COMPLETION_PAPERS):
            pairs = [
                (here[index[second]], used, terms[j])
                for j, used in here.items()
                if (pair := terms[j].split())[0] == term
                and len(pair) == 2
                and (second := pair[1]) != term
                and index.get(second) in defining
                and second not in names
                and used >= DEFINING_SHARE * corpus[j]
            ]
            if pairs:
                result.setdefault(max(pairs)[2], score)
        result.setdefault(term, score)
    return list(result.items())


def _gathered(here: dict[int, int], corpus: np.ndarray, i: int, kin: list[int]) -> float:
    """The share of the corpus's papers using word `i` that are the topic's (`here`), or of its inflections' (`kin`)
    users summed when that is more: "grasping" 46% alone, with "grasp" and "grasps" 56%."""
    return max(here.get(i, 0) / corpus[i], sum(here.get(j, 0) for j in kin) / corpus[kin].sum())


def _completion(term: str, i: int, here: dict[int, int], counts: TermCounts, least: float) -> str | None:
    """The longer phrase holding `term` that most of the topic's papers write (`here`: term index -> the topic's papers
    using it), used by at least `least` of them and `COMPLETION_SHARE` of those using `term`; ties go to the shorter
    phrase. None when there is none, or when another qualifying phrase neither holds the most written one nor is held by
    it: the papers write the term in both ("vision-language models", "vision-language-action"), so it stands for
    neither."""
    inside, need = f" {term} ", max(least, COMPLETION_SHARE * here.get(i, 0))
    found = [
        (used, -len(counts.terms[j]), counts.terms[j])
        for j, used in here.items()
        if j != i and used >= need and inside in f" {counts.terms[j]} "
    ]
    if not found:
        return None
    used, _, phrase = max(found)
    if any(f" {phrase} " not in f" {t} " and f" {t} " not in f" {phrase} " for _, _, t in found):
        return None
    longer = [(n, t) for n, _, t in found if f" {phrase} " in f" {t} " and t != phrase and n >= LONGER_USE * used]
    return max(longer)[1] if longer else phrase  # "resource languages" is written "low-resource languages"


def _stem(word: str) -> str:
    """A word without its inflection, its plural's first: 'grasps', 'grasping' -> 'grasp'; 'embeddings', 'embedding'
    -> 'embedd'; 'biases', 'bias' -> 'bias' (a word of four letters keeps its 's': 'bias', 'news', 'LLMs')."""
    if word.endswith("ies") and len(word) > 5:
        word = word[:-3] + "y"
    elif word.endswith("es") and word[:-2].endswith(("s", "x", "ch", "sh")) and len(word) > 5:
        word = word[:-2]
    elif word.endswith("s") and len(word) > 4 and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word
