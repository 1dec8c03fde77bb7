"""The page's view as URL query parameters, so a copied link opens the same view (pure, no Streamlit).

A view is what the user chose: topics, word filter, search and its relevance bar,
metadata filters, the level of detail and the paper being read. `encode` writes only what differs
from the defaults; `decode` reads a link back leniently: an unknown topic, a value outside a column's
range, a malformed number or an option the build lacks is dropped, never an error, since links are
typed, cut and pasted by people.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from topic_explorer.dashboard.logic.filters import ColumnFilter

METADATA_PREFIX = "f."
RANGE_SEPARATOR = ".."
OLD_WORDS = "search"  # the word filter's parameter in links made before it was named `words`; still read
RELEVANCE_STEP = 0.05  # the relevance bar's slider moves in these steps; a link's bar is rounded to them


def relevance_bar(value: object) -> float | None:
    """A relevance bar read from a link: a number from 0 to 1 on the slider's steps (None when it is not one)."""
    try:
        bar = float(str(value).strip())
    except ValueError:
        return None
    if not 0 <= bar <= 1:  # NaN too
        return None
    return round(round(bar / RELEVANCE_STEP) * RELEVANCE_STEP, 2)


@dataclass(frozen=True)
class View:
    """Everything a link restores. `topics` are topic ids (whatever the level); `level` counts from the broadest."""

    topics: tuple[int, ...] = ()
    words: str = ""  # the word filter as typed
    about: str = ""  # the search's query
    relevance: float | None = None  # the search's relevance bar; None: the build's default (`search.default_relevance`)
    level: int | None = None  # None: the finest level
    paper: str | None = None
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    dates: dict[str, tuple[str, str]] = field(default_factory=dict)
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)


def encode(view: View) -> dict[str, str]:
    """Query parameters for `view`, leaving out what is at its default."""
    params: dict[str, str] = {}
    if view.topics:
        params["topics"] = ",".join(str(t) for t in view.topics)
    for name in ("words", "about", "paper"):
        if getattr(view, name):
            params[name] = str(getattr(view, name))
    if view.about and view.relevance is not None:
        params["relevance"] = f"{view.relevance:g}"
    if view.level is not None:
        params["detail"] = str(view.level)
    for column, (low, high) in view.ranges.items():
        params[METADATA_PREFIX + column] = f"{_number(low)}{RANGE_SEPARATOR}{_number(high)}"
    for column, (first, last) in view.dates.items():
        params[METADATA_PREFIX + column] = f"{first}{RANGE_SEPARATOR}{last}"
    for column, chosen in view.choices.items():
        params[METADATA_PREFIX + column] = json.dumps(list(chosen), ensure_ascii=False)
    return params


def decode(
    params: Mapping[str, str],
    *,
    topic_ids: set[int],
    n_levels: int,
    specs: tuple[ColumnFilter, ...],
) -> View:
    """The view a link describes, keeping only what this build can show."""
    topics = tuple(sorted({t for t in (_int(p) for p in str(params.get("topics", "")).split(",")) if t in topic_ids}))
    level = _int(params.get("detail"))
    ranges, dates, choices = {}, {}, {}
    for spec in specs:
        value = params.get(METADATA_PREFIX + spec.column)
        if value is None:
            continue
        if spec.kind == "range":
            bounds = _pair(value, float)
            if bounds and spec.bounds[0] <= bounds[0] <= bounds[1] <= spec.bounds[1]:
                ranges[spec.column] = bounds
        elif spec.kind == "dates":
            days = _pair(value, lambda d: datetime.date.fromisoformat(d).isoformat())
            if days and spec.bounds[0] <= days[0] <= days[1] <= spec.bounds[1]:
                dates[spec.column] = days
        else:
            chosen = tuple(v for v in _list(value) if v in spec.options)
            if chosen:
                choices[spec.column] = chosen
    return View(
        topics=topics,
        words=str(params.get("words", params.get(OLD_WORDS, ""))),
        about=str(params.get("about", "")),
        relevance=relevance_bar(params.get("relevance", "")),
        level=level if level is not None and 0 <= level < n_levels else None,
        paper=str(params["paper"]) if params.get("paper") else None,
        ranges=ranges,
        dates=dates,
        choices=choices,
    )


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _int(text: object) -> int | None:
    try:
        return int(str(text).strip())
    except ValueError:
        return None


def _pair(text: str, parse) -> tuple | None:
    low, separator, high = str(text).partition(RANGE_SEPARATOR)
    try:
        pair = (parse(low), parse(high)) if separator else None
    except ValueError:
        return None
    return pair if pair and pair[0] == pair[0] and pair[1] == pair[1] else None  # NaN is no bound


def _list(text: str) -> list[str]:
    try:
        values = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return []
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []
