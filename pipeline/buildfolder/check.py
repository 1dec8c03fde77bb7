"""Check a build read from disk before anything uses it: a build folder from someone else is data, never code.

`read_build` calls `check_build` on what it read. Each problem becomes one `UserError` naming the file and what
is wrong, so the dashboard shows its friendly page and the CLI prints one line; nothing downstream meets a
wrong type, an absurd string or tables that disagree. Embeddings are checked from their header alone, and
never with pickles allowed.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NoReturn

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.edits import (
    EDIT_SCHEMAS,
    EDITS_FILE,
    HISTORY_ENTRY_SCHEMA,
    MAX_EDITS,
    MAX_HISTORY,
    MAX_LABEL_CHARS,
)
from topic_explorer.pipeline.buildfolder.metadata import longest_text
from topic_explorer.pipeline.buildfolder.schema import (
    EMBEDDINGS_FILE,
    HIERARCHY_COLUMNS,
    MANIFEST_FILE,
    MANIFEST_SCHEMA,
    PAPER_COLUMNS,
    PAPERS_FILE,
    REBUILD_HINT,
    TOPICS_FILE,
)
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.settings import MAX_COLUMNS, MAX_TEXT_CHARS

# What each documented column holds (its meaning is in buildfolder.PAPER_COLUMNS / TOPIC_COLUMNS).
PAPER_KINDS = {
    "paper_id": "text",
    "title": "text",
    "abstract": "text",
    "topic_id": "integers",
    "topic_label": "text",
    "confidence": "numbers",
    "fits_poorly": "true/false values",
    "fit_sample": "true/false values",
    "x": "finite numbers",
    "y": "finite numbers",
}
TOPIC_KINDS = {
    "topic_id": "integers",
    "label": "text",
    "keywords": "lists of text",
    "keyword_weights": "lists of numbers",
    "size": "integers",
    "named": "true/false values",
    "coherence": "numbers",
}
HIERARCHY_KINDS = {
    "level": "integers",
    "group_id": "integers",
    "parent_id": "integers",
    "topic_ids": "lists of integers",
    "label": "text",
    "keywords": "lists of text",
}
assert set(HIERARCHY_KINDS) == set(HIERARCHY_COLUMNS)
JSON_NAMES = {"string": "text", "integer": "a whole number", "array": "a list", "object": "an object"}


def check_build(path: Path, manifest: dict, papers: pd.DataFrame, topics: pd.DataFrame) -> None:
    """Raise a `UserError` for the first thing in this build that readers could not rely on."""
    path = Path(path)
    _check_manifest(path / MANIFEST_FILE, manifest)
    stored = {c: kind for c, kind in PAPER_KINDS.items() if c in papers or c != "topic_label"}  # labels: version 1
    _check_columns(path / PAPERS_FILE, papers, stored)
    _check_columns(path / TOPICS_FILE, topics, TOPIC_KINDS)
    n_metadata = len([c for c in papers.columns if c not in PAPER_COLUMNS])
    if n_metadata > MAX_COLUMNS:
        _refuse(path / PAPERS_FILE, f"has {n_metadata:,} metadata columns, more than the {MAX_COLUMNS:,} allowed")
    _check_text_lengths(path / PAPERS_FILE, papers)
    _check_text_lengths(path / TOPICS_FILE, topics)
    _check_keywords(path / TOPICS_FILE, topics)
    for file, table, column in ((PAPERS_FILE, papers, "paper_id"), (TOPICS_FILE, topics, "topic_id")):
        if not table[column].is_unique:
            _refuse(path / file, f"repeats values in its column {column!r}")
    counted = (manifest.get("counts") or {}).get("papers")
    if counted is not None and counted != len(papers):
        _refuse(path / MANIFEST_FILE, f"counts {counted:,} papers but {PAPERS_FILE} has {len(papers):,}")
    _check_embeddings(path / EMBEDDINGS_FILE, len(papers))


def check_hierarchy(file: Path, hierarchy: pd.DataFrame) -> None:
    """The topic tree's columns hold what `HIERARCHY_COLUMNS` says, and each level's parents exist one level up."""
    _check_columns(file, hierarchy, HIERARCHY_KINDS)
    _check_text_lengths(file, hierarchy[["label"]])
    if any(len(k) > MAX_TEXT_CHARS for words in hierarchy["keywords"] for k in words):
        _refuse(file, f"holds a keyword longer than {MAX_TEXT_CHARS:,} characters")
    if hierarchy.duplicated(["level", "group_id"]).any():
        _refuse(file, "repeats a group within a level")
    above = set(zip(hierarchy["level"] - 1, hierarchy["parent_id"], strict=True))
    known = set(zip(hierarchy["level"], hierarchy["group_id"], strict=True)) | {(-1, -1)}
    if not above <= known:
        _refuse(file, "names a parent group that is not one level up")


def check_edits(folder: Path, edits: list) -> None:
    """Each edit is an object of a known kind whose fields have the right JSON types and sane sizes."""
    file = Path(folder) / EDITS_FILE
    if len(edits) > MAX_EDITS:
        _refuse_edits(file, f"holds {len(edits):,} edits, more than the {MAX_EDITS:,} allowed")
    for number, edit in enumerate(edits, start=1):
        _check_edit(file, f"edit {number}", edit)


def check_history(folder: Path, history: list) -> None:
    """Each history entry says what was done (an edit or an undo, with the edit), when and by whom, as text."""
    file = Path(folder) / EDITS_FILE
    if len(history) > MAX_HISTORY:
        _refuse_edits(file, f"holds {len(history):,} history entries, more than the {MAX_HISTORY:,} kept")
    for number, entry in enumerate(history, start=1):
        wrong = _wrong_fields("history entry", entry) if isinstance(entry, dict) else ["action"]
        if "action" in wrong:
            _refuse_edits(file, f"has history entry {number} that is neither an edit nor an undo")
        if wrong:
            _refuse_edits(file, f"has history entry {number} with a wrong {wrong[0]!r}")
        _check_edit(file, f"history entry {number}", entry.get("edit"))


def _check_edit(file: Path, name: str, edit: object) -> None:
    kind = edit.get("kind") if isinstance(edit, dict) else None
    if not isinstance(kind, str) or kind not in EDIT_SCHEMAS:
        _refuse_edits(file, f"has {name} of no known kind ({', '.join(EDIT_SCHEMAS)})")
    wrong = _wrong_fields(edit["kind"], edit)
    if wrong and wrong != ["label too long"]:
        _refuse_edits(file, f"has {name} ({edit['kind']}) with a wrong {wrong[0]!r}")
    if wrong:
        _refuse_edits(file, f"has {name} with a name longer than {MAX_LABEL_CHARS} characters")
    if edit["kind"] == "merge" and edit["into"] not in edit["topic_ids"]:
        _refuse_edits(file, f"has {name} merging into a topic it does not merge")


def _wrong_fields(schema_name: str, value: dict) -> list[str]:
    """The fields of `value` that its schema refuses, in the schema's order (a missing one too), and a label that
    is text but too long last, as "label too long", for its own message."""
    validator = _json_validator(schema_name)
    fields = list(validator.schema["properties"])
    view = {field: value.get(field) for field in fields}  # a missing field is null: refused as of the wrong type
    wrong = set()
    for error in validator.iter_errors(view):
        field = error.absolute_path[0]
        wrong.add("label too long" if (field, error.validator) == ("label", "maxLength") else field)
    return sorted(wrong, key=lambda field: fields.index(field) if field in fields else len(fields))


@functools.cache
def _json_validator(schema_name: str):
    """The validator of an edit's kind or of "history entry", whose integers are whole numbers written as such: 1.0
    or true is no topic id (jsonschema's "integer" takes 1.0)."""
    from jsonschema import Draft202012Validator, validators

    integers = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    )
    strict = validators.extend(Draft202012Validator, type_checker=integers)
    return strict(HISTORY_ENTRY_SCHEMA if schema_name == "history entry" else EDIT_SCHEMAS[schema_name])


def _refuse_edits(file: Path, problem: str) -> NoReturn:
    raise UserError(f"{file} {problem}: delete it to see the build without its edits")


def _refuse(file: Path, problem: str) -> NoReturn:
    raise UserError(
        f"{file} {problem}: the build is damaged or was not made by Topic Explorer; rebuild it with: {REBUILD_HINT}"
    )


def _check_manifest(file: Path, manifest: object) -> None:
    """The manifest matches `MANIFEST_SCHEMA`; the first mismatch names its field ("counts.papers")."""
    from jsonschema import Draft202012Validator

    error = next(iter(Draft202012Validator(MANIFEST_SCHEMA).iter_errors(manifest)), None)
    if error is None:
        return
    where = ".".join(map(str, error.absolute_path)) or "the manifest"
    if error.validator == "type":
        _refuse(file, f"has {where[:60]!r} of the wrong type (expected {JSON_NAMES[error.validator_value]})")
    _refuse(file, f"has {where[:60]!r} that is not valid ({error.validator})")


def _check_columns(file: Path, table: pd.DataFrame, kinds: dict[str, str]) -> None:
    for column, kind in kinds.items():
        if len(table) and not _holds(table[column], kind):
            _refuse(file, f"has a column {column!r} that does not hold {kind}")


def _holds(values: pd.Series, kind: str) -> bool:
    types = pd.api.types
    if kind == "text":
        return types.infer_dtype(values, skipna=False) == "string" and not values.isna().any()
    if kind == "true/false values":
        return types.is_bool_dtype(values) and not values.isna().any()
    if kind.startswith("lists of"):
        items = {
            "lists of text": ("string",),
            "lists of integers": ("integer",),
            "lists of numbers": ("integer", "floating", "mixed-integer-float"),
        }[kind]
        return all(
            isinstance(v, list | np.ndarray) and types.infer_dtype(v, skipna=False) in (*items, "empty") for v in values
        )
    if not types.is_numeric_dtype(values) or types.is_bool_dtype(values):
        return False
    if kind == "integers":
        return types.is_integer_dtype(values) and not values.isna().any()
    if kind == "finite numbers":
        return bool(np.isfinite(values.to_numpy(dtype=float, na_value=np.nan)).all())
    return True  # numbers; NaN allowed


def _check_text_lengths(file: Path, table: pd.DataFrame) -> None:
    for column in table.columns:
        length, _ = longest_text(table[column])
        if length > MAX_TEXT_CHARS:
            where = repr(str(column)[:40])
            _refuse(file, f"holds a text of {length:,} characters in column {where} (at most {MAX_TEXT_CHARS:,})")


def _check_keywords(file: Path, topics: pd.DataFrame) -> None:
    for keywords, weights in zip(topics["keywords"], topics["keyword_weights"], strict=True):
        if len(keywords) != len(weights):
            _refuse(file, "has a topic whose keywords and keyword_weights differ in length")
        if any(len(keyword) > MAX_TEXT_CHARS for keyword in keywords):
            _refuse(file, f"holds a keyword longer than {MAX_TEXT_CHARS:,} characters")


def _check_embeddings(file: Path, n_papers: int) -> None:
    """A plain 2-D float array with one row per paper; only the header is read, and never a pickle."""
    try:
        embeddings = np.load(file, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        _refuse(file, "is missing")
    except (OSError, ValueError, EOFError):  # pickled, truncated, or not a .npy file at all
        _refuse(file, "is not a plain array of numbers")
    if not isinstance(embeddings, np.ndarray) or embeddings.dtype.kind != "f" or embeddings.ndim != 2:
        _refuse(file, "is not a two-dimensional array of floats")
    if len(embeddings) != n_papers:
        _refuse(file, f"has {len(embeddings):,} rows but {PAPERS_FILE} has {n_papers:,} papers")
