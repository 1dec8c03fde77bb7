"""The paper table the dashboard exports, and how `build` reads it back without loss.

The export's first columns are the build's own (`EXPORT_COLUMNS`); the paper's metadata follows, a
metadata column whose name is taken getting a `METADATA_SUFFIX`. CSV text cells a spreadsheet could run
as a formula get one apostrophe in front (`guard`). `build` recognises an export by its first columns,
removes those apostrophes again (`unguard`), drops the columns the build computes afresh and gives the
metadata columns their own names back, so exporting and re-importing changes nothing.
"""

from __future__ import annotations

import pandas as pd

EXPORT_COLUMNS = ("paper_id", "title", "topic_id", "topic_label", "keywords", "confidence", "abstract")
COMPUTED_COLUMNS = ("paper_id", "topic_id", "topic_label", "keywords", "confidence")  # made again by `build`
BROADER_COLUMN = "broader_topic"  # after EXPORT_COLUMNS when the build has a topic tree: the topic's broader theme
METADATA_SUFFIX = " (metadata)"
# A cell starting with one of these, after any leading whitespace, is a formula in some spreadsheet;
# the full-width forms are folded into the ASCII ones by some spreadsheets' input methods.
FORMULA_CHARS = frozenset("=+-@＝＋－＠")
LINE_CONTROLS = frozenset("\t\r\n")  # a cell starting with one of these can be read as a formula too
GUARD = "'"


def export_name(column: str) -> str:
    """A metadata column's name in the export: `name`, or `name (metadata)` when the export uses `name`."""
    return f"{column}{METADATA_SUFFIX}" if _clashes(column) else column


def metadata_name(exported: str) -> str:
    """The metadata column `export_name` was given."""
    column = exported.removesuffix(METADATA_SUFFIX)
    return column if column != exported and _clashes(column) else exported


def _clashes(column: str) -> bool:
    return column in (*EXPORT_COLUMNS, BROADER_COLUMN) or column.endswith(METADATA_SUFFIX)


def needs_guard(text: str) -> bool:
    """A spreadsheet could run `text` as a formula, or it already starts with a guard that must survive."""
    if text[:1] in LINE_CONTROLS or text.lstrip()[:1] in FORMULA_CHARS:
        return True
    return text.startswith(GUARD) and needs_guard(text[1:])


def guard(text: str) -> str:
    """`text` with an apostrophe in front when a spreadsheet could run it; `unguard` undoes it exactly."""
    return GUARD + text if needs_guard(text) else text


def unguard(text: str) -> str:
    """The text `guard` was given: drops the apostrophe only where `guard` would have put one."""
    return text[1:] if text.startswith(GUARD) and needs_guard(text[1:]) else text


def is_export(columns: list[str]) -> bool:
    """A table whose first columns are those of Topic Explorer's export."""
    return tuple(str(c) for c in columns[: len(EXPORT_COLUMNS)]) == EXPORT_COLUMNS


def from_export(rows: pd.DataFrame, guarded: bool) -> pd.DataFrame:
    """An export's rows as the papers and metadata that went into it (`guarded`: CSV text, apostrophes added)."""
    if guarded:
        rows = rows.rename(columns=unguard)
        rows = rows.apply(lambda column: column.map(lambda cell: unguard(cell) if isinstance(cell, str) else cell))
    computed = [*COMPUTED_COLUMNS, *([BROADER_COLUMN] if BROADER_COLUMN in rows.columns else [])]
    metadata = {column: metadata_name(column) for column in rows.columns[len(EXPORT_COLUMNS) :]}
    return rows.drop(columns=computed).rename(columns=metadata)
