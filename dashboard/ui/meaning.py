"""Search in the dashboard: meaning and words together, ranked by the same function as `topic-explorer search`.

The page starts without the embedding stack (torch, sentence-transformers) and without the word index:
both are made under a spinner when someone first searches, then kept for every session, per build version
(as the papers' embeddings are). A query's scores over every paper are cached, so changing the other
filters or the relevance bar ranks again without embedding the query again.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

from topic_explorer.dashboard.logic.safetext import escape_markdown
from topic_explorer.dashboard.logic.searching import Found, find
from topic_explorer.dashboard.logic.viewlink import View
from topic_explorer.pipeline.buildfolder.read import read_manifest
from topic_explorer.pipeline.buildfolder.schema import read_embeddings
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.search.ranked import (
    query_embedder,
    query_vector,
    search_parts,
    similar_rows,
    word_index,
)

if TYPE_CHECKING:
    from topic_explorer.pipeline.search.word_index import WordIndex

LOADING = "Loading the language model for search (the first search only)…"
INDEXING = "Indexing the papers' words for search (the first search only)…"


@st.cache_resource(show_spinner=LOADING, max_entries=4)  # the spinner shows only when the model loads
def _embedder(path: str, manifest_version: int):
    """The build's embedder, once per build (a rebuild changes `manifest_version`); shared by every session.

    The page has read and checked this build version already: only the manifest and the model are read here.
    """
    embedder = query_embedder(Path(path), read_manifest(Path(path)), device="cpu")
    query_vector(embedder, "warm up")  # loads the model now, under the spinner
    return embedder


@st.cache_resource(show_spinner=False, max_entries=4)
def vectors(path: str, manifest_version: int) -> np.ndarray:
    """The papers' embeddings, memory-mapped: read from disk as searches need them (checked when the page read the
    build)."""
    return read_embeddings(Path(path), mmap=True)


@st.cache_resource(show_spinner=INDEXING, max_entries=4)
def words(path: str, manifest_version: int, _papers: pd.DataFrame) -> WordIndex:
    """The papers' word index (BM25 over titles and abstracts), once per build version, shared by every session."""
    return word_index(_papers)


@st.cache_data(show_spinner=False, max_entries=32)
def query_scores(path: str, manifest_version: int, query: str, _papers: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Every paper's search score and relevance for `query` (raises `UserError` for an empty or over-long query)."""
    index = words(path, manifest_version, _papers)
    return search_parts(vectors(path, manifest_version), index, _embedder(path, manifest_version), query)


def render_search(
    path: str, manifest_version: int, papers: pd.DataFrame, view: View, passing: np.ndarray, bar: float
) -> Found | None:
    """The papers passing the other filters whose relevance reaches `bar`, best first (as many as there are).

    None without a query; a query the model cannot take (too long) is explained in the sidebar instead.
    """
    if not view.about:
        return None
    try:
        scores, relevance = query_scores(path, manifest_version, view.about, papers)
    except UserError as error:
        st.sidebar.warning(escape_markdown(str(error)))
        return None
    return find(scores, relevance, bar, passing)


@st.cache_data(show_spinner=False, max_entries=1000)  # a few hundred bytes each; 100,000 papers take ~50 ms a paper
def similar(path: str, manifest_version: int, row: int, top: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """The papers closest to the paper at `row`, best first, with their cosine similarity (kept per build version)."""
    ranked = similar_rows(vectors(path, manifest_version), row, top)
    return ranked.rows, ranked.scores


def build_embedder(path: str, manifest_version: int):
    """The build's embedder, loaded once and shared (curation matches a new topic name with it)."""
    return _embedder(path, manifest_version)
