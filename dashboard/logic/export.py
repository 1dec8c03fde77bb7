"""The download button's words and file name (pure); the bytes come from `pipeline.export.formats`."""

from __future__ import annotations

import re
import unicodedata


def download_label(n_selected: int, n_shown: int, format_label: str) -> str:
    """Says what the button exports: the selection when there is one, else every shown paper."""
    # "(CSV)", but "as a map (HTML)": a label with brackets of its own would read "(Map (HTML))"
    what = f"as a {format_label[:1].lower()}{format_label[1:]}" if "(" in format_label else f"({format_label})"
    if n_selected:
        return f"Download {n_selected:,} selected paper{'s' if n_selected != 1 else ''} {what}"
    if n_shown == 1:
        return f"Download the 1 shown paper {what}"
    return f"Download all {n_shown:,} shown papers {what}"


def file_name(title: str, extension: str) -> str:
    """A safe file name that names the corpus by its title, e.g. 'neurips-2025-sample-papers.csv'.

    Accents are dropped rather than the letters ("Études" -> "etudes"); a title of no Latin letters or digits
    gives 'topic-explorer-papers'.
    """
    plain = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")[:80].strip("-") or "topic-explorer"
    return f"{slug}-papers.{extension}"
