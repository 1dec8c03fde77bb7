"""The quality tab's figures and per-topic table."""

from __future__ import annotations

import math

from topic_explorer.dashboard.logic.topic_quality import headline_figures, provenance_line, topic_table, verdict


def test_headline_figures_format_the_manifests_quality_block():
    figures = headline_figures(
        {
            "coherence_npmi": 0.1957,
            "diversity": 0.82,
            "poorly_fitting_share": 0.05,
            "topic_sizes": {"smallest": 3, "median": 4.0, "largest": 10},
        }
    )
    assert [(f.name, f.value) for f in figures] == [
        ("Coherence (NPMI)", "0.20"),
        ("Diversity", "82%"),
        ("Poorly fitting", "5%"),
        ("Topic sizes", "3 / 4 / 10"),
    ]
    assert all(f.meaning for f in figures)


def test_missing_or_undefined_figures_show_na():
    figures = headline_figures({"coherence_npmi": math.nan})
    assert {f.value for f in figures} == {"n/a", "n/a / n/a / n/a"}


def test_verdicts_follow_the_coherence_thresholds():
    assert [verdict(v) for v in (-0.2, 0.05, 0.3, math.nan)] == ["weak", "fair", "good", "n/a"]


def test_topics_are_listed_weakest_first_unscored_last(tiny):
    table = topic_table(tiny.topics)
    assert table["topic"].tolist() == ["Graphs", "Federated, privacy", "Rewards"]
    assert table["rating"].tolist() == ["weak", "good", "n/a"]
    assert table.loc[0, "keywords"].startswith("kw1-0, kw1-1")


def test_outlier_topic_is_left_out_of_the_quality_table(tiny):
    with_outliers = tiny.topics.assign(topic_id=[-1, 1, 2])
    assert "Federated, privacy" not in topic_table(with_outliers)["topic"].tolist()


def test_build_summary_names_date_size_and_embedder():
    manifest = {"created_at": "2026-12-02T12:31:47", "counts": {"papers": 38}, "embedder": {"name": "m"}, "seed": 1}
    assert provenance_line(manifest) == "Built 2026-12-02 · 38 papers · embedder m · seed 1"
