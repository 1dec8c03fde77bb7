"""`topic-explorer export`: the dashboard's bytes, which papers, the format from the name, and nothing half-written."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.export.formats import EXPORT_FORMATS, export_bytes
from topic_explorer.pipeline.export.selection import select
from topic_explorer.pipeline.search.ranked import query_embedder, search
from topic_explorer.pipeline.view.levels import build_levels


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extension", sorted(EXPORT_FORMATS))
def test_every_format_writes_the_bytes_the_dashboard_downloads(capsys, metadata_build, tmp_path, extension):
    code, _, err = run(capsys, "export", metadata_build, "--out", tmp_path / f"all.{extension}")
    assert code == 0
    assert "Wrote 38 papers" in err
    build = read_build(metadata_build)
    expected = export_bytes(select(build, np.arange(38)), EXPORT_FORMATS[extension])
    written = (tmp_path / f"all.{extension}").read_bytes()
    if extension == "xlsx":  # a workbook's zip records when it was made: compare the sheet inside
        import io
        import zipfile

        sheets = [zipfile.ZipFile(io.BytesIO(data)).read("xl/worksheets/sheet1.xml") for data in (written, expected)]
        assert sheets[0] == sheets[1]
    else:
        assert written == expected
    assert [p.name for p in tmp_path.iterdir()] == [f"all.{extension}"]  # no temporary file left beside it


def test_a_topic_is_chosen_by_id_or_by_label_at_a_level(capsys, metadata_build, tmp_path):
    build = read_build(metadata_build)
    levels = build_levels(build.papers, build.topics, build.hierarchy)
    broadest = levels[0].topics.iloc[0]
    expected = set(build.papers["paper_id"].iloc[levels[0].topic_rows[int(broadest["topic_id"])]])
    for name in (str(broadest["topic_id"]), broadest["label"].upper()):
        code, _, _ = run(capsys, "export", metadata_build, "--level", 0, "--topic", name, "--out", tmp_path / "t.csv")
        assert code == 0
        assert set(pd.read_csv(tmp_path / "t.csv")["paper_id"]) == expected
    topic = build.topics.iloc[0]
    run(capsys, "export", metadata_build, "--topic", topic["label"], "--out", tmp_path / "fine.jsonl")
    exported = pd.read_json(tmp_path / "fine.jsonl", lines=True)
    assert set(exported["topic_id"]) == {topic["topic_id"]}
    assert len(exported) == topic["size"]


def test_a_query_exports_the_papers_search_finds_in_the_same_order(capsys, metadata_build, tmp_path):
    code, _, _ = run(
        capsys, "export", metadata_build, "--query", "federated privacy", "--top", 5, "--out", tmp_path / "q.csv"
    )
    build = read_build(metadata_build)
    ranked = search(build, query_embedder(build.path, build.manifest), "federated privacy", 5)
    assert code == 0
    assert pd.read_csv(tmp_path / "q.csv")["paper_id"].tolist() == build.papers["paper_id"].iloc[ranked.rows].tolist()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--out", "{tmp}/papers.docx"], "cannot tell the format from 'docx'"),
        (["--out", "{tmp}/papers"], "cannot tell the format"),
        (["--topic", "no such topic", "--out", "{tmp}/t.csv"], "no such topic at level"),
        (["--level", "9", "--topic", "0", "--out", "{tmp}/t.csv"], "--level 9"),
        (["--query", "   ", "--out", "{tmp}/q.csv"], "query is empty"),
        (["--out", "{tmp}/missing/folder.csv"], "no folder"),
    ],
)
def test_a_mistake_is_one_line_exit_2_and_nothing_written(capsys, metadata_build, tmp_path, arguments, message):
    code, out, err = run(capsys, "export", metadata_build, *[a.format(tmp=tmp_path) for a in arguments])
    assert code == 2
    assert message in err
    assert err.count("\n") == 1
    assert not out
    assert list(tmp_path.iterdir()) == []


def test_a_failed_export_leaves_the_previous_file_as_it_was(capsys, metadata_build, tmp_path, monkeypatch):
    target = tmp_path / "papers.csv"
    target.write_text("the previous export")

    def broken(selection):
        raise OSError(28, "No space left on device")

    monkeypatch.setitem(EXPORT_FORMATS, "csv", EXPORT_FORMATS["csv"].__class__("CSV", "csv", "text/csv", broken))
    code, _, err = run(capsys, "export", metadata_build, "--out", target)
    assert code == 2
    assert "No space left" in err
    assert target.read_text() == "the previous export"
    assert [p.name for p in tmp_path.iterdir()] == ["papers.csv"]


@pytest.fixture(scope="module")
def cited_corpus(tmp_path_factory, metadata_corpus):
    """The sample's abstracts with the fields a reference manager keeps, hostile characters in them."""
    rows = pd.read_csv(metadata_corpus)
    n = len(rows)
    rows["title"] = [f"{t} {{braced}} 50% & #{i} $x_1$ -- naïve" for i, t in enumerate(rows["title"])]
    rows["authors"] = [f"Müller, Jörg; O'Neil, P. {i}" for i in range(n)]
    rows["doi"] = [f"10.5555/{i:04d}" for i in range(n)]
    rows["url"] = [f"https://example.org/p/{i}?a=1&b=2" for i in range(n)]
    rows["keywords"] = ["graphs; privacy"] * n
    path = tmp_path_factory.mktemp("cited") / "papers.csv"
    rows.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("extension", ["bib", "ris"])
def test_export_then_build_gives_the_same_papers_titles_and_metadata(capsys, cited_corpus, tmp_path, extension):
    assert run(capsys, "build", cited_corpus, "--out", tmp_path / "one", "--embedder", "tfidf", "--quiet")[0] == 0
    assert run(capsys, "export", tmp_path / "one", "--out", tmp_path / f"papers.{extension}")[0] == 0
    code, _, err = run(
        capsys, "build", tmp_path / f"papers.{extension}", "--out", tmp_path / "two", "--embedder", "tfidf", "--quiet"
    )
    assert code == 0, err
    one, two = (read_build(tmp_path / name).papers.set_index("paper_id").sort_index() for name in ("one", "two"))
    assert one.index.tolist() == two.index.tolist()  # ids are the abstracts' hashes: the same abstracts
    assert one["title"].tolist() == two["title"].tolist()
    for column in ("year", "venue", "authors", "doi", "url", "keywords"):
        assert one[column].tolist() == two[column].tolist(), column
    assert set(two.columns) - set(one.columns) == {"entry_type", "citation_key"}
    # and once more: the file made from the rebuilt papers is the same file, keys included
    assert run(capsys, "export", tmp_path / "two", "--out", tmp_path / f"again.{extension}")[0] == 0
    first = sorted((tmp_path / f"papers.{extension}").read_text(encoding="utf-8").split("\n\n"))
    again = sorted((tmp_path / f"again.{extension}").read_text(encoding="utf-8").split("\n\n"))
    assert first == again


def test_an_empty_selection_is_refused_in_every_format(metadata_build):
    empty = select(read_build(metadata_build), np.zeros(0, dtype=np.int64))
    for export in EXPORT_FORMATS.values():
        with pytest.raises(UserError, match="no papers to export"):
            export_bytes(empty, export)
