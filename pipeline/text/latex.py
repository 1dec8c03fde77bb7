"""LaTeX and text both ways, for BibTeX fields: `latex_text` escapes a text, `LatexDecoder` reads LaTeX as text.

`latex_text` is exactly undone by `LatexDecoder`, whitespace aside (fields hold one line), so a title holding
`{`, `\\`, `%`, `#`, `&`, `$`, `_`, `~` or `^` written to a `.bib` file reads back as the same text.
"""

from __future__ import annotations

import re

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


def latex_text(text: str) -> str:
    """`text` as a BibTeX field's LaTeX: special characters escaped, braces kept balanced, the rest as is."""
    out = text.translate(_PAIRED if braces_pair(text) else _UNPAIRED)
    while any(pair in out for pair in LIGATURES):  # repeated: '---' holds two overlapping pairs
        for pair in LIGATURES:
            out = out.replace(pair, pair[0] + "{}" + pair[1])
    return out


def braces_pair(text: str) -> bool:
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


class LatexDecoder:
    """LaTeX to text, with pylatexenc: except where a field holds no LaTeX beyond the escapes `latex_text` writes,
    which are undone directly (pylatexenc takes about 3 ms a field: a minute for 20,000 abstracts)."""

    def __init__(self) -> None:
        self._decoder = _decoder()

    def __call__(self, text: str) -> str:
        rest = _OWN_ESCAPE.sub("\x00", text)  # a stand-in keeps '-{}-' from reading as '--'
        if any(char in rest for char in LATEX_CHARS) or any(pair in rest for pair in LIGATURES):
            return self._decoder.latex_to_text(text)
        return _OWN_ESCAPE.sub(lambda match: _OWN_TEXT[match.group()], text)
