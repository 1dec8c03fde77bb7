"""Plotly figures: the paper map and a topic's keyword bars (pure: data in, figure out)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dashboard.data import Explorer
from dashboard.safetext import plotly_text, shorten

MAP_HEIGHT = 600
LEGEND_PX = 270
LEGEND_CHARS = 34  # longer labels are cut so the legend fits its fixed margin
LABEL_CHARS = 32
MAX_MAP_LABELS = 30
SELECTED_OUTLINE = "#1f2937"


def marker_size(n_points: int) -> float:
    """Big dots for a few dozen papers, small ones for tens of thousands."""
    return float(np.clip(26 / math.log10(n_points + 10), 4, 11))


def map_figure(explorer: Explorer, shown: np.ndarray, selected: np.ndarray) -> go.Figure:
    """One WebGL trace per topic (so the legend toggles topics), labels at topic centres, selected papers ringed.

    `shown` and `selected` are boolean masks over `explorer.papers`; paper_id rides along as customdata.
    """
    papers = explorer.papers
    x, y = papers["x"].to_numpy(), papers["y"].to_numpy()
    ids, hover = papers["paper_id"].to_numpy(dtype=object), explorer.hover
    size = marker_size(int(shown.sum()))
    traces, labelled = [], []
    for topic in explorer.topics.itertuples():
        rows = explorer.topic_rows.get(topic.topic_id, np.empty(0, dtype=int))
        rows = rows[shown[rows]]
        if not len(rows):
            continue
        labelled.append((len(rows), topic))
        traces.append(
            {
                "type": "scattergl",
                "mode": "markers",
                "x": x[rows],
                "y": y[rows],
                "customdata": ids[rows],
                "hovertext": hover[rows],
                "hoverinfo": "text",
                "name": plotly_text(f"{shorten(topic.label, LEGEND_CHARS)} ({len(rows):,})"),
                "marker": {"color": topic.colour, "size": size, "opacity": 0.85 if topic.topic_id != -1 else 0.5},
            }
        )
    ringed = np.flatnonzero(shown & selected)
    if len(ringed):
        traces.append(
            {
                "type": "scattergl",
                "mode": "markers",
                "x": x[ringed],
                "y": y[ringed],
                "customdata": ids[ringed],
                "hoverinfo": "skip",
                "name": f"Selected ({len(ringed):,})",
                "marker": {"size": size + 6, "color": "rgba(0,0,0,0)", "line": {"color": SELECTED_OUTLINE, "width": 2}},
            }
        )
    layout = {
        "height": MAP_HEIGHT,
        # A fixed legend margin keeps the plot area, and so the map, still however many topics are shown.
        "margin": {"l": 0, "r": LEGEND_PX, "t": 30, "b": 0, "autoexpand": False},
        "showlegend": True,
        "xaxis": {"range": list(explorer.extent[0]), "visible": False},
        "yaxis": {"range": list(explorer.extent[1]), "visible": False},
        "plot_bgcolor": "#fbfbfa",
        "hovermode": "closest",
        "dragmode": "select",
        "hoverlabel": {"bgcolor": "white", "font": {"size": 12, "color": "#1f2937"}, "align": "left"},
        "legend": {
            "title": {"text": "Topics"},
            "itemsizing": "constant",
            "font": {"size": 11},
            "x": 1.01,
            "xanchor": "left",
            "y": 1,
            "yanchor": "top",
        },
        "annotations": [_topic_label(*label) for label in place_labels(labelled, explorer.extent, x[shown], y[shown])],
    }
    # Validating 20,000 points per trace costs more than building them; the structure above is fixed and tested.
    return go.Figure({"data": traces, "layout": layout}, _validate=False)


def place_labels(
    labelled: list, extent: tuple, x: np.ndarray, y: np.ndarray, plot_px: tuple[int, int] = (650, MAP_HEIGHT)
) -> list[tuple[object, float, float]]:
    """(topic, x, y) for the labels to draw: biggest topics first, at most MAX_MAP_LABELS.

    Each label goes at its topic's centre or a label-height above or below it, wherever it covers the
    fewest points (`x`, `y`: the shown points); a label that would cover a bigger topic's label is left
    out (the legend lists every topic). Boxes are estimated for a plot about `plot_px` wide and high.
    """
    (x0, x1), (y0, y1) = extent
    per_px = ((x1 - x0) / plot_px[0], (y1 - y0) / plot_px[1])
    placed, boxes = [], []
    for _, topic in sorted(labelled, key=lambda pair: -pair[0]):
        half_w, half_h = (7 * len(shorten(topic.label, LABEL_CHARS)) + 12) * per_px[0] / 2, 11 * per_px[1]
        candidates = [(topic.x, topic.y + shift * 2.4 * half_h) for shift in (0, 1, -1)]
        free = [(cx, cy) for cx, cy in candidates if not any(_overlaps((cx, cy, half_w, half_h), b) for b in boxes)]
        if not free:
            continue
        cx, cy = min(free, key=lambda c: _covered(x, y, c[0], c[1], half_w, half_h))
        placed.append((topic, cx, cy))
        boxes.append((cx, cy, half_w, half_h))
        if len(placed) == MAX_MAP_LABELS:
            break
    return placed


def _overlaps(a: tuple, b: tuple) -> bool:
    return abs(a[0] - b[0]) < a[2] + b[2] and abs(a[1] - b[1]) < a[3] + b[3]


def _covered(x: np.ndarray, y: np.ndarray, cx: float, cy: float, half_w: float, half_h: float) -> int:
    return int(np.count_nonzero((np.abs(x - cx) < half_w) & (np.abs(y - cy) < half_h)))


def _topic_label(topic, x: float, y: float) -> dict:
    return {
        "x": float(x),
        "y": float(y),
        "text": plotly_text(shorten(topic.label, LABEL_CHARS)),
        "showarrow": False,
        "font": {"size": 12, "color": "#1f2937"},
        "bgcolor": "rgba(255,255,255,0.7)",
        "bordercolor": topic.colour,
        "borderwidth": 1,
        "borderpad": 3,
    }


def keyword_figure(keywords: list[str], weights: list[float], colour: str, top: int = 10) -> go.Figure:
    """Horizontal bars of a topic's `top` keywords, best at the top."""
    figure = go.Figure(
        go.Bar(
            x=list(weights[:top]),
            y=[plotly_text(k) for k in keywords[:top]],
            orientation="h",
            marker={"color": colour},
            hovertemplate="%{y}: %{x:.3f}<extra></extra>",
        )
    )
    figure.update_layout(
        height=36 + 26 * min(top, len(keywords)),
        margin={"l": 0, "r": 8, "t": 4, "b": 0},
        yaxis={"autorange": "reversed", "automargin": True},
        xaxis={"title": {"text": "keyword relevance"}, "showgrid": True},
        showlegend=False,
    )
    return figure
