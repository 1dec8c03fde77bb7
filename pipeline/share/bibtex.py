"""BibTeX both ways, with `bibtexparser` (v2) and its LaTeX decoding (pylatexenc): a reference manager's
export read as papers, and a selection written as a `.bib` file Zotero and JabRef import.

Written files are UTF-8 (both import it), with LaTeX's special characters escaped so that a title holding
`{`, `\\`, `%`, `#`, `&`, `$`, `_`, `~` or `^` reads back as the same text: `latex_text` is exactly undone
by the reader's decoding, whitespace aside (fields hold one line).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pandas as pd

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.share.references import (
    AUTHORS,
    BIBTEX_TO_RIS,
    CITATION_KEY,
    DOI,
    ENTRY_TYPE,
    KEYWORDS,
    URL,
    VENUE,
    YEAR,
    citation_keys,
    items,
    joined,
    present_columns,
    reference_values,
    year_of,
)
from topic_explorer.pipeline.share.selection import Selection

ESCAPES = {
    "\\": r"\textbackslash{}",
    "%": r"\%",
    "#": r"\#",
    "&": r"\&",
    "$": r"\$",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
# LaTeX reads these pairs as one character ('--' is a dash, '``' a quote, '!`' an inverted mark): an empty
# group between them keeps both as typed.
LIGATURE_FIRST, LIGATURE_SECOND = frozenset("-`'!?"), frozenset("-`'")
LIGATURES = tuple(first + second for first in LIGATURE_FIRST for second in LIGATURE_SECOND)
LATEX_CHARS = frozenset("\\{}$%~&^_#")  # where a field's LaTeX may differ from its text, with LIGATURES
BRACE_NAMES = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}  # for braces that do not pair up
_NOT_BRACES = re.compile(r"[^{}]+")
_PAIRED = str.maketrans({**ESCAPES, "{": r"\{", "}": r"\}"})
_UNPAIRED = str.maketrans({**ESCAPES, **BRACE_NAMES})
_OWN_TEXT = {
    **{latex: char for char, latex in ESCAPES.items()},
    **{latex: char for char, latex in BRACE_NAMES.items()},
    r"\{": "{",
    r"\}": "}",
    "{}": "",
}
_OWN_ESCAPE = re.compile("|".join(re.escape(latex) for latex in sorted(_OWN_TEXT, key=len, reverse=True)))
VERBATIM_FIELDS = frozenset({"url", "doi"})  # addresses: read and written as they are, never as LaTeX
VENUE_FIELD = {"inproceedings": "booktitle", "conference": "booktitle", "incollection": "booktitle"}


def latex_text(text: str) -> str:
    """`text` as a BibTeX field's LaTeX: special characters escaped, braces kept balanced, the rest as is."""
    out = text.translate(_PAIRED if _braces_pair(text) else _UNPAIRED)
    while any(pair in out for pair in LIGATURES):  # repeated: '---' holds two overlapping pairs
        for pair in LIGATURES:
            out = out.replace(pair, pair[0] + "{}" + pair[1])
    return out


def _braces_pair(text: str) -> bool:
    """Every `}` closes an earlier `{`: then `\\{` and `\\}` keep the field's braces balanced, as BibTeX counts."""
    depth = 0
    for char in _NOT_BRACES.sub("", text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _decoder():
    """LaTeX to text: pylatexenc's, knowing also the text-mode brace and caret names `latex_text` writes."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()  # a new one each call: adding to it changes no one else's
    macros = [MacroTextSpec(name, text) for name, text in (("textbraceleft", "{"), ("textbraceright", "}"))]
    context.add_context_category(
        "topic-explorer", macros=[*macros, MacroTextSpec("textasciicircum", "^")], prepend=True
    )
    return LatexNodes2Text(latex_context=context, math_mode="verbatim", keep_braced_groups=False)


class _Decode:
    """LaTeX to text, with pylatexenc: except where a field holds no LaTeX beyond the escapes `latex_text` writes,
    which are undone directly (pylatexenc takes about 3 ms a field: a minute for 20,000 abstracts)."""

    def __init__(self) -> None:
        self._decoder = _decoder()

    def __call__(self, text: str) -> str:
        rest = _OWN_ESCAPE.sub("\x00", text)  # a stand-in keeps '-{}-' from reading as '--'
        if any(char in rest for char in LATEX_CHARS) or any(pair in rest for pair in LIGATURES):
            return self._decoder.latex_to_text(text)
        return _OWN_ESCAPE.sub(lambda match: _OWN_TEXT[match.group()], text)


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
        return text if _braces_pair(text) else text.replace("{", "%7B").replace("}", "%7D")
    return latex_text(text)


def _author(name: str) -> str:
    """One author for BibTeX's `and`-separated list: escaped; braced whole when the name itself holds ' and '."""
    text = latex_text(name)
    return "{" + text + "}" if " and " in f" {name.lower()} " else text


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
    decode = _Decode()
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
