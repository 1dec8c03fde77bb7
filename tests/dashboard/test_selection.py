"""The one selection: map and table selections folded into paper_ids that survive filtering."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from topic_explorer.dashboard.logic.filters import Filters
from topic_explorer.dashboard.logic.selection import (
    SelectionState,
    added,
    advance,
    cleared,
    ids_from_map_event,
    ids_from_table_event,
    ids_in_regions,
    in_polygon,
    map_key,
    map_signature,
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


def test_map_selections_are_committed_at_once_add_up_and_renew_the_table():
    state, selection = advance(SelectionState(), {"a"}, None, Filters())
    state, selection = advance(state, {"b"}, None, Filters())
    assert state.committed == {"a", "b"}
    assert selection == {"a", "b"}
    assert state.generation == 0
    assert state.table_generation == 2  # drawn afresh, ticked, after each


def test_the_table_is_the_truth_for_the_rows_it_shows_whoever_selected_them():
    state, _ = advance(shown(SelectionState(), SHOWN), {"a"}, None, Filters())  # the map selected "a"
    state = shown(state, SHOWN)
    state, selection = advance(state, set(), {"a", "c"}, Filters())  # the table came ticked with "a"; "c" ticked
    assert selection == {"a", "c"}
    assert state.table_generation == 1  # a tick is no reason to redraw the table
    state, selection = advance(state, set(), {"c"}, Filters())  # "a" unticked: dropped, though the map chose it
    assert selection == {"c"}
    hidden = replace(state, committed=state.committed | {"z"})  # selected, but not among the table's rows
    assert advance(hidden, set(), set(), Filters())[1] == {"z"}


def test_a_filter_change_keeps_the_selection_and_renews_both_widgets():
    state, _ = advance(shown(SelectionState(), SHOWN), {"a"}, None, Filters())
    state, selection = advance(shown(state, SHOWN), set(), {"a", "c"}, Filters(topics=(1,)))
    assert state.committed == {"a", "c"}
    assert selection == {"a", "c"}
    assert state.generation == 1
    assert state.table_generation == 2
    assert map_key(state.generation) != map_key(0)
    assert table_key(state.table_generation) != table_key(1)


def test_the_first_rerun_records_the_filters_without_resetting():
    state, _ = advance(SelectionState(), set(), None, Filters(words=("x",)))
    assert state.generation == 0
    assert state.table_generation == 0
    assert state.filters == Filters(words=("x",))


def test_clearing_forgets_everything_and_resets_the_widgets():
    state, _ = advance(SelectionState(), {"a", "b"}, None, Filters())
    state = cleared(state)
    assert state.committed == frozenset()
    assert state.generation == 1
    assert state.table_generation == 2


def test_a_button_adds_papers_and_renews_the_table():
    state = added(SelectionState(committed=frozenset({"a"})), ["b"])
    assert state.committed == {"a", "b"}
    assert state.table_generation == 1
    assert state.generation == 0


def test_a_map_selection_is_named_by_its_points_and_regions_only():
    assert map_signature(None) is None
    assert map_signature(map_event()) is None
    one = map_signature(map_event({"customdata": "a"}))
    assert one == map_signature(map_event({"customdata": "a"})) != map_signature(map_event({"customdata": "b"}))


def test_shown_ids_are_remembered_in_table_order():
    assert shown(SelectionState(), ["d", "a"]).shown_ids == ("d", "a")


X = np.array([0.0, 1.0, 2.0, 3.0, 1.5])
Y = np.array([0.0, 1.0, 2.0, 3.0, 0.2])
IDS = np.array(["a", "b", "c", "d", "e"], dtype=object)
EVERY = np.ones(5, dtype=bool)


def region_event(box: list | None = None, lasso: list | None = None) -> dict:
    return {"selection": {"points": [], "point_indices": [], "box": box or [], "lasso": lasso or []}}


def test_a_box_holds_every_paper_inside_it_drawn_or_not():
    event = region_event(box=[{"xref": "x", "yref": "y", "x": [2.5, 0.5], "y": [0.5, 2.5]}])  # corners either way
    assert ids_in_regions(event, X, Y, IDS, EVERY) == {"b", "c"}


def test_only_candidate_papers_count_and_boxes_add_up():
    boxes = [{"x": [-1, 0.5], "y": [-1, 0.5]}, {"x": [2.5, 3.5], "y": [2.5, 3.5]}]
    assert ids_in_regions(region_event(box=boxes), X, Y, IDS, EVERY) == {"a", "d"}
    assert ids_in_regions(region_event(box=boxes), X, Y, IDS, np.array([0, 0, 0, 1, 1], dtype=bool)) == {"d"}


def test_a_lasso_holds_the_papers_inside_its_polygon():
    triangle = {"x": [-1, 4, -1], "y": [-1.5, 3.5, 3.5]}  # above the line y = x - 0.5
    assert ids_in_regions(region_event(lasso=[triangle]), X, Y, IDS, EVERY) == {"a", "b", "c", "d"}
    below = {"x": [0.5, 2.5, 2.5], "y": [0.0, 0.0, 1.0]}
    assert ids_in_regions(region_event(lasso=[below]), X, Y, IDS, EVERY) == {"e"}


def test_regions_without_usable_numbers_hold_nothing():
    for event in [None, {}, region_event(box=[{"x": [1], "y": [0, 1]}]), region_event(box=[{"x": ["a", 1]}]),
                  region_event(box=[{"x": [0, float("nan")], "y": [0, 1]}]), region_event(lasso=[{"x": [0, 1]}]),
                  {"selection": {"box": "nonsense", "lasso": [None, 3]}}]:  # fmt: skip
        assert ids_in_regions(event, X, Y, IDS, EVERY) == set()


def test_the_polygon_test_agrees_with_a_square():
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-1, 2, 2000), rng.uniform(-1, 2, 2000)
    inside = in_polygon(x, y, np.array([0.0, 1.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0, 1.0]))
    assert np.array_equal(inside, (x > 0) & (x < 1) & (y > 0) & (y < 1))
