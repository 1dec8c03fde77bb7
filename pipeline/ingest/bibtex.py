"""A reference manager's BibTeX export read as papers, with `bibtexparser` (v2) and its LaTeX read as text."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.ingest.references import (
    AUTHORS,
    CITATION_KEY,
    DOI,
    ENTRY_TYPE,
    KEYWORDS,
    URL,
    VENUE,
    VERBATIM_FIELDS,
    YEAR,
    joined,
    present_columns,
    year_of,
)
from topic_explorer.pipeline.text.latex import LatexDecoder


def read_bibtex(path: Path, text: str) -> pd.DataFrame:
    """A `.bib` file's entries as rows: title, abstract and the reference columns, LaTeX read as text.

    Entries without an abstract come back with none (the corpus counts and skips them). A file with an entry
    that cannot be parsed is refused whole, naming the line, rather than read without it.
    """
    import bibtexparser
    from bibtexparser.middlewares.names import split_multiple_persons_names
    from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock

    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # its own warnings repeat what we raise
    library = bibtexparser.parse_string(text)
    entries = list(library.entries)
    for block in library.failed_blocks:
        if isinstance(block, DuplicateBlockKeyBlock | DuplicateFieldKeyBlock):
            entries.append(block.ignore_error_block)  # a repeated key or field: the entry itself is fine
        else:
            line = (block.start_line or 0) + 1
            reason = " ".join(str(getattr(block, "error", "")).split())[:120] or "a syntax error"
            raise UserError(
                f"{path}: the BibTeX entry at line {line:,} cannot be read ({reason}); fix it or export the "
                "library again from your reference manager"
            )
    if not entries:
        raise UserError(f"{path} holds no BibTeX entries; export your library from your reference manager as .bib")
    decode = LatexDecoder()
    rows = []
    for entry in entries:
        fields = {field.key.lower(): field.value for field in entry.fields}
        text_of = {name: str(v) if name in VERBATIM_FIELDS else decode(str(v)) for name, v in fields.items()}
        authors = split_multiple_persons_names(str(fields["author"])) if "author" in fields else []
        rows.append(
            {
                "title": text_of.get("title"),
                "abstract": text_of.get("abstract"),
                AUTHORS: joined([decode(a) for a in authors]),
                YEAR: year_of(text_of.get("year") or text_of.get("date")),
                VENUE: text_of.get("journal") or text_of.get("booktitle") or text_of.get("journaltitle"),
                DOI: text_of.get("doi"),
                URL: text_of.get("url"),
                KEYWORDS: text_of.get("keywords"),
                ENTRY_TYPE: entry.entry_type.lower(),
                CITATION_KEY: entry.key,
            }
        )
    return present_columns(pd.DataFrame(rows, dtype=object))
