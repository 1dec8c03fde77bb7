"""Metadata types: CSV cells become numbers only when nothing is lost; JSON and Parquet keep their own types."""

from __future__ import annotations

import datetime

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from topic_explorer.pipeline.buildfolder.metadata import (
    as_type,
    json_text,
    merged_type,
    number_text,
    summarise,
    typed_json_column,
    typed_parquet_column,
    typed_text_column,
    value_text,
)


def cells(*values: str | None) -> pd.Series:
    return pd.Series([np.nan if v is None else v for v in values], dtype="str")


@pytest.mark.parametrize(
    ("column", "why"),
    [
        (["2601.14530", "2510.1647"], "a trailing zero would be lost"),
        (["007", "12"], "a leading zero would be lost"),
        (["02134", "10001"], "a zip code"),
        (["1.10", "1.9"], "a version string"),
        (["1e5", "2"], "scientific notation"),
        (["1E5", "2"], "scientific notation"),
        (["12345678901234567890", "1"], "beyond 64-bit integers"),
        (["9007199254740993", "0.5"], "a whole number a float cannot hold next to a decimal"),
        (["0.1000000000000000055511151231257827", "1.5"], "more digits than a float keeps"),
        (["-0", "3"], "negative zero"),
        (["+5", "3"], "an explicit plus sign"),
        ([" 5", "3"], "a leading space"),
        (["5 ", "3"], "a trailing space"),
        (["1_000", "3"], "a digit separator"),
        (["1,000", "3"], "a thousands separator"),
        (["٣", "3"], "a non-ASCII digit"),
        (["nan", "3"], "the text nan"),
        (["inf", "3"], "the text inf"),
        (["10.1000/182", "10.1038/nphys1170"], "DOIs"),
    ],
)
def test_a_csv_column_stays_text_when_a_number_would_change_it(column, why):
    typed = typed_text_column(cells(*column))
    assert typed.tolist() == column, why


def test_a_csv_column_of_whole_numbers_becomes_integers_and_keeps_its_gaps():
    typed = typed_text_column(cells("2024", None, "-7", "0", "9223372036854775807"))
    assert str(typed.dtype) == "Int64"
    assert typed.tolist() == [2024, pd.NA, -7, 0, 9223372036854775807]


def test_a_csv_column_of_exact_decimals_becomes_floats():
    typed = typed_text_column(cells("0.1", "2.5", "3", None, "-0.0001", "100.0"))
    assert typed.dtype == np.float64
    assert typed.tolist()[:3] == [0.1, 2.5, 3.0]
    assert np.isnan(typed[3])
    assert typed.tolist()[4:] == [-0.0001, 100.0]


def test_empty_csv_cells_are_missing_not_nan_text_or_zero():
    assert typed_text_column(cells("a", None)).tolist() == ["a", None]
    assert typed_text_column(cells(None, None)).tolist() == [None, None]


@given(st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False, allow_infinity=False)))
def test_a_number_written_by_number_text_reads_back_as_the_same_number(number):
    text = number_text(number)
    assert "e" not in text.lower()
    typed = typed_text_column(cells(text))
    assert typed.tolist() == [number]
    assert type(typed.tolist()[0]) is type(number)


@given(st.text(alphabet="0123456789.-+e ", max_size=12))
def test_a_csv_cell_becomes_a_number_only_if_that_number_prints_back_as_the_cell(cell):
    value = typed_text_column(cells(cell or None)).tolist()[0]
    if isinstance(value, int | float) and value is not None:
        assert number_text(value) in (cell, f"{cell}.0")  # "3" may sit in a decimal column as 3.0
    else:
        assert value == (cell or None)


def test_json_strings_stay_strings_and_numbers_stay_numbers():
    assert typed_json_column(pd.Series(["2601.14530", "007", None], dtype=object)).tolist() == [
        "2601.14530",
        "007",
        None,
    ]
    years = typed_json_column(pd.Series([2024, None, 2026], dtype=object))
    assert str(years.dtype) == "Int64"
    assert years.tolist() == [2024, pd.NA, 2026]
    scores = typed_json_column(pd.Series([1, 2.5], dtype=object))
    assert scores.dtype == np.float64
    assert scores.tolist() == [1.0, 2.5]
    flags = typed_json_column(pd.Series([True, None, False], dtype=object))
    assert str(flags.dtype) == "boolean"
    assert flags.tolist() == [True, pd.NA, False]


def test_a_json_column_mixing_strings_with_other_values_is_text_with_those_values_as_json():
    mixed = typed_json_column(pd.Series(["a", 5, 2.5, True, None, ["x"], {"k": 1}, ""], dtype=object))
    assert mixed.tolist() == ["a", "5", "2.5", "true", None, '["x"]', '{"k": 1}', None]


def test_json_integers_beyond_64_bits_are_kept_digit_for_digit_as_text():
    assert typed_json_column(pd.Series([2**70, 1], dtype=object)).tolist() == [str(2**70), "1"]


def test_lists_and_objects_become_their_json_text_in_every_format():
    assert json_text(["a", "ü"]) == '["a", "ü"]'
    assert typed_json_column(pd.Series([["a", "b"], None], dtype=object)).tolist() == ['["a", "b"]', None]
    arrays = pd.Series([np.array(["a", "b"], dtype=object), None, np.array([1, 2])], dtype=object)
    assert typed_parquet_column(arrays).tolist()[::2] == ['["a", "b"]', "[1, 2]"]


def test_parquet_keeps_its_types_and_only_empty_text_becomes_missing():
    ints = pd.Series(pd.array([1, None], dtype="Int64"))
    assert typed_parquet_column(ints) is ints
    stamps = pd.Series(pd.to_datetime(["2024-01-05", "2025-02-01"]))
    assert typed_parquet_column(stamps) is stamps
    texts = typed_parquet_column(pd.Series(["007", "", None], dtype="str"))
    assert texts.tolist()[0] == "007"
    assert texts.isna().tolist() == [False, True, True]


def merged(*files: pd.Series) -> list[pd.Series]:
    dtype = merged_type(summarise(values) for values in files)
    return [as_type(values, dtype) for values in files]


def test_columns_merged_from_several_files_keep_a_shared_type_or_become_text():
    ints = pd.Series(pd.array([5, None], dtype="Int64"))
    empty = pd.Series([None, None], dtype=object)  # a file without the column
    first, second = merged(ints, empty)
    assert str(first.dtype) == str(second.dtype) == "Int64"
    assert second.isna().all()
    flags = merged(pd.Series(pd.array([True, None], dtype="boolean")), empty)
    assert str(flags[0].dtype) == "boolean"
    texts = merged(pd.Series(pd.array([2024], dtype="Int64")), pd.Series(["2601.14530", None], dtype=object))
    assert texts[0].tolist() == ["2024"]
    assert texts[1].tolist() == ["2601.14530", None]
    mixed = merged(pd.Series(pd.array([3], dtype="Int64")), pd.Series([0.5], dtype="float64"))
    assert [str(m.dtype) for m in mixed] == ["float64", "float64"]
    assert mixed[0].tolist() == [3.0]
    huge = merged(pd.Series(pd.array([2**60], dtype="Int64")), pd.Series([0.5], dtype="float64"))
    assert huge[0].tolist() == [str(2**60)]  # a float would round it: text keeps it exactly


def test_a_parquet_type_survives_when_every_file_has_it():
    stamps = pd.Series(pd.to_datetime(["2024-01-05", "2025-02-01"]))
    same = merged(stamps, stamps.iloc[:1])
    assert str(same[0].dtype) == str(stamps.dtype)
    other = merged(stamps, pd.Series(["soon"], dtype=object))
    assert other[0].tolist() == ["2024-01-05T00:00:00", "2025-02-01T00:00:00"]


def test_every_value_has_one_text_form():
    assert value_text(np.int64(7)) == "7"
    assert value_text(1e-7) == "0.0000001"
    assert value_text(3.0) == "3.0"
    assert value_text(True) == "true"
    assert value_text(pd.NA) is None
    assert value_text("") is None
    assert value_text(datetime.date(2024, 1, 5)) == "2024-01-05"
    assert value_text(pd.Timestamp("2024-01-05T10:00")) == "2024-01-05T10:00:00"
    assert value_text({"a": [1]}) == '{"a": [1]}'
