"""The build's quality figures and a per-topic table, weakest topics first, with what each figure means (pure)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

WEAK_BELOW = 0.0
GOOD_FROM = 0.1
RATING_BACKGROUNDS = {"weak": "#f9d6d5", "fair": "#fcefc7", "good": "#d5ecd4", "n/a": "#eeeeee"}


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
    """One line on how the build was made: when, from how many papers, with which embedder and seed."""
    counts, embedder = manifest.get("counts") or {}, manifest.get("embedder") or {}
    parts = [f"Built {str(manifest.get('created_at', 'at an unknown time'))[:10]}"]
    if "papers" in counts:
        parts.append(f"{counts['papers']:,} papers")
    if embedder.get("name"):
        parts.append(f"embedder {embedder['name']}")
    seed = (manifest.get("settings") or {}).get("seed", manifest.get("seed"))  # version 2 kept it at the top
    if seed is not None:
        parts.append(f"seed {seed}")
    return " · ".join(parts)


def verdict(coherence: float) -> str:
    """A word for a topic's coherence: weak, fair, good (or n/a); `RATING_BACKGROUNDS` colours it."""
    if coherence is None or math.isnan(coherence):
        return "n/a"
    if coherence < WEAK_BELOW:
        return "weak"
    return "fair" if coherence < GOOD_FROM else "good"


def topic_table(topics: pd.DataFrame) -> pd.DataFrame:
    """One row per topic (outliers left out), weakest coherence first; topics without a score last."""
    real = topics.loc[topics["topic_id"] != -1]
    table = pd.DataFrame(
        {
            "rating": real["coherence"].map(verdict),
            "topic": real["label"].astype(str),
            "papers": real["size"].astype(int),
            "coherence": real["coherence"].astype(float),
            "keywords": real["keywords"].map(lambda words: ", ".join(words[:8])),
        }
    )
    return table.sort_values("coherence", na_position="last", kind="stable").reset_index(drop=True)
