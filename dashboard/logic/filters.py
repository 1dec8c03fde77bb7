"""Which metadata columns get a filter, and which papers pass the user's filters (pure, no Streamlit).

The filter fits the column: numbers get a range; dates a date range; booleans and texts that repeat
(a venue, a category, even hundreds of them) a searchable multi-select. Identifiers, free text and
constant columns get none: the word filter finds identifiers.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.metadata import value_text
from topic_explorer.pipeline.view.identifiers import is_identifier

MAX_CHOICES = 1000  # a text column with more distinct values than this is free text, not categories
MIN_PAPERS_PER_CHOICE = 2  # categories repeat: values shared by fewer papers than this on average are free text
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")


@dataclass(frozen=True)
class ColumnFilter:
    """A metadata column's filter: a range slider (numbers), a date range (dates) or a multi-select (texts)."""

    column: str
    kind: Literal["range", "dates", "choice"]
    options: tuple[str, ...] = ()
    bounds: tuple = (0.0, 0.0)  # numbers for "range", ISO dates ("2024-01-31") for "dates"
    integer: bool = False


@dataclass(frozen=True)
class Filters:
    """The user's filters; equal values mean the same papers pass. Empty fields filter nothing."""

    topics: tuple[int, ...] = ()
    words: tuple[str, ...] = ()  # the word filter's lowercase words (`filter_words`)
    ranges: tuple[tuple[str, tuple[float, float]], ...] = ()
    dates: tuple[tuple[str, tuple[str, str]], ...] = ()
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()


def column_filters(papers: pd.DataFrame, columns: list[str]) -> list[ColumnFilter]:
    """The filter each metadata column gets, in column order; identifiers, free text and constants get none."""
    specs = []
    for column in columns:
        spec = _filter_for(column, papers[column])
        if spec is not None:
            specs.append(spec)
    return specs


def _filter_for(column: str, values: pd.Series) -> ColumnFilter | None:
    present = values.dropna()
    if present.empty or is_identifier(column, values):
        return None
    if pd.api.types.is_bool_dtype(present) or all(isinstance(v, bool | np.bool_) for v in present):
        return _choice(column, present)
    if pd.api.types.is_numeric_dtype(present):
        numbers = present.to_numpy(dtype=float)
        if len(np.unique(numbers)) < 2:
            return None
        integer = bool(np.all(np.mod(numbers, 1) == 0))
        return ColumnFilter(column, "range", bounds=(float(numbers.min()), float(numbers.max())), integer=integer)
    if _are_dates(present):
        days = day_numbers(present)
        low, high = days.min(), days.max()
        return ColumnFilter(column, "dates", bounds=(str(low), str(high))) if low < high else None
    return _choice(column, present)


def _choice(column: str, present: pd.Series) -> ColumnFilter | None:
    options = pd.unique(present.map(value_text).dropna())  # "" reads as missing: no option for it
    if 2 <= len(options) <= MAX_CHOICES and len(options) * MIN_PAPERS_PER_CHOICE <= len(present):
        return ColumnFilter(column, "choice", options=tuple(sorted(options, key=str.casefold)))
    return None


def _are_dates(present: pd.Series) -> bool:
    if pd.api.types.is_datetime64_any_dtype(present):
        return True
    return all(isinstance(v, datetime.date) or (isinstance(v, str) and _ISO_DATE.fullmatch(v)) for v in present)


def day_numbers(values: pd.Series) -> np.ndarray:
    """Dates, datetimes or ISO date texts as the day they name (datetime64[D]); NaT where missing or unreadable."""
    days = values.map(lambda value: (value_text(value) or "")[:10])  # the day as written, whatever the time zone
    return pd.to_datetime(days, format="%Y-%m-%d", errors="coerce").to_numpy().astype("datetime64[D]")


def filter_words(typed: str) -> tuple[str, ...]:
    """Lowercase words typed in the word filter; a paper must contain every one."""
    return tuple(dict.fromkeys(str(typed).lower().split()))


def filter_mask(papers: pd.DataFrame, word_text: pd.Series, filters: Filters) -> np.ndarray:
    """Boolean mask of the papers passing every filter.

    `word_text` holds each paper's lowercase title, abstract and identifiers. Rows with a missing value fail
    an active range, date or choice filter on that column.
    """
    mask = np.ones(len(papers), dtype=bool)
    if filters.topics:
        mask &= papers["topic_id"].isin(filters.topics).to_numpy()
    for word in filters.words:
        mask &= word_text.str.contains(word, regex=False).to_numpy(dtype=bool, na_value=False)
    for column, (low, high) in filters.ranges:
        values = pd.to_numeric(papers[column], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        mask &= (values >= low) & (values <= high)
    for column, (first, last) in filters.dates:
        days = day_numbers(papers[column])
        mask &= (days >= np.datetime64(first)) & (days <= np.datetime64(last))
    for column, chosen in filters.choices:
        mask &= papers[column].map(value_text).isin(chosen).to_numpy()
    return mask
