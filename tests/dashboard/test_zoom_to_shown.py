"""'Zoom to shown': when the filters leave part of the map, one click frames the papers they keep."""

from __future__ import annotations

import json

import numpy as np

from tests.dashboard.test_app import map_charts
from topic_explorer.dashboard.logic.data import load_explorer
from topic_explorer.dashboard.ui.explore import match_ranges
from topic_explorer.dashboard.ui.sidebar import TOPICS_KEY


def map_ranges(at) -> list:
    layout = json.loads(map_charts(at)[0].proto.spec)["layout"]
    return [layout["xaxis"]["range"], layout["yaxis"]["range"]]


def test_zoom_to_shown_frames_the_papers_the_filters_keep(run_app, tiny_build):
    at = run_app(tiny_build)
    assert not [b for b in at.button if b.key == "zoom-shown"]  # every paper shown: nothing to zoom to
    whole = map_ranges(at)
    at.multiselect(key=TOPICS_KEY).set_value([2]).run()
    at.button(key="zoom-shown").click().run()
    explorer = load_explorer(tiny_build)
    kept = explorer.papers["topic_id"].to_numpy() == 2
    x, y = explorer.papers["x"].to_numpy(), explorer.papers["y"].to_numpy()
    framed = [list(axis) for axis in match_ranges(x[kept], y[kept], explorer.extent)]
    assert np.allclose(map_ranges(at), framed)
    assert (framed[0][1] - framed[0][0]) < (whole[0][1] - whole[0][0])
    at.button(key="reset-view").click().run()
    assert np.allclose(map_ranges(at), whole)
