"""The build's deterministic stages through the stage cache (`pipeline.stagecache`).

Each function here calls one stage as it is, keyed by everything that stage takes, and says how its result
is stored and read back; none reaches into the stage. What each key holds:
- an embedder that learns its space from the fit sample (TF-IDF), fitted, with the sample's vectors: the texts
  and the embedder's kind and settings;
- neighbours and clusters: `pipeline.fit.remembered`, which the fit calls from inside BERTopic's fit;
- the fit (clusters, keywords, labels, the BERTopic model): `fit.topics.fit_inputs` (the vectors, the texts,
  those settings, the clustering parameters they resolve to, and the embedder, which embeds topic names and
  keyword candidates);
- the map: the vectors, their neighbours, the graph's size and the seed;
- the topic tree: the topics' term counts and centres, the texts and their topics, the embedder;
- the scores: the texts, every paper's topic and flag, and the topics' table.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.schema import BERTOPIC_FOLDER
from topic_explorer.pipeline.describe.terms import TermCounts
from topic_explorer.pipeline.embed.models import Embedder
from topic_explorer.pipeline.evaluate.quality import Quality
from topic_explorer.pipeline.fit.clusters import TopicParameters
from topic_explorer.pipeline.fit.reduce import Neighbours
from topic_explorer.pipeline.stagecache import (
    StageCache,
    from_sparse_parts,
    read_arrays,
    read_frame,
    read_values,
    sparse_parts,
    write_arrays,
    write_frame,
    write_values,
)
from topic_explorer.pipeline.topicmodel import TopicModel


def corpus_embedder(
    stages: StageCache, embedder: Embedder, texts: list[str], compute: Callable[[], tuple[Embedder, np.ndarray]]
) -> tuple[Embedder, np.ndarray]:
    """`compute()` (an embedder that learns its space from `texts`, fitted, and their vectors), or its stored
    result; keyed by the texts and the embedder's kind, name and settings (its public attributes)."""
    made_with = {name: value for name, value in vars(embedder).items() if not name.startswith("_")}

    def write(result: tuple[Embedder, np.ndarray], folder: Path) -> None:
        fitted, vectors = result
        write_arrays(folder, vectors=vectors, **{f"state_{name}": value for name, value in fitted.state().items()})

    def read(folder: Path) -> tuple[Embedder, np.ndarray]:
        arrays = read_arrays(folder)
        state = {name.removeprefix("state_"): value for name, value in arrays.items() if name.startswith("state_")}
        return type(embedder).from_state(state), arrays["vectors"]

    inputs = [texts, type(embedder).__name__, embedder.name, made_with]
    return stages.run("embedder", inputs, compute, write=write, read=read)


def fit(stages: StageCache, inputs: list, compute: Callable[[], object], *, embedder_kind: str):
    """`compute()` (fitting the topics, a `pipeline.fit.topics.Fit`), or its stored result; the BERTopic model is
    stored as the build stores it and opened again with BERTopic."""
    from topic_explorer.pipeline.fit.topics import Fit

    def write(found: Fit, folder: Path) -> None:
        model = found.topic_model
        # By topic id, as the build saves them: a build whose papers are all in the fit sample copies these files.
        sizes = model.sizes() if isinstance(model, SavedTopicModel) else dict(sorted(model.topic_sizes_.items()))
        save_topic_model(model, folder / BERTOPIC_FOLDER, embedder_kind=embedder_kind, sizes=sizes)
        write_arrays(
            folder,
            labels=found.labels,
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
            topic_model=SavedTopicModel.read(folder / BERTOPIC_FOLDER),
            labels=arrays["labels"],
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

    return stages.run("fit", inputs, compute, write=write, read=read)


@dataclass(frozen=True)
class SavedTopicModel:
    """A fitted BERTopic model as `bertopic_model.save_topic_model` wrote it: file name -> bytes.

    Held in memory, so the entry it came from may go. Writing it with the topic sizes it was saved with copies
    the files and never imports BERTopic (several seconds); other sizes open it in BERTopic and save it again.
    """

    files: dict[str, bytes]

    @classmethod
    def read(cls, folder: Path) -> SavedTopicModel:
        return cls({path.name: path.read_bytes() for path in sorted(folder.iterdir())})

    def sizes(self) -> dict[int, int]:
        stored = json.loads(self.files["topics.json"])["topic_sizes"]
        return {int(topic): int(size) for topic, size in stored.items()}

    def load(self):
        """The model in BERTopic (`bertopic.BERTopic`)."""
        from topic_explorer.pipeline.bertopic_model import load_saved

        with tempfile.TemporaryDirectory() as folder:
            for name, content in self.files.items():
                (Path(folder) / name).write_bytes(content)
            return load_saved(Path(folder))


def save_topic_model(topic_model, folder: Path, *, embedder_kind: str, sizes: dict[int, int]) -> None:
    """`bertopic_model.save_topic_model` for a fitted BERTopic model or a `SavedTopicModel` from the cache."""
    from_cache = isinstance(topic_model, SavedTopicModel)
    if from_cache and list(topic_model.sizes().items()) == [(int(t), int(n)) for t, n in sizes.items()]:
        folder.mkdir(parents=True)
        for name, content in topic_model.files.items():
            (folder / name).write_bytes(content)
        return
    from topic_explorer.pipeline.bertopic_model import save_topic_model as save_in_bertopic

    save_in_bertopic(
        topic_model.load() if from_cache else topic_model, folder, embedder_kind=embedder_kind, sizes=sizes
    )


def layout(stages: StageCache, inputs: list, compute: Callable[[], np.ndarray]) -> np.ndarray:
    """`compute()` (the map's positions), or its stored result."""
    write = lambda xy, folder: write_arrays(folder, xy=xy)  # noqa: E731
    return stages.run("layout", inputs, compute, write=write, read=lambda folder: read_arrays(folder)["xy"])


def hierarchy(
    stages: StageCache, counts: TermCounts, model: TopicModel, inputs: list, compute: Callable[[], pd.DataFrame]
) -> pd.DataFrame:
    """`compute()` (the topic tree over `counts` and `model`), or its stored result."""
    return stages.run(
        "hierarchy",
        [*_counts_key(counts), *_model_parts(model).values(), *inputs],
        compute,
        write=lambda tree, folder: write_frame(folder, "tree", tree),
        read=lambda folder: read_frame(folder, "tree"),
    )


def quality(stages: StageCache, inputs: list, compute: Callable[[], Quality]) -> Quality:
    """`compute()` (the topics' scores), or its stored result."""

    def write(found: Quality, folder: Path) -> None:
        values = {name: getattr(found, name) for name in ("coherence", "diversity", "poorly_fitting_share", "n_topics")}
        write_values(folder, values | {"sizes": found.sizes, "agreement": found.agreement})
        write_frame(folder, "per_topic", found.per_topic)

    def read(folder: Path) -> Quality:
        return Quality(**read_values(folder), per_topic=read_frame(folder, "per_topic"))

    return stages.run("evaluate", inputs, compute, write=write, read=read)


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


def _counts_key(counts: TermCounts) -> list:
    return [list(counts.terms), counts.topic_ids, counts.sizes, counts.counts, counts.papers]


def _counts_from(arrays: dict[str, np.ndarray], terms: list[str]) -> TermCounts:
    return TermCounts(
        arrays["count_topic_ids"],
        tuple(terms),
        from_sparse_parts("counts", arrays),
        from_sparse_parts("papers", arrays),
        arrays["count_sizes"],
    )
