"""Topic colours: a calm qualitative palette that stays distinguishable from a handful of topics to dozens."""

from __future__ import annotations

import colorsys
import itertools
import math
from collections.abc import Iterable, Mapping

# Tableau 10 with its grey swapped for a soft teal: grey is kept for outliers.
CALM_10 = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#2f8f9d")
OUTLIER_COLOUR = "#b8b8b8"
# For charts that stack up to 15 series side by side: Tableau 10's calm colours, then five more of Dark2.
SERIES_15 = (*CALM_10, "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#a6761d")
MIN_DISTANCE = 35  # RGB distance (0-441) below which two colours read as one; CALM_10's closest pair is 39 apart
_GOLDEN_ANGLE = 0.381966  # of a full turn: successive hues land far apart
_TONES = ((0.45, 0.55), (0.62, 0.50), (0.36, 0.45))  # (lightness, saturation), cycled so close hues differ in tone
NEIGHBOURS = 4  # a topic's nearest topics on the map, whose colours should differ most from its own
SWAP_TO_THE_END = 30  # up to this many topics, swaps go on until none helps (each lowers the cost, so they end)
MAX_SWAPS = 25
MAX_SWAP_TOPICS = 60  # above this, the greedy deal alone: each swap costs O(topics^2) (30 ms at 120 on busy cores)
FAR_ENOUGH = 150.0  # RGB distance beyond which two neighbours' colours are told apart well enough
# Colour blindness, simulated in linear RGB (Machado, Oliveira & Fernandes 2009, severity 1.0).
_IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
_PROTAN = ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998))
_DEUTAN = ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881))


def spread_colours(n: int) -> list[str]:
    """`n` distinct muted colours: golden-angle hues, alternating lightness."""
    colours = []
    for i in range(n):
        lightness, saturation = _TONES[(i // 3) % len(_TONES)] if n > 24 else _TONES[i % 2]
        red, green, blue = colorsys.hls_to_rgb((0.58 + i * _GOLDEN_ANGLE) % 1.0, lightness, saturation)
        colours.append(f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}")
    return colours


def topic_colours(topic_ids: Iterable[int], centres: Mapping[int, tuple[float, float]] | None = None) -> dict[int, str]:
    """A colour per topic id; topic -1 (outliers) is grey.

    With `centres` (each topic's place on the map), the palette's colours are dealt so that topics next to each
    other get colours far apart (`neighbour_colours`); the palette itself does not change.
    """
    ids = sorted({int(t) for t in topic_ids})
    real = [t for t in ids if t != -1]
    palette = list(CALM_10) if len(real) <= len(CALM_10) else spread_colours(len(real))
    palette = palette[: len(real)]
    placed = [t for t in real if centres is not None and t in centres and all(map(math.isfinite, centres[t]))]
    if len(placed) > 2:
        dealt = neighbour_colours([centres[t] for t in placed], palette[: len(placed)])
        colours = dict(zip(placed, dealt, strict=True))
        rest = [t for t in real if t not in colours]
        colours |= dict(zip(rest, palette[len(placed) :], strict=True))
    else:
        colours = dict(zip(real, palette, strict=True))
    if -1 in ids:
        colours[-1] = OUTLIER_COLOUR
    return colours


def neighbour_colours(centres: list[tuple[float, float]], palette: list[str]) -> list[str]:
    """`palette` dealt to the topics at `centres` so that near topics get colours far apart, to any eye.

    Each topic's `NEIGHBOURS` nearest topics are its neighbours (nearer ones weigh more). A pair of neighbours
    costs more the closer their colours, as seen with normal vision or red-green colour blindness
    (`seen_distance`), up to `FAR_ENOUGH`. Colours are dealt greedily, the most crowded topic first, each the
    free colour least like its neighbours'; then swaps of two topics' colours that lower the total cost most: until
    none does for up to `SWAP_TO_THE_END` topics, `MAX_SWAPS` of them up to `MAX_SWAP_TOPICS`. Deterministic.
    """
    import numpy as np  # here: the palette's other users need no numpy

    n = len(centres)
    points = np.asarray(centres, dtype=float)
    apart = np.linalg.norm(points[:, None] - points[None], axis=2)
    np.fill_diagonal(apart, np.inf)
    weight = np.zeros((n, n))
    for rank, nearest in enumerate(np.argsort(apart, axis=1, kind="stable")[:, :NEIGHBOURS].T):
        weight[np.arange(n), nearest] = np.maximum(weight[np.arange(n), nearest], 1.0 / (1 + rank))
    weight = np.maximum(weight, weight.T)
    seen = [_as_seen(c) for c in palette]
    unlike = np.array([[max(0.0, FAR_ENOUGH - min(map(math.dist, a, b))) for b in seen] for a in seen])
    colour = np.full(n, -1)  # palette positions, one per topic: dealt greedily, most crowded topic first
    free = np.ones(len(palette), dtype=bool)
    for i in np.argsort(-weight.sum(axis=1), kind="stable"):
        dealt = colour >= 0
        cost = unlike[:, colour[dealt]] @ weight[i, dealt] if dealt.any() else np.zeros(len(palette))
        cost[~free] = np.inf
        colour[i] = int(np.argmin(cost))
        free[colour[i]] = False
    same = np.diag(unlike)
    swaps = n * n if n <= SWAP_TO_THE_END else MAX_SWAPS if n <= MAX_SWAP_TOPICS else 0
    for _ in range(swaps):  # then the swaps of two topics' colours that help most
        local = weight @ unlike[colour].T  # [i, c]: topic i's cost if it had colour c
        own = local[np.arange(n), colour]
        moved = local[:, colour]  # [i, j]: topic i's cost with topic j's colour
        pair = weight * (2 * unlike[colour[:, None], colour[None]] - same[colour][None] - same[colour][:, None])
        delta = moved + moved.T - own[:, None] - own[None] + pair
        np.fill_diagonal(delta, 0.0)
        i, j = np.unravel_index(np.argmin(delta), delta.shape)
        if delta[i, j] >= -1e-9:
            break
        colour[i], colour[j] = colour[j], colour[i]
    return [palette[c] for c in colour]


def seen_distance(a: str, b: str) -> float:
    """How far apart two colours look at worst: with normal vision, or with protanopia or deuteranopia."""
    return min(map(math.dist, _as_seen(a), _as_seen(b)))


def _as_seen(colour: str) -> list[tuple[float, ...]]:
    """The colour's RGB as seen with normal vision, protanopia and deuteranopia."""
    rgb = _linear(colour)
    return [_encoded(_apply(matrix, rgb)) for matrix in (_IDENTITY, _PROTAN, _DEUTAN)]


def _linear(colour: str) -> tuple[float, ...]:
    values = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return tuple(v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in values)


def _apply(matrix: tuple[tuple[float, ...], ...], rgb: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(min(1.0, max(0.0, sum(m * v for m, v in zip(row, rgb, strict=True)))) for row in matrix)


def _encoded(rgb: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055) for v in rgb)


def distance(a: str, b: str) -> float:
    """Euclidean distance of two "#rrggbb" colours in RGB (0-441)."""
    return math.dist(*([int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in (a, b)))


def series_colours(colours: list[str]) -> list[str]:
    """Colours for stacked series: their map colours when every pair is told apart, else `SERIES_15` in order
    (with many topics the map's colours repeat hues, and neighbours in a stack would look alike)."""
    if all(distance(a, b) >= MIN_DISTANCE for a, b in itertools.combinations(colours, 2)):
        return list(colours)
    return [SERIES_15[i % len(SERIES_15)] for i in range(len(colours))]
