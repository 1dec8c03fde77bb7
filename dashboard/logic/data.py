"""Find the build to show and precompute, once per build, what every rerun of the page needs."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from topic_explorer.dashboard.launch import BUILD_ENV
from topic_explorer.dashboard.logic.filters import ColumnFilter, column_filters
from topic_explorer.dashboard.logic.safetext import hover_html, preview
from topic_explorer.pipeline.buildfolder.edits import edits_version
from topic_explorer.pipeline.buildfolder.metadata import number_text, value_text
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.schema import MANIFEST_FILE, Build
from topic_explorer.pipeline.map.sample import draw_order, map_extent
from topic_explorer.pipeline.settings import default_sample_build
from topic_explorer.pipeline.text.latex import latex_to_text
from topic_explorer.pipeline.view.identifiers import is_identifier, lowercase_text, paper_link
from topic_explorer.pipeline.view.levels import Level, laid_out_topics, levels, rows_by_topic

HOVER_ABSTRACTS_UP_TO = 5_000  # papers: in bigger builds the map's hover leaves out the abstract's start, which is
# two thirds of the map's bytes (19,308 papers: 9 MB of figure, sent again on every selection); the reader shows it
TABLE_DECIMALS = 4  # Streamlit's table rounds decimals to this many places; columns needing more are shown as text


@dataclass(frozen=True)
class Explorer:
    """A build plus derived, read-only data shared by every session (never mutate it)."""

    build: Build
    papers: pd.DataFrame  # the build's papers, as read
    word_text: pd.Series  # per paper: lowercase title, abstract and identifiers, what the word filter reads
    hover: (
        np.ndarray
    )  # per paper: the map's hover text, escaped (title and topic; the abstract's start in small builds)
    topics: pd.DataFrame  # the build's topics plus `colour` and `top_keywords`
    topic_rows: dict[int, np.ndarray]  # topic_id -> row positions in `papers`
    extent: tuple[tuple[float, float], tuple[float, float]]  # fixed map ranges (x, y), padded
    column_filters: tuple[ColumnFilter, ...]  # the metadata columns worth a filter, and its kind
    identifiers: tuple[str, ...]  # metadata columns holding ids (shown as text, read by the word filter, linked)
    links: dict[str, np.ndarray]  # identifier column -> per paper, the page its id opens (None: no link)
    text_columns: frozenset[str]  # metadata the table shows as text: identifiers, decimals it would round
    levels: tuple[Level, ...]  # levels of detail, broadest first; the last is the topics themselves
    ids: np.ndarray  # per paper: its paper_id (object array, made once: every rerun reads ids, titles, table values)
    titles: np.ndarray  # per paper: its title as shown, LaTeX as text (object array; downloads keep the title as read)
    table_values: dict[str, object]  # topic_label and each metadata column: the table's values per paper
    draw_order: np.ndarray  # per paper: its rank when a map draws a sample (a fixed random order; `figures`)
    row_of: dict[str, int]  # paper_id -> its row

    def mask_of(self, paper_ids: Iterable[str]) -> np.ndarray:
        """Which rows hold these paper_ids (ids not in the build are ignored); fast for 100,000 ids."""
        mask = np.zeros(len(self.ids), dtype=bool)
        mask[[self.row_of[i] for i in paper_ids if i in self.row_of]] = True
        return mask

    @property
    def name(self) -> str:
        """The build folder's name (download file names start with it)."""
        return self.build.name

    @property
    def title(self) -> str:
        """The corpus's name for a reader (`Build.title`)."""
        return self.build.title

    @property
    def metadata_columns(self) -> list[str]:
        return self.build.metadata_columns


def build_path() -> Path:
    """The build named by $TOPIC_EXPLORER_BUILD (set by `topic-explorer serve`), else the sample's build."""
    env = os.environ.get(BUILD_ENV)
    return Path(env).expanduser() if env else default_sample_build()


def build_version(path: Path) -> tuple:
    """Changes when the build is rewritten (builds are replaced atomically, manifest included) or edited."""
    try:
        manifest = (Path(path) / MANIFEST_FILE).stat().st_mtime_ns
    except OSError:
        manifest = 0
    return (manifest, *edits_version(path))


def mask_bits(mask: np.ndarray) -> bytes:
    """A cache key for a mask of papers, hashed whole: Streamlit hashes an array of 500,000 values or more by a
    sample of them, and two masks differing outside it would share one cached map or chart."""
    return np.packbits(mask).tobytes()


def load_explorer(path: Path) -> Explorer:
    """Read the build (raises `UserError`); precompute word-filter and hover text, colours, positions and filters."""
    build = read_build(path)
    papers = build.papers.reset_index(drop=True)
    titles = np.array([latex_to_text(title) for title in papers["title"].tolist()], dtype=object)
    with_abstracts = len(papers) <= HOVER_ABSTRACTS_UP_TO
    previews = [latex_to_text(preview(a)) for a in papers["abstract"]] if with_abstracts else [None] * len(papers)
    columns = (titles, papers["topic_label"], previews)
    identifiers = tuple(c for c in build.metadata_columns if is_identifier(c, papers[c]))
    word_text = (papers["title"].astype(str) + "\n" + papers["abstract"].astype(str)).str.lower()
    for column in identifiers:
        word_text = word_text + "\n" + lowercase_text(papers[column])
    links = {column: np.array([paper_link(value) for value in papers[column]], dtype=object) for column in identifiers}
    topics = laid_out_topics(build.topics, papers)
    topic_rows = rows_by_topic(papers)
    text_columns = frozenset(identifiers).union(c for c in build.metadata_columns if _rounded_in_table(papers[c]))
    return Explorer(
        build=build,
        papers=papers,
        word_text=word_text,
        hover=np.array([hover_html(*texts) for texts in zip(*columns, strict=True)], dtype=object),
        topics=topics,
        topic_rows=topic_rows,
        extent=map_extent(papers["x"].to_numpy(dtype=float), papers["y"].to_numpy(dtype=float)),
        column_filters=tuple(column_filters(papers, build.metadata_columns)),
        identifiers=identifiers,
        links={column: urls for column, urls in links.items() if any(url is not None for url in urls)},
        text_columns=text_columns,
        levels=levels(build.hierarchy, topics, topic_rows),
        ids=papers["paper_id"].to_numpy(dtype=object),
        titles=titles,
        table_values={c: _table_values(papers[c], c in text_columns) for c in ["topic_label", *build.metadata_columns]},
        draw_order=draw_order(len(papers)),
        row_of={paper_id: row for row, paper_id in enumerate(papers["paper_id"].tolist())},
    )


def _table_values(values: pd.Series, as_text: bool) -> object:
    """A column as the paper table takes it, row by row: texts of `as_text` columns; repeating texts as categories
    (sent to the browser once per distinct value: at 100,000 papers the table is half the size); else as read."""
    if as_text:
        return np.array([value_text(value) for value in values.array], dtype=object)
    if pd.api.types.is_string_dtype(values) and values.nunique() * 2 <= len(values):
        return pd.Categorical(values)
    return values.array


def _rounded_in_table(values: pd.Series) -> bool:
    """A decimal column some of whose values need more decimals than the table shows."""
    if not pd.api.types.is_float_dtype(values):
        return False
    texts = (number_text(value) for value in values.dropna())
    return any(len(text.partition(".")[2]) > TABLE_DECIMALS for text in texts)
