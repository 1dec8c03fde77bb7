"""Reading every supported input format, and refusing bad files with a clear message."""

import gzip
import json

import pandas as pd
import pytest

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.ingest.readers import read_file, split_plain_text

ABSTRACTS = [
    "We study federated learning with many clients and show faster convergence.",
    "Low-rank adaptation makes fine-tuning of large language models cheap.",
]


def write_text(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_plain_text_with_header_line_sets_header_apart(tmp_path):
    path = write_text(tmp_path / "papers.txt", "NeurIPS 2025 Papers\n\n" + "\n\n".join(ABSTRACTS) + "\n")
    raw = read_file(path)
    assert raw.header == "NeurIPS 2025 Papers"
    assert raw.rows["abstract"].tolist() == ABSTRACTS


def test_plain_text_without_header_keeps_every_paragraph():
    header, paragraphs = split_plain_text("\n\n".join(ABSTRACTS))
    assert header is None
    assert paragraphs == ABSTRACTS


def test_a_short_first_sentence_is_not_mistaken_for_a_header():
    text = "We propose a method.\n\n" + "\n\n".join(ABSTRACTS)
    header, paragraphs = split_plain_text(text)
    assert header is None
    assert paragraphs[0] == "We propose a method."


def test_plain_text_joins_lines_wrapped_inside_a_paragraph(tmp_path):
    path = write_text(tmp_path / "wrapped.txt", "First line of an abstract\ncontinues here.\n\nSecond abstract.\r\n")
    assert read_file(path).rows["abstract"].tolist() == [
        "First line of an abstract continues here.",
        "Second abstract.",
    ]


def test_bundled_sample_header_in_chinese_is_recognised():
    from topic_explorer.pipeline.ingest.corpus import sample_files

    raws = [read_file(p) for p in sample_files()]
    assert [r.header for r in raws] == ["NeurIPS 2025 论文列表", "NeurIPS 2025 Papers"]
    assert [len(r.rows) for r in raws] == [19, 19]


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".json", ".jsonl", ".parquet"])
@pytest.mark.parametrize("compressed", [False, True])
def test_table_formats_read_the_same_rows(tmp_path, suffix, compressed):
    frame = pd.DataFrame({"title": ["A", "B"], "abstract": ABSTRACTS, "year": [2024, 2025]})
    path = tmp_path / f"papers{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix == ".tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif suffix == ".json":
        path.write_text(json.dumps(frame.to_dict(orient="records")))
    elif suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path)
    if compressed:
        gz = path.with_name(path.name + ".gz")
        gz.write_bytes(gzip.compress(path.read_bytes()))
        path = gz
    rows = read_file(path).rows
    assert rows["abstract"].tolist() == ABSTRACTS
    assert rows["title"].tolist() == ["A", "B"]
    assert [int(y) for y in rows["year"]] == [2024, 2025]


def test_json_object_wrapping_a_list_of_papers(tmp_path):
    path = write_text(
        tmp_path / "export.json", json.dumps({"count": 2, "papers": [{"abstract": a} for a in ABSTRACTS]})
    )
    assert read_file(path).rows["abstract"].tolist() == ABSTRACTS


def test_json_lines_keep_unicode_line_separators_inside_strings(tmp_path):
    text = "Line\u2028separator and \x1c file separator inside one abstract."
    path = tmp_path / "papers.jsonl"
    path.write_text(json.dumps({"abstract": text}, ensure_ascii=False) + "\n", encoding="utf-8")
    assert read_file(path).rows["abstract"].tolist() == [text]


def test_gzip_detected_by_content_even_without_gz_suffix(tmp_path):
    path = tmp_path / "papers.txt"
    path.write_bytes(gzip.compress("\n\n".join(ABSTRACTS).encode()))
    assert read_file(path).rows["abstract"].tolist() == ABSTRACTS


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.csv", b"", "is empty"),
        ("blank.txt", b"  \n\n ", "is empty"),
        ("binary.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR", "looks binary"),
        ("latin1.txt", "Caf\u00e9 na\u00efve abstract".encode("latin-1"), "not UTF-8"),
        ("papers.xlsx", b"whatever", "unsupported file type"),
        ("broken.json", b'[{"abstract": "x"', "invalid JSON"),
        ("broken.jsonl", b'{"abstract": "x"}\n{oops}\n', "line 2"),
        ("scalar.json", b'"just a string"', "list of objects"),
        ("fake.parquet", b"not parquet at all", "not a readable Parquet"),
        ("header-only.csv", b"title,abstract\n", "no rows"),
        ("damaged.csv.gz", b"\x1f\x8b\x08\x00garbage", "damaged gzip"),
    ],
)
def test_bad_files_give_a_one_line_error_naming_the_file(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(UserError) as caught:
        read_file(path)
    text = str(caught.value)
    assert message in text
    assert name in text
    assert "\n" not in text


def test_missing_file_and_folder_are_refused(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        read_file(tmp_path / "nope.csv")
    with pytest.raises(UserError, match="is a folder"):
        read_file(tmp_path)
