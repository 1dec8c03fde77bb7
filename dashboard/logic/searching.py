"""What a search shows and says: the papers above the relevance bar, and counts that agree with the filters (pure)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from topic_explorer.dashboard.logic.safetext import shorten
from topic_explorer.pipeline.search.ranked import relevant

QUERY_CHARS = 60  # a query is shortened to this many characters where the page names it


@dataclass(frozen=True)
class Found:
    """A search's matches among the papers the filters keep: rows best first, their scores, and what was asked."""

    rows: np.ndarray  # int64 row positions, best first (fused score)
    scores: np.ndarray  # float32: meaning and words fused, the order (1: first by both)
    relevance: np.ndarray  # float32: each match's meaning similarity, what the bar is on
    bar: float  # the relevance bar the matches reach
    best: float | None  # the highest relevance among the papers the filters keep (None: the filters keep none)
    kept: int  # papers the filters keep: the ones searched


def find(scores: np.ndarray, relevance: np.ndarray, bar: float, passing: np.ndarray) -> Found:
    """Every paper passing the filters whose relevance reaches `bar`, best first; never a fixed number of them."""
    ranked = relevant(scores, relevance, bar, passing)
    kept = int(passing.sum())
    best = float(relevance[passing].max()) if kept else None
    return Found(ranked.rows, ranked.scores, relevance[ranked.rows].astype(np.float32), bar, best, kept)


def status_note(n_shown: int, n_total: int, n_selected: int, n_hidden: int, found: Found | None = None) -> str:
    """The status line: "Showing N of M papers", M being what the filters keep while a search ranks them."""
    if found is None:
        note = f"**Showing {n_shown:,} of {n_total:,} papers**"
    else:
        kept = f" (the filters keep {found.kept:,} of {n_total:,})" if found.kept < n_total else ""
        note = f"**Showing {n_shown:,} of {found.kept:,} papers**{kept} · search on"
    note += f" · {n_selected:,} selected"
    if n_hidden:
        note += f" (+{n_hidden:,} hidden by the filters)"
    return note


def search_line(about: str, found: Found) -> str:
    """One line naming the query and what it found, or that nothing reaches the bar (plain text, not Markdown)."""
    query = shorten(about, QUERY_CHARS)
    if not found.kept:
        return f"Search: no paper passes the other filters, so nothing to search for “{query}”."
    if not len(found.rows):
        return (
            f"No good matches for “{query}”: no paper reaches relevance {found.bar:.2f} "
            f"(the best is {found.best:.2f}); lower the bar or reword the search."
        )
    n = len(found.rows)
    return (
        f"Search: {n:,} {'paper reaches' if n == 1 else 'papers reach'} relevance {found.bar:.2f} for “{query}” "
        f"(up to {float(found.relevance.max()):.2f}), best first; the other papers that pass the filters are grey."
    )
