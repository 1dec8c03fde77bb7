"""The build folder: the one contract between the pipeline and the dashboard.

A build is a folder holding
- `papers.parquet`: one row per paper (columns in `STORED_PAPER_COLUMNS`, then metadata columns);
- `topics.parquet`: one row per topic (`TOPIC_COLUMNS`);
- `embeddings.npy`: float32, one row per paper, in `papers.parquet` order;
- `model/`: what places a new paper (`MODEL_FILES`), written without pickle;
- `hierarchy.parquet` (optional): a tree of broader groups over the topics (`HIERARCHY_COLUMNS`);
- `edits.json` (optional): the reader's renames, merges and moves (`pipeline.edits`), applied on reading;
- `manifest.json`: schema version, inputs, counts, settings, the embedder, timings, versions.

A paper's topic label lives once, in `topics.parquet`; `read_build` adds it to the papers it
returns (`PAPER_COLUMNS`). Version-1 builds (labels stored per paper, no model) still read.

The writer and the reader both live here, so they cannot drift apart; the writer puts a finished
build in place with `pipeline.folderswap`. This module
imports only pandas, pyarrow and numpy: the dashboard reads builds without loading
the modelling stack.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.edits import apply_edits, read_edits
from pipeline.errors import UserError
from pipeline.folderswap import replace_folder
from pipeline.topicmodel import TopicModel

SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)
PAPERS_FILE = "papers.parquet"
TOPICS_FILE = "topics.parquet"
EMBEDDINGS_FILE = "embeddings.npy"
MANIFEST_FILE = "manifest.json"
HIERARCHY_FILE = "hierarchy.parquet"
MODEL_DIR = "model"
MODEL_FILES = {
    "topics.npz": "per topic: `topic_id`, its `centre` (unit vector) and `poor_fit_below` (cosine)",
    "terms.parquet": "per topic and keyword candidate: `count` of uses and `papers` using it",
    "embedder.npz": "TF-IDF builds only: the fitted `terms`, `idf` weights and SVD `components`",
}

STORED_PAPER_COLUMNS = {
    "paper_id": "stable id: 'p' + 12 hex digits of the abstract's SHA-256",
    "title": "the source's title, or one derived from the abstract",
    "abstract": "the abstract, whitespace collapsed",
    "topic_id": "int; -1 only with --keep-outliers",
    "confidence": "0-1: cosine similarity to the topic's centre (0 for topic -1)",
    "was_outlier": "bool: fits no topic well: farther from its topic's centre than 95% of the topic's own papers",
    "fit_sample": "bool: the topic model was fitted on this paper (all papers unless --fit-sample)",
    "x": "map position, 0-1",
    "y": "map position, 0-1",
}
PAPER_COLUMNS = {  # as `read_build` returns them
    **dict(list(STORED_PAPER_COLUMNS.items())[:4]),
    "topic_label": "the topic's readable label (from topics.parquet)",
    **dict(list(STORED_PAPER_COLUMNS.items())[4:]),
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
HIERARCHY_COLUMNS = {  # one row per group of topics per level (pipeline.hierarchy makes them)
    "level": "int: 0 is the broadest level; higher levels are finer (the topics themselves lie below the last)",
    "group_id": "int: the group's node in the merge tree (the same node may recur at several levels)",
    "parent_id": "int: the group_id of the group containing it one level up (-1 at level 0)",
    "topic_ids": "list of int: the topics in the group",
    "label": "short readable label, made like a topic's",
    "keywords": "list of str, best first",
}
REBUILD_HINT = "topic-explorer build --out DIR"


@dataclass
class Build:
    """A build as read from disk."""

    path: Path
    papers: pd.DataFrame  # PAPER_COLUMNS, then metadata columns
    topics: pd.DataFrame
    manifest: dict
    hierarchy: pd.DataFrame  # HIERARCHY_COLUMNS; empty when the build has none (older, or too few topics)
    edits: tuple[dict, ...] = ()  # the edits applied to `papers` and `topics` (pipeline.edits)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def metadata_columns(self) -> list[str]:
        return [c for c in self.papers.columns if c not in PAPER_COLUMNS]

    def embeddings(self, mmap: bool = False) -> np.ndarray:
        """The papers' vectors; `mmap` reads rows from disk on demand instead of loading them all."""
        return np.load(self.path / EMBEDDINGS_FILE, mmap_mode="r" if mmap else None, allow_pickle=False)

    @property
    def has_model(self) -> bool:
        return (self.path / MODEL_DIR / "topics.npz").is_file()


@dataclass(frozen=True)
class ModelParts:
    """The fitted parts a build keeps in `model/` (see `MODEL_FILES`)."""

    topics: TopicModel
    terms: pd.DataFrame  # topic_id, term, count, papers
    embedder_state: dict[str, np.ndarray] | None  # TF-IDF's fitted space; None for MiniLM


def is_build(path: Path) -> bool:
    return (Path(path) / MANIFEST_FILE).is_file()


def check_destination(out: Path) -> None:
    """Refuse to replace a folder that is not a build: it could hold the user's own files."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not is_build(out))):
        raise UserError(f"{out} exists and is not a Topic Explorer build; choose a new or empty folder for --out")


def read_build(path: Path, *, with_edits: bool = True) -> Build:
    """Load and validate a build; a `UserError` says what is wrong and how to make one.

    `with_edits` applies the reader's edits (`edits.json`); without, the build is as the pipeline wrote it.
    """
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
    if version not in READABLE_VERSIONS:
        raise UserError(
            f"{path} has build schema version {version}, this version reads "
            f"{', '.join(map(str, READABLE_VERSIONS))}; rebuild with: {REBUILD_HINT}"
        )
    try:
        papers = pd.read_parquet(path / PAPERS_FILE)
        topics = pd.read_parquet(path / TOPICS_FILE)
    except Exception as error:  # pyarrow raises many types for damaged files
        raise UserError(f"{path} has a damaged table ({type(error).__name__}); rebuild with: {REBUILD_HINT}") from None
    stored = dict(STORED_PAPER_COLUMNS)
    if version == 1:  # labels per paper, every paper in the fit
        stored = {"topic_label": "", **stored}
        papers["fit_sample"] = True
    for table, name, columns in ((papers, PAPERS_FILE, stored), (topics, TOPICS_FILE, TOPIC_COLUMNS)):
        absent = [c for c in columns if c not in table.columns]
        if absent:
            raise UserError(f"{path / name} lacks columns {', '.join(absent)}; rebuild with: {REBUILD_HINT}")
    from pipeline.buildcheck import check_build, check_edits, check_hierarchy  # buildcheck reads this module's names

    check_build(path, manifest, papers, topics)
    topics["keywords"] = topics["keywords"].map(list)
    topics["keyword_weights"] = topics["keyword_weights"].map(list)
    hierarchy = _read_hierarchy(path)
    check_hierarchy(path / HIERARCHY_FILE, hierarchy)
    edits = read_edits(path) if with_edits else []
    check_edits(path, edits)
    papers, topics = apply_edits(papers, topics, edits)
    return Build(
        path=path,
        papers=with_topic_labels(papers, topics),
        topics=topics,
        manifest=manifest,
        hierarchy=hierarchy,
        edits=tuple(edits),
    )


def empty_hierarchy() -> pd.DataFrame:
    """A hierarchy without groups: what a build without `hierarchy.parquet` has."""
    lists = ("topic_ids", "label", "keywords")
    return pd.DataFrame({c: pd.Series(dtype=object if c in lists else np.int64) for c in HIERARCHY_COLUMNS})


def _read_hierarchy(path: Path) -> pd.DataFrame:
    if not (path / HIERARCHY_FILE).is_file():
        return empty_hierarchy()
    try:
        hierarchy = pd.read_parquet(path / HIERARCHY_FILE)
    except Exception as error:  # pyarrow raises many types for damaged files
        raise UserError(
            f"{path / HIERARCHY_FILE} is damaged ({type(error).__name__}); rebuild with: {REBUILD_HINT}"
        ) from None
    absent = [c for c in HIERARCHY_COLUMNS if c not in hierarchy.columns]
    if absent:
        raise UserError(f"{path / HIERARCHY_FILE} lacks columns {', '.join(absent)}; rebuild with: {REBUILD_HINT}")
    return hierarchy


def with_topic_labels(papers: pd.DataFrame, topics: pd.DataFrame) -> pd.DataFrame:
    """`papers` in `PAPER_COLUMNS` order, with each paper's `topic_label` taken from `topics`."""
    labels = papers["topic_id"].map(dict(zip(topics["topic_id"], topics["label"], strict=True)))
    if "topic_label" in papers:  # version 1: a topic missing from topics.parquet keeps its papers' label
        labels = labels.fillna(papers["topic_label"])
    fallback = "Topic " + papers["topic_id"].astype(str)  # a topic missing from topics.parquet altogether
    papers = papers.assign(topic_label=labels.fillna(fallback).astype(str))
    metadata = [c for c in papers.columns if c not in PAPER_COLUMNS]
    return papers[[*PAPER_COLUMNS, *metadata]]


def read_model(build: Build) -> ModelParts:
    """The fitted model of a build, loaded without pickle; a `UserError` when the build has none."""
    folder = build.path / MODEL_DIR
    if not build.has_model:
        raise UserError(
            f"{build.path} has no fitted model (made by an older version or by hand); rebuild it with: {REBUILD_HINT}"
        )
    try:
        with np.load(folder / "topics.npz", allow_pickle=False) as arrays:
            model = TopicModel(arrays["topic_id"], arrays["centre"], arrays["poor_fit_below"])
        terms = pd.read_parquet(folder / "terms.parquet")
        state = None
        if (folder / "embedder.npz").is_file():
            with np.load(folder / "embedder.npz", allow_pickle=False) as arrays:
                state = {name: arrays[name] for name in arrays.files}
    except (OSError, ValueError, KeyError) as error:
        raise UserError(f"{folder} is damaged ({type(error).__name__}); rebuild with: {REBUILD_HINT}") from None
    return ModelParts(model, terms, state)


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
        self.staging = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.partial-", dir=self.out.parent))
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
    ) -> Path:
        """Finish the files and replace `out` with them in one rename."""
        assert self._written == self.n_papers, (self._written, self.n_papers)
        assert set(TOPIC_COLUMNS) <= set(topics.columns), topics.columns
        if self._papers is None:
            self.add(pd.DataFrame({c: [] for c in STORED_PAPER_COLUMNS}), np.zeros((0, self._vectors.shape[1])))
        self._close_files()
        topics.to_parquet(self.staging / TOPICS_FILE, index=False)
        if model is not None:
            _write_model(self.staging / MODEL_DIR, model)
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
    np.savez(
        folder / "topics.npz",
        topic_id=model.topics.topic_ids,
        centre=model.topics.centres,
        poor_fit_below=model.topics.poor_fit_below,
    )
    model.terms.to_parquet(folder / "terms.parquet", index=False)
    if model.embedder_state is not None:
        np.savez(folder / "embedder.npz", **model.embedder_state)


def _check_papers(papers: pd.DataFrame, vectors: np.ndarray, seen: set[str]) -> None:
    """Programming errors, not user errors: the pipeline must always honour the contract."""
    assert list(papers.columns[: len(STORED_PAPER_COLUMNS)]) == list(STORED_PAPER_COLUMNS), papers.columns
    assert len(vectors) == len(papers), (len(vectors), len(papers))
    assert papers["paper_id"].is_unique and not seen.intersection(papers["paper_id"])
