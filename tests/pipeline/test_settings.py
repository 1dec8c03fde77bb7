"""Build settings that are more than a value: the corpus's title when none is given."""

from __future__ import annotations

import pytest

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.settings import BuildSettings, default_title


@pytest.mark.parametrize(
    ("inputs", "title"),
    [
        (["/data/ml_venues_by_field.jsonl.gz"], "ML venues by field"),
        (["x/arxiv_2024_2026_part1.jsonl.gz", "x/arxiv_2024_2026_part2.jsonl.gz"], "Arxiv 2024 2026"),
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
