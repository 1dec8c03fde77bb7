"""The map and keyword figures, their colours, and the escaping of untrusted text in them."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest

from topic_explorer.dashboard.logic.figures import keyword_figure, map_figure
from topic_explorer.dashboard.logic.safetext import column_title, escape_markdown, hover_html, preview
from topic_explorer.pipeline.map.sample import MAP_POINTS_ENV, MAX_DRAWN, drawn_rows, map_points
from topic_explorer.pipeline.view.palette import CALM_10, OUTLIER_COLOUR, spread_colours, topic_colours


def everything(tiny) -> np.ndarray:
    return np.ones(len(tiny.papers), dtype=bool)


def nothing(tiny) -> np.ndarray:
    return np.zeros(len(tiny.papers), dtype=bool)


def test_one_webgl_trace_per_topic_carrying_paper_ids(tiny):
    figure = map_figure(tiny, everything(tiny), nothing(tiny))
    assert [trace.type for trace in figure.data] == ["scattergl"] * 3
    ids = [i for trace in figure.data for i in trace.customdata]
    assert sorted(ids) == sorted(tiny.papers["paper_id"])
    assert figure.data[0].name == "Federated, privacy (3)"


def test_filtering_drops_points_but_not_the_axis_ranges(tiny):
    full = map_figure(tiny, everything(tiny), nothing(tiny))
    shown = (tiny.papers["topic_id"] == 2).to_numpy()
    filtered = map_figure(tiny, shown, nothing(tiny))
    assert len(filtered.data) == 1
    assert len(filtered.data[0].x) == 2
    assert filtered.layout.xaxis.range == full.layout.xaxis.range
    assert filtered.layout.yaxis.range == full.layout.yaxis.range


def test_the_fixed_ranges_cover_every_paper(tiny):
    figure = map_figure(tiny, everything(tiny), nothing(tiny))
    (x0, x1), (y0, y1) = figure.layout.xaxis.range, figure.layout.yaxis.range
    assert x0 < tiny.papers["x"].min()
    assert tiny.papers["x"].max() < x1
    assert y0 < tiny.papers["y"].min()
    assert tiny.papers["y"].max() < y1


def test_selected_papers_get_a_ringed_overlay_only_where_shown(tiny):
    selected = nothing(tiny)
    selected[[0, 4]] = True
    shown = (tiny.papers["topic_id"] != 2).to_numpy()  # paper 4 is hidden by the filters
    ring = map_figure(tiny, shown, selected).data[-1]
    assert ring.name == "Selected (1)"
    assert list(ring.customdata) == ["p000000000000"]
    assert ring.marker.line.width > 0


def test_hover_text_shows_html_as_text_never_as_markup(tiny):
    figure = map_figure(tiny, everything(tiny), nothing(tiny))
    hover = "".join(text for trace in figure.data for text in trace.hovertext)
    assert "<script>" not in hover
    assert "<b>bold</b>" not in hover
    assert "&lt;script&gt;alert('x')&lt;/script&gt;" in hover


def test_hover_has_title_topic_and_an_abstract_preview():
    text = hover_html("A <title>", "Topic & co", preview("word " * 100))
    lines = text.split("<br>")
    assert lines[0] == "<b>A &lt;title&gt;</b>"
    assert lines[1] == "<i>Topic &amp; co</i>"
    assert text.endswith("…")
    assert len(text.replace("<br>", " ")) < 300


def test_preview_cuts_at_a_word_boundary():
    assert preview("short text") == "short text"
    cut = preview("alpha beta gamma delta", limit=12)
    assert cut == "alpha beta…"


def test_markdown_escaping_leaves_no_unescaped_punctuation():
    assert escape_markdown("*JME* <b>x</b>") == "\\*JME\\* \\<b\\>x\\<\\/b\\>"


def test_topic_labels_are_escaped_in_the_legend(tiny):
    evil = tiny.__class__(**{**tiny.__dict__, "topics": tiny.topics.assign(label=["<i>x</i>", "b", "c"])})
    figure = map_figure(evil, everything(tiny), nothing(tiny))
    assert figure.data[0].name.startswith("&lt;i&gt;x&lt;/i&gt;")
    assert not figure.layout.annotations  # labels are placed in the browser, as text (dashboard/maplabels.js)


def test_the_view_name_keeps_the_zoom_and_context_papers_are_grey_and_unselectable(tiny):
    context = nothing(tiny)
    context[[1, 2]] = True
    shown = ~context
    figure = map_figure(tiny, shown, nothing(tiny), context=context, labels=[{"t": "x"}], view="v-3")
    assert figure.layout.uirevision == "v-3"
    assert figure.layout.meta["view"] == "v-3"
    assert figure.layout.meta["labels"] == [{"t": "x"}]
    grey = figure.data[0]
    assert grey.name == "Other papers (2)"
    assert grey.customdata is None
    assert len(grey.x) == 2


def test_keyword_bars_show_the_top_ten_best_first_at_the_top():
    figure = keyword_figure([f"k{i}" for i in range(25)], [1 - i / 25 for i in range(25)], "#123456")
    bar = figure.data[0]
    assert bar.orientation == "h"
    assert list(bar.y) == [f"k{i}" for i in range(10)]
    assert figure.layout.yaxis.autorange == "reversed"


@pytest.mark.parametrize("n", [8, 60])
def test_topic_colours_are_distinct(n):
    colours = topic_colours(range(n))
    assert len(set(colours.values())) == n
    assert all(c.startswith("#") and len(c) == 7 for c in colours.values())


def test_a_few_topics_get_the_calm_palette_and_outliers_grey():
    colours = topic_colours([-1, 0, 1, 2])
    assert colours[-1] == OUTLIER_COLOUR
    assert [colours[t] for t in (0, 1, 2)] == list(CALM_10[:3])


def test_spread_colours_neighbours_differ_in_hue():
    first, second = spread_colours(30)[:2]
    assert first != second


def test_the_unvalidated_map_figure_is_valid_plotly_and_serialises(tiny):
    selected = nothing(tiny)
    selected[:2] = True
    figure = map_figure(tiny, everything(tiny), selected)
    go.Figure(figure.to_dict())  # full validation, skipped at run time for speed
    assert '"scattergl"' in plotly.io.to_json(figure, validate=False)


def test_column_titles_read_like_words_and_keep_deliberate_capitals():
    assert column_title("source_file") == "Source file"
    assert column_title("year") == "Year"
    assert column_title("DOI") == "DOI"
    assert column_title("arXiv-id") == "arXiv id"
    assert column_title("arxiv_id") == "arXiv ID"
    assert column_title("doi") == "DOI"
    assert column_title("pdf_url") == "Pdf URL"


def test_a_big_map_draws_a_fixed_sample_and_says_how_many_of_how_many(tiny):
    figure = map_figure(tiny, everything(tiny), nothing(tiny), max_drawn=3)
    drawn = [i for trace in figure.data for i in trace.customdata]
    assert len(drawn) == 3
    assert set(drawn) <= set(tiny.papers["paper_id"])
    assert figure.layout.meta["shown"] == 8
    assert figure.layout.meta["drawn"] == 3
    assert [trace.name for trace in figure.data] == ["Federated, privacy (3)", "Graphs (3)", "Rewards (2)"]
    again = map_figure(tiny, everything(tiny), nothing(tiny), max_drawn=3)
    assert [i for trace in again.data for i in trace.customdata] == drawn  # the same sample on every rerun


def test_the_sample_keeps_its_papers_when_the_filters_narrow(tiny):
    order = np.random.default_rng(3).permutation(1000)
    wide = np.random.default_rng(4).random(1000) < 0.8
    narrow = wide & (np.random.default_rng(5).random(1000) < 0.5)
    drawn_wide = drawn_rows(order, wide, 100)
    drawn_narrow = drawn_rows(order, narrow, 100)
    assert len(drawn_wide) == len(drawn_narrow) == 100
    assert set(drawn_wide[narrow[drawn_wide]]) <= set(drawn_narrow)
    assert np.array_equal(drawn_rows(order, narrow, 10_000), np.flatnonzero(narrow))  # under the limit: all


def test_a_sampled_map_rings_only_drawn_papers_but_counts_every_selected_one(tiny):
    figure = map_figure(tiny, everything(tiny), everything(tiny), max_drawn=3)
    ring = figure.data[-1]
    assert ring.name == "Selected (8)"
    assert len(ring.customdata) == 3


def test_search_context_fills_what_the_shown_papers_leave_of_the_sample(tiny):
    shown, context = nothing(tiny), everything(tiny)
    shown[[0, 1]] = True
    context[[0, 1]] = False
    figure = map_figure(tiny, shown, nothing(tiny), context=context, max_drawn=5)
    grey, *topics = figure.data
    assert len(grey.x) == 3
    assert sum(len(t.customdata) for t in topics) == 2
    assert grey.name == "Other papers (6)"  # the legend counts every context paper, drawn or not
    assert {k: figure.layout.meta[k] for k in ["shown", "drawn", "context", "context_drawn"]} == {
        "shown": 2, "drawn": 2, "context": 6, "context_drawn": 3
    }  # fmt: skip


def test_the_map_point_limit_comes_from_the_environment_when_it_is_a_whole_number(monkeypatch):
    monkeypatch.setenv(MAP_POINTS_ENV, "1234")
    assert map_points() == 1234
    for bad in ["0", "-5", "lots", "2.5", ""]:
        monkeypatch.setenv(MAP_POINTS_ENV, bad)
        assert map_points() == MAX_DRAWN
