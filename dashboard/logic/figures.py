"""Plotly figures: the paper map and a topic's keyword bars (pure: data in, figure out)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from topic_explorer.dashboard.logic.data import Explorer
from topic_explorer.dashboard.logic.maplabels import GRID_CELLS
from topic_explorer.dashboard.logic.safetext import plotly_text, shorten
from topic_explorer.pipeline.map.sample import drawn_rows, map_points

MAP_HEIGHT = 600
LEGEND_PX = 270
LEGEND_CHARS = 34  # longer labels are cut so the legend fits its fixed margin
SELECTED_OUTLINE = "#1f2937"
CONTEXT_COLOUR = "#d4d4d4"  # context only: papers that pass the filters but are not the search's best matches
MAP_META = "topicExplorerMap"  # marks the map for its label layer (dashboard/maplabels.js)


def marker_size(n_points: int) -> float:
    """Big dots for a few dozen papers, small ones for tens of thousands."""
    return float(np.clip(26 / math.log10(n_points + 10), 4, 11))


def map_figure(
    explorer: Explorer,
    shown: np.ndarray,
    selected: np.ndarray,
    *,
    context: np.ndarray | None = None,
    labels: list[dict] | None = None,
    view: str = "map",
    store: str = "map",
    ranges: tuple[tuple[float, float], tuple[float, float]] | None = None,
    max_drawn: int | None = None,
    legend_title: str = "Topics",
) -> go.Figure:
    """One WebGL trace per topic (so the legend toggles topics), selected papers ringed.

    `shown`, `selected` and `context` are boolean masks over `explorer.papers`; paper_id rides along as
    customdata. `context` papers are drawn grey behind the others (and cannot be selected). `labels` are
    the topic labels the browser places without overlaps at every zoom (`dashboard.logic.maplabels`); `view`
    names the user's view: the zoom is kept while it stays the same, in the browser under the name `store`.
    `ranges` frame the map (x, y) when the view starts; None: the whole map. `legend_title` names the groups
    drawn ("Themes" at a coarse level of detail).
    At most `max_drawn` papers (default: `map_points()`) are drawn, shown ones first, then context: a fixed
    random sample of them (`drawn_rows`) when there are more. `layout.meta` says how many papers are `shown`
    and `drawn`, and how many of the `context` are drawn (`context_drawn`). Legend counts are of every shown paper.
    """
    papers = explorer.papers
    x, y = papers["x"].to_numpy(), papers["y"].to_numpy()
    ids, hover = explorer.ids, explorer.hover
    n_shown = int(shown.sum())
    max_drawn = map_points() if max_drawn is None else max_drawn
    draw = np.zeros(len(shown), dtype=bool)
    draw[drawn_rows(explorer.draw_order, shown, max_drawn)] = True
    size = marker_size(n_shown)
    traces = []
    n_context = int(context.sum()) if context is not None else 0
    context_rows = np.zeros(0, dtype=np.int64)
    if n_context:
        rows = context_rows = drawn_rows(explorer.draw_order, context, max_drawn - int(draw.sum()))
        traces.append(
            {
                "type": "scattergl",
                "mode": "markers",
                "x": x[rows],
                "y": y[rows],
                "hovertext": hover[rows],
                "hoverinfo": "text",
                "name": f"Other papers ({n_context:,})",
                "marker": {"color": CONTEXT_COLOUR, "size": max(size - 2, 3), "opacity": 0.6},
            }
        )
    for topic in explorer.topics.itertuples():
        rows = explorer.topic_rows.get(topic.topic_id, np.empty(0, dtype=int))
        n_topic = int(shown[rows].sum())
        rows = rows[draw[rows]]
        if not n_topic:
            continue
        traces.append(
            {
                "type": "scattergl",
                "mode": "markers",
                "x": x[rows],
                "y": y[rows],
                "customdata": ids[rows],
                "hovertext": hover[rows],
                "hoverinfo": "text",
                "name": plotly_text(f"{shorten(topic.label, LEGEND_CHARS)} ({n_topic:,})"),
                "marker": {"color": topic.colour, "size": size, "opacity": 0.85 if topic.topic_id != -1 else 0.5},
            }
        )
    ringed = np.flatnonzero(draw & selected)
    if len(ringed):
        traces.append(
            {
                "type": "scattergl",
                "mode": "markers",
                "x": x[ringed],
                "y": y[ringed],
                "customdata": ids[ringed],
                "hoverinfo": "skip",
                "name": f"Selected ({int((shown & selected).sum()):,})",
                "marker": {"size": size + 6, "color": "rgba(0,0,0,0)", "line": {"color": SELECTED_OUTLINE, "width": 2}},
            }
        )
    sampled = {"shown": n_shown, "drawn": int(draw.sum()), "context": n_context, "context_drawn": len(context_rows)}
    layout = {
        "height": MAP_HEIGHT,
        # A fixed legend margin keeps the plot area, and so the map, still however many topics are shown.
        "margin": {"l": 0, "r": LEGEND_PX, "t": 30, "b": 0, "autoexpand": False},
        "showlegend": True,
        "xaxis": {"range": list((ranges or explorer.extent)[0]), "visible": False},
        "yaxis": {"range": list((ranges or explorer.extent)[1]), "visible": False},
        "plot_bgcolor": "#fbfbfa",
        "hovermode": "closest",
        "dragmode": "select",
        "hoverlabel": {"bgcolor": "white", "font": {"size": 12, "color": "#1f2937"}, "align": "left"},
        "legend": {
            "title": {"text": legend_title},
            "itemsizing": "constant",
            "font": {"size": 11},
            "x": 1.01,
            "xanchor": "left",
            "y": 1,
            "yanchor": "top",
        },
        "uirevision": view,  # Plotly keeps the user's zoom and pan while this stays the same
        "meta": {
            MAP_META: True,
            "view": view,
            "store": store,
            "labels": labels or [],
            "grid": [*explorer.extent[0], *explorer.extent[1], GRID_CELLS],  # the labels' occupied cells' grid
            "marker": size,  # px: a label keeps this far from its own papers
            **sampled,
        },
    }
    # Validating 20,000 points per trace costs more than building them; the structure above is fixed and tested.
    return go.Figure({"data": traces, "layout": layout}, _validate=False)


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
