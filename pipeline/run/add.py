"""`topic-explorer add`: put new papers into an existing build without fitting anything again.

New papers are read like `build` reads them, papers the build already has are skipped, and the
rest go through the same per-batch work as a build's papers outside its fit sample
(`pipeline.apply.batches`): embedded (cache first), assigned to the nearest topic (as
`BERTopic.transform` assigns them), placed among the nearest fit-sample papers. The build is then
written again, atomically, as a new version: the topics as fitted (keywords, labels, the BERTopic model),
their sizes grown. Papers that fit no topic well are flagged; when enough of them pile up, the summary
suggests a rebuild.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from topic_explorer.pipeline.apply.batches import Fitted, Fixed
from topic_explorer.pipeline.apply.engine import Engine, InProcess
from topic_explorer.pipeline.apply.loop import AppliedPapers, apply_papers
from topic_explorer.pipeline.buildfolder.edits import EDITS_FILE
from topic_explorer.pipeline.buildfolder.metadata import ColumnSummary, as_type, merged_type, summarise
from topic_explorer.pipeline.buildfolder.read import read_build, read_model
from topic_explorer.pipeline.buildfolder.schema import (
    BERTOPIC_DIR,
    HIERARCHY_FILE,
    REBUILD_HINT,
    STORED_PAPER_COLUMNS,
    Build,
    ModelParts,
)
from topic_explorer.pipeline.buildfolder.write import BuildWriter
from topic_explorer.pipeline.describe.topics import topic_sizes, with_sizes
from topic_explorer.pipeline.embed.cache import CacheStats, EmbeddingCache
from topic_explorer.pipeline.embed.models import Embedder, embedder_for
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.evaluate.quality import Quality, assess
from topic_explorer.pipeline.ingest.corpus import CorpusReader
from topic_explorer.pipeline.map.place import MapLayout
from topic_explorer.pipeline.settings import BuildSettings, default_cache_dir
from topic_explorer.pipeline.timing import StageTimer

log = logging.getLogger(__name__)

REBUILD_SHARE = 0.05  # suggest a rebuild once added papers that fit no topic reach this share of the build
COPY_ROWS = 50_000  # the build's own papers are copied into the new version this many at a time
EMPTY = ColumnSummary(frozenset())  # the summary of a column a side lacks
# The user's edits and the topic tree survive the papers added to a build (its topics do not change).
KEPT_FILES = (EDITS_FILE, HIERARCHY_FILE)


@dataclass
class AddResult:
    """What `add` did, for the CLI's summary."""

    path: Path
    added: int
    duplicates: int
    poorly_fitting: int  # of the papers added now
    poorly_fitting_since_build: int  # of every paper added since the build was fitted
    papers: int  # in the build now
    topic_sizes: pd.DataFrame  # topic_id, label, size, added
    rebuild_suggested: bool
    cache: CacheStats | None
    seconds: dict[str, float] = field(default_factory=dict)


def add_papers(
    build_path: Path,
    inputs: list[Path],
    *,
    engine: Engine | None = None,
    embedder: Embedder | None = None,
    cache_dir: Path | None = None,
    device: str = BuildSettings.device,
    batch_size: int = BuildSettings.batch_size,
    progress: bool = False,
) -> AddResult:
    """Add the papers in `inputs` to the build at `build_path` and write it again as a new version.

    `batch_size` papers go to the embedder (and to a Dask task) at a time; it changes no result.
    """
    engine = engine or InProcess()
    timer = StageTimer()
    build = read_build(build_path, with_edits=False)  # the edits stay an overlay, kept in KEPT_FILES
    parts = read_model(build)
    if not (build.path / BERTOPIC_DIR).is_dir():
        raise UserError(
            f"{build.path} was made by an older version of topic-explorer (it keeps no BERTopic model); "
            f"rebuild it with: {REBUILD_HINT}"
        )
    settings = build.manifest.get("settings") or {}
    with timer.stage("ingest"):
        reader = CorpusReader(
            list(inputs), text_column=settings.get("text_column"), title_column=settings.get("title_column")
        )
        papers = pd.concat(list(reader.batches()), ignore_index=True)
    known = papers["paper_id"].isin(build.papers["paper_id"])
    new = papers[~known].reset_index(drop=True)  # titles left '' where the source has none: derived per batch
    # The build's own precision, or a stop: papers embedded otherwise would not land where a rebuild puts them.
    embedder = embedder or embedder_for(
        build.manifest.get("embedder") or {}, parts.embedder_state, device=device, same_precision=True
    )
    cache = EmbeddingCache(None if embedder.fits_corpus else (cache_dir or default_cache_dir()), embedder.name)
    stats = CacheStats()
    fitted = _fitted(build, parts, embedder, keep_outliers=bool(settings.get("keep_outliers")))
    with timer.stage("assign"):
        results = list(
            apply_papers(
                (new.iloc[start : start + batch_size] for start in range(0, len(new), batch_size)),
                fitted,
                Fixed.none(fitted.layout.vectors.shape[1]),
                engine=engine,
                cache=cache,
                stats=stats,
                progress=("Adding", len(new)) if progress else None,
            )
        )
    new_rows, new_vectors = _new_papers(results, fitted.layout.vectors.shape[1])
    new_topic = new_rows["topic_id"].to_numpy(dtype=np.int64)
    new_poorly = new_rows["fits_poorly"].to_numpy(dtype=bool)
    topic_id = np.concatenate([build.papers["topic_id"].to_numpy(), new_topic])
    fits_poorly = np.concatenate([build.papers["fits_poorly"].to_numpy(), new_poorly])
    sample_texts = build.papers.loc[build.papers["fit_sample"].to_numpy(), "abstract"].tolist()
    table = with_sizes(build.topics.drop(columns=["coherence"]), topic_id)
    with timer.stage("evaluate"):
        quality = assess(sample_texts, topic_id, fits_poorly, table)
    table = table.merge(quality.per_topic[["topic_id", "coherence"]], on="topic_id", how="left")
    since_build = _poorly_fitting_since_build(build) + int(new_poorly.sum())
    with timer.stage("write"):
        addition = {
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "inputs": reader.inputs,
            "papers_added": len(new),
            "duplicates_skipped": int(known.sum()),
            "poorly_fitting": int(new_poorly.sum()),
        }
        manifest = _manifest(build.manifest, addition, quality, len(topic_id))
        path = _write(build, new_rows, new_vectors, table, manifest, parts)
    added_per_topic = pd.Series(new_topic).value_counts()
    sizes = table[["topic_id", "label", "size"]].assign(
        added=table["topic_id"].map(added_per_topic).fillna(0).astype(int)
    )
    return AddResult(
        path=path,
        added=len(new),
        duplicates=int(known.sum()),
        poorly_fitting=int(new_poorly.sum()),
        poorly_fitting_since_build=since_build,
        papers=len(topic_id),
        topic_sizes=sizes,
        rebuild_suggested=since_build >= max(_min_topic_size(build), REBUILD_SHARE * len(topic_id)),
        cache=None if embedder.fits_corpus else stats,
        seconds=dict(timer.seconds),
    )


def _fitted(build: Build, parts: ModelParts, embedder: Embedder, *, keep_outliers: bool) -> Fitted:
    sample = build.papers["fit_sample"].to_numpy()
    vectors = np.asarray(build.embeddings(mmap=True)[np.flatnonzero(sample)])
    xy = build.papers.loc[sample, ["x", "y"]].to_numpy(dtype=np.float32)
    return Fitted(embedder, parts.topics, MapLayout(vectors, xy), keep_outliers)


def _poorly_fitting_since_build(build: Build) -> int:
    return sum(int(a.get("poorly_fitting", 0)) for a in build.manifest.get("additions") or [])


def _min_topic_size(build: Build) -> int:
    """The fit's resolved smallest topic (every build with a model, which `add` needs, records it)."""
    return int(build.manifest["parameters"]["min_topic_size"])


def _manifest(before: dict, addition: dict, quality: Quality, n_papers: int) -> dict:
    manifest = {k: v for k, v in before.items() if k != "schema_version"}
    counts = dict(manifest.get("counts") or {})
    counts.update(
        papers=n_papers,
        topics=int(quality.n_topics),
        poorly_fitting=round(quality.poorly_fitting_share * n_papers),
    )
    return manifest | {
        "counts": counts,
        "quality": quality.summary(),
        "additions": [*(before.get("additions") or []), addition],
        "updated_at": addition["created_at"],
    }


def _write(
    build: Build,
    new_rows: pd.DataFrame,
    new_vectors: np.ndarray,
    table: pd.DataFrame,
    manifest: dict,
    model: ModelParts,
) -> Path:
    """The new version: the build's papers as they were, then the added ones; metadata columns merged; the
    BERTopic model as fitted, with the topics' new sizes."""
    from topic_explorer.pipeline.fit.bertopic_model import load_saved, save_bertopic

    bertopic = load_saved(build.path / BERTOPIC_DIR)
    old = build.papers.drop(columns=["topic_label"])
    added_columns = [c for c in new_rows.columns if c not in STORED_PAPER_COLUMNS]
    metadata = list(dict.fromkeys([*build.metadata_columns, *added_columns]))
    merged = pd.concat([old, new_rows], ignore_index=True, sort=False)
    merged = merged[[*STORED_PAPER_COLUMNS, *metadata]]
    types = {
        c: merged_type([summarise(old[c]) if c in old else EMPTY, summarise(new_rows[c]) if c in new_rows else EMPTY])
        for c in metadata
    }
    merged = merged.assign(**{column: as_type(merged[column], types[column]) for column in metadata})
    vectors = build.embeddings(mmap=True)
    extra = [p for p in build.path.iterdir() if p.is_file() and p.name in KEPT_FILES]
    with BuildWriter(build.path, len(merged), vectors.shape[1], types) as writer:
        for start in range(0, len(old), COPY_ROWS):
            stop = min(start + COPY_ROWS, len(old))
            writer.add(merged.iloc[start:stop], np.asarray(vectors[start:stop]))
        if len(new_rows):
            writer.add(merged.iloc[len(old) :], new_vectors)
        writer.keep(extra)
        save = partial(
            save_bertopic, bertopic, embedder_kind=str(build.manifest["settings"]["embedder"]),
            sizes=topic_sizes(table[table["topic_id"].isin(bertopic.topic_sizes_)]),
        )  # fmt: skip
        return writer.commit(table, manifest, model, folders={BERTOPIC_DIR: save})


def _new_papers(results: list[AppliedPapers], dimensions: int) -> tuple[pd.DataFrame, np.ndarray]:
    """The added papers' stored rows and vectors, batches joined."""
    if not results:
        return pd.DataFrame(columns=list(STORED_PAPER_COLUMNS)), np.zeros((0, dimensions), np.float32)
    return pd.concat([r.rows for r in results], ignore_index=True), np.concatenate([r.vectors for r in results])
