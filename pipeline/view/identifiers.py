"""Identifier columns (an id, a DOI, an arXiv id, a URL) and the paper page each value links to (pure)."""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

import pandas as pd

from topic_explorer.pipeline.buildfolder.metadata import is_missing, value_text

# A column named like one of these (its last word, once camelCase and punctuation are split) holds ids.
ID_WORDS = frozenset({"id", "ids", "doi", "arxiv", "url", "uri", "link", "href", "pmid", "pmcid", "isbn", "issn"})
MIN_UNIQUE_IDS = 20  # values unique per paper make an identifier only from this many papers (a year can be unique)

_URL = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_DOI = re.compile(r"(?:doi:\s*)?(10\.\d{4,9}/\S+)", re.IGNORECASE)
# new-style (2601.14530, with an optional version) or old-style (hep-th/9901001) arXiv ids
_ARXIV = re.compile(
    r"(?:arxiv:\s*)?(\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}(?:v\d+)?|[a-z][a-z-]*(?:\.[a-z]{2})?/\d{7}(?:v\d+)?)",
    re.IGNORECASE,
)
_SPACE = re.compile(r"\s")
# LinkColumn's display text: the host the link opens ("arxiv.org", "doi.org")
LINK_HOST = r"https?://(?:www\.)?([^/?#:]+)"


def named_like_an_id(column: str) -> bool:
    """'id', 'doi', 'arxiv_id', 'URL', 'paperId', 'Source ID' ..."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", str(column)).lower()
    words = [w for w in re.split(r"[^a-z0-9]+", words) if w]
    return bool(words) and words[-1] in ID_WORDS


def is_identifier(column: str, values: pd.Series) -> bool:
    """Named like an id, or whole numbers or words (text without spaces) unique per paper, over at least
    `MIN_UNIQUE_IDS` papers; unique text with spaces is free text."""
    if named_like_an_id(column):
        return True
    present = values.dropna()
    if len(present) < MIN_UNIQUE_IDS or not present.is_unique:
        return False
    if pd.api.types.is_integer_dtype(present):
        return True
    return all(isinstance(value, str) and not _SPACE.search(value) for value in present)


def paper_link(value: object) -> str | None:
    """The web page of an id: a URL itself, https://doi.org/DOI or https://arxiv.org/abs/ID; None for others."""
    if is_missing(value) or not isinstance(value, str):
        return None
    text = value.strip()
    if _URL.fullmatch(text) and urlsplit(text).hostname:
        return text
    if doi := _DOI.fullmatch(text):
        return "https://doi.org/" + quote(doi.group(1), safe="/:;()")
    if arxiv := _ARXIV.fullmatch(text):
        return "https://arxiv.org/abs/" + arxiv.group(1)
    return None


def link_host(url: str) -> str:
    """The host a link opens, for its label: 'arxiv.org'."""
    host = urlsplit(url).hostname or url
    return host.removeprefix("www.")


def lowercase_text(values: pd.Series) -> pd.Series:
    """An identifier column as lowercase text, for the dashboard's word filter (missing values become '')."""
    return values.map(lambda value: (value_text(value) or "").lower())
