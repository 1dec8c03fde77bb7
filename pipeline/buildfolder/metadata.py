"""Metadata columns typed the way their source wrote them, so every value comes back exactly as it went in.

- CSV and TSV cells are text. A column becomes numbers only if every cell converts and converts back to
  the same text: "2024" is a number, "007", "1.10", "1e5" and "2601.14530" keep the column text.
- JSON values keep their JSON type: strings stay strings, numbers stay numbers, true/false stay booleans.
  A column mixing strings with other values is text; the other values are written as JSON ("5", "true").
- Parquet keeps its own types.
- In every format a list or an object becomes its JSON text ('["a", "b"]'), and an empty text or a null
  is a missing value.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import pandas as pd

INT64_RANGE = (-(2**63), 2**63 - 1)
EXACT_FLOAT_INT = 2**53  # whole numbers up to this size survive a trip through a float
_WHOLE = re.compile(r"0|-?[1-9][0-9]*")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")
NESTED = (list, tuple, dict, np.ndarray)
MERGE_DTYPES = {"Int64": "int", "float64": "float", "boolean": "bool"}  # typed columns, by the JSON kind they hold


def is_missing(value: object) -> bool:
    """A null, NaN, NA or empty text: the value is absent."""
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, str) and value == ""):
        return True
    return isinstance(value, float | np.floating) and bool(np.isnan(value))


def number_text(value: int | float) -> str:
    """A number's canonical text: every digit it needs, no exponent ("0.00001", "2601.1453", "3.0")."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return str(int(value))
    return np.format_float_positional(float(value), unique=True, trim="0")


def json_text(value: object) -> str:
    """The documented text form of a list or an object: compact JSON, non-ASCII kept ('["a", "b"]')."""
    return json.dumps(value, ensure_ascii=False, default=_jsonable)


def value_text(value: object) -> str | None:
    """Any metadata value as text (None when missing): text as is, numbers canonical, the rest as JSON."""
    if is_missing(value):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, int | float | np.integer | np.floating):
        return number_text(value)
    if isinstance(value, datetime.date | datetime.time):  # pd.Timestamp is a datetime.date too
        return value.isoformat()
    return json_text(value)


def typed_text_column(cells: pd.Series) -> pd.Series:
    """A CSV/TSV column: numbers when every cell round-trips through its number exactly, else text."""
    present = [cell for cell in cells if not is_missing(cell)]
    if present and all(_WHOLE.fullmatch(cell) and _in_int64(int(cell)) for cell in present):
        return _with_missing(cells, int, "Int64")
    if present and all(_exact_float(cell) for cell in present):
        return _with_missing(cells, float, "float64")
    return _text(cells)


def typed_json_column(values: pd.Series) -> pd.Series:
    """A JSON column: one JSON type throughout keeps it; strings mixed with anything else make it text."""
    present = [value for value in values if not is_missing(value)]
    kinds = {_json_kind(value) for value in present}
    if not kinds:
        return _text(values)
    if kinds == {"bool"}:
        return _with_missing(values, bool, "boolean")
    if kinds == {"int"} and all(_in_int64(value) for value in present):
        return _with_missing(values, int, "Int64")
    if kinds <= {"int", "float"} and all(_exact_as_float(value) for value in present):
        return _with_missing(values, float, "float64")
    return _text(values)


def typed_parquet_column(values: pd.Series) -> pd.Series:
    """A Parquet column keeps its type; only nested values become JSON text and empty texts missing."""
    if isinstance(values.dtype, pd.CategoricalDtype):  # a dictionary-encoded column: its values are what count
        values = values.astype(object)
    if values.dtype != object and not pd.api.types.is_string_dtype(values):
        return values
    return pd.Series([_flat_or_missing(value) for value in values], index=values.index, dtype=object)


@dataclass(frozen=True)
class ColumnSummary:
    """What decides a merged column's type, summed up from one file's typed column (small, and combinable)."""

    kinds: frozenset[str]  # JSON kinds of its present values: bool, int, float, text; or "native" (Parquet)
    largest_int: int = 0  # the largest whole number by size, to know whether floats hold every int exactly
    native: str | None = None  # a Parquet column's own dtype, kept when every file agrees


def summarise(values: pd.Series) -> ColumnSummary:
    """The summary of one file's column, as typed for its format."""
    dtype = values.dtype
    if not pd.api.types.is_object_dtype(dtype) and not pd.api.types.is_string_dtype(dtype):
        if str(dtype) in MERGE_DTYPES:
            kind = MERGE_DTYPES[str(dtype)]
            present = values.dropna()
            largest = int(present.abs().max()) if kind == "int" and len(present) else 0
            return ColumnSummary(frozenset([kind]) if len(present) else frozenset(), largest)
        return ColumnSummary(frozenset(["native"]) if values.notna().any() else frozenset(), native=str(dtype))
    present = [value for value in values if not is_missing(value)]
    ints = [abs(int(value)) for value in present if _json_kind(value) == "int"]
    return ColumnSummary(frozenset(_json_kind(value) for value in present), max(ints, default=0))


def merged_type(summaries: Iterable[ColumnSummary]) -> str:
    """The one type a column takes in the build: shared by every file, or text when they disagree.

    One JSON kind throughout keeps it (numbers beside a file's empty column stay numbers); whole numbers
    beside decimals become decimals when a float holds them exactly; anything else is text.
    """
    summaries = list(summaries)
    kinds = frozenset().union(*(summary.kinds for summary in summaries))
    natives = {summary.native for summary in summaries if summary.kinds}
    if kinds == {"native"} and len(natives) == 1:
        return natives.pop()
    if kinds == {"bool"}:
        return "boolean"
    if kinds == {"int"}:
        return "Int64"
    exact = max(s.largest_int for s in summaries) <= EXACT_FLOAT_INT  # a float holds every whole number
    if kinds == {"float"} or (kinds == {"int", "float"} and exact):
        return "float64"
    return "text"


def as_type(values: pd.Series, dtype: str) -> pd.Series:
    """`values` (one file's typed column) in the build's type for the column (`merged_type`)."""
    if str(values.dtype) == dtype:
        return values
    if dtype == "text":
        return _text(values)
    if dtype in ("boolean", "Int64", "float64"):
        convert = {"boolean": bool, "Int64": int, "float64": float}[dtype]
        return _with_missing(values, convert, dtype)
    return values.astype(dtype)  # a Parquet type: this file's column is empty


def _flat_or_missing(value: object) -> object:
    if isinstance(value, NESTED):
        return json_text(value)
    return None if is_missing(value) else value


def _in_int64(number: int) -> bool:
    return INT64_RANGE[0] <= number <= INT64_RANGE[1]


def _exact_float(cell: str) -> bool:
    """A decimal whose float prints back the same, or a whole number a float holds exactly."""
    if _WHOLE.fullmatch(cell):
        return abs(int(cell)) <= EXACT_FLOAT_INT
    if not _DECIMAL.fullmatch(cell):
        return False
    number = float(cell)
    return bool(np.isfinite(number)) and number_text(number) == cell


def _exact_as_float(value: int | float) -> bool:
    return abs(int(value)) <= EXACT_FLOAT_INT if isinstance(value, int | np.integer) else bool(np.isfinite(value))


def _json_kind(value: object) -> str:
    if isinstance(value, bool | np.bool_):
        return "bool"
    if isinstance(value, int | np.integer):
        return "int"
    if isinstance(value, float | np.floating):
        return "float"
    return "text"


def _with_missing(values: Iterable[object], convert: type, dtype: str) -> pd.Series:
    converted = [None if is_missing(value) else convert(value) for value in values]
    return pd.Series(pd.array(converted, dtype=dtype), index=getattr(values, "index", None))


def _text(values: pd.Series) -> pd.Series:
    return pd.Series([value_text(value) for value in values], index=values.index, dtype=object)


def _jsonable(value: object) -> object:
    """json.dumps' fallback for the values Parquet nests: numpy arrays and scalars, dates, decimals."""
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    raise TypeError(f"{type(value).__name__} has no JSON form")


def longest_text(values: pd.Series) -> tuple[int, int]:
    """The length of the longest text among `values` (other values count as 0) and its position."""
    if isinstance(values.dtype, pd.StringDtype):
        lengths = values.str.len().fillna(0)
    elif values.dtype == object:
        lengths = values.map(lambda v: len(v) if isinstance(v, str) else 0)
    else:
        return 0, 0
    if not len(lengths):
        return 0, 0
    row = int(lengths.to_numpy().argmax())
    return int(lengths.iloc[row]), row
