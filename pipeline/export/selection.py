"""The papers one export writes: the table every format shares, and what the map page needs beside it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.exchange import BROADER_COLUMN, EXPORT_COLUMNS, export_name
from topic_explorer.pipeline.buildfolder.schema import Build
from topic_explorer.pipeline.map.sample import draw_order
from topic_explorer.pipeline.view.levels import Level, broader_labels, build_levels


@dataclass(frozen=True)
class Selection:
    """The papers one export writes, in order, with what the map page needs beside their table."""

    frame: pd.DataFrame  # `export_frame`: the table every table format writes
    papers: pd.DataFrame  # the same papers as the build has them (x, y, metadata under their own names)
    levels: tuple[Level, ...]  # the build's levels of detail, broadest first; the last is its topics
    draw_order: np.ndarray  # per selected paper: its rank in the build's fixed map sample (`map.sample`)
    build_name: str  # the folder's name, for file names
    title: str  # the corpus's name, for a reader
    metadata_columns: tuple[str, ...]


def export_frame(
    papers: pd.DataFrame, topics: pd.DataFrame, metadata_columns: list[str], broader: dict[int, str] | None = None
) -> pd.DataFrame:
    """The export's rows and columns: paper_id, title, topic_id, topic_label, keywords, confidence, abstract,
    then `broader_topic` when `broader` maps topic ids to their broader theme's label, then the metadata.

    `topics` needs `topic_id` and `top_keywords` (the topic's best keywords joined with "; ").
    """
    keywords = papers["topic_id"].map(dict(zip(topics["topic_id"], topics["top_keywords"], strict=True)))
    own = {column: papers[column].array for column in EXPORT_COLUMNS if column != "keywords"}
    frame = pd.DataFrame({column: own.get(column, keywords.fillna("").array) for column in EXPORT_COLUMNS})
    if broader is not None:
        frame[BROADER_COLUMN] = papers["topic_id"].map(broader).fillna("").array
    for column in metadata_columns:
        frame[export_name(column)] = papers[column].array
    return frame.reset_index(drop=True)


def select(
    build: Build,
    rows: np.ndarray,
    *,
    level: int | None = None,
    levels: tuple[Level, ...] | None = None,
    order: np.ndarray | None = None,
) -> Selection:
    """The papers at `rows` of `build` (in that order), `broader_topic` taken at `level` (default: the finest).

    The dashboard passes the `levels` and map `order` it already holds; the command line lets them be made here.
    """
    papers = build.papers.reset_index(drop=True)
    levels = build_levels(papers, build.topics, build.hierarchy) if levels is None else levels
    order = draw_order(len(papers)) if order is None else order
    chosen = papers.iloc[rows].reset_index(drop=True)
    finest = len(levels) - 1
    broader = broader_labels(levels, finest if level is None else level)
    return Selection(
        frame=export_frame(chosen, levels[-1].topics, build.metadata_columns, broader),
        papers=chosen,
        levels=levels,
        draw_order=np.asarray(order)[rows],
        build_name=build.name,
        title=build.title,
        metadata_columns=tuple(build.metadata_columns),
    )
