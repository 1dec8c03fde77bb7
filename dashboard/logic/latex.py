"""LaTeX in titles and abstracts shown as text: `$\\ell_1$-regression` -> "ℓ₁-regression" (pure, no Streamlit).

Only what is clearly LaTeX is converted: `$...$` math holding a command, a brace, `^` or `_` (so "$5 and $10"
stays as written), text commands such as `\\emph{...}`, accents (`\\'e`) and escaped characters (`\\%`). pylatexenc
parses each piece into text; nothing is run or read (no macro is defined or executed, `\\input` reads no file), and
the result is plain text, which the page shows as text, never as markdown or HTML.
"""

from __future__ import annotations

import logging
import re

from pylatexenc.latex2text import LatexNodes2Text, get_default_latex_context_db

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
_CONVERTER = LatexNodes2Text(math_mode="text", strict_latex_spaces=True)
_KNOWN = get_default_latex_context_db()
logging.getLogger("pylatexenc").setLevel(logging.ERROR)  # it warns on every odd macro it meets


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


def _convert(latex: str) -> str:
    """A piece of LaTeX as text; as written when it names a macro pylatexenc does not know (`\\sqrtT`, `\\cite`):
    pylatexenc would drop it, and a title would lose a word."""
    if any(_KNOWN.get_macro_spec(name) is None for name in _MACRO.findall(latex)):
        return latex
    try:
        return _CONVERTER.latex_to_text(latex)
    except Exception:  # pylatexenc's parser raises several types on odd input: show it as written
        return latex
