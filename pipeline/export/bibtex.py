"""A selection written as a `.bib` file Zotero and JabRef import, with `bibtexparser` (v2).

Written files are UTF-8 (both import it), with LaTeX's special characters escaped (`text.latex.latex_text`) so
that the reader (`pipeline.ingest.bibtex`) gives back the same text.
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
    VERBATIM_FIELDS,
    YEAR,
    citation_keys,
    items,
    reference_values,
    year_of,
)
from topic_explorer.pipeline.text.latex import braces_pair, latex_text

VENUE_FIELD = {"inproceedings": "booktitle", "conference": "booktitle", "incollection": "booktitle"}


def bibtex_bytes(selection: Selection) -> bytes:
    """The selected papers as BibTeX entries, in order, UTF-8."""
    import bibtexparser
    from bibtexparser.middlewares.parsestack import default_unparse_stack
    from bibtexparser.model import Entry, Field

    papers = selection.papers
    values = reference_values(papers, selection.metadata_columns)
    keys = citation_keys(papers, values)
    titles, abstracts = papers["title"].astype(str).tolist(), papers["abstract"].astype(str).tolist()
    library = bibtexparser.Library()
    for row, key in enumerate(keys):
        value = {field: texts[row] for field, texts in values.items()}
        kind = value[ENTRY_TYPE] if value[ENTRY_TYPE] in BIBTEX_TO_RIS else ("article" if value[VENUE] else "misc")
        fields = {
            "title": titles[row],
            "author": " and ".join(_author(a) for a in items(value[AUTHORS])) or None,
            "year": year_of(value[YEAR]),
            VENUE_FIELD.get(kind, "journal"): value[VENUE],
            "doi": value[DOI],
            "url": value[URL],
            "keywords": value[KEYWORDS],
            "abstract": abstracts[row],
        }
        encoded = [Field(name, _field_text(name, text)) for name, text in fields.items() if text]
        library.add(Entry(kind, key, encoded))
    # the library is made for this file only: its entries may be changed in place (else each is deep-copied)
    unparse = default_unparse_stack(allow_inplace_modification=True)
    return bibtexparser.write_string(library, unparse_stack=unparse).encode("utf-8")


def _field_text(name: str, text: str) -> str:
    """A field's value as written: authors are made by `_author`, addresses are verbatim, the rest LaTeX."""
    if name == "author":
        return text
    if name in VERBATIM_FIELDS:
        return text if braces_pair(text) else text.replace("{", "%7B").replace("}", "%7D")
    return latex_text(text)


def _author(name: str) -> str:
    """One author for BibTeX's `and`-separated list: escaped; braced whole when the name itself holds ' and '."""
    text = latex_text(name)
    return "{" + text + "}" if " and " in f" {name.lower()} " else text
