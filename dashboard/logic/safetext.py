"""Make untrusted text (titles, abstracts, labels, folder names) safe to show: never rendered as HTML or markdown."""

from __future__ import annotations

import html
import string

_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in string.punctuation})


def escape_markdown(text: str) -> str:
    """Backslash-escape every ASCII punctuation mark, so markdown shows `text` literally."""
    return str(text).translate(_MARKDOWN_SPECIAL)


_SPELLED = {"id": "ID", "doi": "DOI", "url": "URL", "uri": "URI", "arxiv": "arXiv", "isbn": "ISBN", "pmid": "PMID"}


def column_title(column: str) -> str:
    """A metadata column's name as a reader would write it: "source_file" -> "Source file", "arxiv_id" ->
    "arXiv ID"; a name with capitals of its own ("DOI", "arXiv-id") keeps them."""
    words = str(column).replace("_", " ").replace("-", " ").split()
    title = " ".join(words) or str(column)
    if not title.islower():
        return title
    words = [_SPELLED.get(word, word) for word in words]
    first = words[0] if words[0] in _SPELLED.values() else words[0][:1].upper() + words[0][1:]
    return " ".join([first, *words[1:]])


def plotly_text(text: str) -> str:
    """Escape for Plotly labels and hover text, which render a few HTML tags (<b>, <a>, <br>...)."""
    return html.escape(str(text), quote=False)


def preview(text: str, limit: int = 200) -> str:
    """The first `limit` characters, cut at a word boundary, with an ellipsis when shortened."""
    text = " ".join(str(text)[: limit * 2].split())  # only the start matters; long abstracts are cut first
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(" ,;:.") + "…"


def shorten(text: str, limit: int) -> str:
    """`text` at most `limit` characters long, with an ellipsis when shortened: cut after a whole word (mid-word
    only when a single word fills most of the limit)."""
    text = str(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if not text[limit - 1].isspace() and " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]  # the cut would fall inside a word: end after the last whole word
    return cut.rstrip(" ,;:.-–") + "…"


def two_lines(text: str, line_chars: int) -> str:
    """`text` on one line, or broken at the space nearest its middle when longer than `line_chars` (a map label)."""
    text = str(text)
    if len(text) <= line_chars or " " not in text:
        return text
    middle = len(text) / 2
    spaces = [i for i, c in enumerate(text) if c == " "]
    at = min(spaces, key=lambda i: abs(i - middle))
    return text[:at] + "\n" + text[at + 1 :]


def hover_html(title: str, topic_label: str, abstract_start: str | None, width: int = 72) -> str:
    """Hover text for one paper: bold title, topic, the abstract's start (if given); user text escaped, lines
    wrapped."""
    lines = [f"<b>{plotly_text(line)}</b>" for line in wrap(shorten(title, 160), width)]
    lines.append(f"<i>{plotly_text(topic_label)}</i>")
    lines += [plotly_text(line) for line in wrap(abstract_start or "", width)]
    return "<br>".join(lines)


def wrap(text: str, width: int) -> list[str]:
    """Greedy word wrap (textwrap is too slow for 20,000 hover texts); over-long words keep their own line."""
    lines: list[str] = []
    current = ""
    for word in str(text).split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines
