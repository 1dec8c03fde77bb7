"""Export then re-import is lossless: `build` on a download gives the same papers with the same metadata."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.dashboard.tinybuild import tiny_topics
from topic_explorer.dashboard.logic.data import load_explorer
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.schema import PAPER_COLUMNS
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.export.formats import TABLE_WRITERS
from topic_explorer.pipeline.export.selection import export_frame
from topic_explorer.pipeline.ingest.corpus import Corpus, load_corpus

HOSTILE_CHARS = "=+-@'\"＝,;\t\r\n \u2028ü中"
hostile_text = st.text(alphabet=st.sampled_from([*HOSTILE_CHARS, "a", "1", "0", "."]), min_size=1, max_size=12)
any_text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), min_size=1, max_size=10)
cell_text = hostile_text | any_text | st.sampled_from(["=cmd|' /C calc'!A0", "'=x", " =1"])
zero_ids = st.from_regex(r"0[0-9]{1,6}|[0-9]{4}\.[0-9]{3,4}0|10\.[0-9]{4}/0[0-9a-z.]{1,5}", fullmatch=True)
whole = st.integers(-(2**63), 2**63 - 1).map(str)
decimal = st.floats(allow_nan=False, allow_infinity=False, width=64).map(
    lambda x: np.format_float_positional(x, trim="0")
)
COLUMN_KINDS = {"text": cell_text, "ids": zero_ids, "whole": whole, "decimal": decimal, "mixed": whole | cell_text}
COLUMN_NAMES = ["venue", "keywords", "=odd name", "id", "doi (metadata)", "notes"]


@st.composite
def source_tables(draw) -> pd.DataFrame:
    """A user's CSV as text cells: 10-14 papers, hostile titles and abstracts, 1-4 metadata columns."""
    n = draw(st.integers(10, 14))
    table = {
        "title": [draw(st.none() | cell_text) for _ in range(n)],
        # distinct after whitespace collapse, and sharing enough real words to be a corpus
        "abstract": [f"{draw(cell_text)} graph networks learn sparse vision models, study {i}" for i in range(n)],
    }
    names = draw(st.lists(st.sampled_from(COLUMN_NAMES), min_size=1, max_size=4, unique=True))
    for name in names:
        values = COLUMN_KINDS[draw(st.sampled_from(sorted(COLUMN_KINDS)))]
        table[name] = [draw(st.none() | values) for _ in range(n)]
    return pd.DataFrame(table)


def write_csv(table: pd.DataFrame, path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file, lineterminator="\r\n")
        writer.writerow(table.columns)
        writer.writerows(["" if pd.isna(value) else value for value in row] for row in table.itertuples(index=False))
    return path


def as_build(corpus: Corpus, out: Path) -> Path:
    """The corpus as a build (one topic): what the dashboard exports from, without running a model."""
    papers = corpus.papers
    own = {"topic_id": 0, "topic_label": "Topic", "confidence": 0.5, "fits_poorly": False, "x": 0.5, "y": 0.5}
    build = pd.concat(
        [papers[["paper_id", "title", "abstract"]].assign(**own), papers[corpus.metadata_columns]], axis=1
    )
    topics = tiny_topics().head(1).assign(size=len(papers))
    return write_build(out, build, topics, np.zeros((len(papers), 2), dtype=np.float32), {})


def comparable(papers: pd.DataFrame) -> list[list]:
    """Rows as plain values, every missing value as None, so types and values compare exactly."""
    return [[None if pd.isna(v) else v for v in row] for row in papers.astype(object).itertuples(index=False)]


def assert_same_papers(first: pd.DataFrame, second: pd.DataFrame) -> None:
    assert list(second.columns) == list(first.columns)
    assert comparable(second) == comparable(first)
    for column in first.columns:
        assert _kind(second[column]) == _kind(first[column]), column


def _kind(values: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(values):
        return "bool"
    if pd.api.types.is_integer_dtype(values):
        return "int"
    return "float" if pd.api.types.is_float_dtype(values) else "text"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=source_tables())
def test_building_from_any_export_gives_back_the_same_papers_and_metadata(table, tmp_path_factory):
    folder = tmp_path_factory.mktemp("roundtrip")
    first = load_corpus([write_csv(table, folder / "source.csv")])
    explorer = load_explorer(as_build(first, folder / "build"))
    frame = export_frame(explorer.papers, explorer.topics, explorer.metadata_columns)
    for extension, write in TABLE_WRITERS.items():
        if extension == "xlsx":
            continue  # `build` does not read Excel files
        exported = folder / f"export.{extension}"
        exported.write_bytes(write(frame))
        assert_same_papers(first.papers, load_corpus([exported]).papers)


def test_the_build_command_on_a_downloaded_csv_rebuilds_the_same_papers(metadata_corpus, tmp_path):
    source = pd.read_csv(metadata_corpus)
    source["id"] = [f"{2601 + i % 3}.{i:04d}0" for i in range(len(source))]  # trailing zeros
    source["note"] = ["=1+1", "\r=2+2", "a\n@x", "'=kept", " -1", "", *(f"n{i}" for i in range(len(source) - 6))]
    write_csv(source.astype(object).where(source.notna(), None), tmp_path / "source.csv")
    assert main(["build", str(tmp_path / "source.csv"), "--out", str(tmp_path / "one"), "--embedder", "tfidf"]) == 0
    explorer = load_explorer(tmp_path / "one")
    data = TABLE_WRITERS["csv"](export_frame(explorer.papers, explorer.topics, explorer.metadata_columns))
    (tmp_path / "download.csv").write_bytes(data)
    assert main(["build", str(tmp_path / "download.csv"), "--out", str(tmp_path / "two"), "--embedder", "tfidf"]) == 0
    one, two = read_build(tmp_path / "one").papers, read_build(tmp_path / "two").papers
    columns = ["paper_id", "title", "abstract", "year", "venue", "id", "note"]
    assert list(two.columns[len(PAPER_COLUMNS) :]) == ["year", "venue", "id", "note"]
    assert_same_papers(one[columns], two[columns])
    assert two["id"].tolist()[:2] == ["2601.00000", "2602.00010"]
    assert two["note"].tolist()[:5] == source["note"][:5].tolist()
