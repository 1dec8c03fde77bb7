"""Per input format, a file whose metadata holds every hard case, built and read back value by value."""

from __future__ import annotations

import csv
import json
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from topic_explorer.pipeline.buildfolder.metadata import is_missing
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.ingest.corpus import load_corpus, sample_files
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings

N = 12
TEXT = {  # text in every format: each column holds a value a number would change
    "id": ["2601.14530", "2510.16470", "0704.0001", *(f"2401.{i:05d}" for i in range(N - 3))],
    "doi": ["10.1000/182", "10.1038/nphys1170", *(f"10.5555/{i:04d}" for i in range(N - 2))],
    "pmid": ["00012345", *(f"{i:08d}" for i in range(N - 1))],
    "zip": ["02134", *(f"{10000 + i}" for i in range(N - 1))],
    "version": ["1.10", "1.2", *(f"2.{i}" for i in range(N - 2))],
    "big": ["12345678901234567890", *(str(i) for i in range(N - 1))],
    "sci": ["1e5", *(str(i) for i in range(N - 1))],
    "note": [
        "ünï, cödé 中文",
        'a "quoted" word',
        "two\nlines",
        "=1+1",
        "\r=1+1",
        "=cmd|' /C calc'!A0",
        "'=already guarded",
        "  leading spaces",
        "＝full width",
        None,  # an empty cell: missing, never "nan" or 0
        "-minus",
        "@at",
    ],
}
NUMBERS = {"year": [2020 + i % 4 for i in range(N)], "count": [None, *range(N - 1)]}
DECIMALS = {"score": [0.1, 2.5, 3, *(i / 8 for i in range(N - 3))]}
NESTED = {"tags": [["a", "b"], None, ["ü"], *([["x"]] * (N - 3))], "info": [{"k": 1, "v": "w"}, *([None] * (N - 1))]}
FLAGS = {"open": [True, False, None, *([True] * (N - 3))]}


@pytest.fixture(scope="module")
def records() -> list[dict]:
    abstracts = load_corpus(sample_files()).papers["abstract"].tolist()[:N]
    columns = {"abstract": abstracts, **TEXT, **NUMBERS, **DECIMALS, **NESTED, **FLAGS}
    return [{name: values[i] for name, values in columns.items()} for i in range(N)]


def cell(value: object) -> str:
    """How a spreadsheet or script writes a value into a CSV cell."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def write(records: list[dict], path, fmt: str) -> None:
    if fmt in ("csv", "tsv"):
        with path.open("w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file, delimiter="," if fmt == "csv" else "\t", lineterminator="\r\n")
            writer.writerow(records[0])
            writer.writerows([cell(value) for value in record.values()] for record in records)
    elif fmt == "json":
        path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    else:
        pq.write_table(pa.Table.from_pylist(records), path)


def expected(fmt: str) -> dict[str, list]:
    """What the build must hold: text exactly, whole numbers as integers, decimals as floats, JSON text."""
    text_form = fmt in ("csv", "tsv")
    return {
        **TEXT,
        **NUMBERS,
        "score": [float(v) for v in DECIMALS["score"]],
        "tags": [None if v is None else json.dumps(v, ensure_ascii=False) for v in NESTED["tags"]],
        "info": [None if v is None else json.dumps(v) for v in NESTED["info"]],
        "open": [None if v is None else (json.dumps(v) if text_form else v) for v in FLAGS["open"]],
    }


def same(value: object, wanted: object) -> bool:
    if wanted is None:
        return is_missing(value)
    return type(value) is type(wanted) and value == wanted and not (isinstance(value, float) and math.isnan(value))


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json", "jsonl", "parquet"])
def test_every_metadata_value_comes_out_of_the_build_as_it_went_in(records, tmp_path, fmt, fake_embedder):
    source = tmp_path / f"papers.{fmt}"
    write(records, source, fmt)
    build = read_build(run_build([source], tmp_path / "build", BuildSettings(), embedder=fake_embedder).path)
    papers = build.papers.set_index("abstract").loc[[r["abstract"] for r in records]]
    for column, wanted in expected(fmt).items():
        got = [value.item() if hasattr(value, "item") else value for value in papers[column].tolist()]
        mismatched = [(g, w) for g, w in zip(got, wanted, strict=True) if not same(g, w)]
        assert not mismatched, (column, mismatched)
    assert str(papers["year"].dtype) == "Int64"
    assert str(papers["count"].dtype) == "Int64"
    assert papers["score"].dtype == "float64"
    assert str(papers["open"].dtype) == ("boolean" if fmt in ("json", "jsonl", "parquet") else "str")
