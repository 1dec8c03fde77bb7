"""Shared fixtures: builds made once per test session, and a fast fake embedder.

Most tests use `FakeEmbedder` (deterministic, no model); the `sample_build` fixture runs
the real MiniLM model end to end on the bundled sample, as a user's first build would.
Every test, and every build made once per session, caches in a temporary folder, never in ~/.cache.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from topic_explorer.pipeline.ingest.corpus import load_corpus, sample_files
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory):
    """Builds made once per session (and the servers tests start) cache in a temporary folder: a test run must
    neither read a developer's cache, which would hide a cold build's behaviour, nor write to it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOPIC_EXPLORER_CACHE", str(tmp_path_factory.mktemp("session-cache")))
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))  # libraries' caches too
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))  # Chromium's crash reports
        yield


@pytest.fixture(autouse=True)
def _test_cache(tmp_path_factory, monkeypatch) -> None:
    """Each test starts with an empty cache of its own, so no test passes on another's cached results."""
    monkeypatch.setenv("TOPIC_EXPLORER_CACHE", str(tmp_path_factory.mktemp("cache")))


class FakeEmbedder:
    """Deterministic stand-in for MiniLM: hashed word counts, projected and normalised.

    Texts sharing words get similar vectors, so clustering still finds structure.
    """

    name = "fake-hashed-words"
    fits_corpus = False

    def __init__(self, dimensions: int = 64):
        self.dimensions = dimensions
        self.calls: list[int] = []

    def device_used(self) -> str:
        return "cpu"

    def transform(self, texts: list[str]) -> np.ndarray:
        self.calls.append(len(texts))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                digest = hashlib.md5(word.encode()).digest()
                out[row, digest[0] % self.dimensions] += 1.0 if digest[1] % 2 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("embedding-cache")


@pytest.fixture(scope="session")
def sample_build(tmp_path_factory, cache_dir) -> Path:
    """The bundled sample built with the real model and default settings."""
    out = tmp_path_factory.mktemp("builds") / "sample"
    run_build([], out, BuildSettings(cache_dir=cache_dir))
    return out


@pytest.fixture(scope="session")
def metadata_corpus(tmp_path_factory) -> Path:
    """A CSV of the sample's abstracts with titles, years and venues, plus hostile cells.

    One title starts with '=' (a spreadsheet formula) and one abstract holds HTML, so the
    dashboard's export and display can be tested against them.
    """
    abstracts = load_corpus(sample_files()).papers["abstract"].tolist()
    rows = pd.DataFrame(
        {
            "title": [f"Paper {i}: {a.split('.')[0][:60]}" for i, a in enumerate(abstracts)],
            "abstract": abstracts,
            "year": [2023 + i % 3 for i in range(len(abstracts))],
            "venue": ["NeurIPS" if i % 2 else "ICML" for i in range(len(abstracts))],
        }
    )
    rows.loc[0, "title"] = '=HYPERLINK("http://example.com", "click")'
    rows.loc[1, "abstract"] = "<b>bold</b> <script>alert('x')</script> " + rows.loc[1, "abstract"]
    path = tmp_path_factory.mktemp("corpora") / "papers.csv"
    rows.to_csv(path, index=False)
    return path


@pytest.fixture(scope="session")
def metadata_build(tmp_path_factory, metadata_corpus) -> Path:
    """A quick (TF-IDF) build with year and venue metadata columns."""
    out = tmp_path_factory.mktemp("builds") / "with-metadata"
    run_build([metadata_corpus], out, BuildSettings(embedder="tfidf"))
    return out
