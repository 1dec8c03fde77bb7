"""One export, whoever asks: the formats, chosen by name or by a file's extension.

The dashboard's downloads and `topic-explorer export` both call `export_bytes` on a `Selection`
(`pipeline.export.selection.select`), so a format's bytes are made by one function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.export.bibtex import bibtex_bytes
from topic_explorer.pipeline.export.files import csv_bytes, jsonl_bytes, parquet_bytes, xlsx_bytes
from topic_explorer.pipeline.export.mappage import map_page_bytes
from topic_explorer.pipeline.export.ris import ris_bytes
from topic_explorer.pipeline.export.selection import Selection


@dataclass(frozen=True)
class ExportFormat:
    """A file format the papers can be exported in."""

    label: str  # as the user picks it
    extension: str
    mime: str
    write: Callable[[Selection], bytes]


def _table(write: Callable[[pd.DataFrame], bytes]) -> Callable[[Selection], bytes]:
    return lambda selection: write(selection.frame)


TABLE_WRITERS: dict[str, Callable[[pd.DataFrame], bytes]] = {  # the formats that write `export_frame` as it is
    "csv": csv_bytes,
    "xlsx": xlsx_bytes,
    "parquet": parquet_bytes,
    "jsonl": jsonl_bytes,
}


def _formats() -> dict[str, ExportFormat]:
    spreadsheet = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    return {
        "csv": ExportFormat("CSV", "csv", "text/csv", _table(csv_bytes)),
        "xlsx": ExportFormat("Excel", "xlsx", spreadsheet, _table(xlsx_bytes)),
        "parquet": ExportFormat("Parquet", "parquet", "application/vnd.apache.parquet", _table(parquet_bytes)),
        "jsonl": ExportFormat("JSON Lines", "jsonl", "application/jsonl", _table(jsonl_bytes)),
        "bib": ExportFormat("BibTeX", "bib", "application/x-bibtex", bibtex_bytes),
        "ris": ExportFormat("RIS", "ris", "application/x-research-info-systems", ris_bytes),
        "html": ExportFormat("Map (HTML)", "html", "text/html", map_page_bytes),
    }


EXPORT_FORMATS = _formats()
DEFAULT_FORMAT = "csv"


def format_of(path: Path) -> ExportFormat:
    """The format a file name asks for, by its extension; a `UserError` listing the extensions otherwise."""
    extension = Path(path).suffix.lower().lstrip(".")
    if extension not in EXPORT_FORMATS:
        known = ", ".join(f".{e}" for e in EXPORT_FORMATS)
        raise UserError(f"{path}: cannot tell the format from {extension or 'no extension'!r}; end the name in {known}")
    return EXPORT_FORMATS[extension]


def export_bytes(selection: Selection, export: ExportFormat) -> bytes:
    """The file's bytes; a `UserError` when there is no paper to export."""
    if not len(selection.frame):
        raise UserError("no papers to export; choose another topic or query")
    return export.write(selection)
