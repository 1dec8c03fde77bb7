"""Read one input file into a table of raw rows, whatever its format.

Formats: the bundled sample's plain text (an optional header line, then one abstract per
blank-line-separated paragraph), CSV, TSV, JSON, JSON Lines, Parquet, and a reference manager's
BibTeX or RIS export (`pipeline.ingest.bibtex`, `pipeline.ingest.ris`), each optionally
gzip-compressed. Every failure becomes a `UserError` naming the file and the fix.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import io
import json
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from topic_explorer.pipeline.buildfolder.metadata import longest_text
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.ingest.bibtex import read_bibtex
from topic_explorer.pipeline.ingest.ris import read_ris
from topic_explorer.pipeline.settings import MAX_COLUMNS, MAX_TEXT_CHARS

TEXT_SUFFIXES = {".txt", ".text", ".md"}
TABLE_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
REFERENCE_SUFFIXES = {".bib": "bibtex", ".bibtex": "bibtex", ".ris": "ris"}
SUPPORTED = "plain text (.txt), CSV, TSV, JSON, JSON Lines, Parquet, BibTeX (.bib) or RIS (.ris), optionally .gz"
GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
SNIFF_BYTES = 65_536  # text files are told from binary ones by their first bytes, before the rest is read
MAX_INPUT_BYTES = 1 << 30
"""Largest file (once decompressed) read: 1 GiB holds about 700,000 abstracts, far more than a build can show."""


@dataclass(frozen=True)
class RawFile:
    """One input file's rows before column detection, with what the manifest records."""

    path: Path
    format: str
    sha256: str
    rows: pd.DataFrame
    header: str | None = None


def read_file(path: Path) -> RawFile:
    """Read `path` into rows. Text files give one column, `abstract`."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: no such file; check the path")
    if path.is_dir():
        raise UserError(f"{path} is a folder; pass the files inside it")
    fmt = _format_of(path)
    data = _read_bytes(path, fmt)
    if not data or data.isspace():
        raise UserError(f"{path} is empty; pass a file with abstracts in it")
    if fmt == "parquet":
        rows = _read_parquet(path, data)
        header = None
    elif fmt == "text":
        header, abstracts = split_plain_text(_decode(path, data))
        rows = pd.DataFrame({"abstract": abstracts})
    elif fmt in ("bibtex", "ris"):
        rows, header = _read_references(path, fmt, _decode(path, data)), None
    else:
        rows, header = _read_table(path, fmt, _decode(path, data)), None
    _check_size(path, rows)
    return RawFile(path, fmt, _sha256(path), rows, header)


def _read_bytes(path: Path, fmt: str) -> bytes:
    """The file's bytes, decompressed if gzipped; binary files are refused from their first bytes, before the rest."""
    with path.open("rb") as stored:
        gzipped = stored.read(len(GZIP_MAGIC)) == GZIP_MAGIC
        stored.seek(0)
        stream = gzip.GzipFile(fileobj=stored) if gzipped else stored
        try:
            head = stream.read(SNIFF_BYTES)
            if fmt != "parquet" and _looks_binary(head):
                raise UserError(f"{path} looks binary, not text; export it as {SUPPORTED}")
            data = head + stream.read(MAX_INPUT_BYTES + 1 - len(head))
        except (OSError, EOFError, zlib.error) as error:
            raise UserError(f"{path} is a damaged gzip file ({error}); re-compress or unzip it") from None
    if len(data) > MAX_INPUT_BYTES:
        raise UserError(
            f"{path} is larger than {MAX_INPUT_BYTES >> 30} GiB{' once decompressed' if gzipped else ''}; split it"
        )
    return data


def _looks_binary(head: bytes) -> bool:
    return not head.startswith(UTF16_BOMS) and (head.startswith(PARQUET_MAGIC) or b"\x00" in head)


def _sha256(path: Path) -> str:
    with path.open("rb") as stored:
        return hashlib.file_digest(stored, "sha256").hexdigest()


def _check_size(path: Path, rows: pd.DataFrame) -> None:
    """Refuse what no page could show: thousands of columns, or a 'text' as long as a book (a wrong column)."""
    if len(rows.columns) > MAX_COLUMNS:
        raise UserError(f"{path} has {len(rows.columns):,} columns, more than {MAX_COLUMNS:,}; keep the ones you need")
    for column in rows.columns:
        length, row = longest_text(rows[column])
        if length > MAX_TEXT_CHARS:
            raise UserError(
                f"{path}: the text in column {str(column)[:40]!r} of record {row + 1:,} is {length:,} characters "
                f"long, more than the {MAX_TEXT_CHARS:,} a paper's field may hold; check the file and --text-column"
            )


def _format_of(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    suffix = suffixes[-1] if suffixes else ""
    if suffix in TEXT_SUFFIXES:
        return "text"
    if suffix in TABLE_SUFFIXES:
        return TABLE_SUFFIXES[suffix]
    if suffix in REFERENCE_SUFFIXES:
        return REFERENCE_SUFFIXES[suffix]
    raise UserError(f"{path}: unsupported file type {suffix or '(no extension)'!r}; use {SUPPORTED}")


def _decode(path: Path, data: bytes) -> str:
    """UTF-8 (a byte-order mark is dropped), or UTF-16 with its byte-order mark, as spreadsheets save 'Unicode text'."""
    encoding, name = ("utf-16", "UTF-16") if data.startswith(UTF16_BOMS) else ("utf-8-sig", "UTF-8")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise UserError(
            f"{path} is not {name} text (bad byte {data[error.start]:#04x} on line {line:,}); re-save it as UTF-8"
        ) from None


def split_plain_text(text: str) -> tuple[str | None, list[str]]:
    """Paragraphs of a plain-text corpus, with its header line (if any) set apart.

    The first paragraph is a header when it is a single short line that does not read as
    a sentence and is much shorter than the paragraphs after it, e.g. "NeurIPS 2025 Papers".
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # Windows and old Mac line ends
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    paragraphs = [p for p in paragraphs if p]
    if len(paragraphs) >= 2 and _is_header(text.lstrip().split("\n", 1)[0], paragraphs):
        return paragraphs[0], paragraphs[1:]
    return None, paragraphs


def _is_header(first_line: str, paragraphs: list[str]) -> bool:
    first = paragraphs[0]
    if " ".join(first_line.split()) != first:
        return False  # the first paragraph spans several lines: it is text
    rest = sorted(len(p) for p in paragraphs[1:])
    median_rest = rest[len(rest) // 2]
    return len(first.split()) <= 12 and not first.endswith((".", "?", "!")) and len(first) * 3 < median_rest


def _read_table(path: Path, fmt: str, text: str) -> pd.DataFrame:
    try:
        if fmt in ("csv", "tsv"):
            # every cell as the text it is; only an empty cell is missing (see pipeline/metadata.py)
            frame = pd.read_csv(
                io.StringIO(text), sep="\t" if fmt == "tsv" else ",", dtype=str, keep_default_na=False, na_values=[""]
            )
        elif fmt == "jsonl":
            frame = _json_records(_json_lines(text))
        else:
            frame = _json_records(json.loads(text))
    except json.JSONDecodeError as error:
        raise UserError(f"{path}: invalid JSON at line {error.lineno} ({error.msg}); fix or re-export it") from None
    except RecursionError:
        raise UserError(f"{path}: its JSON is nested too deeply to be a list of papers; fix or re-export it") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, TypeError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        kind = {"jsonl": "JSON Lines"}.get(fmt, fmt.upper())
        raise UserError(f"{path}: cannot read it as {kind} ({first_line}); fix or re-export it") from None
    if frame.empty:
        raise UserError(f"{path} has no rows; pass a file with abstracts in it")
    return frame


def _read_references(path: Path, fmt: str, text: str) -> pd.DataFrame:
    """A reference manager's records: title, abstract, then authors, year, venue, DOI, URL, keywords, type, key."""
    return read_bibtex(path, text) if fmt == "bibtex" else read_ris(path, text)


def _json_lines(text: str) -> list[object]:
    records = []
    # split on line ends only (\n, \r\n or a lone \r): str.splitlines would also cut at \u2028 inside a string
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"line {number} is not valid JSON: {error.msg}") from None
    return records


def _json_records(value: object) -> pd.DataFrame:
    """A JSON file holds a list of paper objects, or an object with one such list in it."""
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if len(lists) == 1:
            value = lists[0]
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ValueError("expected a list of objects, one per paper")
    return pd.DataFrame(value, dtype=object)  # JSON's own types, not pandas' guesses (see pipeline/metadata.py)


def _read_parquet(path: Path, data: bytes) -> pd.DataFrame:
    import pyarrow
    import pyarrow.parquet

    try:
        table = pyarrow.parquet.read_table(io.BytesIO(data))
        frame = table.to_pandas(types_mapper=_nullable)
        for field in table.schema:  # lists and structs as Python values: pandas would turn their ints into floats
            if pyarrow.types.is_nested(field.type):
                frame[field.name] = pd.Series(table.column(field.name).to_pylist(), dtype=object)
    except (pyarrow.ArrowException, OSError, ValueError) as error:
        raise UserError(f"{path} is not a readable Parquet file ({error}); re-export it") from None
    if frame.empty:
        raise UserError(f"{path} has no rows; pass a file with abstracts in it")
    return frame


def _nullable(arrow_type: object) -> object:
    """Parquet integers and booleans with nulls stay integers and booleans (not floats or objects)."""
    import pyarrow

    if pyarrow.types.is_integer(arrow_type):
        name = str(arrow_type)  # int64, uint8, ...
        return pd.api.types.pandas_dtype("UInt" + name[4:] if name.startswith("u") else "Int" + name[3:])
    if pyarrow.types.is_boolean(arrow_type):
        return pd.BooleanDtype()
    return None
