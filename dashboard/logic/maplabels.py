"""The map's topic labels: which to offer at which priority (pure), and the browser code that places them.

Labels are placed in the browser, where the zoom is known: `maplabels.js` draws them as plain text
(never HTML) over the map, biggest first at the chosen level of detail, then the finer levels'; a
label that would overlap one already placed is tried just above and below its centre, then hidden.
Zooming in spreads the papers apart, so finer labels find room and appear; zooming out hides them
again. The same script keeps the user's zoom when the map is drawn afresh (`mapview_script`).
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

from topic_explorer.dashboard.logic.safetext import shorten, two_lines
from topic_explorer.pipeline.view.levels import Level

LABEL_CHARS = 56  # longer labels are cut after a whole word
LINE_CHARS = 24  # longer labels take two lines, broken between words
LABEL_FONT_PX = (13, 11)  # the chosen level's labels, then the finer levels'
GRID_CELLS = 80  # per axis: each label carries the cells of this grid over the whole map that its papers occupy


def label_candidates(
    levels: tuple[Level, ...],
    chosen: int,
    shown: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    extent: tuple[tuple[float, float], tuple[float, float]] | None = None,
) -> list[dict]:
    """Labels to offer, best first: the chosen level's groups by shown papers, then each finer level's.

    Each label sits among its group's own shown papers (`x`, `y`: every paper's), where they outnumber other
    groups' most (`label_anchor`), so a filtered or searched map labels where its papers are and a group spread
    around another is not labelled among the other's papers.
    A finer group holding the same topics as one offered already, or named like one, is left out: the map
    never shows a label twice.
    Each label: text `t` (plain, one or two lines; the browser sets it as text), position `x`, `y`, priority `p`,
    colour `c` (of its group at the chosen level, as on the map), font size `s`, and `o`: the cells of a
    `GRID_CELLS`-square grid over `extent` (the map's x and y ranges) that its shown papers occupy, so the browser
    never puts a label over its own papers.
    """
    colour_of_topic = {t: c for g, c in zip(levels[chosen].topics["topic_id"], levels[chosen].topics["colour"],
                       strict=True) for t in levels[chosen].members[g]}  # fmt: skip
    offered: set[tuple[int, ...]] = set()
    texts: set[str] = set()
    labels = []
    crowd = point_counts(x[shown], y[shown], extent) if extent else None  # every shown paper, per anchor cell
    for depth, level in enumerate(levels[chosen:]):
        for group in level.topics.itertuples():
            rows = level.topic_rows.get(group.topic_id, np.zeros(0, dtype=np.int64))
            rows = rows[shown[rows]]
            held = level.members[group.topic_id]
            text = two_lines(shorten(str(group.label), LABEL_CHARS), LINE_CHARS)
            if not len(rows) or held in offered or text.casefold() in texts:
                continue
            at = label_anchor(x[rows], y[rows], crowd, extent) if crowd is not None else _median(x[rows], y[rows])
            if not np.isfinite(at).all():
                continue
            offered.add(held)
            texts.add(text.casefold())
            labels.append(
                {
                    "t": text,
                    "x": at[0],
                    "y": at[1],
                    "p": float((len(levels) - depth) * 1e9 + len(rows)),
                    "c": colour_of_topic.get(held[0], "#888888"),
                    "s": LABEL_FONT_PX[min(depth, 1)],
                    "o": occupied_cells(x[rows], y[rows], extent) if extent else [],
                }
            )
    return sorted(labels, key=lambda label: -label["p"])


ANCHOR_CELLS = 24  # per axis: the grid over the map on which a label's spot is chosen


def point_counts(x: np.ndarray, y: np.ndarray, extent: tuple[tuple[float, float], tuple[float, float]]) -> np.ndarray:
    """Papers per cell of an `ANCHOR_CELLS`-square grid over `extent`, each cell with its eight neighbours summed."""
    (x0, x1), (y0, y1) = extent
    counts, _, _ = np.histogram2d(x, y, bins=ANCHOR_CELLS, range=((x0, x1), (y0, y1)))
    padded = np.pad(counts, 1)
    return sum(padded[i : i + ANCHOR_CELLS, j : j + ANCHOR_CELLS] for i in range(3) for j in range(3))


def label_anchor(
    x: np.ndarray, y: np.ndarray, crowd: np.ndarray, extent: tuple[tuple[float, float], tuple[float, float]]
) -> tuple[float, float]:
    """Where a group's label goes: among its own papers (`x`, `y`), in the cell where they most outnumber the other
    shown papers (`crowd`: `point_counts` of every shown paper), on its paper nearest the median of those there.

    A group's median can fall between its papers, among another group's (a group in two clumps around a third);
    this spot always holds papers of its own. Ties go to the cell nearer the median.
    """
    own = point_counts(x, y, extent)
    (x0, x1), (y0, y1) = extent
    column = np.clip(((x - x0) / (x1 - x0) * ANCHOR_CELLS).astype(np.int64), 0, ANCHOR_CELLS - 1)
    row = np.clip(((y - y0) / (y1 - y0) * ANCHOR_CELLS).astype(np.int64), 0, ANCHOR_CELLS - 1)
    mx, my = _median(x, y)
    cx = np.clip(int((mx - x0) / (x1 - x0) * ANCHOR_CELLS), 0, ANCHOR_CELLS - 1)
    cy = np.clip(int((my - y0) / (y1 - y0) * ANCHOR_CELLS), 0, ANCHOR_CELLS - 1)
    held = np.unique(column * ANCHOR_CELLS + row)  # cells holding own papers: x index first, as histogram2d
    i, j = held // ANCHOR_CELLS, held % ANCHOR_CELLS
    lead = own[i, j] - (crowd[i, j] - own[i, j])
    best = np.lexsort(((i - cx) ** 2 + (j - cy) ** 2, -own[i, j], -lead))[0]
    there = np.flatnonzero((column == i[best]) & (row == j[best]))
    mx, my = _median(x[there], y[there])
    at = there[np.argmin((x[there] - mx) ** 2 + (y[there] - my) ** 2)]  # one of its own papers, not a gap between
    return float(x[at]), float(y[at])


def _median(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    return float(np.median(x)), float(np.median(y))


def occupied_cells(x: np.ndarray, y: np.ndarray, extent: tuple[tuple[float, float], tuple[float, float]]) -> list[int]:
    """The cells (`row * GRID_CELLS + column`, ascending) of a grid over `extent` that hold any of these points."""
    (x0, x1), (y0, y1) = extent
    column = np.clip(((x - x0) / (x1 - x0) * GRID_CELLS).astype(np.int64), 0, GRID_CELLS - 1)
    row = np.clip(((y - y0) / (y1 - y0) * GRID_CELLS).astype(np.int64), 0, GRID_CELLS - 1)
    return np.unique(row * GRID_CELLS + column).tolist()


def mapview_script() -> str:
    """A page for a zero-height component frame that installs `maplabels.js` into the dashboard's page, once.

    The code runs in the page itself (same origin), not in the frame, so it outlives the frame's reruns.
    """
    code = resources.files("topic_explorer.dashboard.logic").joinpath("maplabels.js").read_text(encoding="utf-8")
    install = (
        "(function(){var page=window.parent;if(!page||page.__topicExplorerMapView)return;"
        "var s=page.document.createElement('script');s.textContent=" + json.dumps(code).replace("</", "<\\/") + ";"
        "page.document.head.appendChild(s);})();"
    )
    return f"<script>{install}</script>"
