"""A selection written as a `.ris` file Zotero, JabRef, EndNote and Mendeley import, with `rispy`.

RIS has no escaping: a field is the rest of its line, so every text is written on one line (the build keeps
texts with whitespace collapsed anyway) and reads back as it was (`pipeline.ingest.ris`).
"""

from __future__ import annotations

from topic_explorer.pipeline.export.selection import Selection
from topic_explorer.pipeline.ingest.references import (
    AUTHORS,
    BIBTEX_TO_RIS,
    DOI,
    ENTRY_TYPE,
    KEYWORDS,
    URL,
    VENUE,
    YEAR,
    citation_keys,
    items,
    reference_values,
    year_of,
)


def ris_bytes(selection: Selection) -> bytes:
    """The selected papers as RIS records, in order, UTF-8."""
    import rispy

    papers = selection.papers
    values = reference_values(papers, selection.metadata_columns)
    keys = citation_keys(papers, values)
    titles, abstracts = papers["title"].tolist(), papers["abstract"].tolist()
    records = []
    for row, key in enumerate(keys):
        value = {field: texts[row] for field, texts in values.items()}
        kind = value[ENTRY_TYPE] if value[ENTRY_TYPE] in BIBTEX_TO_RIS else ("article" if value[VENUE] else "misc")
        record = {
            "type_of_reference": BIBTEX_TO_RIS[kind],
            "title": _line(titles[row]),
            "authors": items(value[AUTHORS]),
            "year": year_of(value[YEAR]),
            "secondary_title": value[VENUE],
            "doi": value[DOI],
            "urls": [value[URL]] if value[URL] else [],
            "keywords": items(value[KEYWORDS]),
            "abstract": _line(abstracts[row]),
            "id": key,
        }
        records.append({name: v for name, v in record.items() if v})
    return rispy.dumps(records, implementation=_writer()).encode("utf-8")


def _writer():
    import rispy

    class Writer(rispy.RisWriter):
        """rispy's writer without the record numbers ('1.') it puts before each record: RIS has no such line."""

        def set_header(self, count: int) -> str:
            return ""

    return Writer


def _line(text: object) -> str:
    return " ".join(str(text).split())
