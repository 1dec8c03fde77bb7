"""Build settings: the corpus's title when none is given, and every rule a setting is checked against."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.settings import BuildSettings, default_cache_dir, default_title


@pytest.mark.parametrize(
    ("inputs", "title"),
    [
        (["/data/ml_venues_by_field.jsonl.gz"], "ML venues by field"),
        (["x/arxiv_2024_2026_part1.jsonl.gz", "x/arxiv_2024_2026_part2.jsonl.gz"], "arXiv 2024 2026"),
        (["arxiv-3k.jsonl"], "arXiv 3k"),
        (["PubMed-2024.csv", "biorxiv_neuro.csv"], "PubMed 2024, bioRxiv neuro"),
        (["papers.csv", "nlp-talks.parquet"], "Papers, NLP talks"),
        ([], "NeurIPS 2025 sample"),
    ],
)
def test_a_build_without_a_title_is_named_from_its_files_never_its_folder(inputs, title):
    assert default_title(inputs) == title


def test_a_given_title_is_kept_on_one_line_and_a_blank_one_refused():
    assert BuildSettings(title="  ICLR\n 2025 ").title == "ICLR 2025"
    with pytest.raises(UserError, match="--title is empty"):
        BuildSettings(title=" ")


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"title": "x" * 201}, "--title has 201 characters; keep it to at most 200"),
        ({"seed": -1}, "--seed=-1 should be between 0 and 4294967295"),
        ({"seed": 2**32}, "--seed=4294967296 should be between 0 and 4294967295"),
        ({"embedder": "bert"}, "--embedder 'bert' is unknown; use one of minilm, tfidf"),
        ({"min_topic_size": 1}, "--min-topic-size=1 should be at least 2"),
        ({"named_topic_threshold": 0.0}, "--named-topic-threshold=0.0 should be above 0 and at most 5"),
        ({"named_topic_threshold": 5.5}, "--named-topic-threshold=5.5 should be above 0 and at most 5"),
        ({"fit_sample": 9}, "--fit-sample=9 should be at least 10"),
        ({"device": "tpu"}, "--device 'tpu' is unknown; use one of auto, cpu, cuda, mps"),
        ({"precision": "fp16"}, "--precision 'fp16' is unknown; use one of fp32, bf16"),
        ({"batch_size": 0}, "--batch-size=0 should be at least 1"),
        ({"keywords_per_topic": 0}, "--keywords-per-topic=0 should be at least 1"),
        ({"named_topics": ("RLHF", "  ")}, "--topics got an empty name"),
    ],
)
def test_a_setting_out_of_bounds_is_refused_with_its_value_and_the_rule(setting, message):
    with pytest.raises(UserError, match=re.escape(message)):
        BuildSettings(**setting)


def test_the_bounds_themselves_are_allowed():
    """The bounds in the messages above are inclusive where they say "at least" or "at most"."""
    edge = BuildSettings(
        title="x" * 200, seed=2**32 - 1, min_topic_size=2, named_topic_threshold=5.0, fit_sample=10, batch_size=1,
        keywords_per_topic=1,
    )  # fmt: skip
    assert (edge.seed, edge.min_topic_size, edge.fit_sample) == (2**32 - 1, 2, 10)
    assert BuildSettings(seed=0).seed == 0


def test_the_tests_cache_in_a_temporary_folder_never_the_home_folder():
    """tests/conftest.py's autouse fixture: a test run leaves ~/.cache/topic-explorer untouched."""
    assert not BuildSettings().cache_dir.is_relative_to(Path.home())
    assert not default_cache_dir().is_relative_to(Path.home())


@pytest.mark.skipif(sys.platform != "linux", reason="macOS and Windows have cache folders of their own")
def test_the_default_cache_is_the_users_cache_folder_so_existing_caches_stay_found(monkeypatch, tmp_path):
    """platformdirs' folder: on Linux ~/.cache/topic-explorer, where it always was, or under $XDG_CACHE_HOME."""
    monkeypatch.delenv("TOPIC_EXPLORER_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / ".cache" / "topic-explorer"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "topic-explorer"
    monkeypatch.setenv("TOPIC_EXPLORER_CACHE", str(tmp_path / "mine"))
    assert BuildSettings().cache_dir == tmp_path / "mine"
