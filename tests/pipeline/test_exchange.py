"""The export's formula guard and its undoing on re-import: reversible, and never a formula."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from topic_explorer.pipeline.buildfolder.exchange import (
    EXPORT_COLUMNS,
    FORMULA_CHARS,
    export_name,
    from_export,
    guard,
    is_export,
    metadata_name,
    unguard,
)

HOSTILE = ["=1+1", "+1", "-1+1", "@SUM(A1)", "\t=1", "\r=1", "\n=1", "  =1+1", "＝1+1", "=cmd|' /C calc'!A0"]
tricky_text = st.text(alphabet=st.sampled_from([*"=+-@'＝ \t\r\nax1,\""]), max_size=8) | st.text(max_size=8)


@pytest.mark.parametrize("text", HOSTILE)
def test_texts_a_spreadsheet_could_run_get_an_apostrophe(text):
    assert guard(text) == "'" + text


@pytest.mark.parametrize("text", ["plain", "a=b", "x-1", "'90s", "", " leading space", "e-mail"])
def test_other_texts_are_left_alone(text):
    assert guard(text) == text


def test_an_apostrophe_the_text_already_had_before_a_formula_is_kept_by_a_second_one():
    assert guard("'=1") == "''=1"
    assert unguard("''=1") == "'=1"


@given(tricky_text)
def test_unguard_gives_back_exactly_what_guard_was_given(text):
    assert unguard(guard(text)) == text


@given(tricky_text)
def test_a_guarded_text_never_starts_like_a_formula(text):
    guarded = guard(text)
    assert guarded.lstrip()[:1] not in FORMULA_CHARS
    assert guarded[:1] not in {"\t", "\r", "\n"}


def test_metadata_names_the_export_uses_get_a_suffix_that_re_import_removes():
    for name in ["keywords", "title", "notes (metadata)", "venue"]:
        assert metadata_name(export_name(name)) == name
    assert export_name("keywords") == "keywords (metadata)"
    assert export_name("venue") == "venue"


def test_an_export_is_recognised_and_read_back_as_papers_and_metadata():
    rows = pd.DataFrame(
        {
            **{column: ["x"] for column in EXPORT_COLUMNS},
            "keywords (metadata)": ["'=mine"],
            "'=odd name": ["'-5"],
        }
    )
    assert is_export(list(rows.columns))
    assert not is_export(["title", "abstract"])
    back = from_export(rows, guarded=True)
    assert list(back.columns) == ["title", "abstract", "keywords", "=odd name"]
    assert back.iloc[0].tolist() == ["x", "x", "=mine", "-5"]
    assert from_export(rows, guarded=False)["keywords"].tolist() == ["'=mine"]
