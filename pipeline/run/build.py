"""Run the pipeline's stages in order and write the build: the one function the CLI calls.

ingest -> embed the fit sample -> fit BERTopic (reduce, cluster, keywords and labels) -> layout -> per batch
of papers: title, embed, assign, place -> topic tree -> evaluate -> write.

Fitting sees the fit sample (every paper, up to `--fit-sample`); the per-batch work
(`pipeline.apply.batches`) runs in this process or on a Dask cluster (`pipeline.apply.engine`) and its
results are written batch by batch. The BERTopic model is written once, here. Data passes between stages
explicitly; nothing replaces the previous build until every stage succeeded.
"""

from __future__ import annotations

import hashlib
import logging
import platform
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from topic_explorer.pipeline import __version__
from topic_explorer.pipeline.apply.batches import Fitted, Fixed
from topic_explorer.pipeline.apply.engine import Engine, InProcess
from topic_explorer.pipeline.apply.loop import apply_papers, embed_all
from topic_explorer.pipeline.buildfolder.model import POOR_FIT_QUANTILE
from topic_explorer.pipeline.buildfolder.schema import BERTOPIC_DIR, ModelParts
from topic_explorer.pipeline.buildfolder.write import BuildWriter, check_destination
from topic_explorer.pipeline.cache.store import ResultCache
from topic_explorer.pipeline.describe.hierarchy import remembered_hierarchy
from topic_explorer.pipeline.describe.topics import topic_sizes, with_sizes
from topic_explorer.pipeline.embed.cache import CacheStats, EmbeddingCache, remembered_embedder
from topic_explorer.pipeline.embed.models import Embedder, make_embedder
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.evaluate.quality import Quality, remembered_assess
from topic_explorer.pipeline.fit import stored
from topic_explorer.pipeline.fit.topics import Fit
from topic_explorer.pipeline.ingest.corpus import CorpusReader, sample_files
from topic_explorer.pipeline.map.layout import remembered_map
from topic_explorer.pipeline.map.place import PLACE_NEIGHBOURS, MapLayout
from topic_explorer.pipeline.settings import MIN_PAPERS, BuildSettings, default_title
from topic_explorer.pipeline.timing import StageTimer

log = logging.getLogger(__name__)

STAGES = ("ingest", "embed", "reduce", "cluster", "keywords", "layout", "assign", "hierarchy", "evaluate", "write")
REPORTED_PACKAGES = (
    "bertopic", "umap-learn", "fastcluster", "leidenalg", "sentence-transformers", "torch", "scikit-learn", "numpy",
    "pandas", "pyarrow", "dask",
)  # fmt: skip


@dataclass
class BuildResult:
    """What a build produced, for the CLI's closing summary."""

    path: Path
    corpus: CorpusReader  # what was read: inputs and counts
    titles_derived: int
    table: pd.DataFrame  # the topics, as written
    topic_id: np.ndarray  # per paper
    fits_poorly: np.ndarray  # per paper
    unmatched_names: dict[str, float]
    quality: Quality
    cache: CacheStats | None  # papers reused from / added to the embedding cache
    seconds: dict[str, float] = field(default_factory=dict)
    engine: str = "in this process"


def run_build(
    inputs: list[Path],
    out: Path,
    settings: BuildSettings,
    *,
    embedder: Embedder | None = None,
    engine: Engine | None = None,
    progress: bool = False,
) -> BuildResult:
    """Build `inputs` (the bundled sample when empty) into the build folder `out`.

    `embedder` replaces the one `settings.embedder` names (tests pass a fast fake); `engine` runs
    the per-batch work (default: in this process).
    """
    check_destination(out)
    engine = engine or InProcess()
    timer = StageTimer(heartbeat=still_working)
    with timer.stage("ingest"):
        reader = CorpusReader(
            list(inputs) or sample_files(), text_column=settings.text_column, title_column=settings.title_column
        )
    if reader.n_papers < MIN_PAPERS:
        raise UserError(
            f"found {reader.n_papers} usable abstracts; topic modelling needs at least {MIN_PAPERS}: add more papers"
        )
    embedder = embedder or make_embedder(settings.embedder, device=settings.device, precision=settings.precision)
    cache = EmbeddingCache(None if embedder.fits_corpus else settings.cache_dir, embedder.name)
    stats = CacheStats()
    sample = fit_sample_rows(pd.Series(reader.paper_ids), settings.fit_sample, settings.seed)
    with timer.stage("ingest"):
        corpus = _Corpus(reader, settings.batch_size, hold=len(sample) == reader.n_papers)
        sample_texts = corpus.abstracts_at(sample)
    log.info(
        "Read %d papers; fitting topics on %d of them, embedded with %s %s ...",
        reader.n_papers,
        len(sample),
        embedder.name,
        engine.description,
    )
    results = ResultCache(settings.cache_dir)
    embed_sample = partial(embed_all, sample_texts, cache=cache, engine=engine, progress=progress, stats=stats)
    with timer.stage("embed"):
        if embedder.fits_corpus:  # its space is learnt from the sample: kept with the vectors in the result cache
            embedder, vectors = remembered_embedder(
                results, embedder, sample_texts, lambda: (embedder.fit(sample_texts), embed_sample(embedder))
            )
        else:
            vectors = embed_sample(embedder)
    embed_here = partial(embed_all, embedder=embedder, cache=cache)  # topic names and keyword candidates
    log.info("Finding topics ...")
    with timer.stage("keywords"):  # what the inner stages leave: reading a stored fit, BERTopic's own work
        fit = stored.fit(
            results,
            vectors,
            sample_texts,
            settings=settings,
            embed=embed_here,
            embedder_name=embedder.name,
            timer=timer,
        )
    log.info("Drawing the map ...")
    with timer.stage("layout"):
        n_neighbors = fit.parameters.map_neighbors
        xy = remembered_map(results, vectors, fit.neighbours, seed=settings.seed, n_neighbors=n_neighbors)
    fitted = Fitted(embedder, fit.model, MapLayout(vectors, xy), settings.keep_outliers)
    fixed = Fixed(sample, fit.topic_id, fit.fits_poorly, xy, vectors)
    with BuildWriter(out, reader.n_papers, vectors.shape[1], reader.metadata_types) as writer:
        with timer.stage("assign"):
            outside_sample = reader.n_papers - len(sample)
            batches = apply_papers(corpus.batches(), fitted, fixed, engine=engine, cache=cache, stats=stats,
                                   progress=("Assigning", outside_sample) if progress else None)  # fmt: skip
            topic_id, fits_poorly, titles_derived = [], [], 0
            for applied in batches:  # each batch written as it arrives
                writer.add(applied.rows, applied.vectors)
                topic_id.append(applied.rows["topic_id"].to_numpy())
                fits_poorly.append(applied.rows["fits_poorly"].to_numpy())
                titles_derived += applied.titles_derived
            topic_id, fits_poorly = np.concatenate(topic_id), np.concatenate(fits_poorly)
        table = with_sizes(fit.topics, topic_id)
        with timer.stage("hierarchy"):
            topic_labels = dict(zip(fit.topics["topic_id"].tolist(), fit.topics["label"], strict=True))
            tree = remembered_hierarchy(
                results, fit.counts, fit.model, texts=sample_texts, text_topics=fit.topic_id, embed_terms=embed_here,
                embedder_name=embedder.name, topic_labels=topic_labels,
            )  # fmt: skip
        with timer.stage("evaluate"):
            quality = remembered_assess(results, sample_texts, topic_id, fits_poorly, table)
        table = table.merge(quality.per_topic[["topic_id", "coherence"]], on="topic_id", how="left")
        with timer.stage("write"):
            title = settings.title or default_title(inputs)
            manifest = _manifest(reader, title, titles_derived, fit, quality, settings, embedder, stats, timer)
            manifest |= {"engine": engine.description, "stage_cache": results.counts.as_dict()}
            model = ModelParts(fit.model, fit.counts.to_frame(), embedder.state() if embedder.fits_corpus else None)
            save = partial(
                stored.save_bertopic,
                fit.bertopic,
                embedder_kind=settings.embedder,
                sizes=topic_sizes(table),
            )
            path = writer.commit(table, manifest, model, tree, folders={BERTOPIC_DIR: save})
    return BuildResult(
        path, reader, titles_derived, table, topic_id, fits_poorly, fit.unmatched_names, quality,
        None if embedder.fits_corpus else stats, dict(timer.seconds), engine.description,
    )  # fmt: skip


class _Corpus:
    """The reader's papers in batches; held in memory when the fit needs every paper anyway."""

    def __init__(self, reader: CorpusReader, batch_size: int, *, hold: bool):
        self.reader = reader
        self.batch_size = batch_size
        self._held = list(reader.batches(batch_size)) if hold else None

    def batches(self) -> Iterator[pd.DataFrame]:
        return iter(self._held) if self._held is not None else self.reader.batches(self.batch_size)

    def abstracts_at(self, rows: np.ndarray) -> list[str]:
        """The abstracts at corpus positions `rows` (sorted), reading the files once more if not held."""
        found, start = [], 0
        for batch in self.batches():
            low, high = np.searchsorted(rows, [start, start + len(batch)])
            found += batch["abstract"].iloc[rows[low:high] - start].tolist()
            start += len(batch)
        return found


def fit_sample_rows(paper_ids: pd.Series, size: int, seed: int) -> np.ndarray:
    """Row positions of the fit sample, in corpus order: every paper, or a seeded choice of `size`.

    A paper's chance depends only on its id and the seed, so the same corpus in any order, split
    into any batches, gives the same sample.
    """
    if len(paper_ids) <= size:
        return np.arange(len(paper_ids))
    ranks = np.array([int(hashlib.sha256(f"{seed}:{pid}".encode()).hexdigest()[:15], 16) for pid in paper_ids])
    return np.sort(np.argpartition(ranks, size - 1)[:size])


def _manifest(
    corpus: CorpusReader,
    title: str,
    titles_derived: int,
    fit: Fit,
    quality: Quality,
    settings: BuildSettings,
    embedder: Embedder,
    stats: CacheStats,
    timer: StageTimer,
) -> dict:
    # Every stage but "write", which is still running while this is made.
    done = [stage for stage in STAGES if stage != "write"]
    return {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "tool": f"topic-explorer {__version__}",
        "title": title,
        "inputs": corpus.inputs,
        "counts": {
            "rows_read": corpus.rows_read,
            "empty_dropped": corpus.empty_dropped,
            "duplicates_dropped": corpus.duplicates_dropped,
            "papers": corpus.n_papers,
            "titles_derived": titles_derived,
            "topics": int(quality.n_topics),
            "poorly_fitting": round(quality.poorly_fitting_share * corpus.n_papers),
            "left_out_by_clustering": int(fit.left_out.sum()),  # of the fit sample; each joined its nearest topic
            "fit_sample": len(fit.topic_id),
        },
        "settings": settings.to_dict(),
        "parameters": {
            **fit.parameters.as_dict(),
            "poor_fit_quantile": POOR_FIT_QUANTILE,
            "place_neighbours": PLACE_NEIGHBOURS,
        },
        "embedder": {
            "name": embedder.name,
            "kind": settings.embedder,
            "device": embedder.device_used(),  # where it ran; settings.device is what was asked for
            "precision": getattr(embedder, "precision", None),  # as it ran (settings.precision: as asked)
            "dimensions": int(fit.model.centres.shape[1]),
            "papers_from_cache": None if embedder.fits_corpus else stats.reused,
            "papers_embedded": stats.embedded,
        },
        "named_topics": {
            "matched": list(fit.names.values()),
            "unmatched": {name: round(score, 3) for name, score in fit.unmatched_names.items()},
        },
        "metadata_columns": corpus.metadata_columns,
        "quality": quality.summary(),
        "seconds": {stage: round(timer.seconds.get(stage, 0.0), 3) for stage in done},
        "cpu_seconds": {stage: round(timer.cpu_seconds.get(stage, 0.0), 3) for stage in done},
        "peak_memory_mb": {stage: round(timer.peak_mb[stage]) for stage in done if stage in timer.peak_mb},
        "versions": {"python": platform.python_version(), **_versions()},
    }


# What each stage is doing, for the lines a long stage logs while it runs (`StageTimer`'s heartbeat).
STAGE_WORK = {
    "ingest": "reading the papers",
    "embed": "embedding the papers",
    "reduce": "reducing the embeddings",
    "cluster": "clustering",
    "keywords": "finding each topic's keywords and names",
    "layout": "drawing the map",
    "assign": "assigning the papers to topics",
    "hierarchy": "grouping the topics into themes",
    "evaluate": "scoring the topics",
    "write": "writing the build",
}


def still_working(stage: str, seconds: float) -> None:
    """Logged every few seconds while a stage runs: no stage over a few seconds passes in silence."""
    log.info("  ... still %s (%d s)", STAGE_WORK.get(stage, stage), seconds)


def _versions() -> dict[str, str | None]:
    found = {}
    for package in REPORTED_PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = None
    return found
