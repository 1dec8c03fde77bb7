"""The CSV export: its rows and columns, UTF-8, and formulas that cannot run in a spreadsheet."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from dashboard.export import (
    CSV_ENCODING,
    csv_bytes,
    download_label,
    export_frame,
    file_name,
    neutralise_formulas,
)
from tests.dashboard.tinybuild import HOSTILE_TITLE

LEADING_COLUMNS = ["paper_id", "title", "topic_id", "topic_label", "keywords", "confidence", "abstract"]


def read_back(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), encoding=CSV_ENCODING, keep_default_na=False)


def test_export_columns_come_in_the_documented_order_then_metadata(tiny):
    frame = export_frame(tiny.papers, tiny.topics, tiny.metadata_columns)
    assert list(frame.columns) == [*LEADING_COLUMNS, "year", "venue", "doi", "score", "keywords (metadata)"]


def test_keywords_are_the_topics_top_ten_joined_with_semicolons(tiny):
    frame = export_frame(tiny.papers, tiny.topics, [])
    assert frame.loc[0, "keywords"] == "; ".join(f"kw0-{i}" for i in range(10))


def test_csv_is_utf8_with_a_byte_order_mark_and_keeps_non_ascii(tiny):
    data = csv_bytes(export_frame(tiny.papers, tiny.topics, tiny.metadata_columns))
    assert data.startswith(b"\xef\xbb\xbf")
    assert "Ünïcödé títle 中文" in data.decode("utf-8-sig")


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_cells_starting_like_a_formula_get_a_quote_in_every_text_column(start):
    frame = pd.DataFrame({"title": [f"{start}1+1"], "venue": [f"{start}cmd"], "n": [-5], "ok": ["a=b"]})
    safe = neutralise_formulas(frame)
    assert safe.loc[0, "title"] == f"'{start}1+1" and safe.loc[0, "venue"] == f"'{start}cmd"
    assert safe.loc[0, "n"] == -5 and safe.loc[0, "ok"] == "a=b"


def test_no_text_cell_of_the_exported_csv_starts_like_a_formula(tiny):
    back = read_back(csv_bytes(export_frame(tiny.papers, tiny.topics, tiny.metadata_columns)))
    texts = back.select_dtypes(exclude="number")
    assert not texts.map(lambda cell: str(cell).startswith(("=", "+", "-", "@", "\t", "\r"))).any().any()
    assert back.loc[0, "title"] == "'" + HOSTILE_TITLE


def test_the_csv_reads_back_as_the_rows_that_were_shown(tiny):
    shown = tiny.papers.iloc[[6, 1, 3]]
    back = read_back(csv_bytes(export_frame(shown, tiny.topics, tiny.metadata_columns)))
    assert back["paper_id"].tolist() == shown["paper_id"].tolist()
    assert back["title"].str.lstrip("'").tolist() == shown["title"].tolist()
    assert back["abstract"].tolist() == shown["abstract"].tolist()
    assert back["confidence"].round(6).tolist() == shown["confidence"].round(6).tolist()
    assert back["year"].tolist() == shown["year"].tolist()


def test_the_download_label_says_what_is_exported():
    assert download_label(3, 38) == "Download 3 selected papers (CSV)"
    assert download_label(1, 38) == "Download 1 selected paper (CSV)"
    assert download_label(0, 38) == "Download all 38 shown papers (CSV)"
    assert download_label(0, 20000) == "Download all 20,000 shown papers (CSV)"
    assert download_label(0, 1) == "Download the 1 shown paper (CSV)"


def test_the_file_name_is_a_slug_of_the_build_name():
    assert file_name("Tiny Build!") == "tiny-build-papers.csv"
    assert file_name("sample") == "sample-papers.csv"
    assert file_name("../..") == "topic-explorer-papers.csv"
