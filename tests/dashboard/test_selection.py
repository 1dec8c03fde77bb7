"""The one selection: map and table selections folded into paper_ids that survive filtering."""

from __future__ import annotations

from dashboard.filters import Filters
from dashboard.selection import (
    SelectionState,
    advance,
    cleared,
    ids_from_map_event,
    ids_from_table_event,
    map_key,
    shown,
    table_key,
)

SHOWN = ("a", "b", "c", "d")


def map_event(*points: dict) -> dict:
    return {"selection": {"points": list(points), "point_indices": [], "box": [], "lasso": []}}


def table_event(*rows: int) -> dict:
    return {"selection": {"rows": list(rows), "columns": [], "cells": []}}


def test_map_points_give_their_customdata_ids_whether_scalar_or_list():
    event = map_event({"customdata": "a"}, {"customdata": ["b"]}, {"x": 1}, {"customdata": []}, {"customdata": 3})
    assert ids_from_map_event(event) == {"a", "b"}


def test_missing_or_malformed_events_select_nothing():
    for event in (None, {}, {"selection": None}, {"selection": {}}, map_event(), "junk"):
        assert ids_from_map_event(event) == set()
        assert ids_from_table_event(event, SHOWN) == set()


def test_table_rows_are_read_against_the_ids_the_table_showed():
    assert ids_from_table_event(table_event(0, 2), SHOWN) == {"a", "c"}


def test_stale_table_positions_past_the_end_or_negative_are_ignored():
    assert ids_from_table_event(table_event(1, 4, 99, -1), SHOWN) == {"b"}
    assert ids_from_table_event(table_event(0, 1), ()) == set()


def test_map_selections_are_committed_at_once_and_add_up():
    state, selection = advance(SelectionState(), {"a"}, set(), Filters())
    state, selection = advance(state, {"b"}, set(), Filters())
    assert state.committed == {"a", "b"} and selection == {"a", "b"}
    assert state.generation == 0


def test_table_rows_count_but_stay_uncommitted_while_the_filters_stay():
    state, selection = advance(SelectionState(), set(), {"c"}, Filters())
    assert selection == {"c"} and state.committed == frozenset()
    _, selection = advance(state, set(), set(), Filters())  # the user unticked the row
    assert selection == frozenset()


def test_a_filter_change_commits_table_rows_and_resets_the_widgets():
    state, _ = advance(SelectionState(), {"a"}, set(), Filters())
    state, selection = advance(state, set(), {"c"}, Filters(topics=(1,)))
    assert state.committed == {"a", "c"} and selection == {"a", "c"}
    assert state.generation == 1
    assert map_key(state.generation) != map_key(0) and table_key(state.generation) != table_key(0)


def test_the_first_rerun_records_the_filters_without_resetting():
    state, _ = advance(SelectionState(), set(), set(), Filters(search=("x",)))
    assert state.generation == 0 and state.filters == Filters(search=("x",))


def test_clearing_forgets_everything_and_resets_the_widgets():
    state, _ = advance(SelectionState(), {"a", "b"}, set(), Filters())
    state = cleared(state)
    assert state.committed == frozenset() and state.generation == 1


def test_shown_ids_are_remembered_in_table_order():
    assert shown(SelectionState(), ["d", "a"]).shown_ids == ("d", "a")
