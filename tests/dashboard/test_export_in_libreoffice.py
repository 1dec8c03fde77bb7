"""Every export format opened in a real spreadsheet (LibreOffice Calc, headless): no cell is ever a formula.

Hostile values sit in every text column (title, abstract, topic label, keywords, each metadata column):
formula starts (=, +, -, @), tab, CR and LF at the start or after a line break, a DDE payload, a
full-width equals sign and leading spaces. The CSV and Excel sheets must have exactly the exported rows
and columns, each cell showing the exported text; JSON Lines forced through Calc's text import must give
one row per paper; Calc does not open Parquet at all.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.dashboard.libreoffice import SOFFICE, TEXT_IMPORT, Cell, convert, sheet
from tests.dashboard.tinybuild import tiny_topics
from topic_explorer.pipeline.buildfolder.exchange import guard
from topic_explorer.pipeline.buildfolder.metadata import value_text
from topic_explorer.pipeline.export.formats import TABLE_WRITERS
from topic_explorer.pipeline.export.selection import export_frame

pytestmark = pytest.mark.spreadsheet

HOSTILE = [
    "=1+1",
    "+1+1",
    "-1+1",
    "@SUM(1,1)",
    "\t=1+1",
    "\r=1+1",
    "\n=1+1",
    "x\r=1+1",
    "x\n+1+1",
    "x\r\n-1+1",
    "x\n@SUM(1,1)",
    "x\n\t=1+1",
    "=cmd|' /C calc'!A0",
    "x,=cmd|' /C calc'!A0",
    "x\n=cmd|' /C calc'!A0",
    "＝1+1",
    "  =1+1",
    " @SUM(1,1)",
    "'=1+1",
    'a "quoted", comma; semicolon',
    "tab\there",
    "-5",
    "2601.14530",
]
TEXT_COLUMNS = ("title", "abstract", "topic_label", "keywords", "venue", "=cmd|' /C calc'!A0", "keywords (metadata)")


@pytest.fixture(scope="module")
def soffice() -> str:
    if not Path(SOFFICE).is_file():
        reason = f"no LibreOffice at {SOFFICE} (apt-get install libreoffice-calc-nogui, or set TOPIC_EXPLORER_SOFFICE)"
        if os.environ.get("TOPIC_EXPLORER_REQUIRE_BROWSER") == "1":
            pytest.fail(f"spreadsheet tests required but {reason}")
        pytest.skip(reason)
    return SOFFICE


def rotated(offset: int) -> list[str]:
    return HOSTILE[offset:] + HOSTILE[:offset]


@pytest.fixture(scope="module")
def exported() -> pd.DataFrame:
    """The export of papers with hostile values in every text column, numbers and a flag beside them."""
    n = len(HOSTILE)
    topic = np.arange(n) % 3
    topics = tiny_topics().assign(top_keywords=rotated(3)[:3])
    papers = pd.DataFrame(
        {
            "paper_id": [f"p{i:012x}" for i in range(n)],
            "title": rotated(0),
            "abstract": rotated(1),
            "topic_id": topic,
            "topic_label": [rotated(2)[t] for t in topic],
            "confidence": np.linspace(0.1, 0.9, n),
            "year": pd.array([2024, None, *([2025] * (n - 2))], dtype="Int64"),
            "venue": rotated(4),
            "=cmd|' /C calc'!A0": rotated(5),
            "keywords": rotated(6),
            "open": pd.array([True, None, *([False] * (n - 2))], dtype="boolean"),
        }
    )
    metadata = ["year", "venue", "=cmd|' /C calc'!A0", "keywords", "open"]
    frame = export_frame(papers, topics, metadata)
    frame["keywords"] = [rotated(3)[t] for t in topic]  # a hostile keyword line per topic
    return frame


@pytest.fixture(scope="module")
def sheets(soffice, exported, tmp_path_factory) -> dict[str, Path]:
    """Each format written and opened in Calc: CSV and JSON Lines through the text import, the rest as is."""
    folder = tmp_path_factory.mktemp("libreoffice")
    files = {}
    for key, write in TABLE_WRITERS.items():
        # Calc opens no .jsonl file; a user must rename it to .csv (or .txt) to reach the text import
        files[key] = folder / f"papers-{key}.{'csv' if key == 'jsonl' else key}"
        files[key].write_bytes(write(exported))
    profile = folder / "profile"  # its own profile, so it runs beside any other LibreOffice
    convert([files["csv"], files["jsonl"]], folder / "out", profile, infilter=TEXT_IMPORT)
    convert([files["xlsx"], files["parquet"]], folder / "out", profile)
    return {key: folder / "out" / f"{path.stem}.ods" for key, path in files.items()}


def xlsx_shown_text(value: object) -> str:
    """The text an Excel cell shows in Calc: the exported text, but Calc reads CR LF as one line break and
    drops a tab that starts a line after the first (the .xlsx file holds both exactly)."""
    return (value_text(value) or "").replace("\r\n", "\n").replace("\n\t", "\n")


def no_formulas(rows: list[list[Cell]]) -> list[str]:
    return [cell.formula for row in rows for cell in row if cell.formula]


def csv_shown_text(value: object) -> str:
    """The text a CSV cell shows in Calc: the exported (guarded) text, every line break a new line, and each
    line's ends trimmed of spaces and tabs (the text import's "trim spaces")."""
    lines = guard(value_text(value) or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.strip(" \t") for line in lines)


def test_the_csv_opens_with_the_exported_rows_and_columns_and_no_formula(sheets, exported):
    rows = sheet(sheets["csv"])
    assert no_formulas(rows) == []
    assert len(rows) == 1 + len(exported)
    assert [cell.text for cell in rows[0]] == [guard(name) for name in exported.columns]
    for column in TEXT_COLUMNS:
        index = list(exported.columns).index(column)
        cells = [row[index] for row in rows[1:]]
        assert all(cell.kind == "string" for cell in cells if cell.text != "2601.1453"), column
        expected = [csv_shown_text(v) for v in exported[column]]
        assert [cell.text for cell in cells] == [
            "2601.1453" if e == "2601.14530" else e
            for e in expected  # Calc reads this quoted text as a number
        ], column


def test_numbers_and_flags_in_the_csv_are_numbers_and_text_in_calc(sheets, exported):
    rows = sheet(sheets["csv"])
    year = list(exported.columns).index("year")
    assert [row[year].kind if year < len(row) else "" for row in rows[1:4]] == ["float", "", "float"]
    assert rows[1][year].text == "2024"


def test_the_excel_file_opens_with_every_text_unchanged_in_text_cells(sheets, exported):
    rows = sheet(sheets["xlsx"])
    assert no_formulas(rows) == []
    assert len(rows) == 1 + len(exported)
    assert [cell.text for cell in rows[0]] == list(exported.columns)
    for column in TEXT_COLUMNS:
        index = list(exported.columns).index(column)
        cells = [row[index] for row in rows[1:]]
        assert [cell.kind for cell in cells] == ["string"] * len(cells), column
        assert [cell.text for cell in cells] == [xlsx_shown_text(v) for v in exported[column]], column


def test_json_lines_forced_through_calcs_text_import_give_one_row_per_paper_and_no_formula(sheets, exported):
    rows = sheet(sheets["jsonl"])
    assert no_formulas(rows) == []
    assert len(rows) == len(exported)


def test_calc_does_not_open_parquet_so_nothing_in_it_can_run(sheets):
    assert not sheets["parquet"].exists()
