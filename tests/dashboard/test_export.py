"""The downloads: their rows and columns, and each file format's bytes (exact, and safe in a spreadsheet)."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile

import numpy as np
import pandas as pd
import pytest

from tests.dashboard.tinybuild import HOSTILE_TITLE
from topic_explorer.dashboard.logic.export import download_label, file_name
from topic_explorer.pipeline.buildfolder.exchange import EXPORT_COLUMNS, FORMULA_CHARS, unguard
from topic_explorer.pipeline.export.files import csv_bytes, jsonl_bytes, parquet_bytes, xlsx_bytes
from topic_explorer.pipeline.export.formats import EXPORT_FORMATS, export_bytes
from topic_explorer.pipeline.export.selection import export_frame, select

HOSTILE = ["=1+1", "x\r=1+1", "a\n@SUM(1,2)", "tab\there", 'say "hi", ok', "=cmd|' /C calc'!A0", "＝1", "  -1+1"]


@pytest.fixture
def frame(tiny) -> pd.DataFrame:
    return export_frame(tiny.papers, tiny.topics, tiny.metadata_columns)


@pytest.fixture
def hostile() -> pd.DataFrame:
    """Every kind of column, hostile text in the text ones."""
    return pd.DataFrame(
        {
            "text": HOSTILE,
            "count": pd.array([1, None, -3, 0, 5, 6, 7, 2**62], dtype="Int64"),
            "score": [1e-7, np.nan, -2.5, 3.0, 0.1, 1e20, 2.0, 0.30000000000000004],
            "flag": pd.array([True, None, False, True, True, False, True, False], dtype="boolean"),
            "=name": ["a", None, "c", "d", "e", "f", "g", "h"],
        }
    )


def test_export_columns_come_in_the_documented_order_then_metadata(frame):
    assert tuple(frame.columns[:7]) == EXPORT_COLUMNS
    assert list(frame.columns[7:]) == ["year", "venue", "doi", "arxiv_id", "score", "keywords (metadata)"]


def test_keywords_are_the_topics_top_ten_joined_with_semicolons(tiny):
    frame = export_frame(tiny.papers, tiny.topics, [])
    assert frame.loc[0, "keywords"] == "; ".join(f"kw0-{i}" for i in range(10))


def test_metadata_keeps_its_types_in_the_export_frame(tiny):
    papers = tiny.papers.assign(n=pd.array([1, None] * 4, dtype="Int64"))
    frame = export_frame(papers.iloc[[1, 0]], tiny.topics, ["n"])
    assert str(frame["n"].dtype) == "Int64"
    assert frame["n"].tolist() == [pd.NA, 1]


def test_csv_is_utf8_with_a_byte_order_mark_and_keeps_non_ascii(frame):
    data = csv_bytes(frame)
    assert data.startswith(b"\xef\xbb\xbf")
    assert "Ünïcödé títle 中文" in data.decode("utf-8-sig")


def test_every_csv_text_field_is_quoted_and_no_number_is(hostile):
    text = csv_bytes(hostile).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 1 + len(hostile)  # no CR, LF, tab, quote or comma split a row
    assert rows[0] == ["'=name" if n == "=name" else n for n in hostile.columns]
    assert text.split("\r\n")[1] == '"\'=1+1",1,0.0000001,"true","a"'
    assert [row[1] for row in rows[1:]] == ["1", "", "-3", "0", "5", "6", "7", str(2**62)]
    assert [row[2] for row in rows[1:]][2:] == [
        "-2.5",
        "3.0",
        "0.1",
        "100000000000000000000.0",
        "2.0",
        "0.30000000000000004",
    ]


def test_csv_cells_a_spreadsheet_could_run_get_an_apostrophe_that_unguard_removes(hostile):
    rows = list(csv.reader(io.StringIO(csv_bytes(hostile).decode("utf-8-sig"), newline="")))
    texts = [row[0] for row in rows[1:]]
    assert texts[0] == "'=1+1"
    assert texts[5] == "'=cmd|' /C calc'!A0"
    assert texts[7] == "'  -1+1"
    assert texts[1] == "x\r=1+1"
    assert texts[3] == "tab\there"  # quoted, so nothing after a line break starts a cell
    assert [unguard(text) for text in texts] == HOSTILE
    assert all(t.lstrip()[:1] not in FORMULA_CHARS for row in rows for t in row if not re.fullmatch(r"-?[\d.]+", t))


def test_the_csv_reads_back_as_the_rows_that_were_shown(tiny):
    shown = tiny.papers.iloc[[6, 1, 3]]
    data = csv_bytes(export_frame(shown, tiny.topics, tiny.metadata_columns))
    back = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig", keep_default_na=False, dtype=str)
    assert back["paper_id"].tolist() == shown["paper_id"].tolist()
    assert back["title"].map(unguard).tolist() == shown["title"].tolist()
    assert back["abstract"].tolist() == shown["abstract"].tolist()
    assert back["year"].tolist() == [str(y) for y in shown["year"]]


def test_the_first_row_of_the_tiny_builds_csv_holds_its_hostile_title_guarded(frame):
    rows = list(csv.reader(io.StringIO(csv_bytes(frame).decode("utf-8-sig"), newline="")))
    assert rows[1][1] == "'" + HOSTILE_TITLE


def test_parquet_keeps_every_value_and_type(hostile):
    back = pd.read_parquet(io.BytesIO(parquet_bytes(hostile)))
    pd.testing.assert_frame_equal(back, hostile, check_dtype=False)
    assert str(back["count"].dtype) == "Int64"
    assert str(back["flag"].dtype) == "boolean"


def test_json_lines_hold_the_exact_values_with_formula_starts_escaped(hostile):
    data = jsonl_bytes(hostile)
    records = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    assert [r["text"] for r in records] == HOSTILE
    assert records[1] == {"text": "x\r=1+1", "count": None, "score": None, "flag": None, "=name": None}
    assert records[0]["score"] == 1e-7
    assert records[7]["count"] == 2**62
    assert records[0]["flag"] is True
    assert re.search(r"(?<!\w)[=+@＝＋＠]", data.decode("utf-8")) is None  # no raw formula start anywhere
    assert "\\u003d1+1" in data.decode("utf-8")
    assert "low-rank" in jsonl_bytes(pd.DataFrame({"t": ["low-rank"]})).decode()


def test_excel_cells_hold_text_as_text_and_never_a_formula(hostile):
    with zipfile.ZipFile(io.BytesIO(xlsx_bytes(hostile))) as book:
        sheet = book.read("xl/worksheets/sheet1.xml").decode("utf-8")
    assert "<f>" not in sheet
    assert "<f " not in sheet
    assert sheet.count("<row ") == 1 + len(hostile)
    assert "<t>=1+1</t>" in sheet
    assert "<t>=cmd|' /C calc'!A0</t>" in sheet  # unchanged text, in text cells


def test_every_format_has_a_label_extension_and_writer(tiny):
    labels = [f.label for f in EXPORT_FORMATS.values()]
    assert labels == ["CSV", "Excel", "Parquet", "JSON Lines", "BibTeX", "RIS", "Map (HTML)"]
    selection = select(tiny.build, np.arange(len(tiny.papers)))
    for key, export in EXPORT_FORMATS.items():
        assert export.extension == key
        assert len(export_bytes(selection, export)) > 100


def test_the_download_label_says_what_is_exported_and_how():
    assert download_label(3, 38, "CSV") == "Download 3 selected papers (CSV)"
    assert download_label(1, 38, "Excel") == "Download 1 selected paper (Excel)"
    assert download_label(0, 38, "CSV") == "Download all 38 shown papers (CSV)"
    assert download_label(0, 20000, "Parquet") == "Download all 20,000 shown papers (Parquet)"
    assert download_label(0, 1, "JSON Lines") == "Download the 1 shown paper (JSON Lines)"
    assert download_label(0, 6, "Map (HTML)") == "Download all 6 shown papers as a map (HTML)"  # not "(Map (HTML))"


def test_the_file_name_is_a_slug_of_the_corpus_title_with_the_formats_extension():
    assert file_name("NeurIPS 2025 sample", "csv") == "neurips-2025-sample-papers.csv"
    assert file_name("arXiv 3k", "xlsx") == "arxiv-3k-papers.xlsx"
    assert file_name("Études & Ünïcödé", "bib") == "etudes-unicode-papers.bib"
    assert file_name("../..", "jsonl") == "topic-explorer-papers.jsonl"
    assert file_name("中文", "ris") == "topic-explorer-papers.ris"
    assert len(file_name("word " * 100, "csv")) <= 80 + len("-papers.csv")
