"""A reader's edits to a build's topics: rename, merge, move papers, rename themes; kept beside the build, undoable.

Edits are an overlay: `edits.json` in the build folder lists them in the order they were made,
and `read_build` applies them (`apply_edits`) to what it read, so the map, the table, the filters,
every download and `topic-explorer evaluate` see the edited topics while the build's own files
stay as the pipeline wrote them. Undo drops the last edit.

The same file keeps the history: every edit and every undo, when (UTC) and by whom (the dashboard names
each browser session with two words, e.g. "amber falcon"), newest last, at most `MAX_HISTORY` entries.

The file is rewritten whole, atomically (`write_atomically`), under a lock on the
build folder, so two dashboard sessions editing at once never corrupt it or lose an edit: each
edit is appended to the list as it is on disk at that moment, and the last one written wins.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.atomic import write_atomically
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.settings import MAX_TEXT_CHARS

EDITS_FILE = "edits.json"
MAX_LABEL_CHARS = 200
MAX_EDITS = 10_000
MAX_HISTORY = 10_000  # entries kept; the oldest go first
MAX_WHO_CHARS = 100  # a session's name, as the history records it
HISTORY_ACTIONS = ("edit", "undo")
MERGED_KEYWORDS = 25

_ID = {"type": "integer"}
_LABEL = {"type": "string", "maxLength": MAX_LABEL_CHARS}


def _edit(meaning: str, **fields: dict) -> dict:
    return {"description": meaning, "type": "object", "properties": fields, "required": list(fields)}


# Each kind of edit, its meaning and its fields, as JSON Schemas: `pipeline.buildfolder.check` checks a file's edits
# against them (in a schema's field order, the first wrong field named), and a merge's `into` against its ids.
EDIT_SCHEMAS = {
    "rename": _edit("`topic_id` gets `label`", topic_id=_ID, label=_LABEL),
    "merge": _edit(
        "`topic_ids` become one topic, `into` (one of them), labelled `label`",
        topic_ids={"type": "array", "items": _ID}, into=_ID, label=_LABEL,
    ),
    "move": _edit(
        "`paper_ids` go to topic `topic_id`",
        paper_ids={"type": "array", "items": {"type": "string", "maxLength": MAX_TEXT_CHARS}}, topic_id=_ID,
    ),
    "rename_theme": _edit(
        "the theme `group_id` (of hierarchy.parquet, at every level it appears on) gets `label`",
        group_id=_ID, label=_LABEL,
    ),
}  # fmt: skip
HISTORY_ENTRY_SCHEMA = {
    "description": "an edit or an undo (`action`) of `edit`, when (`at`, UTC) and by whom (`by`, a session's name)",
    "type": "object",
    "properties": {
        "action": {"enum": list(HISTORY_ACTIONS)},
        "at": {"type": "string", "maxLength": MAX_WHO_CHARS},
        "by": {"type": "string", "maxLength": MAX_WHO_CHARS},
    },
    "required": ["action", "at", "by"],  # and `edit`, checked against EDIT_SCHEMAS
}


def read_edits(folder: Path) -> list[dict]:
    """The edits saved with the build at `folder`, oldest first (none when there is no edits file).

    Only their JSON shape is read here; `pipeline.buildfolder.check.check_edits` checks their fields.
    """
    return _read(folder)[0]


def read_history(folder: Path) -> list[dict]:
    """Every edit and undo made to the build at `folder`, oldest first: `{"action", "edit", "at", "by"}`.

    Only their JSON shape is read here; `pipeline.buildfolder.check.check_history` checks their fields.
    """
    return _read(folder)[1]


def _read(folder: Path) -> tuple[list[dict], list[dict]]:
    file = Path(folder) / EDITS_FILE
    if not file.is_file():
        return [], []
    try:
        content = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise UserError(f"{file} is damaged; delete it to see the build without its edits") from None
    edits = content.get("edits") if isinstance(content, dict) else None
    history = content.get("history", []) if isinstance(content, dict) else None
    if not isinstance(edits, list) or not isinstance(history, list):
        raise UserError(f"{file} holds no list of edits; delete it to see the build without its edits")
    return edits, history


def edits_version(folder: Path) -> tuple[int, int, int]:
    """Changes whenever the edits file is written (a new file each time: inode, size, mtime)."""
    try:
        stat = (Path(folder) / EDITS_FILE).stat()
    except OSError:
        return (0, 0, 0)
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


def rename(topic_id: int, label: str) -> dict:
    return {"kind": "rename", "topic_id": int(topic_id), "label": clean_label(label)}


def rename_theme(group_id: int, label: str) -> dict:
    """A broader theme's new name: themes are the topic tree's groups, named by `group_id`."""
    return {"kind": "rename_theme", "group_id": int(group_id), "label": clean_label(label)}


def merge(topic_ids: list[int], into: int, label: str) -> dict:
    ids = [int(t) for t in dict.fromkeys(topic_ids)]
    if len(ids) < 2 or int(into) not in ids:
        raise UserError("choose at least two topics to merge")
    return {"kind": "merge", "topic_ids": ids, "into": int(into), "label": clean_label(label)}


def move(paper_ids: list[str], topic_id: int) -> dict:
    if not paper_ids:
        raise UserError("select the papers to move first")
    return {"kind": "move", "paper_ids": sorted(str(p) for p in paper_ids), "topic_id": int(topic_id)}


def clean_label(label: str) -> str:
    """A topic name typed by a user, on one line; a `UserError` when empty or too long."""
    label = " ".join(str(label).split())
    if not label:
        raise UserError("a topic name cannot be empty")
    if len(label) > MAX_LABEL_CHARS:
        raise UserError(f"a topic name has at most {MAX_LABEL_CHARS} characters")
    return label


def add_edit(folder: Path, edit: dict, *, by: str) -> list[dict]:
    """Append `edit` to the build's edits on disk, and to its history as made `by` (a session's name)."""
    return add_edits(folder, [edit], by=by)


def add_edits(folder: Path, new: list[dict], *, by: str) -> list[dict]:
    """Append several edits in one write (all or none), each in the history as made `by`; Undo drops one at a time."""
    with _locked(folder):
        edits, history = _read(folder)
        edits = [*edits, *new]
        if len(edits) > MAX_EDITS:
            raise UserError(f"a build keeps at most {MAX_EDITS:,} edits")
        _write(folder, edits, [*history, *(_entry("edit", edit, by) for edit in new)])
        return edits


def undo_last(folder: Path, *, by: str) -> list[dict]:
    """Drop the most recent edit (whoever made it), recording the undo `by` (a session's name); returns the rest."""
    with _locked(folder):
        edits, history = _read(folder)
        if edits:
            history = [*history, _entry("undo", edits[-1], by)]
        _write(folder, edits[:-1], history)
        return edits[:-1]


def _entry(action: str, edit: dict, by: str) -> dict:
    when = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    return {"action": action, "edit": edit, "at": when, "by": " ".join(str(by).split())[:MAX_WHO_CHARS]}


def apply_edits(papers: pd.DataFrame, topics: pd.DataFrame, edits: list[dict]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Papers and topics as the edits leave them: topic ids, labels, sizes; merged keywords.

    Edits naming a topic or paper the build no longer has are skipped. A moved paper's `confidence`
    (closeness to its old topic) becomes unknown (NaN); a merged topic's coherence too.
    """
    if not edits:
        return papers, topics
    topic_id = papers["topic_id"].to_numpy(dtype=np.int64).copy()
    confidence = papers["confidence"].to_numpy(dtype=np.float64).copy()
    table = topics.set_index("topic_id", drop=False).copy()
    row_of = pd.Index(papers["paper_id"])
    for edit in edits:
        kind = edit["kind"]
        if kind == "rename" and edit["topic_id"] in table.index:
            table.loc[edit["topic_id"], "label"] = edit["label"]
        elif kind == "merge" and edit["into"] in table.index:
            merged = [t for t in edit["topic_ids"] if t in table.index]
            keywords, weights = _merged_keywords(table.loc[merged], topic_id)
            into = edit["into"]
            table.at[into, "keywords"], table.at[into, "keyword_weights"] = keywords, weights
            table.at[into, "label"], table.at[into, "named"], table.at[into, "coherence"] = edit["label"], False, np.nan
            topic_id[np.isin(topic_id, merged)] = edit["into"]
            table = table.drop(index=[t for t in merged if t != edit["into"]])
        elif kind == "move" and edit["topic_id"] in table.index:
            rows = row_of.get_indexer(edit["paper_ids"])
            rows = rows[rows >= 0]
            confidence[rows[topic_id[rows] != edit["topic_id"]]] = np.nan
            topic_id[rows] = edit["topic_id"]
    sizes = pd.Series(topic_id).value_counts()
    table["size"] = table["topic_id"].map(sizes).fillna(0).astype(np.int64)
    table = table[table["size"] > 0].reset_index(drop=True)
    return papers.assign(topic_id=topic_id, confidence=confidence.astype(np.float32)), table


def apply_theme_edits(hierarchy: pd.DataFrame, edits: list[dict]) -> pd.DataFrame:
    """The topic tree with the themes' new names (`rename_theme`); a group the tree lacks is skipped."""
    renames = {edit["group_id"]: edit["label"] for edit in edits if edit["kind"] == "rename_theme"}
    if not renames:
        return hierarchy
    labels = hierarchy["group_id"].map(renames)
    return hierarchy.assign(label=labels.where(labels.notna(), hierarchy["label"]))


def _merged_keywords(merged: pd.DataFrame, topic_id: np.ndarray) -> tuple[list[str], list[float]]:
    """Keywords of topics merged into one: each keyword's weight summed over them, weighted by topic size."""
    weights: dict[str, float] = {}
    for row in merged.itertuples():
        size = float(np.count_nonzero(topic_id == row.topic_id))
        for keyword, weight in zip(row.keywords, row.keyword_weights, strict=True):
            weights[keyword] = weights.get(keyword, 0.0) + size * float(weight)
    total = float(sum(np.count_nonzero(topic_id == t) for t in merged["topic_id"])) or 1.0
    ranked = sorted(weights.items(), key=lambda kv: -kv[1])[:MERGED_KEYWORDS]
    return [k for k, _ in ranked], [w / total for _, w in ranked]


def _write(folder: Path, edits: list[dict], history: list[dict]) -> None:
    text = json.dumps({"edits": edits, "history": history[-MAX_HISTORY:]}, ensure_ascii=False, indent=1)
    write_atomically(Path(folder) / EDITS_FILE, text.encode("utf-8"))


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on the build folder's edits for one read-change-write, between the threads and processes of
    this machine (macOS, Windows and Linux alike). Its file is in the temporary folder, named by the build folder's
    real path, so the build folder gains no file."""
    from filelock import FileLock

    digest = hashlib.sha256(str(Path(folder).resolve()).encode()).hexdigest()[:32]
    with FileLock(Path(tempfile.gettempdir()) / f"topic-explorer-edits-{digest}.lock"):
        yield
