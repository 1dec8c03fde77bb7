"""A tree over the topics: broad themes above fine topics, each named by the same rules as a topic.

Topic centres are merged bottom-up by average linkage on cosine distance (scipy), which is
deterministic and needs only the fitted model. The tree is cut into levels of fewer and fewer
groups (about halving each time, `LEVEL_SHRINK`); since average-linkage merges happen in order of
distance, the levels nest: every group of a finer level lies inside one group of the coarser one.

Each level's groups are described like topics (`pipeline.describe.topics`): their term counts are the
sums of their topics' counts and their centres the size-weighted mean of their topics' centres,
so a group's keywords and label obey the same rules as a topic's, and labels are distinct within
a level. The outlier topic (-1) is in no group.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import sparse

from topic_explorer.pipeline.buildfolder.read import empty_hierarchy
from topic_explorer.pipeline.describe.terms import TermCounts
from topic_explorer.pipeline.describe.topics import describe_topics
from topic_explorer.pipeline.topicmodel import TopicModel

LEVEL_SHRINK = 2.0  # each coarser level has about this many times fewer groups
MIN_GROUPS = 2  # a level of one group says nothing
KEYWORDS_PER_GROUP = 10
TEXTS_PER_TOPIC = 100  # a group's spellings and phrases are read from this many papers of each of its topics


def level_sizes(n_topics: int) -> list[int]:
    """How many groups each level has, broadest first: n/2, n/4, ... (at least `MIN_GROUPS`), topics excluded."""
    sizes, k = [], n_topics
    while True:
        k = round(k / LEVEL_SHRINK)
        if k < MIN_GROUPS or (sizes and k >= sizes[-1]):
            break
        sizes.append(k)
    return sorted(set(sizes))


def merge_order(centres: np.ndarray) -> np.ndarray:
    """scipy's linkage matrix of the topic centres: average linkage, cosine distance."""
    from scipy.cluster.hierarchy import linkage

    return linkage(np.asarray(centres, dtype=np.float64), method="average", metric="cosine")


def cut(merges: np.ndarray, n_leaves: int, groups: int) -> np.ndarray:
    """Per leaf, the id of its group once the tree is cut into `groups` groups: the node of the last merge above it.

    Leaves are 0..n-1 and merged nodes n.. as in scipy; applying the first n - `groups` merges in order
    leaves exactly `groups` groups.
    """
    node = np.arange(n_leaves)
    for step in range(n_leaves - groups):
        left, right = int(merges[step, 0]), int(merges[step, 1])
        node[(node == left) | (node == right)] = n_leaves + step
    return node


def topic_hierarchy(
    counts: TermCounts,
    model: TopicModel,
    *,
    texts: list[str],
    text_topics: np.ndarray,
    embed_terms: Callable[[list[str]], np.ndarray],
) -> pd.DataFrame:
    """One row per group per level (`buildfolder.HIERARCHY_COLUMNS`); empty when the topics are too few to group.

    `counts`, `texts`, `text_topics` and `embed_terms` are what `describe_topics` takes for the topics.
    """
    topic_ids = model.topic_ids
    sizes = dict(zip(counts.topic_ids.tolist(), counts.sizes.tolist(), strict=True))
    levels = level_sizes(len(topic_ids))
    if not levels:
        return empty_hierarchy()
    merges = merge_order(model.centres)
    texts, text_topics = _texts_per_topic(texts, np.asarray(text_topics))
    frames, previous = [], None
    for level, groups in enumerate(levels):
        node = cut(merges, len(topic_ids), groups)
        described = _describe_groups(node, counts, model, sizes, texts, text_topics, embed_terms)
        members = {g: topic_ids[node == g].tolist() for g in described["topic_id"]}
        parents = {int(t): -1 for t in topic_ids} if previous is None else previous
        frames.append(
            pd.DataFrame(
                {
                    "level": np.int64(level),
                    "group_id": described["topic_id"].to_numpy(dtype=np.int64),
                    "parent_id": [parents[members[g][0]] for g in described["topic_id"]],
                    "topic_ids": [members[g] for g in described["topic_id"]],
                    "label": described["label"].to_numpy(),
                    "keywords": described["keywords"].to_numpy(),
                }
            )
        )
        previous = {int(t): int(g) for t, g in zip(topic_ids, node, strict=True)}
    table = pd.concat(frames, ignore_index=True)
    return table.astype({"level": np.int64, "group_id": np.int64, "parent_id": np.int64})


def _texts_per_topic(texts: list[str], text_topics: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The first `TEXTS_PER_TOPIC` texts of each topic, in corpus order: every level reads the same few texts.

    Describing a level reads its texts for spellings, acronyms and phrases; on a 50,000-paper fit sample
    that took about a minute per level, and a hundred papers per topic name a group as well.
    """
    rank = pd.Series(text_topics).groupby(text_topics).cumcount().to_numpy()
    keep = np.flatnonzero(rank < TEXTS_PER_TOPIC)
    return [texts[i] for i in keep], text_topics[keep]


def _describe_groups(
    node: np.ndarray,
    counts: TermCounts,
    model: TopicModel,
    sizes: dict[int, int],
    texts: list[str],
    text_topics: np.ndarray,
    embed_terms: Callable[[list[str]], np.ndarray],
) -> pd.DataFrame:
    """Keywords and labels of one level's groups, described as if each group were a topic (group ids as topic ids)."""
    group_ids = np.unique(node)
    group_of_topic = dict(zip(model.topic_ids.tolist(), node.tolist(), strict=True))
    rows = np.searchsorted(counts.topic_ids, model.topic_ids)
    membership = sparse.csr_matrix(
        (np.ones(len(node)), (np.searchsorted(group_ids, node), rows)), shape=(len(group_ids), len(counts.topic_ids))
    )
    summed = TermCounts(
        group_ids.astype(np.int64),
        counts.terms,
        (membership @ counts.counts).astype(np.int64).tocsr(),
        (membership @ counts.papers).astype(np.int64).tocsr(),
        np.asarray(membership @ counts.sizes).astype(np.int64),
    )
    weights = np.array([sizes.get(int(t), 0) for t in model.topic_ids], dtype=np.float64)
    centres = []
    for group in group_ids:
        inside = node == group
        centre = (model.centres[inside] * np.maximum(weights[inside], 1)[:, None]).sum(axis=0)
        centres.append(centre / (np.linalg.norm(centre) or 1.0))
    groups = TopicModel(group_ids.astype(np.int64), np.asarray(centres, dtype=np.float32), np.zeros(len(group_ids)))
    return describe_topics(
        summed,
        groups,
        {},
        texts=texts,
        text_topics=np.array([group_of_topic.get(int(t), -1) for t in text_topics], dtype=np.int64),
        embed_terms=embed_terms,
        keywords_per_topic=KEYWORDS_PER_GROUP,
    )
