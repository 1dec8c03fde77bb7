"""Reading a build folder: load, validate (`check`) and apply the reader's edits (`edits`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.check import check_build, check_edits, check_hierarchy, check_history
from topic_explorer.pipeline.buildfolder.edits import apply_edits, apply_theme_edits, read_edits, read_history
from topic_explorer.pipeline.buildfolder.model import TopicModel
from topic_explorer.pipeline.buildfolder.schema import (
    BERTOPIC_DIR,
    EMBEDDER_FILE,
    HIERARCHY_COLUMNS,
    HIERARCHY_FILE,
    MANIFEST_FILE,
    MODEL_DIR,
    MODEL_TOPICS_FILE,
    PAPER_COLUMNS,
    PAPERS_FILE,
    READABLE_VERSIONS,
    REBUILD_HINT,
    STORED_PAPER_COLUMNS,
    TERMS_FILE,
    TOPIC_COLUMNS,
    TOPIC_EMBEDDINGS_FILE,
    TOPICS_FILE,
    Build,
    ModelParts,
)
from topic_explorer.pipeline.errors import UserError


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
    manifest = read_manifest(path)
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
    if version <= 2:  # the flag was named `was_outlier`, a word that meant three other things too
        papers = papers.rename(columns={"was_outlier": "fits_poorly"})
    if version == 1:  # labels per paper, every paper in the fit
        stored = {"topic_label": "", **stored}
        papers["fit_sample"] = True
    for table, name, columns in ((papers, PAPERS_FILE, stored), (topics, TOPICS_FILE, TOPIC_COLUMNS)):
        absent = [c for c in columns if c not in table.columns]
        if absent:
            raise UserError(f"{path / name} lacks columns {', '.join(absent)}; rebuild with: {REBUILD_HINT}")
    check_build(path, manifest, papers, topics)
    topics["keywords"] = topics["keywords"].map(list)
    topics["keyword_weights"] = topics["keyword_weights"].map(list)
    hierarchy = _read_hierarchy(path)
    check_hierarchy(path / HIERARCHY_FILE, hierarchy)
    edits = read_edits(path) if with_edits else []
    check_edits(path, edits)
    papers, topics = apply_edits(papers, topics, edits)
    hierarchy = apply_theme_edits(hierarchy, edits)
    return Build(
        path=path,
        papers=with_topic_labels(papers, topics),
        topics=topics,
        manifest=manifest,
        hierarchy=hierarchy,
        edits=tuple(edits),
    )


def read_manifest(path: Path) -> dict:
    """The manifest alone, parsed but not checked (`read_build` checks it): for readers of a build already read."""
    try:
        return json.loads((Path(path) / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise UserError(f"{Path(path) / MANIFEST_FILE} is damaged; rebuild with: {REBUILD_HINT}") from None


def read_embedder_state(path: Path) -> dict[str, np.ndarray] | None:
    """A TF-IDF build's fitted space (`model/embedder.npz`), without pickles; None for MiniLM builds."""
    file = Path(path) / MODEL_DIR / EMBEDDER_FILE
    if not file.is_file():
        return None
    try:
        with np.load(file, allow_pickle=False) as arrays:
            return {name: arrays[name] for name in arrays.files}
    except (OSError, ValueError) as error:
        raise UserError(f"{file} is damaged ({type(error).__name__}); rebuild with: {REBUILD_HINT}") from None


def empty_hierarchy() -> pd.DataFrame:
    """A hierarchy without groups: what a build without `hierarchy.parquet` has."""
    lists = ("topic_ids", "label", "keywords")
    return pd.DataFrame({c: pd.Series(dtype=object if c in lists else np.int64) for c in HIERARCHY_COLUMNS})


def read_edit_history(path: Path) -> list[dict]:
    """The build's edit history, oldest first, checked like the rest of the build (a `UserError` if damaged)."""
    history = read_history(path)
    check_history(path, history)
    return history


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
        with np.load(folder / MODEL_TOPICS_FILE, allow_pickle=False) as arrays:
            topic_ids, below = arrays["topic_id"], arrays["poor_fit_below"]
            centres = arrays["centre"] if "centre" in arrays.files else _topic_embeddings(build.path, len(topic_ids))
        model = TopicModel(topic_ids, centres, below)
        terms = pd.read_parquet(folder / TERMS_FILE)
        state = read_embedder_state(build.path)
    except (OSError, ValueError, KeyError) as error:
        raise UserError(f"{folder} is damaged ({type(error).__name__}); rebuild with: {REBUILD_HINT}") from None
    return ModelParts(model, terms, state)


def _topic_embeddings(path: Path, n_topics: int) -> np.ndarray:
    """The topics' centres: BERTopic's topic embeddings, scaled to length 1; topic -1's row (first) left out.

    Read with `safetensors.numpy`, which needs neither torch nor BERTopic.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    try:
        vectors = load_file(path / BERTOPIC_DIR / TOPIC_EMBEDDINGS_FILE)["topic_embeddings"][-n_topics:]
    except SafetensorError as error:
        raise ValueError(str(error)) from None
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
