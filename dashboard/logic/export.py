"""The download: which papers, which columns, in which file format, under which name (pure)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from topic_explorer.dashboard.logic.export_files import csv_bytes, jsonl_bytes, parquet_bytes, xlsx_bytes
from topic_explorer.pipeline.buildfolder.exchange import BROADER_COLUMN, EXPORT_COLUMNS, export_name


@dataclass(frozen=True)
class ExportFormat:
    """A file format the papers can be downloaded in."""

    label: str  # as the user picks it
    extension: str
    mime: str
    write: Callable[[pd.DataFrame], bytes]


EXPORT_FORMATS = {
    "csv": ExportFormat("CSV", "csv", "text/csv", csv_bytes),
    "xlsx": ExportFormat(
        "Excel", "xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", xlsx_bytes
    ),
    "parquet": ExportFormat("Parquet", "parquet", "application/vnd.apache.parquet", parquet_bytes),
    "jsonl": ExportFormat("JSON Lines", "jsonl", "application/jsonl", jsonl_bytes),
}
DEFAULT_FORMAT = "csv"


def export_frame(
    papers: pd.DataFrame, topics: pd.DataFrame, metadata_columns: list[str], broader: dict[int, str] | None = None
) -> pd.DataFrame:
    """The export's rows and columns: paper_id, title, topic_id, topic_label, keywords, confidence, abstract,
    then `broader_topic` when `broader` maps topic ids to their broader theme's label, then the metadata.

    `topics` needs `topic_id` and `top_keywords` (the topic's best keywords joined with "; ").
    """
    keywords = papers["topic_id"].map(dict(zip(topics["topic_id"], topics["top_keywords"], strict=True)))
    own = {column: papers[column].array for column in EXPORT_COLUMNS if column != "keywords"}
    frame = pd.DataFrame({column: own.get(column, keywords.fillna("").array) for column in EXPORT_COLUMNS})
    if broader is not None:
        frame[BROADER_COLUMN] = papers["topic_id"].map(broader).fillna("").array
    for column in metadata_columns:
        frame[export_name(column)] = papers[column].array
    return frame.reset_index(drop=True)


def download_label(n_selected: int, n_shown: int, format_label: str) -> str:
    """Says what the button exports: the selection when there is one, else every shown paper."""
    if n_selected:
        return f"Download {n_selected:,} selected paper{'s' if n_selected != 1 else ''} ({format_label})"
    if n_shown == 1:
        return f"Download the 1 shown paper ({format_label})"
    return f"Download all {n_shown:,} shown papers ({format_label})"


def file_name(build_name: str, extension: str) -> str:
    """A safe file name that names the build, e.g. 'my-build-papers.csv'."""
    slug = re.sub(r"[^a-z0-9]+", "-", build_name.lower()).strip("-") or "topic-explorer"
    return f"{slug}-papers.{extension}"
