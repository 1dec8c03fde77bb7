"""The build's BERTopic model: saved with the build (`model/bertopic/`, safetensors, no pickle), opened in BERTopic.

    from topic_explorer.pipeline.fit.bertopic_model import open_in_bertopic
    topic_model = open_in_bertopic("my-build")     # BERTopic, with the build's own embedder
    topic_model.get_topic_info()                   # the build's topics, labels and sizes
    topic_model.transform(["an abstract ..."])     # the topics `topic-explorer add` would give

The saved model holds the topics as fitted (finest topic ids, our labels as BERTopic's custom labels,
keywords, topic embeddings, c-TF-IDF); `topic_sizes_` count every paper of the build, fit sample or not.
Its config names the embedder portably ("sentence-transformers/all-MiniLM-L6-v2"), never a path on
this machine. The dashboard's edits stay an overlay: `open_in_bertopic(..., with_edits=True)` applies
the renames as custom labels (merges and moves change which papers a topic holds: apply them with
BERTopic's own `merge_topics` and `update_topics` on the papers, if you need them there).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from bertopic.backend import BaseEmbedder

from topic_explorer.pipeline.buildfolder.schema import BERTOPIC_DIR, REBUILD_HINT, TOPIC_EMBEDDINGS_FILE
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.fit.lean_bertopic import without_language_models
from topic_explorer.pipeline.settings import DEFAULT_DEVICE
from topic_explorer.pipeline.text.clean import MAX_PHRASE_WORDS, STOP_WORDS, TOKEN_PATTERN

log = logging.getLogger(__name__)

PORTABLE_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"  # the hub's name for the model we ship


class BuildEmbedder(BaseEmbedder):
    """An embedder of ours (a function from texts to unit vectors) as BERTopic's `embedding_model`."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray]):
        super().__init__()
        self._embed = embed

    def embed(self, documents: list[str], verbose: bool = False) -> np.ndarray:
        return np.asarray(self._embed(list(documents)))


def release_fit_inputs(bertopic: Any) -> None:
    """Give the fitted `bertopic` the plain sub-models `BERTopic.load` gives a saved model, in place of ours that
    read the fit sample's papers: the clustering (the papers' neighbours and TF-IDF rows), the vectorizer (each
    paper's term counts) and the describers. A build holds its BERTopic model until it saves it at the end: at
    100,000 papers these kept its peak through assigning the papers at 2,084 MiB instead of 1,995.

    The vectorizer left is a plain scikit-learn one over the same candidate terms (words and phrases of up to four
    words, our stop words), which the saved model keeps; the topics' c-TF-IDF and the tree BERTopic's
    `hierarchical_topics` draws from it are the fit's.
    """
    from bertopic.cluster import BaseCluster
    from sklearn.feature_extraction.text import CountVectorizer

    bertopic.vectorizer_model = CountVectorizer(
        vocabulary=bertopic.vectorizer_model.vocabulary_,
        ngram_range=(1, MAX_PHRASE_WORDS),
        token_pattern=TOKEN_PATTERN,
        stop_words=sorted(STOP_WORDS),
    ).fit([])  # fmt: skip  (a fixed vocabulary: fitting only checks it)
    bertopic.hdbscan_model = BaseCluster()
    bertopic.representation_model = None


def save_bertopic(bertopic: Any, folder: Path, *, embedder_kind: str, sizes: dict[int, int]) -> None:
    """Write `bertopic` (fitted, its fit's inputs released: `release_fit_inputs`) into `folder` as BERTopic's
    safetensors files, with c-TF-IDF and `sizes` per topic."""
    bertopic.topic_sizes_ = {int(t): int(n) for t, n in sizes.items()}
    with _Quiet():
        bertopic.save(
            folder,
            serialization="safetensors",
            save_ctfidf=True,
            save_embedding_model=PORTABLE_MODEL_NAME if embedder_kind == "minilm" else False,
        )


SAVED_FILES = ("config.json", "topics.json", TOPIC_EMBEDDINGS_FILE, "ctfidf.safetensors", "ctfidf_config.json")


def load_saved(folder: Path, embedding_model: Any = None) -> Any:
    """BERTopic's model saved in `folder`, without fetching the embedding model its config names.

    Only the files `save_bertopic` writes are accepted: given a file, or a folder with `.bin` tensors,
    `BERTopic.load` would unpickle, and a build folder is data, never code.
    """
    from bertopic import BERTopic

    folder = Path(folder)
    found = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
    if found != set(SAVED_FILES):
        raise UserError(f"{folder} is not a BERTopic model as topic-explorer saves it; rebuild with: {REBUILD_HINT}")
    with _Quiet(), _Offline(), without_language_models():  # no SentenceTransformer from the config's name
        return BERTopic.load(str(folder), embedding_model=embedding_model)


class _Offline:
    """The hub switched off while BERTopic loads: it asks for the model its saved config names, and on a closed
    network huggingface_hub retries with back-off for minutes. The package sets HF_HUB_OFFLINE, but a notebook
    that imported huggingface_hub before us has already read it, so its constant is set here as well."""

    def __enter__(self) -> None:
        from huggingface_hub import constants

        self._before = constants.HF_HUB_OFFLINE
        constants.HF_HUB_OFFLINE = True

    def __exit__(self, *error) -> None:
        from huggingface_hub import constants

        constants.HF_HUB_OFFLINE = self._before


class _Quiet:
    """BERTopic's warnings and log lines silenced (they advise on choices the build made on purpose)."""

    def __enter__(self) -> None:
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()
        warnings.simplefilter("ignore")
        self._logger = logging.getLogger("BERTopic")
        self._level = self._logger.level
        self._logger.setLevel(logging.ERROR)

    def __exit__(self, *error) -> None:
        self._logger.setLevel(self._level)
        self._warnings.__exit__(*error)


def open_in_bertopic(build: Path | str, *, with_edits: bool = False, device: str = DEFAULT_DEVICE) -> Any:
    """The build's BERTopic model, with the build's own embedder as its `embedding_model`.

    With it, `transform` embeds new abstracts as the build did (MiniLM over the whole text, or the build's
    TF-IDF space) and gives the topics `topic-explorer add` gives. Nothing is downloaded.
    """
    from topic_explorer.pipeline.buildfolder.read import read_build, read_embedder_state
    from topic_explorer.pipeline.embed.models import embedder_for

    build = read_build(Path(build), with_edits=with_edits)
    embedder = embedder_for(build.manifest.get("embedder") or {}, read_embedder_state(build.path), device=device)
    bertopic = load_saved(build.path / BERTOPIC_DIR, BuildEmbedder(embedder.transform))
    if with_edits:
        labels = dict(zip(build.topics["topic_id"].tolist(), build.topics["label"], strict=True))
        bertopic.set_topic_labels({t: labels[t] for t in bertopic.topic_sizes_ if t in labels})
    return bertopic
