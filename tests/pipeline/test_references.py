"""BibTeX and RIS, both ways: a reference manager's exports read as papers, and selections written for one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.dashboard.tinybuild import tiny_papers, tiny_topics
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.export.bibtex import bibtex_bytes
from topic_explorer.pipeline.export.ris import ris_bytes
from topic_explorer.pipeline.export.selection import select
from topic_explorer.pipeline.ingest.corpus import load_corpus
from topic_explorer.pipeline.ingest.readers import read_file
from topic_explorer.pipeline.ingest.references import citation_keys, reference_values
from topic_explorer.pipeline.text.latex import latex_text

ZOTERO_BIB = r"""
% exported by a reference manager
@article{mueller2021,
  title = {{\"U}ber {BERT}: Attention for the {M}asses},
  author = {M{\"u}ller, J{\"o}rg and Smith, Anna and {Research Group and Friends}},
  journal = {Journal of {ML}},
  year = {2021},
  month = jun,
  doi = {10.1000/xyz-123},
  url = {https://example.org/paper?id=1&x=2},
  keywords = {transformers, attention},
  abstract = {We show that 50\% of na\"ive models \& {BERT} fail -- a {\'e}tude in $\alpha$ space.},
}
@inproceedings{noabstract2020,
  title = {A Paper Without an Abstract},
  booktitle = {Proceedings},
  year = 2020,
}
@misc{second,
  title = {Second paper},
  abstract = {Graph networks learn sparse models of molecules.},
}
"""

ZOTERO_RIS = """TY  - JOUR
TI  - Über BERT: Attention for the Masses
AU  - Müller, Jörg
AU  - Smith, Anna
T2  - Journal of ML
PY  - 2021/06/12/
DO  - 10.1000/xyz-123
UR  - https://example.org/paper?id=1&x=2
KW  - transformers
KW  - attention
AB  - We show that 50% of naïve models & BERT fail.
ER  -

TY  - CONF
TI  - A Paper Without an Abstract
PY  - 2020
ER  -
""".replace("ER  -\n", "ER  - \n")  # RIS ends a record with 'ER  - ', its trailing space included


def test_bibtex_reads_latex_accents_and_braces_as_text_and_keeps_the_reference_fields(tmp_path):
    path = tmp_path / "library.bib"
    path.write_text(ZOTERO_BIB, encoding="utf-8")
    rows = read_file(path).rows
    first = rows.iloc[0]
    assert first["title"] == "Über BERT: Attention for the Masses"
    assert first["abstract"] == "We show that 50% of naïve models & BERT fail – a étude in $\\alpha$ space."
    assert first["authors"] == "Müller, Jörg; Smith, Anna; Research Group and Friends"
    assert (first["year"], first["venue"], first["doi"]) == ("2021", "Journal of ML", "10.1000/xyz-123")
    assert (first["url"], first["keywords"]) == ("https://example.org/paper?id=1&x=2", "transformers, attention")
    assert (first["entry_type"], first["citation_key"]) == ("article", "mueller2021")
    assert rows["venue"].iloc[1] == "Proceedings"
    assert pd.isna(rows["abstract"].iloc[1])


def test_ris_reads_every_reference_field(tmp_path):
    path = tmp_path / "library.ris"
    path.write_text(ZOTERO_RIS, encoding="utf-8")
    rows = read_file(path).rows
    first = rows.iloc[0]
    assert first["title"] == "Über BERT: Attention for the Masses"
    assert first["authors"] == "Müller, Jörg; Smith, Anna"
    assert (first["year"], first["venue"], first["doi"]) == ("2021", "Journal of ML", "10.1000/xyz-123")
    assert (first["url"], first["keywords"]) == ("https://example.org/paper?id=1&x=2", "transformers; attention")
    assert first["entry_type"] == "article"
    assert rows["entry_type"].iloc[1] == "inproceedings"
    assert pd.isna(rows["abstract"].iloc[1])


@pytest.mark.parametrize(("name", "text"), [("library.bib", ZOTERO_BIB), ("library.ris", ZOTERO_RIS)])
def test_entries_without_an_abstract_are_counted_and_skipped_like_empty_abstracts(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    corpus = load_corpus([path])
    assert corpus.empty_dropped == 1
    assert "A Paper Without an Abstract" not in set(corpus.papers["title"])
    assert corpus.papers["year"].dtype == "Int64"  # typed as a CSV's text would be


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notes.bib", "just some notes, no entries\n", "holds no BibTeX entries"),
        ("cut.bib", "@article{a, title = {One}, abstract = {x}}\n@article{b, title = {unclosed\n", "line 2"),
        ("notes.ris", "hello\nworld\n", "holds no RIS records"),
        ("cut.ris", "TY  - JOUR\nTI  - One\nAB  - x\nER  - \n\nTY  - JOUR\nTI  - Two\n", "line 6"),
    ],
)
def test_a_bad_reference_file_is_one_line_naming_the_fix(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        read_file(path)
    text = str(caught.value)
    assert message in text
    assert name in text
    assert "reference manager" in text
    assert "\n" not in text


@pytest.fixture(scope="module")
def cited(tmp_path_factory):
    """The tiny build with authors, a URL and a shared year-title, so made-up keys collide."""
    papers = tiny_papers().assign(
        authors=["Müller, Jörg; Smith, A."] * 3 + ["O'Neil, Pat"] + [None] * 4,
        url=["https://example.org/a", None, "javascript:alert(1)", None, None, None, None, None],
        year=[2020] * 8,
    )
    papers["title"] = ["Graph {networks} 100% & more", *papers["title"][1:]]
    papers.loc[1, "title"] = papers.loc[2, "title"] = "Same title"
    papers.loc[1, "authors"] = papers.loc[2, "authors"] = "Lee, K."
    folder = tmp_path_factory.mktemp("builds") / "cited"
    return read_build(write_build(folder, papers, tiny_topics(), np.zeros((8, 4), np.float32), {}))


def test_citation_keys_are_unique_readable_and_the_same_in_any_selection(cited):
    everything = select(cited, np.arange(8))
    keys = citation_keys(everything.papers, reference_values(everything.papers, everything.metadata_columns))
    assert len(set(keys)) == 8
    assert keys[0] == "muller2020graph"
    assert keys[1] != keys[2]
    assert all(k.startswith("lee2020same-") for k in keys[1:3])  # told apart by their ids
    reordered = select(cited, np.array([2, 0, 1]))
    assert citation_keys(reordered.papers, reference_values(reordered.papers, reordered.metadata_columns)) == [
        keys[2],
        keys[0],
        keys[1],
    ]


@pytest.mark.parametrize(("write", "suffix"), [(bibtex_bytes, "bib"), (ris_bytes, "ris")])
def test_a_written_file_reads_back_with_the_same_titles_abstracts_and_reference_fields(cited, tmp_path, write, suffix):
    selection = select(cited, np.arange(8))
    path = tmp_path / f"selection.{suffix}"
    path.write_bytes(write(selection))
    rows = read_file(path).rows
    assert rows["title"].tolist() == [" ".join(t.split()) for t in cited.papers["title"]]
    assert rows["abstract"].tolist() == [" ".join(a.split()) for a in cited.papers["abstract"]]
    assert rows["authors"].tolist()[:4] == ["Müller, Jörg; Smith, A.", "Lee, K.", "Lee, K.", "O'Neil, Pat"]
    assert rows["year"].tolist() == ["2020"] * 8
    assert rows["doi"].tolist() == cited.papers["doi"].tolist()
    assert rows["venue"].tolist() == cited.papers["venue"].tolist()
    assert rows["url"].iloc[0] == "https://example.org/a"


def test_bibtex_escapes_latex_specials_and_keeps_unicode_as_utf8(cited):
    text = bibtex_bytes(select(cited, np.arange(8))).decode("utf-8")
    assert r"title = {Graph \{networks\} 100\% \& more}" in text
    assert "Ünïcödé títle 中文" in text
    assert "@article{muller2020graph," in text
    assert latex_text("a}b{") == r"a\textbraceright{}b\textbraceleft{}"  # unpaired braces never unbalance a field


# Characters that mean something to LaTeX, BibTeX or RIS, and text from anywhere in Unicode
HOSTILE = "{}\\%#&$_~^-`'!? \n\t@=,\"ER  - TY  -"
hostile_text = st.text(
    st.sampled_from([*HOSTILE, "a", "ü", "中", "\u2028"]) | st.characters(exclude_categories=["Cs", "Cc"]),
    min_size=1,
    max_size=30,
).filter(lambda text: text.strip())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    title=hostile_text, abstract=hostile_text, venue=hostile_text, author=hostile_text.filter(lambda a: ";" not in a)
)
def test_hostile_fields_survive_writing_and_reading_back(tmp_path_factory, title, abstract, venue, author):
    papers = tiny_papers().assign(authors=[author] * 8)
    papers.loc[0, ["title", "abstract", "venue"]] = [title, abstract, venue]
    folder = tmp_path_factory.mktemp("hostile")
    build = read_build(write_build(folder / "b", papers, tiny_topics(), np.zeros((8, 4), np.float32), {}))
    selection = select(build, np.array([0]))
    for write, suffix in ((bibtex_bytes, "bib"), (ris_bytes, "ris")):
        path = folder / f"one.{suffix}"
        path.write_bytes(write(selection))
        row = read_file(path).rows.iloc[0]
        for field, value in (("title", title), ("abstract", abstract), ("venue", venue), ("authors", author)):
            assert row[field] == " ".join(value.split()), (suffix, field)
