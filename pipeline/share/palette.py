"""Topic colours: a calm qualitative palette that stays distinguishable from a handful of topics to dozens."""

from __future__ import annotations

import colorsys
from collections.abc import Iterable

# Tableau 10 with its grey swapped for a soft teal: grey is kept for outliers.
CALM_10 = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#2f8f9d")
OUTLIER_COLOUR = "#b8b8b8"
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
