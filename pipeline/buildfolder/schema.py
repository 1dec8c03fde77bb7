"""The build folder: the one contract between the pipeline and the dashboard, defined once.

A build is a folder holding
- `papers.parquet`: one row per paper (columns in `STORED_PAPER_COLUMNS`, then metadata columns);
- `topics.parquet`: one row per topic (`TOPIC_COLUMNS`);
- `embeddings.npy`: float32, one row per paper, in `papers.parquet` order;
- `model/`: what places a new paper (`MODEL_FILES`), written without pickle;
- `hierarchy.parquet` (optional): a tree of broader groups over the topics (`HIERARCHY_COLUMNS`);
- `edits.json` (optional): the reader's renames (of topics and themes), merges and moves (`buildfolder.edits`),
  applied on reading;
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

from topic_explorer.pipeline.buildfolder.model import TopicModel
from topic_explorer.pipeline.settings import default_title

# 3: the manifest keeps each value once (no top-level seed or fit_sample, no cache path).
# 4: the fitted model is a BERTopic model (`model/bertopic/`); topics.npz keeps only the poor-fit bars.
SCHEMA_VERSION = 4
READABLE_VERSIONS = (1, 2, 3, 4)
PAPERS_FILE = "papers.parquet"
TOPICS_FILE = "topics.parquet"
EMBEDDINGS_FILE = "embeddings.npy"
MANIFEST_FILE = "manifest.json"
HIERARCHY_FILE = "hierarchy.parquet"
MODEL_DIR = "model"
BERTOPIC_FOLDER = "bertopic"  # in `MODEL_DIR`
BERTOPIC_DIR = f"{MODEL_DIR}/{BERTOPIC_FOLDER}"
TOPIC_EMBEDDINGS_FILE = "topic_embeddings.safetensors"  # BERTopic's own name, in `BERTOPIC_DIR`
MODEL_TOPICS_FILE = "topics.npz"  # in `MODEL_DIR`, as are the two below
TERMS_FILE = "terms.parquet"
EMBEDDER_FILE = "embedder.npz"
MODEL_FILES = {
    BERTOPIC_FOLDER: "a folder: the BERTopic model as fitted, saved with `serialization='safetensors'` and c-TF-IDF "
    "(no pickle); its `topic_embeddings.safetensors` are the topics' centres",
    MODEL_TOPICS_FILE: "per topic (rows as the topic embeddings, topic -1 left out): `topic_id` and `poor_fit_below` "
    "(cosine to the centre below which a paper fits the topic poorly)",
    TERMS_FILE: "per topic and keyword candidate, over the fit sample: `count` of uses and `papers` using it",
    EMBEDDER_FILE: "TF-IDF builds only: the fitted `terms`, `idf` weights and SVD `components`",
}

STORED_PAPER_COLUMNS = {
    "paper_id": "stable id: 'p' + 12 hex digits of the abstract's SHA-256",
    "title": "the source's title, or one derived from the abstract",
    "abstract": "the abstract, whitespace collapsed",
    "topic_id": "int; -1 only with --keep-outliers",
    "confidence": "0-1: cosine similarity to the topic's centre (0 for topic -1)",
    "fits_poorly": "bool: fits no topic well: farther from its topic's centre than 95% of the topic's own papers",
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


def _typed(kind: str, description: str, **more: object) -> dict:
    return {"type": kind, "description": description, **more}


_WHOLE = {"type": "integer"}
# `manifest.json` as a JSON Schema (checked with `jsonschema` on reading): each field's type and meaning, once.
# Fields may be absent (older builds, or a build without `add`); present ones must match. Older builds' fields
# that version 3 no longer writes (`seed`, `fit_sample` at the top) are still allowed and typed.
MANIFEST_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "schema_version": _typed("integer", "this contract's version (`SCHEMA_VERSION`)"),
        "created_at": _typed("string", "when the build was made (ISO 8601, UTC)"),
        "updated_at": _typed("string", "when `add` last wrote it"),
        "tool": _typed("string", "'topic-explorer VERSION'"),
        "title": _typed("string", "the corpus's name, shown as the page title"),
        "inputs": _typed("array", "per input file: path, format, sha256, rows, header"),
        "counts": _typed(
            "object",
            "papers, rows_read, empty_dropped, duplicates_dropped, titles_derived, topics, fit_sample (papers "
            "the model was fitted on), left_out_by_clustering (of the fit sample), poorly_fitting",
            additionalProperties=_WHOLE,
        ),
        "settings": _typed("object", "the resolved build settings (`BuildSettings`), seed included"),
        "parameters": _typed(
            "object", "the resolved clustering values (graph neighbours, layout dimensions, topics cut, smallest topic)"
        ),
        "embedder": _typed(
            "object",
            "name (model, windowing and precision: the cache key), kind, device (where it ran), precision (MiniLM's "
            "arithmetic, 'fp32' or 'bf16', as it ran: `add` embeds in it too; absent before it was recorded: fp32), "
            "dimensions, cache use",
            properties={"name": {"type": "string"}, "dimensions": _WHOLE, "precision": {"type": ["string", "null"]}},
        ),
        "engine": _typed("string", "where the per-batch work ran"),
        "named_topics": _typed("object", "matched and unmatched --topics names"),
        "metadata_columns": _typed("array", "the source's own columns, in order"),
        "quality": _typed(
            "object", "coherence, diversity, shares and sizes", properties={"topic_sizes": {"type": "object"}}
        ),
        "seconds": _typed("object", "wall time per stage"),
        "cpu_seconds": _typed("object", "the build's CPU time per stage (all its threads and worker processes)"),
        "peak_memory_mb": _typed("object", "per stage, the build process's highest resident memory so far (MiB)"),
        "stage_cache": _typed("object", "the results read from the result cache (reused) and those computed, by name"),
        "versions": _typed("object", "python and package versions"),
        "additions": _typed("array", "one entry per `add`: when, inputs, papers added, duplicates, poorly fitting"),
        "seed": _typed("integer", "version 2 and older: the seed (now only in `settings`)"),
        "fit_sample": _typed("integer", "version 2 and older: papers fitted on (now `counts.fit_sample`)"),
    },
}


def read_embeddings(path: Path, *, mmap: bool = False) -> np.ndarray:
    """A build's vectors, never unpickled (`read.read_build` checks their shape); `mmap` reads rows on demand."""
    return np.load(Path(path) / EMBEDDINGS_FILE, mmap_mode="r" if mmap else None, allow_pickle=False)


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
        """The folder's name (download file names start with it)."""
        return self.path.name

    @property
    def title(self) -> str:
        """The corpus's name for a reader: the build's title, or one from its input files' names (older builds)."""
        title = self.manifest.get("title")
        if isinstance(title, str) and title.strip():
            return title
        inputs = self.manifest.get("inputs") or []
        paths = [i["path"] for i in inputs if isinstance(i, dict) and isinstance(i.get("path"), str)]
        return default_title(paths) if paths else self.name

    @property
    def metadata_columns(self) -> list[str]:
        return [c for c in self.papers.columns if c not in PAPER_COLUMNS]

    def embeddings(self, mmap: bool = False) -> np.ndarray:
        """The papers' vectors; `mmap` reads rows from disk on demand instead of loading them all."""
        return read_embeddings(self.path, mmap=mmap)

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
