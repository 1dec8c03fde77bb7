"""Run the pipeline's stages in order and write the build: the one function the CLI calls.

ingest -> embed -> reduce + cluster (BERTopic) -> keywords -> layout -> evaluate -> write.
Data passes between stages explicitly; nothing is written until every stage succeeded.
"""

from __future__ import annotations

import copy
import logging
import platform
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline import __version__
from pipeline.buildfolder import check_destination, write_build
from pipeline.embed import Embedder, make_embedder
from pipeline.embed_cache import CachedEmbedder, CacheStats
from pipeline.errors import UserError
from pipeline.ingest import Corpus, load_corpus, sample_files
from pipeline.layout import map_coordinates
from pipeline.quality import Quality, assess
from pipeline.settings import MIN_PAPERS, BuildSettings
from pipeline.timing import StageTimer
from pipeline.topics import Topics, find_topics

log = logging.getLogger(__name__)

STAGES = ("ingest", "embed", "reduce", "cluster", "keywords", "layout", "evaluate", "write")
REPORTED_PACKAGES = (
    "bertopic", "umap-learn", "hdbscan", "sentence-transformers", "torch", "scikit-learn", "numpy", "pandas", "pyarrow"
)  # fmt: skip


@dataclass
class BuildResult:
    """What a build produced, for the CLI's closing summary."""

    path: Path
    corpus: Corpus
    topics: Topics
    quality: Quality
    cache: CacheStats | None  # papers reused from / added to the embedding cache
    seconds: dict[str, float]


def run_build(
    inputs: list[Path],
    out: Path,
    settings: BuildSettings,
    *,
    embedder: Embedder | None = None,
    progress: bool = False,
) -> BuildResult:
    """Build `inputs` (the bundled sample when empty) into the build folder `out`.

    `embedder` replaces the one `settings.embedder` names (tests pass a fast fake).
    """
    check_destination(out)
    timer = StageTimer()
    with timer.stage("ingest"):
        corpus = load_corpus(
            list(inputs) or sample_files(), text_column=settings.text_column, title_column=settings.title_column
        )
    n_papers = len(corpus.papers)
    if n_papers < MIN_PAPERS:
        raise UserError(
            f"found {n_papers} usable abstracts; topic modelling needs at least {MIN_PAPERS}: add more papers"
        )
    abstracts = corpus.papers["abstract"].tolist()
    embedder = embedder or _default_embedder(settings, progress)
    log.info("Read %d papers; embedding them with %s ...", n_papers, embedder.name)
    with timer.stage("embed"):
        embeddings = embedder.fit_transform(abstracts)
    cache = copy.copy(getattr(embedder, "stats", None))  # papers only, before keywords use the embedder
    log.info("Finding topics ...")
    topics = find_topics(abstracts, embeddings, settings=settings, embedder=embedder, timer=timer)
    log.info("Drawing the map ...")
    with timer.stage("layout"):
        xy = map_coordinates(embeddings, seed=settings.seed, neighbors=topics.parameters.umap_neighbors)
    papers = _papers_table(corpus, topics, xy)
    with timer.stage("evaluate"):
        quality = assess(abstracts, topics.topic_id, topics.was_outlier, topics.table)
    topic_table = topics.table.merge(quality.per_topic[["topic_id", "coherence"]], on="topic_id", how="left")
    with timer.stage("write"):
        manifest = _manifest(corpus, topics, quality, settings, embedder, embeddings, cache, timer.seconds)
        path = write_build(out, papers, topic_table, embeddings, manifest)
    return BuildResult(path, corpus, topics, quality, cache, dict(timer.seconds))


def _default_embedder(settings: BuildSettings, progress: bool) -> Embedder:
    embedder = make_embedder(settings.embedder, seed=settings.seed)
    if settings.embedder == "tfidf":
        return embedder  # fitted on each corpus: nothing to cache
    return CachedEmbedder(embedder, settings.cache_dir, progress=progress)


def _papers_table(corpus: Corpus, topics: Topics, xy: np.ndarray) -> pd.DataFrame:
    labels = dict(zip(topics.table["topic_id"], topics.table["label"], strict=True))
    core = pd.DataFrame(
        {
            "paper_id": corpus.papers["paper_id"],
            "title": corpus.papers["title"],
            "abstract": corpus.papers["abstract"],
            "topic_id": topics.topic_id,
            "topic_label": [labels[t] for t in topics.topic_id],
            "confidence": topics.confidence.round(4),
            "was_outlier": topics.was_outlier,
            "x": xy[:, 0],
            "y": xy[:, 1],
        }
    )
    return pd.concat([core, corpus.papers[corpus.metadata_columns]], axis=1)


def _manifest(
    corpus: Corpus,
    topics: Topics,
    quality: Quality,
    settings: BuildSettings,
    embedder: Embedder,
    embeddings: np.ndarray,
    cache: CacheStats | None,
    seconds: dict[str, float],
) -> dict:
    return {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "tool": f"topic-explorer {__version__}",
        "inputs": corpus.inputs,
        "counts": {
            "rows_read": corpus.rows_read,
            "empty_dropped": corpus.empty_dropped,
            "duplicates_dropped": corpus.duplicates_dropped,
            "papers": len(corpus.papers),
            "titles_derived": corpus.titles_derived,
            "topics": int((topics.table["topic_id"] >= 0).sum()),
            "outliers": int(topics.was_outlier.sum()),
        },
        "settings": settings.to_dict(),
        "seed": settings.seed,
        "parameters": topics.parameters_dict(),
        "embedder": {
            "name": embedder.name,
            "dimensions": int(embeddings.shape[1]),
            "papers_from_cache": cache.reused if cache else None,
            "papers_embedded": cache.embedded if cache else len(embeddings),
        },
        "named_topics": {
            "matched": [n for n in settings.named_topics if n not in topics.unmatched_names],
            "unmatched": {name: round(score, 3) for name, score in topics.unmatched_names.items()},
        },
        "metadata_columns": corpus.metadata_columns,
        "quality": quality.summary(),
        # Every stage but "write", which is still running while this is made.
        "seconds": {stage: round(seconds.get(stage, 0.0), 3) for stage in STAGES if stage != "write"},
        "versions": {"python": platform.python_version(), **_versions()},
    }


def _versions() -> dict[str, str | None]:
    found = {}
    for package in REPORTED_PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = None
    return found
