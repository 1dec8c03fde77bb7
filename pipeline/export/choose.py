"""Which papers `topic-explorer export` writes: a topic's (at a level of detail), a query's best, or all."""

from __future__ import annotations

import numpy as np

from topic_explorer.pipeline.buildfolder.schema import Build
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.view.levels import Level, build_levels

LABELS_LISTED = 8  # an unknown topic's message lists this many of the level's labels


def export_rows(
    build: Build, *, topic: str | None = None, query: str | None = None, top: int = 10, level: int | None = None
) -> tuple[np.ndarray, tuple[Level, ...], int]:
    """Row positions to export (a query's in rank order, else the build's order), the levels, the level used.

    A query is ranked by `pipeline.search.ranked.search`, as `topic-explorer search` ranks it.
    """
    levels = build_levels(build.papers, build.topics, build.hierarchy)
    finest = len(levels) - 1
    if level is None:
        level = finest
    if not 0 <= level <= finest:
        names = ", ".join(f"{n}: {lv.name}" for n, lv in enumerate(levels))
        raise UserError(f"--level {level}: this build's levels are {names}")
    if query is not None:
        from topic_explorer.pipeline.search.ranked import query_embedder, search

        rows = search(build, query_embedder(build.path, build.manifest), query, top).rows
    elif topic is not None:
        rows = levels[level].topic_rows[_group(levels[level], topic, level)]
    else:
        rows = np.arange(len(build.papers))
    if not len(rows):
        raise UserError("no papers to export; choose another topic or query")
    return rows, levels, level


def _group(level: Level, topic: str, number: int) -> int:
    """The group (a topic at the finest level) that `topic` names: its id, else its label, in any case."""
    table = level.topics
    ids = [int(t) for t in table["topic_id"]]
    wanted = topic.strip()
    if wanted.lstrip("-").isdigit() and int(wanted) in ids:
        return int(wanted)
    named = [int(t) for t, label in zip(ids, table["label"], strict=True) if str(label).casefold() == wanted.casefold()]
    if len(named) == 1:
        return named[0]
    if named:
        raise UserError(f"--topic {topic!r}: {len(named)} topics have this label; give one's id: {named}")
    listed = [f"{t}: {label}" for t, label in zip(ids, table["label"], strict=True)]
    shown = "; ".join(listed[:LABELS_LISTED]) + ("; ..." if len(listed) > LABELS_LISTED else "") if listed else "none"
    raise UserError(f"--topic {topic!r}: no such topic at level {number} ({level.name}); its topics are {shown}")
