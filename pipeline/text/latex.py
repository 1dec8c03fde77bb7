"""LaTeX and text both ways: `latex_to_text` for titles and abstracts shown, `latex_text` and `LatexDecoder` for
BibTeX fields; one pylatexenc configuration (`_context`) reads LaTeX for both.

Shown (the dashboard, the HTML map): `$\\ell_1$-regression` -> "ℓ₁-regression". Only what is clearly LaTeX is
converted: `$...$` math holding a command, a brace, `^` or `_` (so "$5 and $10" stays as written), text commands
such as `\\emph{...}`, accents (`\\'e`) and escaped characters (`\\%`). Nothing is run or read (no macro is
defined or executed, `\\input` reads no file), and the result is plain text, shown as text, never as markdown
or HTML.

BibTeX: `latex_text` is exactly undone by `LatexDecoder`, whitespace aside (fields hold one line), so a title
holding `{`, `\\`, `%`, `#`, `&`, `$`, `_`, `~` or `^` written to a `.bib` file reads back as the same text.

Keywords and titles derived from abstracts read LaTeX with `text.clean.strip_markup`'s regular expressions
instead: math keeps its letters as typed there, which the topics' words were measured with.
"""

from __future__ import annotations

import functools
import logging
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


def _context():
    """pylatexenc's macros, and the text-mode brace and caret names `latex_text` writes."""
    from pylatexenc.latex2text import MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()  # a new one each call: adding to it changes no one else's
    macros = [MacroTextSpec(name, text) for name, text in (("textbraceleft", "{"), ("textbraceright", "}"))]
    context.add_context_category(
        "topic-explorer", macros=[*macros, MacroTextSpec("textasciicircum", "^")], prepend=True
    )
    return context


def _decoder():
    """A BibTeX field's LaTeX to text: math as written, braces (which protect capitals) dropped."""
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(latex_context=_context(), math_mode="verbatim", keep_braced_groups=False)


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


_MATH = re.compile(r"(?<!\\)\$([^$]{1,200}?)(?<!\\)\$")
_LATEX_IN_MATH = re.compile(r"[\\^_{]")
_TEXT = re.compile(
    r"\\[a-zA-Z]{2,30}\*?(?:\{[^{}$\\]{0,200}\})*"  # \emph{...}, \textbf{...}, \LaTeX
    r"|\\['`^\"~=.][a-zA-Z]|\\['`^\"~=.]\{[a-zA-Z]\}"  # accents: \'e, \"{o}
    r"|\\[%&_#$]"  # escaped characters
)
_SUB = str.maketrans("0123456789+-=()aeijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
_SUP = str.maketrans("0123456789+-=()abcdefghijklmnoprstuvwxyzT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᵀ")
_SCRIPT = re.compile(r"([_^])([0-9a-zA-Z]{1,6})")
_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9]{0,3}")  # $k$, $n$, $L2$: math without commands, still math
_MACRO = re.compile(r"\\([a-zA-Z]+)")


def has_latex(text: str) -> bool:
    """Whether `text` holds anything `latex_to_text` would change (a quick test for 100,000 titles)."""
    if "\\" in text:
        return True
    return "$" in text and any(_LATEX_IN_MATH.search(m) or _SYMBOL.fullmatch(m) for m in _MATH.findall(text))


def latex_to_text(text: str) -> str:
    """`text` with its LaTeX pieces turned into Unicode text; the rest untouched (never raises)."""
    text = str(text)
    if not has_latex(text):
        return text
    text = _MATH.sub(_math, text)
    return _TEXT.sub(lambda match: _convert(match.group(0)), text)


def _math(match: re.Match) -> str:
    inner = match.group(1)
    if _SYMBOL.fullmatch(inner):
        return inner
    if not _LATEX_IN_MATH.search(inner):
        return match.group(0)  # "$5 and $" is money, not math
    return _SCRIPT.sub(_script, _convert(f"${inner}$"))


def _script(match: re.Match) -> str:
    """`_1` -> "₁" and `^2` -> "²" when every character has a sub- or superscript form; else as written."""
    table = _SUB if match.group(1) == "_" else _SUP
    converted = match.group(2).translate(table)
    return match.group(0) if any(a == b for a, b in zip(match.group(2), converted, strict=True)) else converted


@functools.cache
def _shown():
    """The converter of what is shown: math as text, spaces as LaTeX reads them; built on the first LaTeX met."""
    from pylatexenc.latex2text import LatexNodes2Text

    logging.getLogger("pylatexenc").setLevel(logging.ERROR)  # it warns on every odd macro it meets
    context = _context()
    return LatexNodes2Text(latex_context=context, math_mode="text", strict_latex_spaces=True), context


def _convert(latex: str) -> str:
    """A piece of LaTeX as text; as written when it names a macro pylatexenc does not know (`\\sqrtT`, `\\cite`):
    pylatexenc would drop it, and a title would lose a word."""
    converter, known = _shown()
    if any(known.get_macro_spec(name) is None for name in _MACRO.findall(latex)):
        return latex
    try:
        return converter.latex_to_text(latex)
    except Exception:  # pylatexenc's parser raises several types on odd input: show it as written
        return latex
