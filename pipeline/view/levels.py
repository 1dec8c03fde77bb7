"""Levels of detail: the build's topic tree seen as broad themes or fine topics (pure, no Streamlit).

A level is a set of groups that partitions the shown topics. The finest level is the topics
themselves; coarser ones come from the build's `hierarchy.parquet`. Each level looks like the
topic table the map, legend and filter already draw (`topic_id`, `label`, `size`, `colour`,
`keywords`, `top_keywords`), so choosing a level swaps one table for another. A group
holding a single topic takes that topic's current label (which the reader may have renamed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from topic_explorer.pipeline.view.palette import OUTLIER_COLOUR, topic_colours

KEYWORDS_SHOWN = 10


@dataclass(frozen=True)
class Level:
    """One level of detail: its groups as a topic-like table, and which rows and topics each group holds."""

    name: str  # for the level-of-detail control: "12 themes", "48 topics"
    topics: pd.DataFrame  # one row per group; `topic_id` is the group's key
    topic_rows: dict[int, np.ndarray]  # group key -> row positions in the papers
    members: dict[int, tuple[int, ...]]  # group key -> the topic ids it holds

    def topics_of(self, groups: list[int] | tuple[int, ...]) -> tuple[int, ...]:
        """The topic ids inside `groups` (sorted), for the topic filter."""
        return tuple(sorted({t for g in groups for t in self.members.get(int(g), ())}))

    def groups_of(self, topic_ids: list[int] | tuple[int, ...]) -> list[int]:
        """The groups holding any of `topic_ids`, in this level's order."""
        wanted = {int(t) for t in topic_ids}
        return [g for g in self.topics["topic_id"].tolist() if wanted & set(self.members[g])]


def laid_out_topics(topics: pd.DataFrame, papers: pd.DataFrame) -> pd.DataFrame:
    """The build's topics sorted by id with their `colour` and `top_keywords` (the best ten, joined with "; ").

    A topic with papers but no row in topics.parquet still gets a row, a colour and a filter entry.
    """
    missing = papers.loc[~papers["topic_id"].isin(topics["topic_id"])].groupby("topic_id")["topic_label"]
    extra = pd.DataFrame({"label": missing.first(), "size": missing.size()}).reset_index()
    if len(extra):
        extra = extra.assign(keywords=[[]] * len(extra), keyword_weights=[[]] * len(extra), named=False)
        topics = pd.concat([topics, extra.assign(coherence=np.nan)], ignore_index=True)
    topics = topics.sort_values("topic_id").reset_index(drop=True).copy()
    centres = papers.groupby("topic_id")[["x", "y"]].median() if {"x", "y"} <= set(papers.columns) else None
    if centres is not None:  # where each topic sits on the map: its colours are dealt so neighbours differ
        topics["centre_x"] = topics["topic_id"].map(centres["x"]).astype(float)
        topics["centre_y"] = topics["topic_id"].map(centres["y"]).astype(float)
    topics["colour"] = topics["topic_id"].map(topic_colours(topics["topic_id"].tolist(), _centres(topics)))
    topics["top_keywords"] = topics["keywords"].map(lambda words: "; ".join(words[:KEYWORDS_SHOWN]))
    return topics


def _centres(table: pd.DataFrame) -> dict[int, tuple[float, float]] | None:
    """Each topic's (or group's) place on the map, where known."""
    if "centre_x" not in table.columns:
        return None
    return {int(t): (float(x), float(y)) for t, x, y in zip(table["topic_id"], table["centre_x"], table["centre_y"],
            strict=True)}  # fmt: skip


def rows_by_topic(papers: pd.DataFrame) -> dict[int, np.ndarray]:
    """topic_id -> the row positions of its papers."""
    return {int(t): np.asarray(rows) for t, rows in papers.groupby("topic_id").indices.items()}


def build_levels(papers: pd.DataFrame, topics: pd.DataFrame, hierarchy: pd.DataFrame) -> tuple[Level, ...]:
    """Every level of a build as read (`read_build`), broadest first: what the dashboard shows, for the CLI."""
    papers = papers.reset_index(drop=True)
    return levels(hierarchy, laid_out_topics(topics, papers), rows_by_topic(papers))


def broader_labels(all_levels: tuple[Level, ...], level: int) -> dict[int, str] | None:
    """Each topic's broader theme: at `level`, or the one just above the topics when `level` is the finest
    (None: the build has no tree). Downloads carry it as `broader_topic`."""
    finest = len(all_levels) - 1
    if finest == 0:
        return None
    groups = all_levels[level if level < finest else finest - 1]
    labels = dict(zip(groups.topics["topic_id"], groups.topics["label"], strict=True))
    return {topic: labels[group] for group, held in groups.members.items() for topic in held}


def levels(hierarchy: pd.DataFrame, topics: pd.DataFrame, topic_rows: dict[int, np.ndarray]) -> tuple[Level, ...]:
    """Every level, broadest first, ending with the topics themselves (`topics` as the dashboard lays them out)."""
    fine = Level(f"{int((topics['topic_id'] >= 0).sum())} topics", topics, topic_rows,
                 {int(t): (int(t),) for t in topics["topic_id"]})  # fmt: skip
    present = set(topics["topic_id"].tolist())
    coarse = []
    for _, groups in hierarchy.groupby("level", sort=True):
        members = {}
        for group, ids in zip(groups["group_id"], groups["topic_ids"], strict=True):
            held = tuple(int(t) for t in ids if int(t) in present)
            if held:
                members[int(group)] = held
        loose = present - {t for held in members.values() for t in held}  # outliers, or topics the tree lacks
        key = max([*members, *present], default=0) + 1
        for topic in sorted(loose):  # each on its own, under a key no group or topic uses
            members[key] = (topic,)
            key += 1
        labels = dict(zip(groups["group_id"].astype(int), groups["label"], strict=True))
        keywords = dict(zip(groups["group_id"].astype(int), groups["keywords"], strict=True))
        table = _group_table(members, labels, keywords, topics)
        if len(table) < len(topics):
            n_themes = int((table["size"] > 0).sum())
            coarse.append(Level(f"{n_themes} themes", table, _rows(members, topic_rows), members))
    return (*coarse, fine)


def _group_table(
    members: dict[int, tuple[int, ...]],
    labels: dict[int, str],
    keywords: dict[int, list[str]],
    topics: pd.DataFrame,
) -> pd.DataFrame:
    by_topic = topics.set_index("topic_id")
    rows = []
    for group, held in members.items():
        single = len(held) == 1
        words = list(by_topic.loc[held[0], "keywords"]) if single else list(keywords.get(group, []))
        rows.append(
            {
                "topic_id": group,
                "label": by_topic.loc[held[0], "label"] if single or group not in labels else labels[group],
                "keywords": words,
                "keyword_weights": list(by_topic.loc[held[0], "keyword_weights"]) if single else [1.0] * len(words),
                "size": int(by_topic.loc[list(held), "size"].sum()),
                "named": bool(single and by_topic.loc[held[0], "named"]),
                "coherence": float(by_topic.loc[held[0], "coherence"]) if single else np.nan,
            }
        )
    table = pd.DataFrame(rows).sort_values("topic_id", kind="stable").reset_index(drop=True)
    if "centre_x" in topics.columns:  # a group sits where its topics do, weighted by their papers
        for axis in ("centre_x", "centre_y"):
            place = by_topic[axis] * by_topic["size"]
            table[axis] = [
                place.loc[list(members[g])].sum() / max(by_topic.loc[list(members[g]), "size"].sum(), 1)
                for g in table["topic_id"]
            ]
    outliers = {g for g, held in members.items() if held == (-1,)}
    colours = topic_colours([g for g in table["topic_id"] if g not in outliers], _centres(table))
    colours |= dict.fromkeys(outliers, OUTLIER_COLOUR)
    table["colour"] = table["topic_id"].map(colours)
    table["top_keywords"] = table["keywords"].map(lambda words: "; ".join(words[:KEYWORDS_SHOWN]))
    return table


def _rows(members: dict[int, tuple[int, ...]], topic_rows: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    empty = np.zeros(0, dtype=np.int64)
    return {g: np.sort(np.concatenate([topic_rows.get(t, empty) for t in held])) for g, held in members.items()}


def tree_rows(all_levels: tuple[Level, ...], shown_counts: pd.Series) -> pd.DataFrame:
    """The topic list as a tree: each broad theme, then its finer groups beneath it, indented, down to the topics.

    `shown_counts` holds the shown papers per topic id. Columns: `topic` (indented label), `papers`, `shown`, `depth`.
    """
    rows: list[dict] = []
    counts = {int(t): int(n) for t, n in shown_counts.items()}
    labels = [dict(zip(level.topics["topic_id"].tolist(), level.topics["label"], strict=True)) for level in all_levels]
    sizes = [dict(zip(level.topics["topic_id"].tolist(), level.topics["size"].tolist(), strict=True))
             for level in all_levels]  # fmt: skip

    def visit(depth: int, topic_ids: tuple[int, ...], indent: int) -> None:
        """The groups of level `depth` inside `topic_ids`, drawn `indent` steps in (a group that is its parent
        again one level down is not repeated, so its children sit one step below the parent as drawn)."""
        level = all_levels[depth]
        for group in level.groups_of(topic_ids):
            held = level.members[group]
            if set(held) - set(topic_ids):
                continue
            repeat = depth > 0 and held == topic_ids  # the same group again one level down
            if not repeat:
                rows.append({"topic": "    " * indent + ("└ " if indent else "") + str(labels[depth][group]),
                             "papers": int(sizes[depth][group]), "shown": sum(counts.get(t, 0) for t in held),
                             "depth": indent})  # fmt: skip
            if depth + 1 < len(all_levels):
                visit(depth + 1, held, indent if repeat else indent + 1)

    visit(0, tuple(all_levels[-1].topics["topic_id"].tolist()), 0)
    return pd.DataFrame(rows, columns=["topic", "papers", "shown", "depth"])
