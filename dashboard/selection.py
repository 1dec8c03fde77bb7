"""One selection of papers from the map and the table, kept as paper_ids so it survives filtering (pure).

Widget selections are fragile: a table selection is a list of row *positions* that Streamlit keeps
across reruns even when the rows change, and a Plotly selection is dropped whenever the figure
changes. So the page keeps its own state:

- map selections are added to `committed` as soon as they arrive (selections add up);
- table rows count while their table is unchanged: they are read against the ids the table showed;
- when the filters change (or the user clears), the table's rows are committed (or dropped) and
  `generation` is bumped, which gives both widgets new keys and so fresh, empty selections.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class SelectionState:
    """What the page remembers between reruns."""

    committed: frozenset[str] = frozenset()
    generation: int = 0
    shown_ids: tuple[str, ...] = ()  # the table's paper_ids, in row order, as last shown
    filters: Hashable | None = None  # the filters the table was last shown with


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


def _selection(event: Mapping[str, Any] | None) -> Mapping[str, Any]:
    selection = event.get("selection") if isinstance(event, Mapping) else None
    return selection if isinstance(selection, Mapping) else {}


def advance(
    state: SelectionState, map_ids: Iterable[str], table_ids: Iterable[str], filters: Hashable
) -> tuple[SelectionState, frozenset[str]]:
    """Fold this rerun's widget selections into the state; returns the new state and the whole selection.

    When `filters` differ from the previous rerun's, the table rows are committed and the widgets reset.
    """
    committed = state.committed | frozenset(map_ids)
    selection = committed | frozenset(table_ids)
    if state.filters is not None and filters != state.filters:
        return replace(state, committed=selection, generation=state.generation + 1, filters=filters), selection
    return replace(state, committed=committed, filters=filters), selection


def added(state: SelectionState, ids: Iterable[str]) -> SelectionState:
    """The selection with `ids` added (from a button rather than a widget)."""
    return replace(state, committed=state.committed | frozenset(ids))


def cleared(state: SelectionState) -> SelectionState:
    """Nothing selected, and fresh widgets so their old selections do not come back."""
    return replace(state, committed=frozenset(), generation=state.generation + 1)


def shown(state: SelectionState, ids: Iterable[str]) -> SelectionState:
    """Remember which paper_ids the table shows, row by row, to read its next selection against."""
    return replace(state, shown_ids=tuple(ids))
