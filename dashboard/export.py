"""The CSV download: which papers, which columns, and bytes safe to open in a spreadsheet (pure)."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_ENCODING = "utf-8-sig"  # the byte-order mark makes Excel read UTF-8 (accents, CJK) correctly


def export_frame(papers: pd.DataFrame, topics: pd.DataFrame, metadata_columns: list[str]) -> pd.DataFrame:
    """The export's rows and columns: paper_id, title, topic_id, topic_label, keywords, confidence, abstract, metadata.

    `topics` needs `topic_id` and `top_keywords` (the topic's best keywords joined with "; ").
    """
    keywords = papers["topic_id"].map(dict(zip(topics["topic_id"], topics["top_keywords"], strict=True)))
    frame = papers[["paper_id", "title", "topic_id", "topic_label"]].copy()
    frame["keywords"] = keywords.fillna("").to_numpy()
    frame["confidence"] = papers["confidence"].to_numpy()
    frame["abstract"] = papers["abstract"].to_numpy()
    for column in metadata_columns:
        frame[unclashing(column, frame.columns)] = papers[column].to_numpy()
    return frame.reset_index(drop=True)


def unclashing(name: str, taken: Iterable[str]) -> str:
    """`name`, or `name (metadata)` when a column of that name exists already (e.g. a 'keywords' column)."""
    return f"{name} (metadata)" if name in set(taken) else name


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """Prefix a quote to text cells a spreadsheet would run as a formula (=, +, -, @, tab, CR)."""
    frame = frame.copy()
    for column in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[column]) or pd.api.types.is_bool_dtype(frame[column]):
            continue
        frame[column] = frame[column].map(_neutralise)
    return frame


def _neutralise(value: object) -> object:
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """The frame as UTF-8 CSV (with a byte-order mark), formulas neutralised."""
    buffer = io.BytesIO()
    neutralise_formulas(frame).to_csv(buffer, index=False, encoding=CSV_ENCODING, lineterminator="\n")
    return buffer.getvalue()


def download_label(n_selected: int, n_shown: int) -> str:
    """Says what the button exports: the selection when there is one, else every shown paper."""
    if n_selected:
        return f"Download {n_selected:,} selected paper{'s' if n_selected != 1 else ''} (CSV)"
    if n_shown == 1:
        return "Download the 1 shown paper (CSV)"
    return f"Download all {n_shown:,} shown papers (CSV)"


def file_name(build_name: str) -> str:
    """A safe file name that names the build, e.g. 'my-build-papers.csv'."""
    slug = re.sub(r"[^a-z0-9]+", "-", build_name.lower()).strip("-") or "topic-explorer"
    return f"{slug}-papers.csv"
