"""A tree over the topics: broad themes above fine topics, each named by the same rules as a topic.

The tree divides the topics from the top (`theme_tree`): the group with the most papers is split in two,
again and again, into the two tightest sides of its topics' centres (2-means on the centres, weighted by
papers, started from splits along their principal directions), each side holding at least `MIN_SIDE` of
the group's papers. A reader's themes come out balanced and distinct: at 2 groups neither holds more than 70%,
from 3 groups on none more than half, where merging topics bottom-up (average linkage over topic centres)
chained a catch-all theme of 19,156 of 19,308 papers. Every step is deterministic. The tree is cut into
levels of fewer and fewer groups (about halving each time, `LEVEL_SHRINK`); each level is the state after
some splits, so the levels nest: every group of a finer level lies inside one group of the coarser one.

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
TEXTS_PER_TOPIC = 100  # a group's spellings and bound words are read from this many papers of each of its topics
MIN_SIDE = 0.3  # each side of a split holds at least this share of the group's papers (when its topics allow)
SPLIT_DIRECTIONS = 3  # 2-means is started from a split along each of this many principal directions


def level_sizes(n_topics: int) -> list[int]:
    """How many groups each level has, broadest first: n/2, n/4, ... (at least `MIN_GROUPS`), topics excluded."""
    sizes, k = [], n_topics
    while True:
        k = round(k / LEVEL_SHRINK)
        if k < MIN_GROUPS or (sizes and k >= sizes[-1]):
            break
        sizes.append(k)
    return sorted(set(sizes))


def theme_tree(centres: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The divisive tree over topics (unit `centres`, papers per topic `sizes`) as merges in scipy's format.

    The splits, undone from the last, are the merges: cutting after n - g merges (`cut`) leaves the g groups
    the first g - 1 splits made.
    """
    n = len(centres)
    groups = [np.arange(n)] if n > 1 else []  # groups still to split, by position in `made`
    splits = []  # per split, in order: the group split and its two sides (each a topic or another group)
    while groups:
        group = max(groups, key=lambda g: (sizes[g].sum(), -int(g.min())))
        groups = [g for g in groups if g is not group]
        left, right = _split(centres[group], sizes[group])
        sides = [group[left], group[right]]
        splits.append(sides)
        groups += [side for side in sides if len(side) > 1]
    # The k-th split undone is merge n - 2 - k, which makes node 2n - 2 - k; a side is a topic or the node of
    # the split that later divides it.
    node_of = {tuple(np.sort(np.concatenate(sides)).tolist()): 2 * n - 2 - k for k, sides in enumerate(splits)}
    merges = np.zeros((max(n - 1, 0), 4))
    for k, sides in enumerate(splits):
        a, b = (int(side[0]) if len(side) == 1 else node_of[tuple(np.sort(side).tolist())] for side in sides)
        merges[n - 2 - k] = (min(a, b), max(a, b), n - 1 - k, len(sides[0]) + len(sides[1]))
    return merges


def _split(centres: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two sides of a group of topics: weighted 2-means, started from the best cut along each of the group's
    first `SPLIT_DIRECTIONS` principal directions (`_balanced_cut`), keeping the tightest result whose sides
    each hold at least `MIN_SIDE` of the papers (the best cut along the first direction when none does)."""
    from sklearn.cluster import KMeans

    weights = np.asarray(sizes, dtype=np.float64)
    mean = np.average(centres, axis=0, weights=weights)
    _, _, directions = np.linalg.svd((centres - mean) * np.sqrt(weights)[:, None], full_matrices=False)
    best, best_spread = None, np.inf
    for direction in directions[:SPLIT_DIRECTIONS]:
        first = _balanced_cut((centres - mean) @ direction, weights)
        start = np.stack([np.average(centres[side], axis=0, weights=weights[side]) for side in (first, ~first)])
        fitted = KMeans(n_clusters=2, init=start, n_init=1).fit(centres, sample_weight=weights)
        side = fitted.labels_ == 0
        smaller = min(weights[side].sum(), weights[~side].sum())
        if smaller >= MIN_SIDE * weights.sum() and fitted.inertia_ < best_spread - 1e-12:
            best, best_spread = side, fitted.inertia_
    if best is None:
        best = _balanced_cut((centres - mean) @ directions[0], weights)
    return np.flatnonzero(best), np.flatnonzero(~best)


def _balanced_cut(along: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The cut along the principal direction that separates the topics best (between-group sum of squares)
    among those leaving at least `MIN_SIDE` of the papers on each side; the most balanced cut when none does."""
    order = np.argsort(along, kind="stable")
    share = np.cumsum(weights[order])[:-1] / weights.sum()
    best, best_score = None, -np.inf
    for i in range(len(order) - 1):
        low, high = order[: i + 1], order[i + 1 :]
        gap = np.average(along[high], weights=weights[high]) - np.average(along[low], weights=weights[low])
        score = share[i] * (1 - share[i]) * gap**2 if MIN_SIDE <= share[i] <= 1 - MIN_SIDE else -np.inf
        if score > best_score:
            best, best_score = i, score
    if best is None:
        best = int(np.argmin(np.abs(share - 0.5)))
    side = np.zeros(len(along), dtype=bool)
    side[order[: best + 1]] = True
    return side


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
    tree = theme_tree(model.centres.astype(np.float64), np.array([max(sizes.get(int(t), 0), 1) for t in topic_ids]))
    texts = _texts_per_topic(texts, np.asarray(text_topics))
    frames, previous = [], None
    for level, groups in enumerate(levels):
        node = cut(tree, len(topic_ids), groups)
        described = _describe_groups(topic_ids, node, counts, model, sizes, texts, embed_terms)
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


def _texts_per_topic(texts: list[str], text_topics: np.ndarray) -> list[str]:
    """The first `TEXTS_PER_TOPIC` texts of each topic, in corpus order: every level reads the same few texts.

    Describing a level reads its texts for spellings, acronyms and bound words; on a 50,000-paper fit sample
    that took about a minute per level, and a hundred papers per topic name a group as well.
    """
    rank = pd.Series(text_topics).groupby(text_topics).cumcount().to_numpy()
    keep = np.flatnonzero(rank < TEXTS_PER_TOPIC)
    return [texts[i] for i in keep]


def _describe_groups(
    topic_ids: np.ndarray,
    node: np.ndarray,
    counts: TermCounts,
    model: TopicModel,
    sizes: dict[int, int],
    texts: list[str],
    embed_terms: Callable[[list[str]], np.ndarray],
) -> pd.DataFrame:
    """Keywords and labels of one level's groups (`node` per topic of `topic_ids`), described as if each group
    were a topic (group ids as topic ids)."""
    group_ids = np.unique(node)
    rows = np.searchsorted(counts.topic_ids, topic_ids)
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
    centre_of = dict(zip(model.topic_ids.tolist(), model.centres, strict=True))
    weights = np.array([max(sizes.get(int(t), 0), 1) for t in topic_ids], dtype=np.float64)
    centres = []
    for group in group_ids:
        inside = node == group
        centre = (np.stack([centre_of[int(t)] for t in topic_ids[inside]]) * weights[inside][:, None]).sum(axis=0)
        centres.append(centre / (np.linalg.norm(centre) or 1.0))
    groups = TopicModel(group_ids.astype(np.int64), np.asarray(centres, dtype=np.float32), np.zeros(len(group_ids)))
    return describe_topics(
        summed,
        groups,
        {},
        texts=texts,
        embed_terms=embed_terms,
        keywords_per_topic=KEYWORDS_PER_GROUP,
    )
