"""Merging inputs into papers: columns found by name, dedup, stable ids, derived titles."""

import json

import pandas as pd
import pytest

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.ingest.corpus import load_corpus, paper_id, sample_files

A1 = "Federated learning lets many clients train one model without sharing data."
A2 = "Low-rank adaptation makes fine-tuning of large language models cheap."
A3 = "We propose KVQuant (Key Value Quantization), a way to shrink the KV cache."


def csv(tmp_path, name, frame):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def test_sample_loads_38_papers_with_ids_titles_and_source_file():
    corpus = load_corpus(sample_files())
    papers = corpus.papers
    assert len(papers) == 38
    assert corpus.titles_derived == 38
    assert papers["paper_id"].is_unique
    assert (papers["title"].str.len() > 0).all()
    assert set(papers["source_file"]) == {"neurips2025_part1.txt", "neurips2025_part2.txt"}


def test_abstract_and_title_columns_are_found_by_name_and_others_kept(tmp_path):
    path = csv(tmp_path, "p.csv", pd.DataFrame({"Paper Title": ["T1", "T2"], "Summary": [A1, A2], "venue": ["X", "Y"]}))
    papers = load_corpus([path]).papers
    assert list(papers.columns) == ["paper_id", "title", "abstract", "venue"]
    assert papers["title"].tolist() == ["T1", "T2"]
    assert papers["abstract"].tolist() == [A1, A2]


def test_columns_can_be_named_explicitly(tmp_path):
    path = csv(tmp_path, "p.csv", pd.DataFrame({"body_text": [A1, A2], "headline_x": ["T1", "T2"]}))
    papers = load_corpus([path], text_column="body_text", title_column="headline_x").papers
    assert papers["title"].tolist() == ["T1", "T2"]


def test_unknown_or_missing_text_column_lists_the_columns(tmp_path):
    path = csv(tmp_path, "p.csv", pd.DataFrame({"id": [1, 2], "words": [A1, A2]}))
    with pytest.raises(
        UserError, match=r"no abstract column in .*p\.csv \(columns: id, words\); name it with --text-column"
    ):
        load_corpus([path])
    with pytest.raises(UserError, match=r"--text-column 'body' is not a column"):
        load_corpus([path], text_column="body")


def test_empty_and_duplicate_abstracts_are_dropped_and_counted(tmp_path):
    frame = pd.DataFrame({"abstract": [A1, "", "   ", A1, A2 + "  ", A2, None], "n": range(7)})
    corpus = load_corpus([csv(tmp_path, "p.csv", frame)])
    assert corpus.papers["abstract"].tolist() == [A1, A2]
    assert (corpus.rows_read, corpus.empty_dropped, corpus.duplicates_dropped) == (7, 3, 2)


def test_duplicates_across_files_are_dropped_and_the_source_recorded(tmp_path):
    one = csv(tmp_path, "one.csv", pd.DataFrame({"abstract": [A1, A2]}))
    two = tmp_path / "two.txt"
    two.write_text(f"{A2}\n\n{A3}\n")
    corpus = load_corpus([one, two])
    assert corpus.papers["abstract"].tolist() == [A1, A2, A3]
    assert corpus.papers["source_file"].tolist() == ["one.csv", "one.csv", "two.txt"]
    assert corpus.duplicates_dropped == 1


def test_paper_ids_are_stable_across_order_and_files(tmp_path):
    forward = load_corpus([csv(tmp_path, "a.csv", pd.DataFrame({"abstract": [A1, A2]}))]).papers
    backward = load_corpus([csv(tmp_path, "b.csv", pd.DataFrame({"abstract": [A2, A1]}))]).papers
    assert dict(zip(forward.abstract, forward.paper_id, strict=True)) == dict(
        zip(backward.abstract, backward.paper_id, strict=True)
    )
    assert forward.loc[0, "paper_id"] == paper_id(A1)


def test_missing_titles_are_derived_and_given_titles_kept(tmp_path):
    frame = pd.DataFrame({"title": ["Given title", None], "abstract": [A1, A3]})
    corpus = load_corpus([csv(tmp_path, "p.csv", frame)])
    assert corpus.papers["title"].tolist() == ["Given title", "KVQuant: Key Value Quantization"]
    assert corpus.titles_derived == 1


def test_metadata_named_like_build_columns_is_renamed(tmp_path):
    frame = pd.DataFrame({"abstract": [A1, A2], "topic_id": [5, 6], "x": [0.1, 0.2]})
    papers = load_corpus([csv(tmp_path, "p.csv", frame)]).papers
    assert {"source_topic_id", "source_x"} <= set(papers.columns)


def test_json_strings_stay_strings_json_numbers_numbers_and_lists_become_json_text(tmp_path):
    path = tmp_path / "p.jsonl"
    rows = [
        {"abstract": A1, "id": "2601.14530", "year": 2024, "tags": ["a", "b"]},
        {"abstract": A2, "id": "2510.16470", "year": 2025, "tags": ["c"]},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    papers = load_corpus([path]).papers
    assert papers["id"].tolist() == ["2601.14530", "2510.16470"]
    assert papers["year"].tolist() == [2024, 2025]
    assert str(papers["year"].dtype) == "Int64"
    assert papers["tags"].tolist() == ['["a", "b"]', '["c"]']


def test_an_inputs_own_source_file_column_is_kept_beside_the_one_the_merge_adds(tmp_path):
    one = csv(tmp_path, "one.csv", pd.DataFrame({"abstract": [A1], "source_file": ["mine.json"]}))
    two = csv(tmp_path, "two.csv", pd.DataFrame({"abstract": [A2]}))
    papers = load_corpus([one, two]).papers
    assert papers["source_file"].tolist() == ["one.csv", "two.csv"]
    assert papers["source_source_file"].tolist()[0] == "mine.json"


def test_a_file_of_only_empty_abstracts_says_no_abstracts_found(tmp_path):
    with pytest.raises(UserError, match="no abstracts found"):
        load_corpus([csv(tmp_path, "p.csv", pd.DataFrame({"abstract": ["", " "]}))])
