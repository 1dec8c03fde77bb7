"""One selection of papers from the map and the table, kept as paper_ids so it survives filtering (pure).

Widget selections are fragile: a table selection is a list of row *positions* that Streamlit keeps
across reruns even when the rows change, and a Plotly selection is dropped whenever the figure
changes. So the page keeps its own state, `committed`, the one truth:

- a map selection is added to it once, when it arrives (selections add up);
- the table is drawn with the selected papers ticked (its only tick column), so it is the truth for the
  rows it shows: ticking or unticking a row selects or drops that paper, whoever selected it;
- when the selection changes any other way (the map, a button), `table_generation` is bumped, giving the table a
  new key and so a fresh widget ticked from `committed`; when the filters change (or the user clears),
  `generation` is bumped too, which gives the map a fresh, empty selection as well.

A map of many papers draws only a sample of them, so a box or a lasso is also read as a region:
every shown paper inside it counts, drawn or not (`ids_in_regions`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np


@dataclass(frozen=True)
class SelectionState:
    """What the page remembers between reruns."""

    committed: frozenset[str] = frozenset()
    generation: int = 0  # the map's widget: bumped when the filters change or the selection is cleared
    table_generation: int = 0  # the table's widget: bumped too whenever the selection changes outside the table
    shown_ids: tuple[str, ...] = ()  # the table's paper_ids, in row order, as last shown
    filters: Hashable | None = None  # the filters the table was last shown with
    map_seen: str | None = None  # the map selection folded in last (a selection is added once)


def map_key(generation: int) -> str:
    """The map widget's key; a new generation means a fresh, empty widget."""
    return f"map-{generation}"


def table_key(generation: int) -> str:
    """The table widget's key; a new generation means a fresh, empty widget."""
    return f"table-{generation}"


def ids_from_map_event(event: Mapping[str, Any] | None) -> set[str]:
    """paper_ids of the points in a Plotly selection event (customdata holds the paper_id)."""
    points = _selection(event).get("points") or []
    ids = set()
    for point in points:
        data = point.get("customdata") if isinstance(point, Mapping) else None
        if isinstance(data, list | tuple):
            data = data[0] if data else None
        if isinstance(data, str):
            ids.add(data)
    return ids


def ids_from_table_event(event: Mapping[str, Any] | None, shown_ids: tuple[str, ...]) -> set[str]:
    """paper_ids of the selected table rows; positions the table no longer has are ignored."""
    rows = _selection(event).get("rows") or []
    return {shown_ids[r] for r in rows if isinstance(r, int) and 0 <= r < len(shown_ids)}


def ids_in_regions(
    event: Mapping[str, Any] | None, x: np.ndarray, y: np.ndarray, ids: np.ndarray, candidates: np.ndarray
) -> set[str]:
    """paper_ids of the `candidates` (a mask over every paper) inside the event's boxes and lassos.

    `x`, `y` and `ids` hold every paper's map position and paper_id; a region without usable numbers is ignored.
    """
    selection = _selection(event)
    inside = np.zeros(len(x), dtype=bool)
    for box in selection.get("box") or []:
        xs, ys = _numbers(box, "x"), _numbers(box, "y")
        if len(xs) == 2 and len(ys) == 2:
            inside |= (x >= xs.min()) & (x <= xs.max()) & (y >= ys.min()) & (y <= ys.max())
    for lasso in selection.get("lasso") or []:
        xs, ys = _numbers(lasso, "x"), _numbers(lasso, "y")
        if len(xs) >= 3 and len(xs) == len(ys):
            inside |= in_polygon(x, y, xs, ys)
    return set(ids[inside & candidates].tolist())


def in_polygon(x: np.ndarray, y: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Which points (`x`, `y`) lie inside the closed polygon with vertices (`xs`, `ys`) (even-odd rule)."""
    inside = np.zeros(len(x), dtype=bool)
    near = np.flatnonzero((x >= xs.min()) & (x <= xs.max()) & (y >= ys.min()) & (y <= ys.max()))
    px, py = x[near].astype(float), y[near].astype(float)
    crossings = np.zeros(len(near), dtype=bool)
    for x1, y1, x2, y2 in zip(xs, ys, np.roll(xs, -1), np.roll(ys, -1), strict=True):
        if y1 == y2:
            continue
        straddles = (y1 > py) != (y2 > py)
        crossings ^= straddles & (px < x1 + (py - y1) * (x2 - x1) / (y2 - y1))
    inside[near] = crossings
    return inside


def _numbers(region: object, axis: str) -> np.ndarray:
    values = region.get(axis) if isinstance(region, Mapping) else None
    if not isinstance(values, list | tuple) or not all(isinstance(v, int | float) for v in values):
        return np.zeros(0)
    numbers = np.asarray(values, dtype=float)
    return numbers if np.isfinite(numbers).all() else np.zeros(0)


def _selection(event: Mapping[str, Any] | None) -> Mapping[str, Any]:
    selection = event.get("selection") if isinstance(event, Mapping) else None
    return selection if isinstance(selection, Mapping) else {}


def advance(
    state: SelectionState, map_ids: Iterable[str], table_ids: Iterable[str] | None, filters: Hashable
) -> tuple[SelectionState, frozenset[str]]:
    """Fold this rerun's widget selections into the state; returns the new state and the whole selection.

    `table_ids` are the ticked rows of the table last drawn (None: no table yet); they replace whatever the
    selection held among the rows it showed. `map_ids` (a new map selection only) are added. When `filters`
    differ from the previous rerun's, both widgets are renewed; when the map added papers, the table is.
    """
    committed = state.committed
    if table_ids is not None:
        committed = (committed - frozenset(state.shown_ids)) | frozenset(table_ids)
    grown = bool(frozenset(map_ids) - committed)
    committed = committed | frozenset(map_ids)
    if state.filters is not None and filters != state.filters:
        renewed = {"generation": state.generation + 1, "table_generation": state.table_generation + 1}
        return replace(state, committed=committed, filters=filters, **renewed), committed
    table_generation = state.table_generation + 1 if grown else state.table_generation
    return replace(state, committed=committed, table_generation=table_generation, filters=filters), committed


def added(state: SelectionState, ids: Iterable[str]) -> SelectionState:
    """The selection with `ids` added (from a button rather than a widget): the table is drawn afresh, ticked."""
    return replace(state, committed=state.committed | frozenset(ids), table_generation=state.table_generation + 1)


def cleared(state: SelectionState) -> SelectionState:
    """Nothing selected, and fresh widgets so their old selections do not come back."""
    return replace(
        state, committed=frozenset(), generation=state.generation + 1, table_generation=state.table_generation + 1
    )


def shown(state: SelectionState, ids: Iterable[str]) -> SelectionState:
    """Remember which paper_ids the table shows, row by row, to read its next selection against."""
    return replace(state, shown_ids=tuple(ids))


def map_signature(event: Mapping[str, Any] | None) -> str | None:
    """Names a map selection (its points, boxes and lassos), to fold each one in once; None: no selection."""
    selection = _selection(event)
    if not selection.get("points") and not selection.get("box") and not selection.get("lasso"):
        return None
    return repr((selection.get("points"), selection.get("box"), selection.get("lasso")))
