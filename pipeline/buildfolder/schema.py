"""The build folder: the one contract between the pipeline and the dashboard, defined once.

A build is a folder holding
- `papers.parquet`: one row per paper (columns in `STORED_PAPER_COLUMNS`, then metadata columns);
- `topics.parquet`: one row per topic (`TOPIC_COLUMNS`);
- `embeddings.npy`: float32, one row per paper, in `papers.parquet` order;
- `model/`: what places a new paper (`MODEL_FILES`), written without pickle;
- `hierarchy.parquet` (optional): a tree of broader groups over the topics (`HIERARCHY_COLUMNS`);
- `edits.json` (optional): the reader's renames, merges and moves (`buildfolder.edits`), applied on reading;
- `manifest.json`: schema version, inputs, counts, settings, the embedder, timings, versions.

A paper's topic label lives once, in `topics.parquet`; `read.read_build` adds it to the papers it
returns (`PAPER_COLUMNS`). Version-1 builds (labels stored per paper, no model) still read.
The reader (`read`) and the writer (`write`) both use these names, so they cannot drift apart.
This package imports only pandas, pyarrow and numpy: the dashboard reads builds without loading
the modelling stack.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from topic_explorer.pipeline.topicmodel import TopicModel

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
HIERARCHY_COLUMNS = {  # one row per group of topics per level (`describe.hierarchy` makes them)
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
    edits: tuple[dict, ...] = ()  # the edits applied to `papers` and `topics` (`buildfolder.edits`)

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
