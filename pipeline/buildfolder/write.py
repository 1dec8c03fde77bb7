"""Writing a build folder batch by batch into a staging folder, then swapping it in atomically (`swap`)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.schema import (
    EMBEDDER_FILE,
    EMBEDDINGS_FILE,
    HIERARCHY_COLUMNS,
    HIERARCHY_FILE,
    MANIFEST_FILE,
    MODEL_DIR,
    MODEL_TOPICS_FILE,
    PAPER_COLUMNS,
    PAPERS_FILE,
    SCHEMA_VERSION,
    STORED_PAPER_COLUMNS,
    TERMS_FILE,
    TOPIC_COLUMNS,
    TOPICS_FILE,
    ModelParts,
    is_build,
)
from topic_explorer.pipeline.buildfolder.swap import replace_folder
from topic_explorer.pipeline.errors import UserError


def check_destination(out: Path) -> None:
    """Refuse to replace a folder that is not a build: it could hold the user's own files."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not is_build(out))):
        raise UserError(f"{out} exists and is not a Topic Explorer build; choose a new or empty folder for --out")


def remove_stale_staging(out: Path) -> list[Path]:
    """Delete the staging folders beside `out` that a killed writer left (its process is gone); returns them.

    A staging folder is `.NAME.partial-PID-RANDOM`; one whose PID still runs may be another build's, and stays.
    """
    removed = []
    for staging in out.parent.glob(f".{out.name}.partial-*"):
        pid = staging.name.removeprefix(f".{out.name}.partial-").split("-")[0]
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(staging, ignore_errors=True)
            removed.append(staging)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


class BuildWriter:
    """Writes a build into a staging folder beside `out`; `commit` swaps it in atomically.

    Papers arrive in batches (each a Parquet row group) with their vectors, so a build of any size
    is written without holding it all. Used as a context manager: leaving it without `commit`
    (an error, Ctrl+C) removes the staging folder and leaves the previous build at `out` as it was.
    """

    def __init__(self, out: Path, n_papers: int, dimensions: int, metadata_types: dict[str, str] | None = None):
        """`metadata_types`: each metadata column's type over every paper ('text' or a pandas dtype), so a
        column empty in the first batch and text later is text throughout."""
        self.out = Path(out).resolve()
        check_destination(self.out)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_staging(self.out)
        prefix = f".{self.out.name}.partial-{os.getpid()}-"  # the pid says whose it is: see `remove_stale_staging`
        self.staging = Path(tempfile.mkdtemp(prefix=prefix, dir=self.out.parent))
        self.n_papers = n_papers
        self._vectors = np.lib.format.open_memmap(
            self.staging / EMBEDDINGS_FILE, mode="w+", dtype=np.float32, shape=(n_papers, dimensions)
        )
        self._papers = None  # pyarrow ParquetWriter, opened with the first batch's schema
        self._metadata_types = {c: _arrow_type(t) for c, t in (metadata_types or {}).items()}
        self._written = 0
        self._ids: set[str] = set()

    def __enter__(self) -> BuildWriter:
        return self

    def __exit__(self, *error) -> None:
        if self.staging.exists():
            self._close_files()
            shutil.rmtree(self.staging, ignore_errors=True)

    def add(self, papers: pd.DataFrame, vectors: np.ndarray) -> None:
        """Append papers (`STORED_PAPER_COLUMNS`, then metadata; any `topic_label` is dropped) and their vectors."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        papers = papers.drop(columns=["topic_label"], errors="ignore")
        _check_papers(papers, vectors, self._ids)
        table = pa.Table.from_pandas(papers, preserve_index=False)
        if self._papers is None:
            schema = table.schema  # its pandas metadata keeps dtypes such as Int64 when read back
            typed = self._metadata_types
            fields = [pa.field(f.name, typed[f.name]) if f.name in typed else f for f in schema]
            schema = pa.schema(fields, metadata=schema.metadata)
            self._papers = pq.ParquetWriter(self.staging / PAPERS_FILE, schema)
            table = table.cast(schema)
        else:
            table = table.cast(self._papers.schema)
        self._papers.write_table(table)
        self._vectors[self._written : self._written + len(papers)] = vectors
        self._written += len(papers)
        self._ids.update(papers["paper_id"])

    def keep(self, files: list[Path]) -> None:
        """Carry files of the previous version (the user's edits) into this one."""
        for file in files:
            shutil.copy2(file, self.staging / file.name)

    def commit(
        self,
        topics: pd.DataFrame,
        manifest: dict,
        model: ModelParts | None = None,
        hierarchy: pd.DataFrame | None = None,
        folders: dict[str, Callable[[Path], None]] | None = None,
    ) -> Path:
        """Finish the files and replace `out` with them in one rename.

        `folders` maps a folder of the build (`BERTOPIC_DIR`) to the function that writes it: given the folder.
        """
        assert self._written == self.n_papers, (self._written, self.n_papers)
        assert set(TOPIC_COLUMNS) <= set(topics.columns), topics.columns
        if self._papers is None:
            self.add(pd.DataFrame({c: [] for c in STORED_PAPER_COLUMNS}), np.zeros((0, self._vectors.shape[1])))
        self._close_files()
        topics.to_parquet(self.staging / TOPICS_FILE, index=False)
        if model is not None:
            _write_model(self.staging / MODEL_DIR, model)
        for name, fill in (folders or {}).items():
            fill(self.staging / name)
        if hierarchy is not None and len(hierarchy):
            assert list(hierarchy.columns) == list(HIERARCHY_COLUMNS), hierarchy.columns
            hierarchy.to_parquet(self.staging / HIERARCHY_FILE, index=False)
        (self.staging / MANIFEST_FILE).write_text(
            json.dumps({"schema_version": SCHEMA_VERSION, **manifest}, indent=2, default=str), encoding="utf-8"
        )
        replace_folder(self.staging, self.out)
        return self.out

    def _close_files(self) -> None:
        if self._papers is not None:
            self._papers.close()
        if self._vectors is not None:
            self._vectors.flush()
            self._vectors = None


def write_build(
    out: Path,
    papers: pd.DataFrame,
    topics: pd.DataFrame,
    embeddings: np.ndarray,
    manifest: dict,
    model: ModelParts | None = None,
    hierarchy: pd.DataFrame | None = None,
) -> Path:
    """Write a whole build at once, atomically (a failure leaves the previous build at `out` as it was).

    `papers` may come as read (with `topic_label`) and without `fit_sample` (then every paper was in it).
    """
    if "fit_sample" not in papers:
        papers = papers.assign(fit_sample=True)
    metadata = [c for c in papers.columns if c not in PAPER_COLUMNS]
    papers = papers[[*STORED_PAPER_COLUMNS, *metadata]]
    with BuildWriter(out, len(papers), embeddings.shape[1] if embeddings.ndim == 2 else 0) as writer:
        writer.add(papers, embeddings.astype(np.float32))
        return writer.commit(topics, manifest, model, hierarchy)


def _arrow_type(dtype: str):
    """The Parquet column type of a metadata type: 'text' or a pandas dtype (Int64, float64, boolean, ...)."""
    import pyarrow as pa

    if dtype == "text":
        return pa.string()
    return pa.Schema.from_pandas(pd.DataFrame({"c": pd.Series([], dtype=dtype)}), preserve_index=False).field("c").type


def _write_model(folder: Path, model: ModelParts) -> None:
    folder.mkdir()
    # The centres are the BERTopic model's topic embeddings (`BERTOPIC_DIR`), stored there once.
    np.savez(folder / MODEL_TOPICS_FILE, topic_id=model.topics.topic_ids, poor_fit_below=model.topics.poor_fit_below)
    model.terms.to_parquet(folder / TERMS_FILE, index=False)
    if model.embedder_state is not None:
        np.savez(folder / EMBEDDER_FILE, **model.embedder_state)


def _check_papers(papers: pd.DataFrame, vectors: np.ndarray, seen: set[str]) -> None:
    """Programming errors, not user errors: the pipeline must always honour the contract."""
    assert list(papers.columns[: len(STORED_PAPER_COLUMNS)]) == list(STORED_PAPER_COLUMNS), papers.columns
    assert len(vectors) == len(papers), (len(vectors), len(papers))
    assert papers["paper_id"].is_unique and not seen.intersection(papers["paper_id"])
