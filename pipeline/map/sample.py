"""Which papers a map draws: all of them, or a fixed, even sample (the dashboard's map and the HTML map alike)."""

from __future__ import annotations

import os

import numpy as np

MAX_DRAWN = 20_000  # a map of more papers draws a sample of this many; counts, selection and export take all
MAP_POINTS_ENV = "TOPIC_EXPLORER_MAP_POINTS"  # overrides MAX_DRAWN (a fast machine may draw more)
MAP_PAD = 0.04  # the map's margin around the papers, as a share of their extent
DRAW_SEED = 0  # the map's sample of a big build is the same in every session, rerun and export


def map_points() -> int:
    """The most papers a map draws: $TOPIC_EXPLORER_MAP_POINTS when it is a whole number >= 1, else `MAX_DRAWN`."""
    value = os.environ.get(MAP_POINTS_ENV, "").strip()
    return int(value) if value.isdigit() and int(value) >= 1 else MAX_DRAWN


def draw_order(n_papers: int) -> np.ndarray:
    """Per paper of a build: its rank when a map draws a sample (a fixed random order)."""
    return np.random.default_rng(DRAW_SEED).permutation(n_papers)


def drawn_rows(order: np.ndarray, mask: np.ndarray, limit: int) -> np.ndarray:
    """Rows of `mask` to draw, ascending: all of them, or the `limit` earliest in `order` (a fixed random rank).

    The sample is the same on every rerun, and a narrower mask keeps the papers it drew before that pass it.
    """
    rows = np.flatnonzero(mask)
    if len(rows) <= limit:
        return rows
    return np.sort(rows[np.argpartition(order[rows], limit)[:limit]]) if limit > 0 else rows[:0]


def map_extent(x: np.ndarray, y: np.ndarray) -> tuple[tuple[float, float], tuple[float, float]]:
    """The map's fixed ranges (x, y): the papers' extent, padded by `MAP_PAD`."""
    ranges = []
    for values in (x, y):
        low, high = (float(np.nanmin(values)), float(np.nanmax(values))) if len(values) else (0.0, 1.0)
        margin = max(high - low, 1e-6) * MAP_PAD
        ranges.append((low - margin, high + margin))
    return ranges[0], ranges[1]
