"""The build folder: the one contract between the pipeline and the dashboard.

A build is a folder holding
- `papers.parquet`: one row per paper (columns in `PAPER_COLUMNS`, then metadata columns);
- `topics.parquet`: one row per topic (`TOPIC_COLUMNS`);
- `embeddings.npy`: float32, one row per paper, in `papers.parquet` order;
- `manifest.json`: schema version, inputs, counts, settings, timings, versions.

The writer and the reader both live here, so they cannot drift apart. This module
imports only pandas, pyarrow and numpy: the dashboard reads builds without loading
the modelling stack.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import shutil
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.errors import UserError

SCHEMA_VERSION = 1
PAPERS_FILE = "papers.parquet"
TOPICS_FILE = "topics.parquet"
EMBEDDINGS_FILE = "embeddings.npy"
MANIFEST_FILE = "manifest.json"

PAPER_COLUMNS = {
    "paper_id": "stable id: 'p' + 12 hex digits of the abstract's SHA-256",
    "title": "the source's title, or one derived from the abstract",
    "abstract": "the abstract, whitespace collapsed",
    "topic_id": "int; -1 only with --keep-outliers",
    "topic_label": "the topic's readable label",
    "confidence": "0-1: cosine similarity to the topic's centre (0 for topic -1)",
    "was_outlier": "bool: the clustering left this paper out; it was moved to its nearest topic",
    "x": "map position, 0-1",
    "y": "map position, 0-1",
}
TOPIC_COLUMNS = {
    "topic_id": "int; -1 is the outlier topic (only with --keep-outliers)",
    "label": "short readable label, or the name the user gave",
    "keywords": "list of str, best first",
    "keyword_weights": "list of float, same order",
    "size": "number of papers",
    "named": "bool: a topic the user named with --topics",
    "coherence": "NPMI of the top-10 keywords in this corpus (-1 to 1; higher is better)",
}
REBUILD_HINT = "topic-explorer build --out DIR"


@dataclass
class Build:
    """A build as read from disk."""

    path: Path
    papers: pd.DataFrame
    topics: pd.DataFrame
    manifest: dict

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def metadata_columns(self) -> list[str]:
        return [c for c in self.papers.columns if c not in PAPER_COLUMNS]

    def embeddings(self) -> np.ndarray:
        return np.load(self.path / EMBEDDINGS_FILE, allow_pickle=False)  # a build is data, never code


def is_build(path: Path) -> bool:
    return (Path(path) / MANIFEST_FILE).is_file()


def check_destination(out: Path) -> None:
    """Refuse to replace a folder that is not a build: it could hold the user's own files."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not is_build(out))):
        raise UserError(f"{out} exists and is not a Topic Explorer build; choose a new or empty folder for --out")


def read_build(path: Path) -> Build:
    """Load and validate a build; a `UserError` says what is wrong and how to make one."""
    path = Path(path)
    if not path.is_dir():
        raise UserError(f"no build at {path}; make one with: {REBUILD_HINT}")
    missing = [f for f in (MANIFEST_FILE, PAPERS_FILE, TOPICS_FILE) if not (path / f).is_file()]
    if missing:
        raise UserError(
            f"{path} is not a complete build (missing {', '.join(missing)}); rebuild it with: {REBUILD_HINT}"
        )
    try:
        manifest = json.loads((path / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise UserError(f"{path / MANIFEST_FILE} is damaged; rebuild with: {REBUILD_HINT}") from None
    version = manifest.get("schema_version") if isinstance(manifest, dict) else None
    if version != SCHEMA_VERSION:
        raise UserError(
            f"{path} has build schema version {version}, this version reads {SCHEMA_VERSION}; "
            f"rebuild with: {REBUILD_HINT}"
        )
    try:
        papers = pd.read_parquet(path / PAPERS_FILE)
        topics = pd.read_parquet(path / TOPICS_FILE)
    except Exception as error:  # pyarrow raises many types for damaged files
        raise UserError(f"{path} has a damaged table ({type(error).__name__}); rebuild with: {REBUILD_HINT}") from None
    for table, name, columns in ((papers, PAPERS_FILE, PAPER_COLUMNS), (topics, TOPICS_FILE, TOPIC_COLUMNS)):
        absent = [c for c in columns if c not in table.columns]
        if absent:
            raise UserError(f"{path / name} lacks columns {', '.join(absent)}; rebuild with: {REBUILD_HINT}")
    from pipeline.buildcheck import check_build  # here, as buildcheck reads this module's names

    check_build(path, manifest, papers, topics)
    topics["keywords"] = topics["keywords"].map(list)
    topics["keyword_weights"] = topics["keyword_weights"].map(list)
    return Build(path=path, papers=papers, topics=topics, manifest=manifest)


def write_build(out: Path, papers: pd.DataFrame, topics: pd.DataFrame, embeddings: np.ndarray, manifest: dict) -> Path:
    """Write a build atomically: a failure at any point leaves the previous build at `out` as it was.

    Files go to a temporary sibling folder that replaces `out` only once complete.
    """
    out = Path(out).resolve()
    check_destination(out)
    _check_contract(papers, topics, embeddings)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    previous = None
    try:
        papers.to_parquet(staging / PAPERS_FILE, index=False)
        topics.to_parquet(staging / TOPICS_FILE, index=False)
        np.save(staging / EMBEDDINGS_FILE, embeddings.astype(np.float32))
        (staging / MANIFEST_FILE).write_text(
            json.dumps({"schema_version": SCHEMA_VERSION, **manifest}, indent=2, default=str), encoding="utf-8"
        )
        if out.exists():
            previous = _swap(staging, out)
        else:
            staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if previous is not None and not out.exists():
            previous.rename(out)
        raise
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)
    return out


def _swap(staging: Path, out: Path) -> Path:
    """Put `staging` at `out`; returns where the previous build went.

    On Linux one atomic rename exchanges the two folders, so a reader (or a kill -9) never finds `out`
    missing; elsewhere the previous build is moved aside first, leaving a moment without one.
    """
    if _exchange(staging, out):
        return staging
    previous = out.with_name(f".{out.name}.previous-{uuid.uuid4().hex[:8]}")
    out.rename(previous)
    staging.rename(out)
    return previous


def _exchange(a: Path, b: Path) -> bool:
    """renameat2(RENAME_EXCHANGE): swap two paths in one step. False where the system or file system lacks it."""
    if sys.platform != "linux":
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_cwd, rename_exchange = -100, 2
    if renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), rename_exchange) == 0:
        return True
    error = ctypes.get_errno()
    if error in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(error, os.strerror(error), str(b))


def _check_contract(papers: pd.DataFrame, topics: pd.DataFrame, embeddings: np.ndarray) -> None:
    """Programming errors, not user errors: the pipeline must always honour the contract."""
    assert list(papers.columns[: len(PAPER_COLUMNS)]) == list(PAPER_COLUMNS), papers.columns
    assert set(TOPIC_COLUMNS) <= set(topics.columns), topics.columns
    assert len(embeddings) == len(papers), (len(embeddings), len(papers))
    assert papers["paper_id"].is_unique
