"""A reference manager's RIS export read as papers, with `rispy`.

RIS has no escaping: a field is the rest of its line, so a text reads back as it was written.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.ingest.references import (
    AUTHORS,
    CITATION_KEY,
    DOI,
    ENTRY_TYPE,
    KEYWORDS,
    RIS_TO_BIBTEX,
    URL,
    VENUE,
    YEAR,
    joined,
    present_columns,
    year_of,
)

RECORD_START = "TY  - "
VENUE_KEYS = ("secondary_title", "journal_name", "alternate_title3", "alternate_title1", "alternate_title2")
TITLE_KEYS = ("title", "primary_title")
AUTHOR_KEYS = ("authors", "first_authors")
ABSTRACT_KEYS = ("abstract", "notes_abstract")
YEAR_KEYS = ("year", "publication_year", "date")


def read_ris(path: Path, text: str) -> pd.DataFrame:
    """A `.ris` file's records as rows: title, abstract and the reference columns.

    Records without an abstract come back with none (the corpus counts and skips them). rispy passes over a
    record that never ends (no `ER  -` line): the file is refused then, rather than read without it.
    """
    import rispy

    records = rispy.loads(text)
    lines = enumerate(text.splitlines(), start=1)
    starts = [number for number, line in lines if line.startswith(RECORD_START)]
    if not starts:
        raise UserError(
            f"{path} holds no RIS records (lines starting 'TY  - '); export your library from your reference "
            "manager as .ris"
        )
    if len(records) < len(starts):
        raise UserError(
            f"{path}: the RIS record at line {starts[len(records)]:,} has no end ('ER  - '); fix it or export the "
            "library again from your reference manager"
        )
    rows = []
    for record in records:
        first = {key: _first(record, keys) for key, keys in (("title", TITLE_KEYS), ("abstract", ABSTRACT_KEYS))}
        authors = next((record[k] for k in AUTHOR_KEYS if record.get(k)), [])
        urls = record.get("urls") or []
        rows.append(
            {
                **first,
                AUTHORS: joined(authors),
                YEAR: year_of(_first(record, YEAR_KEYS)),
                VENUE: _first(record, VENUE_KEYS),
                DOI: record.get("doi"),
                URL: urls[0] if urls else None,
                KEYWORDS: joined(record.get("keywords") or []),
                ENTRY_TYPE: RIS_TO_BIBTEX.get(str(record.get("type_of_reference", "")).upper(), "misc"),
                CITATION_KEY: record.get("id"),
            }
        )
    return present_columns(pd.DataFrame(rows, dtype=object))


def _first(record: dict, keys: tuple[str, ...]) -> str | None:
    return next((str(record[k]) for k in keys if record.get(k)), None)
