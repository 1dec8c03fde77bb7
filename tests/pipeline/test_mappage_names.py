"""The shared map page carries the dashboard's own names for its themes and topics, placed among their papers."""

from __future__ import annotations

import numpy as np

from tests.pipeline.test_mappage import build  # noqa: F401  (the module's fixture: a tiny build with a tree)
from topic_explorer.pipeline.export.mappage import NAME_CHARS, page_data
from topic_explorer.pipeline.export.selection import select
from topic_explorer.pipeline.view.levels import build_levels


def test_the_page_names_themes_first_then_topics_with_the_dashboards_names(build):  # noqa: F811
    names = page_data(select(build, np.arange(8)))["names"]
    levels = build_levels(build.papers, build.topics, build.hierarchy)
    kinds = [name["kind"] for name in names]
    assert kinds == sorted(kinds, key=["theme", "topic"].index)  # every theme before any topic
    themes = {name["text"] for name in names if name["kind"] == "theme"}
    topics = {name["text"] for name in names if name["kind"] == "topic"}
    assert themes == set(levels[0].topics["label"])
    assert topics == set(levels[-1].topics.loc[levels[-1].topics["topic_id"] != -1, "label"])


def test_each_name_sits_on_one_of_its_own_papers(build):  # noqa: F811
    data = page_data(select(build, np.arange(8)))
    papers = data["papers"]
    for name in data["names"]:
        at = [i for i in range(len(papers["x"])) if (papers["x"][i], papers["y"][i]) == (name["x"], name["y"])]
        assert at, name
        assert papers["topic"][at[0]] in name["topics"]


def test_a_long_name_is_cut_after_a_whole_word(build):  # noqa: F811
    renamed = build.topics.assign(label=["word " * 30, "Graphs", "Rewards"])
    from dataclasses import replace

    names = page_data(select(replace(build, topics=renamed), np.arange(8)))["names"]
    long = next(name["text"] for name in names if name["text"].startswith("word"))
    assert long.endswith(" …")
    assert len(long) <= NAME_CHARS + 2
