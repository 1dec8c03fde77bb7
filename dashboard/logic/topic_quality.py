"""The build's quality figures and a per-topic table, weakest topics first, with what each figure means (pure)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from topic_explorer.pipeline.settings import EMBEDDER_TITLES

WEAK_BELOW = 0.0  # NPMI: below it, a topic's keywords meet in one abstract less often than by chance
GOOD_FROM = 0.1
CATCH_ALL_TIMES = 4.0  # a topic this many times the median topic's size most likely holds several themes...
CATCH_ALL_MIN_SHARE = 0.02  # ...when it also holds this share of the papers (not a 6-paper topic among 2-paper ones)
# Relative to the corpus: a topic is worth a look when it is an outlier among this build's own topics, however
# good or bad the build is as a whole (a robust z-score: distance from the topics' median in median absolute
# deviations, scaled to a standard deviation).
OUTLYING_Z = -1.5
MIN_TOPICS_TO_COMPARE = 5  # fewer topics than this: no median worth comparing with
MIN_GAP = 0.1  # ...and at least this far below the median (confidence, NPMI): a tight build's small spread is no flag
TWINS_SHARE = 0.5  # two topics sharing this share of their top keywords read as one
TWIN_WORDS = 10
RATING_BACKGROUNDS = {
    "catch-all": "#f4c7a1",
    "reads as one": "#f4c7a1",
    "fits poorly": "#f9d6d5",
    "incoherent": "#f9d6d5",
    "words apart": "#f9d6d5",
    "fair": "#fcefc7",
    "good": "#d5ecd4",
    "n/a": "#eeeeee",
}
FLAGGED = ("catch-all", "reads as one", "fits poorly", "incoherent", "words apart")  # ask for a look, listed first


@dataclass(frozen=True)
class Figure:
    """One headline number with a one-line explanation."""

    name: str
    value: str
    meaning: str


def _number(value: object, fmt: str) -> str:
    return format(value, fmt) if isinstance(value, int | float) and not math.isnan(value) else "n/a"


def headline_figures(quality: dict) -> list[Figure]:
    """The manifest's `quality` block as labelled, explained figures (missing ones show 'n/a')."""
    sizes = quality.get("topic_sizes") or {}
    smallest, median, largest = (_number(sizes.get(k), ",.0f") for k in ("smallest", "median", "largest"))
    return [
        Figure(
            "Coherence (NPMI)",
            _number(quality.get("coherence_npmi"), ".2f"),
            "Do a topic's top keywords occur in the same abstracts? -1 never, 0 by chance, 1 always; "
            "above 0.1 is good.",
        ),
        Figure(
            "Diversity",
            _number(quality.get("diversity"), ".0%"),
            "Share of distinct words among all topics' top keywords; low means topics repeat each other.",
        ),
        Figure(
            "Poorly fitting",
            _number(quality.get("poorly_fitting_share", quality.get("outlier_share")), ".0%"),  # older builds' name
            "Papers farther from their topic's centre than almost all of the topic's own papers. The bar is set "
            "so that about 5% of the papers a topic was fitted on fall below it: well above 5% means papers "
            "unlike the topics. They stay in their nearest topic.",
        ),
        Figure(
            "Topic sizes",
            f"{smallest} / {median} / {largest}",
            "Smallest / median / largest topic, in papers; one giant topic often hides several themes.",
        ),
    ]


def provenance_line(manifest: dict) -> str:
    """One line on how the build was made: when, from how many papers, compared how (never the embedder's internal
    name: 'all-MiniLM-L6-v2/windows128x16' means nothing to a reader), with which seed."""
    counts, embedder = manifest.get("counts") or {}, manifest.get("embedder") or {}
    parts = [f"Built {str(manifest.get('created_at', 'at an unknown time'))[:10]}"]
    if "papers" in counts:
        parts.append(f"{counts['papers']:,} papers")
    kind = embedder.get("kind") or (manifest.get("settings") or {}).get("embedder")
    if kind in EMBEDDER_TITLES or embedder.get("name"):
        parts.append(f"papers compared by {EMBEDDER_TITLES.get(kind, 'their own embedder')}")
    seed = (manifest.get("settings") or {}).get("seed", manifest.get("seed"))  # version 2 kept it at the top
    if seed is not None:
        parts.append(f"seed {seed}")
    return " · ".join(parts)


def verdict(coherence: float) -> str:
    """A word for a topic's coherence: incoherent, fair, good (or n/a); `RATING_BACKGROUNDS` colours it."""
    if coherence is None or math.isnan(coherence):
        return "n/a"
    if coherence < WEAK_BELOW:
        return "incoherent"
    return "fair" if coherence < GOOD_FROM else "good"


def rating(size: int, median: float, n_papers: int, coherence: float) -> tuple[str, str]:
    """A topic's rating and why: a catch-all (far bigger than its share), incoherent, or its coherence's verdict."""
    if median > 0 and size >= CATCH_ALL_TIMES * median and size >= CATCH_ALL_MIN_SHARE * n_papers:
        return "catch-all", f"{size / median:.0f}× the median topic's size: it most likely mixes several themes"
    word = verdict(coherence)
    why = {
        "incoherent": "its keywords rarely meet in one abstract: a mixed or noisy topic",
        "fair": "its keywords meet in abstracts a little more often than by chance",
        "good": "its keywords often meet in the same abstracts",
        "n/a": "no coherence score (a merged topic, or too few papers)",
    }[word]
    return word, why


def robust_z(values: pd.Series) -> pd.Series:
    """How far each value lies from the others' median, in (scaled) median absolute deviations.

    When most values agree exactly (no spread), any other value is far out: `MIN_GAP` decides whether it matters.
    """
    median = values.median()
    spread = max(1.4826 * (values - median).abs().median(), 1e-9)
    return (values - median) / spread


def twins(topics: pd.DataFrame, top: int = TWIN_WORDS) -> dict[int, tuple[int, int]]:
    """Per topic, the topic sharing most of its `top` keywords, and how many, where that is `TWINS_SHARE` or more."""
    words = {int(t): {" ".join(str(k).lower().replace("-", " ").split()) for k in list(keys)[:top]}
             for t, keys in zip(topics["topic_id"], topics["keywords"], strict=True)}  # fmt: skip
    found = {}
    for topic, mine in words.items():
        shared = [(len(mine & theirs), other) for other, theirs in words.items() if other != topic and mine]
        n, other = max(shared, default=(0, -1), key=lambda pair: (pair[0], -pair[1]))
        if n >= TWINS_SHARE * top:
            found[topic] = (other, n)
    return found


def topic_checks(topics: pd.DataFrame, papers: pd.DataFrame | None) -> dict[int, list[tuple[str, str]]]:
    """Per topic, the reasons a reader would question it, relative to this build's other topics: its papers fit it
    worse, its words hold together less, or it reads as one with another topic. (rating, why) pairs, worst first."""
    real = topics.loc[topics["topic_id"] != -1]
    checks: dict[int, list[tuple[str, str]]] = {int(t): [] for t in real["topic_id"]}
    labels = dict(zip(real["topic_id"].astype(int), real["label"].astype(str), strict=True))
    for topic, (other, n) in twins(real).items():
        checks[topic].append(("reads as one", f"shares {n} of its {TWIN_WORDS} top keywords with “{labels[other]}”"))
    if len(real) < MIN_TOPICS_TO_COMPARE:
        return checks
    if papers is not None and len(papers):
        fit = papers.loc[papers["topic_id"] != -1].groupby("topic_id")["confidence"].median().reindex(list(checks))
        z = robust_z(fit.dropna())
        for topic in z.index[(z <= OUTLYING_Z) & (fit[z.index] <= fit.median() - MIN_GAP)]:
            why = f"its papers fit it loosely: median confidence {fit[topic]:.2f} against {fit.median():.2f}"
            checks[int(topic)].append(("fits poorly", why))
    coherence = real.set_index(real["topic_id"].astype(int))["coherence"].astype(float).dropna()
    z = robust_z(coherence)
    for topic in z.index[(z <= OUTLYING_Z) & (coherence <= coherence.median() - MIN_GAP)]:
        why = f"its keywords hold together less than others': {coherence[topic]:.2f} against {coherence.median():.2f}"
        checks[int(topic)].append(("words apart", why))
    return checks


def topic_table(topics: pd.DataFrame, papers: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per topic (outliers left out): the ones to question first (catch-all, reading as one with another,
    fitting poorly, incoherent, words apart: `topic_checks` with `papers`), then weakest coherence first; topics
    without a score last. `topic_id` rides along to open a topic from the table."""
    real = topics.loc[topics["topic_id"] != -1]
    sizes = real["size"].astype(int)
    median, n_papers = float(sizes.median()) if len(sizes) else 0.0, int(topics["size"].sum())
    checks = topic_checks(topics, papers)
    rated = []
    for topic, size, coherence in zip(real["topic_id"].astype(int), sizes, real["coherence"], strict=True):
        word, why = rating(size, median, n_papers, coherence)
        found = checks.get(topic, [])
        if word in FLAGGED:
            found = [(word, why), *found]
        if found:
            first = min(found, key=lambda pair: FLAGGED.index(pair[0]))[0]
            word, why = first, "; ".join(reason for _, reason in found)
        rated.append((word, why))
    table = pd.DataFrame(
        {
            "rating": [word for word, _ in rated],
            "topic": real["label"].astype(str),
            "papers": sizes,
            "coherence": real["coherence"].astype(float),
            "why": [why for _, why in rated],
            "keywords": real["keywords"].map(lambda words: ", ".join(words[:8])),
            "topic_id": real["topic_id"].astype(int),
        }
    )
    flagged = table["rating"].map(lambda word: FLAGGED.index(word) if word in FLAGGED else len(FLAGGED))
    order = table.assign(_flagged=flagged).sort_values(["_flagged", "coherence"], na_position="last", kind="stable")
    return order.drop(columns="_flagged").reset_index(drop=True)
