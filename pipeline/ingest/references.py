"""What a reference manager's record holds, in Topic Explorer's words: one mapping for BibTeX and RIS, both ways.

Reading a `.bib` or `.ris` file gives a paper the metadata columns `REFERENCE_COLUMNS`; writing takes them
back from any build, whatever its input called them (`column_for`: `author` or `journal` do too). Authors
and keywords are one text each, items separated by "; ", so a CSV or a spreadsheet shows them plainly.
Citation keys are the record's own when it came with one, else made from the first author, year and title
(`citation_keys`), and unique within a file.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

import pandas as pd

from topic_explorer.pipeline.buildfolder.metadata import value_text

AUTHORS, YEAR, VENUE, DOI, URL, KEYWORDS = "authors", "year", "venue", "doi", "url", "keywords"
ENTRY_TYPE, CITATION_KEY = "entry_type", "citation_key"  # BibTeX's words for a record's kind and key
REFERENCE_COLUMNS = (AUTHORS, YEAR, VENUE, DOI, URL, KEYWORDS, ENTRY_TYPE, CITATION_KEY)
VERBATIM_FIELDS = frozenset({"url", "doi"})  # BibTeX fields that hold addresses: never read or written as LaTeX
ITEM_SEPARATOR = "; "  # between authors, and between keywords, in one metadata text
COLUMN_ALIASES = {  # metadata names a build may use for each, compared lowercased, first found wins
    AUTHORS: ("authors", "author", "creators", "creator"),
    YEAR: ("year", "publication_year", "pubyear"),
    VENUE: ("venue", "journal", "booktitle", "conference", "publication", "source_title"),
    DOI: ("doi",),
    URL: ("url", "link", "pdf_url"),
    KEYWORDS: ("keywords", "keyword", "tags", "author_keywords"),
    ENTRY_TYPE: ("entry_type",),
    CITATION_KEY: ("citation_key", "bibtex_key", "cite_key"),
}
# BibTeX entry types and the RIS reference types that mean the same (the first RIS type is the one written)
BIBTEX_TO_RIS = {
    "article": "JOUR",
    "inproceedings": "CPAPER",
    "conference": "CPAPER",
    "book": "BOOK",
    "incollection": "CHAP",
    "inbook": "CHAP",
    "phdthesis": "THES",
    "mastersthesis": "THES",
    "techreport": "RPRT",
    "unpublished": "UNPB",
    "online": "ELEC",
    "misc": "GEN",
}
RIS_TO_BIBTEX = {"CONF": "inproceedings", **{ris: bib for bib, ris in reversed(BIBTEX_TO_RIS.items())}}
KEY_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:./+")
TITLE_SKIP = frozenset("a an the on of for in to and with via towards toward is are do does".split())
KEY_SUFFIX_DIGITS = 4  # hex digits of the paper id that tell apart papers whose made-up keys collide


def column_for(field: str, columns: list[str] | tuple[str, ...]) -> str | None:
    """The build's metadata column holding `field` (one of `REFERENCE_COLUMNS`), or None."""
    by_name = {str(c).lower().replace(" ", "_").replace("-", "_"): c for c in columns}
    return next((by_name[a] for a in COLUMN_ALIASES[field] if a in by_name), None)


def reference_values(papers: pd.DataFrame, metadata_columns: tuple[str, ...]) -> dict[str, list[str | None]]:
    """Per reference field, each paper's value as text (None where it has none); fields the build lacks are None."""
    values = {}
    for field in REFERENCE_COLUMNS:
        column = column_for(field, metadata_columns)
        texts = [value_text(v) for v in papers[column]] if column is not None else [None] * len(papers)
        values[field] = [_one_line(t) if t is not None else None for t in texts]
    return values


def items(text: str | None) -> list[str]:
    """An authors or keywords text as its items."""
    return [item.strip() for item in (text or "").split(ITEM_SEPARATOR.strip()) if item.strip()]


def joined(parts: list[str]) -> str | None:
    """Items as one metadata text (None when there are none)."""
    kept = [_one_line(p) for p in parts if p and p.strip()]
    return ITEM_SEPARATOR.join(kept) if kept else None


def year_of(text: str | None) -> str | None:
    """The year a date text starts with ('2017', '2017/06/12/', '2017-06'), else None."""
    head = (text or "").strip()[:4]
    return head if len(head) == 4 and head.isdigit() else None


def citation_keys(papers: pd.DataFrame, values: dict[str, list[str | None]]) -> list[str]:
    """A key per paper, unique in the file and the same in every export that holds the paper.

    A paper's own key (`citation_key`, from the file it came from) is kept when it is a valid key; others get
    `firstauthorYEARtitleword` ('vaswani2017attention'), or the paper id. Keys that collide all get the
    first hex digits of their paper id ('smith2020graph-3fa2'), so a key does not depend on the others' order.
    """
    ids = papers["paper_id"].astype(str).tolist()
    keys = []
    for paper, own, authors, year, title in zip(
        ids, values[CITATION_KEY], values[AUTHORS], values[YEAR], papers["title"].tolist(), strict=True
    ):
        if own and set(own) <= KEY_CHARACTERS:
            keys.append(own)
        else:
            keys.append(_made_key(authors, year, str(title)) or paper)
    made = list(keys)
    for digits in range(KEY_SUFFIX_DIGITS, len(max(ids, key=len, default="")) + 1):
        counts = Counter(made)
        if len(counts) == len(made):
            break
        # every key shared by several papers gets more of each paper's id, until all differ (ids are unique)
        made = [
            f"{key}-{paper[1 : 1 + digits]}" if counts[m] > 1 else m
            for m, key, paper in zip(made, keys, ids, strict=True)
        ]
    return made


def _made_key(authors: str | None, year: str | None, title: str) -> str:
    first = items(authors)[0] if items(authors) else ""
    surname = first.split(",")[0] if "," in first else (first.split() or [""])[-1]
    words = [w for w in (_ascii_word(w) for w in title.split()) if w and w not in TITLE_SKIP]
    return _ascii_word(surname) + (year_of(year) or "") + (words[0] if words else "")


def _ascii_word(text: str) -> str:
    """Lowercase ASCII letters and digits only: 'Müller' -> 'muller'."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return "".join(c for c in plain.lower() if c.isalnum())


def _one_line(text: str) -> str:
    """A text with its line breaks and runs of whitespace as single spaces, control characters dropped.

    Neither format keeps a line break inside a field, and the build collapses whitespace anyway.
    """
    kept = "".join(c for c in text if c.isspace() or unicodedata.category(c) not in ("Cc", "Cs"))
    return " ".join(kept.split())


def present_columns(rows: pd.DataFrame) -> pd.DataFrame:
    """Read records with every whitespace-only text missing, and the reference columns no record fills left out."""
    rows = rows.map(lambda v: (" ".join(v.split()) or None) if isinstance(v, str) else v)
    keep = [c for c in rows.columns if c in ("title", "abstract") or rows[c].notna().any()]
    return rows[keep]
