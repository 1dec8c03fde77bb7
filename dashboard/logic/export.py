"""The download button's words and file name (pure); the bytes come from `pipeline.share.export`."""

from __future__ import annotations

import re


def download_label(n_selected: int, n_shown: int, format_label: str) -> str:
    """Says what the button exports: the selection when there is one, else every shown paper."""
    if n_selected:
        return f"Download {n_selected:,} selected paper{'s' if n_selected != 1 else ''} ({format_label})"
    if n_shown == 1:
        return f"Download the 1 shown paper ({format_label})"
    return f"Download all {n_shown:,} shown papers ({format_label})"


def file_name(build_name: str, extension: str) -> str:
    """A safe file name that names the build, e.g. 'my-build-papers.csv'."""
    slug = re.sub(r"[^a-z0-9]+", "-", build_name.lower()).strip("-") or "topic-explorer"
    return f"{slug}-papers.{extension}"
