"""Which metadata columns get a filter, and which papers pass the user's filters (pure, no Streamlit)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

MAX_CHOICES = 50


@dataclass(frozen=True)
class ColumnFilter:
    """The filter a metadata column gets: a range slider (numbers) or a multiselect (few distinct texts)."""

    column: str
    kind: Literal["range", "choice"]
    options: tuple[str, ...] = ()
    bounds: tuple[float, float] = (0.0, 0.0)
    integer: bool = False


@dataclass(frozen=True)
class Filters:
    """The user's filters; equal values mean the same papers pass. Empty fields filter nothing."""

    topics: tuple[int, ...] = ()
    search: tuple[str, ...] = ()
    ranges: tuple[tuple[str, tuple[float, float]], ...] = ()
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()


def column_filters(papers: pd.DataFrame, columns: list[str], max_choices: int = MAX_CHOICES) -> list[ColumnFilter]:
    """Filters for the metadata `columns` worth filtering; constant and high-cardinality text columns get none."""
    specs = []
    for column in columns:
        values = papers[column].dropna()
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            if values.nunique() < 2:
                continue
            integer = bool(np.all(np.mod(values.to_numpy(dtype=float), 1) == 0))
            bounds = (float(values.min()), float(values.max()))
            specs.append(ColumnFilter(column, "range", bounds=bounds, integer=integer))
        else:
            options = values.astype(str).unique()  # as text: also covers bools, dates and lists
            if 2 <= len(options) <= max_choices:
                specs.append(ColumnFilter(column, "choice", options=tuple(sorted(options))))
    return specs


def search_words(query: str) -> tuple[str, ...]:
    """Lowercase words of a search query; a paper must contain every one."""
    return tuple(dict.fromkeys(str(query).lower().split()))


def filter_mask(papers: pd.DataFrame, search: pd.Series, filters: Filters) -> np.ndarray:
    """Boolean mask of the papers passing every filter.

    `search` holds each paper's lowercase title and abstract. Rows with a missing value fail an active
    range or choice filter on that column.
    """
    mask = np.ones(len(papers), dtype=bool)
    if filters.topics:
        mask &= papers["topic_id"].isin(filters.topics).to_numpy()
    for word in filters.search:
        mask &= search.str.contains(word, regex=False).to_numpy(dtype=bool, na_value=False)
    for column, (low, high) in filters.ranges:
        values = pd.to_numeric(papers[column], errors="coerce").to_numpy(dtype=float)
        mask &= (values >= low) & (values <= high)
    for column, chosen in filters.choices:
        values = papers[column]
        mask &= values.notna().to_numpy() & values.astype(str).isin(chosen).to_numpy()
    return mask
