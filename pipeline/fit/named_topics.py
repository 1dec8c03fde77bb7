"""Match papers to topics the user names ("LoRA / PEFT", "RLHF", "KV cache").

A fixed cosine threshold between a short name and an abstract fails for acronyms: MiniLM
scores "RLHF" at 0.30 against the RLHF papers and "LoRA / PEFT" at 0.32, below papers on
nothing of the kind. So a name is read in the corpus's own words and judged relatively:

1. each part of a name ("LoRA", "PEFT") is spelled out as the corpus defines it ("Low-Rank
   Adaptation (LoRA)", `pipeline.text.acronyms`);
2. papers that use one of the name's forms ("LoRA", "low-rank adaptation"; a name's words
   without those a fifth of the corpus uses, "federated" for "federated learning") at least
   twice, and the paper closest to the name, are its evidence; a name no paper uses, such as
   "learning theory", rests on the `PSEUDO_RELEVANT` papers closest to it (pseudo-relevance
   feedback). The name's *prototype* is its embedding plus the mean of its evidence, so the
   name is described the way this corpus writes about it. A name is embedded as a query about
   papers ("A paper on learning theory", `NAME_TEMPLATE`);
3. vectors are taken relative to the corpus (its mean removed), so what every paper shares
   ("learning", "models") does not make every paper look close to every name;
4. a paper's score for a name says how unusually close it is to the prototype, in standard
   deviations above the corpus's mean closeness to that name: comparable across names;
5. a name takes a paper whose score reaches the threshold when the paper, or its nearest
   paper, is the name's evidence: closeness through a shared generic word ("reinforcement
   learning" for RLHF) is not enough. A paper joins the name, among those that take it, it
   scores highest on: the one it fits most clearly relative to the rest of the corpus (an RL
   regret paper that scores high on RLHF but uses no RLHF word joins "learning theory"; FedASK,
   federated and LoRA, joins "federated learning", RoLoRA "LoRA / PEFT"). One topic per paper.

Measured on 5,000 ml_venues abstracts (the instrument's mix), with field labels as the truth and no
paper using the name: "A paper on {name}" plus the three closest papers ranks the 130 learning-theory
papers at AUC .974 (the bare name alone .919), NLP .934 (.907), CV .824 (.823), robotics .957 (.967).

The function is pure (no Streamlit, no BERTopic) so the build and the dashboard can share it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from topic_explorer.pipeline.describe.naming_terms import GENERIC_SHARE  # a word that common says nothing of a name
from topic_explorer.pipeline.text.acronyms import corpus_acronyms
from topic_explorer.pipeline.text.clean import content_words, strip_markup

_PART_BREAK = re.compile(r"\s*(?:/|,|;|\|)\s*|\s+or\s+")
MIN_MENTIONS = 2  # a paper that uses a name once may cite it in passing ("unlike PEFT methods, ...")
MIN_SPREAD = 1e-6  # a name every paper scores alike matches nothing
PSEUDO_RELEVANT = 3  # a name no paper uses is described by this many papers closest to it
NAME_TEMPLATE = "A paper on {}"  # names are embedded as a query about a paper, which MiniLM matches better
# A name whose closest abstract is less similar than this (plain MiniLM cosine) is foreign to the
# corpus and matches nothing. On the sample: "quantum chromodynamics" 0.18, "speech recognition"
# 0.31; "learning theory" 0.43, "KV cache" (spelled out) 0.55.
MIN_NAME_SIMILARITY = 0.35


@dataclass(frozen=True)
class NamedMatch:
    """Which named topic each paper joined (-1: none), and how the names fared."""

    names: tuple[str, ...]
    paper_name: np.ndarray  # int, per paper: index into `names`, or -1
    paper_score: np.ndarray  # float, per paper: its score for the name it is closest to
    name_best: np.ndarray  # float, per name: the best score any paper reached

    def unmatched(self) -> dict[str, float]:
        """Names no paper joined, with the best score a paper reached for each."""
        joined = set(self.paper_name[self.paper_name >= 0].tolist())
        return {name: float(self.name_best[j]) for j, name in enumerate(self.names) if j not in joined}


def match_named_topics(
    names: list[str] | tuple[str, ...],
    abstracts: list[str],
    embeddings: np.ndarray,
    embed: Callable[[list[str]], np.ndarray],
    *,
    threshold: float,
) -> NamedMatch:
    """Assign papers to the user's named topics; `embed` turns texts into unit vectors.

    `threshold` is in standard deviations: a paper joins a name when it is at least that
    much closer to the name's prototype than the corpus's papers are on average. A name
    whose closest abstract stays below `MIN_NAME_SIMILARITY` matches nothing.
    """
    names = tuple(names)
    n_papers = len(abstracts)
    if not names:
        return NamedMatch(names, np.full(n_papers, -1), np.zeros(n_papers), np.zeros(0))
    acronyms = corpus_acronyms(abstracts)
    generic = _generic_words(abstracts)
    forms = [name_forms(name, acronyms, generic) for name in names]
    mentions = np.array([[_mentions(text, f) for f in forms] for text in map(strip_markup, abstracts)])
    centre = embeddings.mean(axis=0)
    papers = _unit(embeddings - centre)
    plain = [embed(describe(name, acronyms)) for name in names]  # is the name foreign to the corpus?
    foreign = np.array([(embeddings @ vectors.T).max() < MIN_NAME_SIMILARITY for vectors in plain])
    described = [embed([NAME_TEMPLATE.format(text) for text in describe(name, acronyms)]) for name in names]
    name_vectors = _unit(np.stack([_unit(vectors - centre).mean(axis=0) for vectors in described]))
    evidence = np.stack([_evidence(v, papers, mentions[:, j]) for j, v in enumerate(name_vectors)], axis=1)
    prototypes = _unit(np.stack([v + _unit(papers[evidence[:, j]].mean(axis=0)) for j, v in enumerate(name_vectors)]))
    scores = np.where(foreign, -np.inf, _standardise(papers @ prototypes.T))
    accepted = np.where(_accepts(scores >= threshold, evidence, papers), scores, -np.inf)
    rows = np.arange(n_papers)
    first = accepted.argmax(axis=1)
    joined = np.isfinite(accepted[rows, first])
    best_score = scores.max(axis=1)
    return NamedMatch(
        names=names,
        paper_name=np.where(joined, first, -1),
        paper_score=np.where(np.isfinite(best_score), best_score, 0.0),
        name_best=np.where(foreign, 0.0, scores.max(axis=0)),
    )


def name_forms(name: str, acronyms: dict[str, str], generic: frozenset[str] = frozenset()) -> list[str]:
    """The ways a corpus may write a name: its parts, their expansions and their acronyms, and each part
    without the `generic` words (lowercase) it holds ("federated" for "federated learning")."""
    long_to_short = {long.lower(): short for short, long in acronyms.items()}
    forms = []
    for part in _parts(name):
        forms.append(part)
        forms.extend(_expand(part, acronyms))
        if part.lower() in long_to_short:
            forms.append(long_to_short[part.lower()])
        specific = [word for word in part.split() if word.lower() not in generic]
        if specific and len(specific) < len(part.split()):
            forms.append(" ".join(specific))
    return list(dict.fromkeys(forms))


def describe(name: str, acronyms: dict[str, str]) -> list[str]:
    """What gets embedded for a name: each part with its acronyms spelled out."""
    texts = []
    for part in _parts(name):
        expanded = _expand(part, acronyms)
        texts.append(f"{expanded[0]} ({part})" if expanded else part)
    return texts


def _parts(name: str) -> list[str]:
    return [part for part in _PART_BREAK.split(name.strip()) if part]


def _expand(part: str, acronyms: dict[str, str]) -> list[str]:
    """'KV cache' -> ['Key-Value cache'] when the corpus defines KV; [] when nothing expands."""
    words = part.split()
    expanded = [acronyms.get(word) or acronyms.get(word.upper()) or word for word in words]
    return [" ".join(expanded)] if expanded != words else []


def _mentions(text: str, forms: list[str]) -> int:
    """How often `text` uses any of `forms`: acronyms as written, words in any case or hyphenation."""
    count = 0
    for form in forms:
        words = [re.escape(w) for w in re.split(r"[\s-]+", form) if w]
        pattern = r"\b" + r"[\s-]+".join(words) + r"s?\b"
        acronym = any(sum(c.isupper() for c in w) >= 2 for w in form.split())
        count += len(re.findall(pattern, text, flags=0 if acronym else re.IGNORECASE))
    return count


def _generic_words(abstracts: list[str]) -> frozenset[str]:
    """Lowercase words at least `GENERIC_SHARE` of the abstracts use ("learning", "models" in ML)."""
    used = Counter(word for text in abstracts for word in set(content_words(text)))
    return frozenset(word for word, n in used.items() if n >= GENERIC_SHARE * len(abstracts))


def _evidence(name_vector: np.ndarray, papers: np.ndarray, mentions: np.ndarray) -> np.ndarray:
    """The papers that use a name and the paper closest to it; the `PSEUDO_RELEVANT` closest when none uses it."""
    used = mentions >= MIN_MENTIONS
    closest = np.argsort(-(papers @ name_vector), kind="stable")[: 1 if used.any() else PSEUDO_RELEVANT]
    return used | np.isin(np.arange(len(papers)), closest)


def _standardise(similarity: np.ndarray) -> np.ndarray:
    """Per name (column): how many standard deviations each paper sits above the corpus mean."""
    spread = similarity.std(axis=0)
    return np.where(spread > MIN_SPREAD, (similarity - similarity.mean(axis=0)) / np.maximum(spread, MIN_SPREAD), 0.0)


def _accepts(close: np.ndarray, evidence: np.ndarray, papers: np.ndarray) -> np.ndarray:
    """Which names (columns) would take each paper (rows): it is close enough (`close`) and it, or its nearest
    paper, is the name's evidence.

    One step only: on 5,000 abstracts, letting papers join through papers that joined this
    way ran from "LoRA" through adapters into machine translation.
    """
    rows = np.flatnonzero(close.any(axis=1))  # only papers close to some name need their nearest paper
    nearest_evidence = np.zeros_like(evidence)
    nearest_evidence[rows] = evidence[_nearest_paper(papers, rows)]
    return close & (evidence | nearest_evidence)


def _nearest_paper(papers: np.ndarray, rows: np.ndarray, block: int = 2048) -> np.ndarray:
    """The most similar other paper of each paper at `rows`, a block of rows at a time to bound memory."""
    nearest = np.empty(len(rows), dtype=np.int64)
    for start in range(0, len(rows), block):
        chunk = rows[start : start + block]
        similarity = papers[chunk] @ papers.T
        similarity[np.arange(len(chunk)), chunk] = -np.inf
        nearest[start : start + block] = similarity.argmax(axis=1)
    return nearest


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
