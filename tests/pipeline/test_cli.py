"""The command line: help, summaries, evaluate, and every bad input ending in one clear line."""

import json

import pandas as pd
import pytest

from topic_explorer.pipeline.cli.main import main

ABSTRACT = "Federated learning with heterogeneous clients converges slowly under partial participation."


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_help_explains_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "build" in out
    assert "serve" in out
    assert "evaluate" in out


def test_build_prints_a_closing_summary(capsys, metadata_corpus, tmp_path):
    code, out, _ = run(capsys, "build", metadata_corpus, "--out", tmp_path / "b", "--embedder", "tfidf")
    assert code == 0
    assert "Built 38 papers into" in out
    assert "time: ingest" in out
    assert str(tmp_path / "b") in out


def test_quiet_build_prints_nothing(capsys, metadata_corpus, tmp_path):
    code, out, err = run(capsys, "build", metadata_corpus, "--out", tmp_path / "b", "--embedder", "tfidf", "--quiet")
    assert code == 0
    assert out == ""
    assert err == ""


def test_evaluate_prints_a_table_and_json(capsys, metadata_build):
    code, out, _ = run(capsys, "evaluate", metadata_build, "--label-column", "venue")
    assert code == 0
    assert "coherence (NPMI)" in out
    assert "agreement with labels" in out
    code, out, _ = run(capsys, "evaluate", metadata_build, "--json")
    figures = json.loads(out)
    assert code == 0
    assert -1 <= figures["coherence_npmi"] <= 1
    assert len(figures["per_topic"]) == figures["topics"]


def write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def few_abstracts(tmp_path):
    frame = pd.DataFrame({"abstract": [f"{ABSTRACT} Variant {i}." for i in range(5)]})
    frame.to_csv(tmp_path / "few.csv", index=False)
    return tmp_path / "few.csv"


BAD_INPUTS = {
    "missing file": (lambda d: d / "nope.csv", [], "no such file"),
    "empty file": (lambda d: write(d / "empty.txt", ""), [], "is empty"),
    "no abstracts": (lambda d: write(d / "blank.csv", "abstract,id\n,1\n ,2\n"), [], "no abstracts found"),
    "no abstract column": (lambda d: write(d / "cols.csv", "id,words\n1,hello\n"), [], "no abstract column"),
    "unknown column": (
        lambda d: write(d / "cols.csv", "id,abstract\n1,hello\n"),
        ["--text-column", "body"],
        "is not a column",
    ),
    "binary file": (lambda d: write(d / "image.csv", b"\x89PNG\r\n\x1a\n\x00\x00"), [], "looks binary"),
    "undecodable text": (lambda d: write(d / "latin.txt", "r\u00e9sum\u00e9".encode("latin-1")), [], "not UTF-8"),
    "unsupported type": (lambda d: write(d / "papers.docx", "x"), [], "unsupported file type"),
    "too few to cluster": (few_abstracts, [], "needs at least 10"),
    "bad option": (lambda d: write(d / "ok.txt", ABSTRACT), ["--min-topic-size", "1"], "should be at least 2"),
    "bad seed": (lambda d: write(d / "ok.txt", ABSTRACT), ["--seed", "-1"], "should be between 0"),
    "one column for abstract and title": (
        lambda d: write(d / "cols.csv", "id,abstract\n1,hello\n"),
        ["--title-column", "abstract"],
        "cannot be both",
    ),
}


@pytest.mark.parametrize("case", BAD_INPUTS, ids=list(BAD_INPUTS))
def test_bad_input_is_one_line_exit_2_and_nothing_written(capsys, tmp_path, case):
    make, options, message = BAD_INPUTS[case]
    source = make(tmp_path)
    out_dir = tmp_path / "build"
    code, _, err = run(capsys, "build", source, "--out", out_dir, "--embedder", "tfidf", *options)
    assert code == 2
    assert err.startswith("error: ")
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    assert not out_dir.exists()


def test_an_input_file_after_topics_is_not_mistaken_for_a_topic_name(capsys, tmp_path, metadata_corpus):
    code, _, err = run(capsys, "build", "--topics", "LoRA", metadata_corpus, "--out", tmp_path / "b")
    assert code == 2
    assert "put input files before --topics" in err
    assert not (tmp_path / "b").exists()


def test_out_folder_holding_other_files_is_refused_before_any_work(capsys, tmp_path, metadata_corpus):
    (tmp_path / "notes.txt").write_text("mine")
    code, _, err = run(capsys, "build", metadata_corpus, "--out", tmp_path, "--embedder", "tfidf")
    assert code == 2
    assert "is not a Topic Explorer build" in err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_evaluate_with_an_unknown_label_column_lists_the_columns(capsys, metadata_build):
    code, _, err = run(capsys, "evaluate", metadata_build, "--label-column", "field")
    assert code == 2
    assert "metadata columns: year, venue" in err


def test_evaluate_on_a_missing_build_says_how_to_make_one(capsys, tmp_path):
    code, _, err = run(capsys, "evaluate", tmp_path / "none")
    assert code == 2
    assert "topic-explorer build" in err


def test_an_error_quoting_a_line_break_still_prints_one_line(capsys, tmp_path):
    (tmp_path / "odd.csv").write_text('"col\nwith a break",other\nx,y\n', encoding="utf-8")
    code, _, err = run(capsys, "build", tmp_path / "odd.csv", "--out", tmp_path / "b", "--embedder", "tfidf")
    assert code == 2
    assert err.count("\n") == 1
    assert "col with a break" in err


def test_the_summary_says_paper_for_a_topic_of_one_and_keeps_labels_in_line():
    from topic_explorer.pipeline.cli.summary import _papers

    assert _papers(1) == "paper "
    assert _papers(2) == "papers"
    assert _papers(0) == "papers"
    assert len({len(_papers(n)) for n in (0, 1, 5)}) == 1


def test_build_title_names_the_corpus_in_the_manifest(capsys, metadata_corpus, tmp_path):
    code, _, _ = run(capsys, "build", metadata_corpus, "--out", tmp_path / "b", "--embedder", "tfidf", "--quiet",
                     "--title", "  ICLR   2025 submissions ")  # fmt: skip
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert code == 0
    assert manifest["title"] == "ICLR 2025 submissions"
    assert "title" not in manifest["settings"]


@pytest.mark.parametrize(("title", "says"), [("   ", "--title is empty"), ("x" * 201, "at most 200")])
def test_an_empty_or_overlong_title_is_one_line_and_exit_2(capsys, metadata_corpus, tmp_path, title, says):
    code, _, err = run(capsys, "build", metadata_corpus, "--out", tmp_path / "b", "--title", title)
    assert code == 2
    assert says in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "b").exists()
