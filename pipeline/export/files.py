"""The exported table as the bytes of each file format; each safe to open in a spreadsheet (pure).

- CSV: every text cell quoted (so a CR, LF, tab, quote or comma inside it never splits a row or a cell),
  numbers unquoted and written out in full; a text cell a spreadsheet could run as a formula gets an
  apostrophe in front (`pipeline.buildfolder.exchange.guard`; `build` removes it again).
- Excel: every text is a text cell (never a formula) in a column formatted as text; nothing is changed.
  Booleans are the texts "true" and "false" (Calc turns Excel's boolean cells into TRUE() formulas).
- Parquet: the build's own types and values, unchanged; spreadsheets do not open it.
- JSON Lines: the exact values; a formula character where a spreadsheet cell could start is written as a
  JSON escape (`\\u003d` for `=`), which every JSON reader decodes back to the same text.
"""

from __future__ import annotations

import io
import json
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.exchange import FORMULA_CHARS, guard
from topic_explorer.pipeline.buildfolder.metadata import is_missing, number_text, value_text

CSV_ENCODING = "utf-8-sig"  # the byte-order mark makes Excel read UTF-8 (accents, CJK) correctly
CSV_ROW_END = "\r\n"
EXCEL_SHEET = "papers"
EXCEL_EXACT_DIGITS = 15  # Excel shows whole numbers with more digits rounded: those go out as text
_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
_FORMULA_START = re.compile(f"(?<!\\w)[{re.escape(''.join(sorted(FORMULA_CHARS)))}]")


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """RFC 4180 CSV in UTF-8 with a byte-order mark: text quoted and guarded, numbers exact and unquoted.

    Written by hand because Python's csv module quotes a field only for its own delimiter, quote and
    line-ending characters (a lone CR or a tab goes out bare) and prints small floats with an exponent.
    """
    header = ",".join(_quoted(guard(str(name))) for name in frame.columns)
    columns = [_csv_cells(frame[name]) for name in frame.columns]
    lines = [header, *(",".join(cells) for cells in zip(*columns, strict=True))]
    return (CSV_ROW_END.join(lines) + CSV_ROW_END).encode(CSV_ENCODING)


def _csv_cells(values: pd.Series) -> list[str]:
    if _is_number_column(values):
        return ["" if is_missing(value) else number_text(value) for value in values]
    texts = (value_text(value) for value in values)
    return ["" if text is None else _quoted(guard(text)) for text in texts]


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def xlsx_bytes(frame: pd.DataFrame) -> bytes:
    """An Excel workbook: numbers as numbers, everything else as text cells in text-formatted columns."""
    import xlsxwriter

    options = {"constant_memory": True, "strings_to_numbers": False, "strings_to_formulas": False}
    with tempfile.TemporaryDirectory(prefix="topic-explorer-xlsx-") as folder:
        path = Path(folder) / "papers.xlsx"
        workbook = xlsxwriter.Workbook(str(path), {**options, "strings_to_urls": False})
        sheet = workbook.add_worksheet(EXCEL_SHEET)
        as_text = workbook.add_format({"num_format": "@"})
        kinds = ["number" if _is_number_column(frame[name]) else "text" for name in frame.columns]
        for column, (name, kind) in enumerate(zip(frame.columns, kinds, strict=True)):
            sheet.set_column(column, column, 40 if kind == "text" else 12, as_text if kind == "text" else None)
            sheet.write_string(0, column, str(name), as_text)
        for row, values in enumerate(frame.itertuples(index=False, name=None), start=1):
            for column, (value, kind) in enumerate(zip(values, kinds, strict=True)):
                _write_excel_cell(sheet, row, column, value, kind, as_text)
        workbook.close()
        return path.read_bytes()


def _write_excel_cell(sheet: object, row: int, column: int, value: object, kind: str, as_text: object) -> None:
    if is_missing(value):
        return
    if kind == "number" and len(number_text(value).lstrip("-").replace(".", "")) <= EXCEL_EXACT_DIGITS:
        sheet.write_number(row, column, float(value))
    else:
        sheet.write_string(row, column, value_text(value), as_text)


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    """Parquet with the build's own column types (whole numbers, booleans and dates stay what they are)."""
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def jsonl_bytes(frame: pd.DataFrame) -> bytes:
    """One JSON object per paper, UTF-8; missing values are null, texts exact (formula starts escaped)."""
    keys = [_json_text(str(name)) + ": " for name in frame.columns]
    columns = [
        [key + _json_cell(value) for value in frame[name]] for key, name in zip(keys, frame.columns, strict=True)
    ]
    return "".join("{" + ", ".join(cells) + "}\n" for cells in zip(*columns, strict=True)).encode("utf-8")


def _json_cell(value: object) -> str:
    """One value as JSON: each is encoded alone, so a text's formula starts are escaped within its own quotes."""
    if is_missing(value):
        return "null"
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return _JSON.encode(float(value))
    return _json_text(value_text(value))


def _json_text(text: str) -> str:
    return _FORMULA_START.sub(_escaped, _JSON.encode(text))


def _escaped(match: re.Match) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def _is_number_column(values: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
