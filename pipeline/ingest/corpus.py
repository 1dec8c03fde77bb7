"""Turn input files into clean papers: ids, titles, abstracts, metadata, file by file.

Several inputs are merged; empty and exact duplicate abstracts are dropped (and counted);
every paper gets a stable `paper_id` (a hash of its abstract, so it survives reordering
and re-ingesting) and the source's title, or '' where the source has none.

`CorpusReader` reads one input file at a time, twice: a first pass learns what every file
holds (which papers are new, each metadata column's type across all files), a second gives
clean papers in batches. So a corpus of many files is never one table in memory; `load_corpus`
is the same reading, gathered into one table with the missing titles derived, for corpora that fit.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.exchange import from_export, is_export
from topic_explorer.pipeline.buildfolder.metadata import (
    ColumnSummary,
    as_type,
    merged_type,
    summarise,
    typed_json_column,
    typed_parquet_column,
    typed_text_column,
)
from topic_explorer.pipeline.buildfolder.schema import PAPER_COLUMNS
from topic_explorer.pipeline.describe.titles import titles_or_derived
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.ingest.readers import RawFile, read_file
from topic_explorer.pipeline.settings import MIN_PAPERS, MIN_SHARED_WORDS
from topic_explorer.pipeline.text.clean import has_content, shared_words

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
    "bibtex": typed_text_column,  # a reference manager's fields are text: "2017" becomes a number as in a CSV
    "ris": typed_text_column,
}
SHARED_WORDS_FROM = 5000  # abstracts the "do they share words" check reads, at most


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
    """Read, merge and clean `paths` into a `Corpus` held in memory, titles derived."""
    reader = CorpusReader(paths, text_column=text_column, title_column=title_column)
    papers = pd.concat(list(reader.batches()), ignore_index=True) if reader.n_papers else None
    missing = papers["title"] == ""
    papers["title"] = titles_or_derived(papers["title"].tolist(), papers["abstract"].tolist())
    return Corpus(
        papers=papers,
        inputs=reader.inputs,
        rows_read=reader.rows_read,
        empty_dropped=reader.empty_dropped,
        duplicates_dropped=reader.duplicates_dropped,
        titles_derived=int(missing.sum()),
    )


class CorpusReader:
    """The papers of `paths`, read file by file: counts and types first, then batches of clean papers.

    Titles are left '' where the source has none: a build derives them per batch, with the batch's other
    per-paper work (`pipeline.apply.batches.apply_batch`, driven by `pipeline.apply.loop`).
    """

    def __init__(self, paths: list[Path], *, text_column: str | None = None, title_column: str | None = None):
        self.paths = [Path(p) for p in paths]
        self.text_column, self.title_column = text_column, title_column
        self.inputs: list[dict] = []
        self.rows_read = self.empty_dropped = self.duplicates_dropped = 0
        self._keep: list[np.ndarray] = []  # per file: rows that are new, non-empty papers
        self._ids: list[np.ndarray] = []
        summaries: dict[str, list[ColumnSummary]] = {}
        seen: set[str] = set()
        sample: list[str] = []  # abstracts for the shared-words check
        for index in range(len(self.paths)):
            frame, raw = self._read(index)
            self.inputs.append(_describe(raw))
            self.rows_read += len(raw.rows)
            self.empty_dropped += len(raw.rows) - len(frame)
            new = ~frame["paper_id"].duplicated().to_numpy() & ~frame["paper_id"].isin(seen).to_numpy()
            self.duplicates_dropped += int((~new).sum())
            seen.update(frame["paper_id"][new])
            self._keep.append(frame.index.to_numpy()[new])
            self._ids.append(frame["paper_id"].to_numpy()[new])
            for column in frame.columns[len(TEXT_COLUMNS) :]:
                summaries.setdefault(column, []).append(summarise(frame[column][new]))
            sample += frame["abstract"][new].head(SHARED_WORDS_FROM - len(sample)).tolist()
        self.metadata_types = {column: merged_type(found) for column, found in summaries.items()}
        self.n_papers = len(seen)
        names = ", ".join(str(p) for p in self.paths)
        if not self.n_papers:
            raise UserError(f"no abstracts found in {names}; check that the text column holds the abstracts")
        if self.n_papers >= MIN_PAPERS and shared_words(sample, MIN_SHARED_WORDS) < MIN_SHARED_WORDS:
            raise UserError(
                f"the abstracts in {names} share almost no words (fewer than {MIN_SHARED_WORDS} recur): there are "
                "no topics to find; check that the text column holds the abstracts"
            )

    @property
    def paper_ids(self) -> np.ndarray:
        """Every paper's id, in corpus order."""
        return np.concatenate(self._ids)

    @property
    def metadata_columns(self) -> list[str]:
        return list(self.metadata_types)

    def batches(self, rows: int | None = None) -> Iterator[pd.DataFrame]:
        """Clean papers in corpus order, `rows` at a time (None: a file at a time), metadata typed alike."""
        for index, keep in enumerate(self._keep):
            if not len(keep):
                continue
            frame = self._read(index)[0].loc[keep].reset_index(drop=True)
            columns = {
                c: as_type(frame[c], t) if c in frame else _absent(len(frame), t)
                for c, t in self.metadata_types.items()
            }
            frame = pd.concat([frame[list(TEXT_COLUMNS)], pd.DataFrame(columns)], axis=1)
            for start in range(0, len(frame), rows or len(frame)):
                yield frame.iloc[start : start + (rows or len(frame))].reset_index(drop=True)

    def _read(self, index: int) -> tuple[pd.DataFrame, RawFile]:
        """One file's papers with content, in file order (index: row in the file), metadata typed for its format."""
        raw = read_file(self.paths[index])
        frame = _papers_of(raw, self.text_column, self.title_column)
        if len(self.paths) > 1:
            frame = frame.rename(columns={SOURCE_FILE: f"source_{SOURCE_FILE}"}).assign(**{SOURCE_FILE: raw.path.name})
        abstracts = frame["abstract"].map(_normalise)
        keep = abstracts.map(has_content).to_numpy()  # no words but numbers, symbols or stop words: empty
        frame = frame[keep].assign(abstract=abstracts[keep])
        titles = frame["title"].map(_normalise) if "title" in frame else pd.Series("", index=frame.index)
        frame = frame.assign(paper_id=frame["abstract"].map(paper_id), title=titles)
        metadata = [c for c in frame.columns if c not in TEXT_COLUMNS]
        return frame[[*TEXT_COLUMNS, *metadata]], raw


def _absent(n: int, dtype: str) -> pd.Series:
    """A column this file lacks: missing values of the column's type."""
    return as_type(pd.Series([None] * n, dtype=object), dtype)


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
