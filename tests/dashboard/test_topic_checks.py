"""The Topic quality tab questions the topics a reader would, relative to the build's own topics, with the reason:
papers that fit a topic loosely, keywords that do not hold together, two topics that read as one."""

from __future__ import annotations

import numpy as np
import pandas as pd

from topic_explorer.dashboard.logic.topic_quality import topic_checks, topic_table


def build(confidence: list[float], coherence: list[float], shared: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Topics 0..n-1 of 10 papers each; topic 1 shares `shared` of its top keywords with topic 0."""
    n = len(confidence)
    keywords = [[f"t{t}w{i}" for i in range(10)] for t in range(n)]
    keywords[1][:shared] = keywords[0][:shared]
    topics = pd.DataFrame(
        {"topic_id": range(n), "label": [f"Topic {t}" for t in range(n)], "keywords": keywords,
         "size": [10] * n, "coherence": coherence}
    )  # fmt: skip
    papers = pd.DataFrame({"topic_id": np.repeat(range(n), 10), "confidence": np.repeat(confidence, 10)})
    return topics, papers


def test_a_topic_whose_papers_fit_it_far_worse_than_the_others_is_questioned_first():
    topics, papers = build([0.8, 0.82, 0.79, 0.81, 0.5, 0.8], [0.2] * 6)
    table = topic_table(topics, papers)
    assert table.loc[0, "topic"] == "Topic 4"
    assert table.loc[0, "rating"] == "fits poorly"
    assert "median confidence 0.50 against 0.80" in table.loc[0, "why"]


def test_a_build_where_every_topic_fits_loosely_questions_none_for_it():
    topics, papers = build([0.5, 0.52, 0.49, 0.51, 0.5, 0.5], [0.2] * 6)  # relative to the corpus, not absolute
    assert not any(topic_checks(topics, papers).values())


def test_keywords_far_less_coherent_than_the_builds_others_are_questioned():
    topics, papers = build([0.8] * 6, [0.3, 0.31, 0.29, 0.3, 0.05, 0.32])
    checks = topic_checks(topics, papers)
    assert [rating for rating, _ in checks[4]] == ["words apart"]
    assert not checks[0]


def test_two_topics_sharing_half_their_keywords_read_as_one_both_named():
    topics, papers = build([0.8] * 6, [0.3] * 6, shared=6)
    table = topic_table(topics, papers).set_index("topic")
    assert table.loc["Topic 0", "rating"] == table.loc["Topic 1", "rating"] == "reads as one"
    assert table.loc["Topic 0", "why"] == "shares 6 of its 10 top keywords with “Topic 1”"
    assert table.loc["Topic 2", "rating"] == "good"


def test_every_reason_is_listed():
    topics, papers = build([0.8, 0.5, 0.79, 0.81, 0.8, 0.8], [0.3, 0.05, 0.3, 0.31, 0.29, 0.3], shared=5)
    why = topic_table(topics, papers).set_index("topic").loc["Topic 1", "why"]
    assert why.count("; ") == 2  # reads as one, fits poorly, words apart


def test_the_quality_tab_lists_the_questioned_topic_first_with_its_reason(run_app, tmp_path):
    from tests.dashboard.tinybuild import tiny_papers
    from topic_explorer.pipeline.buildfolder.write import write_build

    papers = pd.concat([tiny_papers()] * 3, ignore_index=True)
    papers["paper_id"] = [f"p{i:012x}" for i in range(len(papers))]
    papers["topic_id"] = np.repeat(range(6), 4)
    papers["topic_label"] = [f"Topic {t}" for t in papers["topic_id"]]
    papers["confidence"] = np.where(papers["topic_id"] == 3, 0.4, 0.85)
    topics, _ = build([0.85] * 6, [0.3] * 6)
    topics = topics.assign(size=4, keyword_weights=[[1.0] * 10] * 6, named=False)
    out = write_build(tmp_path / "six", papers, topics, np.zeros((len(papers), 2), "float32"), {})
    at = run_app(out)
    table = next(d.value for d in at.dataframe if "why" in d.value.columns)
    table = getattr(table, "data", table)  # a styled table
    assert table["topic"].iloc[0] == "Topic 3"
    assert table["rating"].iloc[0] == "fits poorly"
    assert "median confidence 0.40 against 0.85" in table["why"].iloc[0]
