"""The whole fit through the result cache (`pipeline.cache`), keyed here, beside the fit.

The key: `fit.topics.fit_inputs` (the vectors, the texts, the settings the topics depend on, the clustering
parameters they resolve to, and the embedder, which embeds topic names and keyword candidates). The BERTopic
model is kept as the build saves it (`SavedBERTopic`), so a build from a stored fit never imports BERTopic
unless the topic sizes changed.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from topic_explorer.pipeline.buildfolder.model import TopicModel
from topic_explorer.pipeline.buildfolder.schema import BERTOPIC_FOLDER
from topic_explorer.pipeline.cache.store import (
    ResultCache,
    from_sparse_parts,
    read_arrays,
    read_frame,
    read_values,
    sparse_parts,
    write_arrays,
    write_frame,
    write_values,
)
from topic_explorer.pipeline.describe.terms import TermCounts
from topic_explorer.pipeline.fit.clusters import TopicParameters
from topic_explorer.pipeline.fit.reduce import Neighbours
from topic_explorer.pipeline.fit.topics import Fit, fit_inputs, fit_topics
from topic_explorer.pipeline.settings import BuildSettings
from topic_explorer.pipeline.timing import StageTimer


def fit(
    results: ResultCache,
    vectors: np.ndarray,
    texts: list[str],
    *,
    settings: BuildSettings,
    embed: Callable[[list[str]], np.ndarray],
    embedder_name: str,
    timer: StageTimer,
) -> Fit:
    """`fit.topics.fit_topics` (a `Fit`) on the fit sample's `vectors` and `texts`, or its stored result; the
    BERTopic model is stored as the build stores it and opened again with BERTopic."""

    def compute() -> Fit:
        return fit_topics(vectors, texts, settings=settings, embed=embed, timer=timer, results=results)

    def write(found: Fit, folder: Path) -> None:
        bertopic = found.bertopic
        # By topic id, as the build saves them: a build whose papers are all in the fit sample copies these files.
        sizes = bertopic.sizes() if isinstance(bertopic, SavedBERTopic) else dict(sorted(bertopic.topic_sizes_.items()))
        save_bertopic(bertopic, folder / BERTOPIC_FOLDER, embedder_kind=settings.embedder, sizes=sizes)
        write_arrays(
            folder,
            topic_id=found.topic_id,
            left_out=found.left_out,
            fits_poorly=found.fits_poorly,
            **_model_parts(found.model),
            **_counts_parts(found.counts),
            neighbour_indices=found.neighbours.indices,
            neighbour_distances=found.neighbours.distances,
        )
        write_values(
            folder,
            {
                "terms": list(found.counts.terms),
                "names": [[int(t), name] for t, name in found.names.items()],
                "unmatched_names": found.unmatched_names,
                "parameters": found.parameters.as_dict(),
            },
        )
        write_frame(folder, "topics", found.topics)

    def read(folder: Path) -> Fit:
        arrays, values = read_arrays(folder), read_values(folder)
        return Fit(
            bertopic=SavedBERTopic.read(folder / BERTOPIC_FOLDER),
            topic_id=arrays["topic_id"],
            left_out=arrays["left_out"],
            fits_poorly=arrays["fits_poorly"],
            topics=read_frame(folder, "topics"),
            counts=_counts_from(arrays, values["terms"]),
            names={int(t): name for t, name in values["names"]},
            unmatched_names=values["unmatched_names"],
            model=_model_from(arrays),
            parameters=TopicParameters(**values["parameters"]),
            neighbours=Neighbours(arrays["neighbour_indices"], arrays["neighbour_distances"]),
        )

    inputs = fit_inputs(vectors, texts, settings, embedder_name)
    return results.run("fit", inputs, compute, write=write, read=read)


@dataclass(frozen=True)
class SavedBERTopic:
    """A fitted BERTopic model as `bertopic_model.save_bertopic` wrote it: file name -> bytes.

    Held in memory, so the entry it came from may go. Writing it with the topic sizes it was saved with copies
    the files and never imports BERTopic (several seconds); other sizes open it in BERTopic and save it again.
    """

    files: dict[str, bytes]

    @classmethod
    def read(cls, folder: Path) -> SavedBERTopic:
        return cls({path.name: path.read_bytes() for path in sorted(folder.iterdir())})

    def sizes(self) -> dict[int, int]:
        stored = json.loads(self.files["topics.json"])["topic_sizes"]
        return {int(topic): int(size) for topic, size in stored.items()}

    def load(self):
        """The model in BERTopic (`bertopic.BERTopic`)."""
        from topic_explorer.pipeline.fit.bertopic_model import load_saved

        with tempfile.TemporaryDirectory() as folder:
            for name, content in self.files.items():
                (Path(folder) / name).write_bytes(content)
            return load_saved(Path(folder))


def save_bertopic(bertopic, folder: Path, *, embedder_kind: str, sizes: dict[int, int]) -> None:
    """`bertopic_model.save_bertopic` for a fitted BERTopic model or a `SavedBERTopic` from the cache."""
    from_cache = isinstance(bertopic, SavedBERTopic)
    if from_cache and list(bertopic.sizes().items()) == [(int(t), int(n)) for t, n in sizes.items()]:
        folder.mkdir(parents=True)
        for name, content in bertopic.files.items():
            (folder / name).write_bytes(content)
        return
    from topic_explorer.pipeline.fit.bertopic_model import save_bertopic as save_in_bertopic

    save_in_bertopic(bertopic.load() if from_cache else bertopic, folder, embedder_kind=embedder_kind, sizes=sizes)


def _model_parts(model: TopicModel) -> dict[str, np.ndarray]:
    return {"topic_ids": model.topic_ids, "centres": model.centres, "poor_fit_below": model.poor_fit_below}


def _model_from(arrays: dict[str, np.ndarray]) -> TopicModel:
    return TopicModel(arrays["topic_ids"], arrays["centres"], arrays["poor_fit_below"])


def _counts_parts(counts: TermCounts) -> dict[str, np.ndarray]:
    return {
        "count_topic_ids": counts.topic_ids,
        "count_sizes": counts.sizes,
        **sparse_parts("counts", counts.counts),
        **sparse_parts("papers", counts.papers),
    }


def _counts_from(arrays: dict[str, np.ndarray], terms: list[str]) -> TermCounts:
    return TermCounts(
        arrays["count_topic_ids"],
        tuple(terms),
        from_sparse_parts("counts", arrays),
        from_sparse_parts("papers", arrays),
        arrays["count_sizes"],
    )
