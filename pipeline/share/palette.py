"""Topic colours: a calm qualitative palette that stays distinguishable from a handful of topics to dozens."""

from __future__ import annotations

import colorsys
import itertools
import math
from collections.abc import Iterable

# Tableau 10 with its grey swapped for a soft teal: grey is kept for outliers.
CALM_10 = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#2f8f9d")
OUTLIER_COLOUR = "#b8b8b8"
# For charts that stack up to 15 series side by side: Tableau 10's calm colours, then five more of Dark2.
SERIES_15 = (*CALM_10, "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#a6761d")
MIN_DISTANCE = 35  # RGB distance (0-441) below which two colours read as one; CALM_10's closest pair is 39 apart
_GOLDEN_ANGLE = 0.381966  # of a full turn: successive hues land far apart
_TONES = ((0.45, 0.55), (0.62, 0.50), (0.36, 0.45))  # (lightness, saturation), cycled so close hues differ in tone


def spread_colours(n: int) -> list[str]:
    """`n` distinct muted colours: golden-angle hues, alternating lightness."""
    colours = []
    for i in range(n):
        lightness, saturation = _TONES[(i // 3) % len(_TONES)] if n > 24 else _TONES[i % 2]
        red, green, blue = colorsys.hls_to_rgb((0.58 + i * _GOLDEN_ANGLE) % 1.0, lightness, saturation)
        colours.append(f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}")
    return colours


def topic_colours(topic_ids: Iterable[int]) -> dict[int, str]:
    """A colour per topic id; topic -1 (outliers) is grey."""
    ids = sorted({int(t) for t in topic_ids})
    real = [t for t in ids if t != -1]
    palette = list(CALM_10) if len(real) <= len(CALM_10) else spread_colours(len(real))
    colours = dict(zip(real, palette[: len(real)], strict=True))
    if -1 in ids:
        colours[-1] = OUTLIER_COLOUR
    return colours


def distance(a: str, b: str) -> float:
    """Euclidean distance of two "#rrggbb" colours in RGB (0-441)."""
    return math.dist(*([int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in (a, b)))


def series_colours(colours: list[str]) -> list[str]:
    """Colours for stacked series: their map colours when every pair is told apart, else `SERIES_15` in order
    (with many topics the map's colours repeat hues, and neighbours in a stack would look alike)."""
    if all(distance(a, b) >= MIN_DISTANCE for a, b in itertools.combinations(colours, 2)):
        return list(colours)
    return [SERIES_15[i % len(SERIES_15)] for i in range(len(colours))]
