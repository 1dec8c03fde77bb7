"""The quality tab's figures and per-topic table."""

from __future__ import annotations

import math

import pandas as pd

from topic_explorer.dashboard.logic.topic_quality import headline_figures, provenance_line, rating, topic_table, verdict


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
    assert [verdict(v) for v in (-0.2, 0.05, 0.3, math.nan)] == ["incoherent", "fair", "good", "n/a"]


def test_topics_are_listed_weakest_first_unscored_last(tiny):
    table = topic_table(tiny.topics)
    assert table["topic"].tolist() == ["Graphs", "Federated, privacy", "Rewards"]
    assert table["rating"].tolist() == ["incoherent", "good", "n/a"]
    assert table.loc[0, "keywords"].startswith("kw1-0, kw1-1")


def test_outlier_topic_is_left_out_of_the_quality_table(tiny):
    with_outliers = tiny.topics.assign(topic_id=[-1, 1, 2])
    assert "Federated, privacy" not in topic_table(with_outliers)["topic"].tolist()


def test_build_summary_names_date_size_and_how_papers_were_compared_never_the_embedders_internal_name():
    manifest = {
        "created_at": "2026-12-02T12:31:47",
        "counts": {"papers": 38},
        "embedder": {"name": "all-MiniLM-L6-v2/windows128x16", "kind": "minilm"},
        "seed": 1,
    }
    line = provenance_line(manifest)
    assert line == "Built 2026-12-02 · 38 papers · papers compared by meaning (the MiniLM language model) · seed 1"
    tfidf = provenance_line({**manifest, "embedder": {"name": "tfidf-svd", "kind": "tfidf"}})
    assert "shared words (TF-IDF)" in tfidf
    assert "tfidf-svd" not in tfidf


def test_a_topic_far_bigger_than_its_share_is_flagged_catch_all_and_listed_first(tiny):
    sizes = [3, 3, 3, 3, 3, 40]
    topics = pd.DataFrame(
        {
            "topic_id": range(6),
            "label": [f"t{i}" for i in range(6)],
            "size": sizes,
            "coherence": [0.3, 0.2, -0.1, 0.15, 0.12, 0.4],  # the giant one has the best coherence of all
            "keywords": [["a", "b"]] * 6,
        }
    )
    table = topic_table(topics)
    assert table["topic"].tolist()[:2] == ["t5", "t2"]
    assert table["rating"].tolist()[:2] == ["catch-all", "incoherent"]
    assert "13× the median" in table.loc[0, "why"]
    assert set(table["rating"].tolist()[2:]) <= {"fair", "good"}


def test_a_big_topic_of_a_tiny_corpus_is_no_catch_all():
    rated, _ = rating(size=5, median=1, n_papers=1000, coherence=0.2)
    assert rated == "good"  # five times the median, but half a percent of the papers
