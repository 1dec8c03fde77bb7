"""Turn input files into one clean table of papers: ids, titles, abstracts, metadata.

Several inputs are merged; empty and exact duplicate abstracts are dropped (and counted);
every paper gets a stable `paper_id` (a hash of its abstract, so it survives reordering
and re-ingesting) and a non-empty title, derived from the abstract when the source has none.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from pipeline.buildfolder import PAPER_COLUMNS
from pipeline.errors import UserError
from pipeline.exchange import from_export, is_export
from pipeline.metadata import reconciled, typed_json_column, typed_parquet_column, typed_text_column
from pipeline.readers import RawFile, read_file
from pipeline.settings import MIN_PAPERS, MIN_SHARED_WORDS
from pipeline.textclean import has_content, shared_words
from pipeline.titles import derive_title

log = logging.getLogger(__name__)

SAMPLE_DIR = Path(__file__).parent / "sample"

# Column names tried in order when the user does not name the column (compared lowercased,
# without spaces, dashes or underscores).
TEXT_COLUMN_NAMES = ("abstract", "summary", "text", "abstracttext", "paperabstract", "body", "content", "description")
TITLE_COLUMN_NAMES = ("title", "papertitle", "articletitle", "headline", "subject")
# Columns the build itself defines; a metadata column with one of these names is renamed.
RESERVED_COLUMNS = tuple(PAPER_COLUMNS)
TEXT_COLUMNS = ("paper_id", "title", "abstract")  # a corpus's own columns, before its metadata
SOURCE_FILE = "source_file"  # with several inputs, the file each paper came from (an input's own column is renamed)
COLUMN_TYPING = {  # how each table format's metadata columns get their types (see pipeline/metadata.py)
    "csv": typed_text_column,
    "tsv": typed_text_column,
    "json": typed_json_column,
    "jsonl": typed_json_column,
    "parquet": typed_parquet_column,
}


@dataclass
class Corpus:
    """The papers to model, and what happened on the way in (for the summary and manifest)."""

    papers: pd.DataFrame  # paper_id, title, abstract, then metadata columns
    inputs: list[dict] = field(default_factory=list)
    rows_read: int = 0
    empty_dropped: int = 0
    duplicates_dropped: int = 0
    titles_derived: int = 0

    @property
    def metadata_columns(self) -> list[str]:
        return [c for c in self.papers.columns if c not in TEXT_COLUMNS]


def sample_files() -> list[Path]:
    """The bundled sample: 38 NeurIPS 2025 abstracts in the plain-text format."""
    return sorted(SAMPLE_DIR.glob("*.txt"))


def load_corpus(paths: list[Path], *, text_column: str | None = None, title_column: str | None = None) -> Corpus:
    """Read, merge and clean `paths` into a `Corpus`."""
    raws = [read_file(Path(p)) for p in paths]
    frames = [_papers_of(raw, text_column, title_column) for raw in raws]
    if len(frames) > 1:
        for index, (raw, frame) in enumerate(zip(raws, frames, strict=True)):
            frames[index] = frame.rename(columns={SOURCE_FILE: f"source_{SOURCE_FILE}"}).assign(
                **{SOURCE_FILE: raw.path.name}
            )
    merged = pd.concat(frames, ignore_index=True, sort=False)
    corpus = Corpus(papers=merged, rows_read=len(merged), inputs=[_describe(raw) for raw in raws])

    abstracts = merged["abstract"].map(_normalise)
    keep = abstracts.map(has_content)  # no words but numbers, symbols or stop words: as good as empty
    corpus.empty_dropped = int((~keep).sum())
    merged, abstracts = merged[keep], abstracts[keep]
    unique = ~abstracts.duplicated()
    corpus.duplicates_dropped = int((~unique).sum())
    merged, abstracts = merged[unique].copy(), abstracts[unique]
    names = ", ".join(str(p) for p in paths)
    if merged.empty:
        raise UserError(f"no abstracts found in {names}; check that the text column holds the abstracts")
    if len(merged) >= MIN_PAPERS and shared_words(abstracts, MIN_SHARED_WORDS) < MIN_SHARED_WORDS:
        raise UserError(
            f"the abstracts in {names} share almost no words (fewer than {MIN_SHARED_WORDS} recur): there are no "
            "topics to find; check that the text column holds the abstracts"
        )

    merged["abstract"] = abstracts
    merged["paper_id"] = abstracts.map(paper_id)
    titles = merged["title"].map(_normalise) if "title" in merged else pd.Series("", index=merged.index)
    missing = titles == ""
    titles[missing] = merged.loc[missing, "abstract"].map(derive_title)
    merged["title"] = titles
    corpus.titles_derived = int(missing.sum())
    metadata = [c for c in merged.columns if c not in TEXT_COLUMNS]
    papers = merged[[*TEXT_COLUMNS, *metadata]].reset_index(drop=True)
    corpus.papers = papers.assign(**{column: reconciled(papers[column]) for column in metadata})
    return corpus


def paper_id(abstract: str) -> str:
    """A stable id: the first 12 hex digits of the abstract's SHA-256."""
    return "p" + hashlib.sha256(abstract.encode("utf-8")).hexdigest()[:12]


def _papers_of(raw: RawFile, text_column: str | None, title_column: str | None) -> pd.DataFrame:
    frame = raw.rows
    if raw.format == "text":
        return frame.copy()
    if is_export(list(frame.columns)):  # a Topic Explorer export: read back what went into it
        frame = from_export(frame, guarded=raw.format in ("csv", "tsv"))
        raw = RawFile(raw.path, raw.format, raw.sha256, frame, raw.header)
    text = _pick_column(raw, text_column, TEXT_COLUMN_NAMES, "--text-column", "abstract")
    title = _pick_column(raw, title_column, TITLE_COLUMN_NAMES, "--title-column", "title", required=False)
    if title == text:
        raise UserError(f"{text!r} cannot be both the abstract and the title; give --title-column another column")
    renames = {c: f"source_{c}" for c in frame.columns if c in RESERVED_COLUMNS and c not in (text, title)}
    frame = frame.rename(columns=renames)
    frame = frame.rename(columns={text: "abstract", **({title: "title"} if title else {})})
    typed = COLUMN_TYPING[raw.format]
    return frame.assign(**{c: typed(frame[c]) for c in frame.columns if c not in ("abstract", "title")})


def _pick_column(
    raw: RawFile, given: str | None, candidates: tuple[str, ...], flag: str, what: str, required: bool = True
) -> str | None:
    columns = [str(c) for c in raw.rows.columns]
    listing = ", ".join(columns)
    if given is not None:
        if given not in columns:
            raise UserError(f"{flag} {given!r} is not a column of {raw.path} (columns: {listing})")
        return given
    by_key = {c.lower().replace(" ", "").replace("_", "").replace("-", ""): c for c in columns}
    found = next((by_key[name] for name in candidates if name in by_key), None)
    if found is None and required:
        raise UserError(f"no {what} column in {raw.path} (columns: {listing}); name it with {flag}")
    return found


def _normalise(value: object) -> str:
    """Text with runs of whitespace collapsed; '' for missing values."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    return " ".join(str(value).split())


def _describe(raw: RawFile) -> dict:
    described = {"path": str(raw.path), "format": raw.format, "sha256": raw.sha256, "rows": len(raw.rows)}
    if raw.header:
        described["header"] = raw.header
    return described
