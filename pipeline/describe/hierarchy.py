"""A tree over the topics: broad themes above fine topics, as unbalanced as the field is.

The tree merges topics from the bottom (`theme_tree`), by what two trees over the topics agree on: Ward's over their
meanings (centres) and Ward's over their words (c-TF-IDF rows, the tree BERTopic's `hierarchical_topics` draws).
Two topics are as far apart as how late the two trees join them, on average, and where the trees disagree
evenly their words decide. No side is forced to any size: on a corpus of 83% computer science and 13% physics the
first split can put physics on its own, where the earlier divisive tree, which kept 30% of the papers on each
side, could not. Measured on the shared corpora (benchmarks/quality_scorecard.py, docs/benchmarks.md) against
BERTopic's `hierarchical_topics` over the same topics: dendrogram purity at least its own against the coarse and
the fine labels, AMI with the coarse labels and the map-region share at least its own, on every corpus; the
meanings' and words' distances blended into one Ward tree (a fifth words) stayed 0.004-0.016 below it on coarse
purity everywhere. Every step is deterministic. The tree is cut into levels of fewer and fewer groups (about
halving each time, `LEVEL_SHRINK`); cutting a tree leaves nested levels: every group of a finer level lies inside
one group of the coarser one.

Each level's groups are described like topics (`pipeline.describe.topics`): their term counts are the
sums of their topics' counts and their centres the size-weighted mean of their topics' centres,
so a group's keywords obey the same rules as a topic's. A group is named for what it holds
(`_named_themes`): the names of its largest parts one level finer (its topics at the finest level),
"Quantum computing and condensed matter physics", never one part's name when it holds several; its own
label (described as a topic) only where that name is taken in its level. The outlier topic (-1) is in no group.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import sparse

from topic_explorer.pipeline.buildfolder.model import TopicModel
from topic_explorer.pipeline.buildfolder.read import empty_hierarchy
from topic_explorer.pipeline.cache.store import ResultCache, read_frame, write_frame
from topic_explorer.pipeline.describe.boundwords import bound_words
from topic_explorer.pipeline.describe.naming_terms import generic_terms
from topic_explorer.pipeline.describe.terms import TermCounts
from topic_explorer.pipeline.describe.theme_names import theme_field, theme_name
from topic_explorer.pipeline.describe.topics import describe_topics

# The words' cosine distance, times this, is added to the two trees' agreement (`theme_tree`): where the meanings'
# and the words' trees disagree evenly, the words decide. Measured on the scorecard's four corpora (a scratch harness
# over the same topics): on the topics of a 15-neighbour graph 0.02-0.5 gave the same trees but for a topic or two,
# 0.01 and less left 20 Newsgroups' AMI 0.001 below BERTopic's; on the topics of the 30-neighbour graph
# (`clusters.CLUSTER_NEIGHBORS`) 0.2 and more put 20 Newsgroups' first split across its supercategories (coarse
# purity 0.052-0.061 under BERTopic's), 0.1 did not (0.015 over it); both graphs' trees at 0.1 are in
# docs/benchmarks.md.
TREE_WORDS_WEIGHT = 0.1
LEVEL_SHRINK = 2.0  # each coarser level has about this many times fewer groups
MIN_GROUPS = 2  # a level of one group says nothing
KEYWORDS_PER_GROUP = 10
TEXTS_PER_TOPIC = 100  # a group's spellings and bound words are read from this many papers of each of its topics


def level_sizes(n_topics: int) -> list[int]:
    """How many groups each level has, broadest first: n/2, n/4, ... (at least `MIN_GROUPS`), topics excluded."""
    sizes, k = [], n_topics
    while True:
        k = round(k / LEVEL_SHRINK)
        if k < MIN_GROUPS or (sizes and k >= sizes[-1]):
            break
        sizes.append(k)
    return sorted(set(sizes))


def theme_tree(centres: np.ndarray, words: sparse.spmatrix | None = None) -> np.ndarray:
    """The tree over topics as merges in scipy's format: Ward's linkage over 1 - cosine of their meanings (unit
    `centres`) alone when `words` is None; with their words (c-TF-IDF rows from `topic_words`), average linkage
    over what the meanings' and the words' Ward trees agree on (`_merge_steps`, averaged), plus the words' 1 - cosine
    weighed `TREE_WORDS_WEIGHT`.

    Why two trees: the meanings' tree groups the fine labels best, the words' tree (BERTopic's) the coarse; one Ward
    tree over the blended distances stayed below BERTopic's on coarse purity on every scorecard corpus, the
    trees' agreement reaches it on all four, fine purity and AMI at or above BERTopic's. Merges come in order of
    height, so cutting after n - g merges (`cut`) leaves g groups, nested.
    """
    from scipy.cluster.hierarchy import linkage

    if len(centres) < 2:
        return np.zeros((0, 4))
    meanings = _cosine_distances(np.asarray(centres, dtype=np.float64))
    if words is None:
        return linkage(meanings, method="ward", optimal_ordering=True)
    by_words = _cosine_distances(words)
    steps = (_merge_steps(linkage(meanings, method="ward")) + _merge_steps(linkage(by_words, method="ward"))) / 2
    return linkage(steps + TREE_WORDS_WEIGHT * by_words, method="average", optimal_ordering=True)


def _merge_steps(merges: np.ndarray) -> np.ndarray:
    """Condensed, per pair of leaves: at which merge of the tree they first share a node, over the number of merges
    (the tree's order without its heights, so that two trees' scales do not matter)."""
    from scipy.cluster.hierarchy import cophenet

    steps = merges.copy()
    steps[:, 2] = np.arange(1, len(merges) + 1) / len(merges)
    return cophenet(steps)


def topic_words(counts: TermCounts, topic_ids: np.ndarray) -> sparse.csr_matrix:
    """The c-TF-IDF rows of `topic_ids` over their keyword candidates, weighed as BERTopic weighs them (its
    `ClassTfidfTransformer` with `reduce_frequent_words`, which `fit_topics` gives BERTopic)."""
    from bertopic.vectorizers import ClassTfidfTransformer

    weighted = sparse.csr_matrix(ClassTfidfTransformer(reduce_frequent_words=True).fit_transform(counts.counts))
    return weighted[pd.Index(counts.topic_ids).get_indexer(topic_ids)]


def _cosine_distances(rows) -> np.ndarray:
    """Condensed 1 - cosine between rows (dense or sparse; a row of zeros is at distance 1 from every other)."""
    from scipy.spatial.distance import squareform
    from sklearn.metrics.pairwise import cosine_distances

    return squareform(cosine_distances(rows), checks=False)


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
    topic_labels: dict[int, str] | None = None,
) -> pd.DataFrame:
    """One row per group per level (`buildfolder.HIERARCHY_COLUMNS`); empty when the topics are too few to group.

    `counts`, `texts`, `text_topics` and `embed_terms` are what `describe_topics` takes for the topics;
    `topic_labels` (topic id -> label, described afresh when not given) name the themes (`_named_themes`).
    """
    topic_ids = model.topic_ids
    sizes = dict(zip(counts.topic_ids.tolist(), counts.sizes.tolist(), strict=True))
    levels = level_sizes(len(topic_ids))
    if not levels:
        return empty_hierarchy()
    tree = theme_tree(model.centres, topic_words(counts, topic_ids))
    topic_labels = topic_labels or _topic_labels(counts, model, texts, embed_terms)
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
    table = _named_themes(pd.concat(frames, ignore_index=True), topic_labels, sizes, counts, texts)
    return table.astype({"level": np.int64, "group_id": np.int64, "parent_id": np.int64})


def remembered_hierarchy(
    results: ResultCache,
    counts: TermCounts,
    model: TopicModel,
    *,
    texts: list[str],
    text_topics: np.ndarray,
    embed_terms: Callable[[list[str]], np.ndarray],
    embedder_name: str,
    topic_labels: dict[int, str],
) -> pd.DataFrame:
    """`topic_hierarchy`, or its result from the result cache; keyed by what it takes (`embed_terms` by the name
    of the embedder behind it)."""
    inputs = [
        *[list(counts.terms), counts.topic_ids, counts.sizes, counts.counts, counts.papers],
        *[model.topic_ids, model.centres, model.poor_fit_below],
        *[texts, text_topics, embedder_name, topic_labels],
    ]

    def compute() -> pd.DataFrame:
        return topic_hierarchy(
            counts, model, texts=texts, text_topics=text_topics, embed_terms=embed_terms, topic_labels=topic_labels
        )

    write = lambda tree, folder: write_frame(folder, "tree", tree)  # noqa: E731
    return results.run("hierarchy", inputs, compute, write=write, read=lambda folder: read_frame(folder, "tree"))


def _topic_labels(
    counts: TermCounts, model: TopicModel, texts: list[str], embed_terms: Callable[[list[str]], np.ndarray]
) -> dict[int, str]:
    """Each topic's label as the fit made it (the same counts, centres and texts), for the themes' names."""
    described = describe_topics(counts, model, {}, texts=texts, embed_terms=embed_terms, keywords_per_topic=1)
    return dict(zip(described["topic_id"].tolist(), described["label"].tolist(), strict=True))


def _named_themes(
    table: pd.DataFrame, topic_labels: dict[int, str], sizes: dict[int, int], counts: TermCounts, texts: list[str]
) -> pd.DataFrame:
    """The groups renamed for what they hold (`theme_names.theme_name`), finest level first: a group's parts are its
    groups one level finer (its topics at the finest level), each with its topics, led by the name its topics share
    (`theme_names.theme_field`, of its keywords). A group of one part keeps that part's name; a name its level already
    gave is replaced by the group's own label (described as a topic)."""
    table = table.copy()
    bound, generic = bound_words(texts), generic_terms(counts)
    row_of = {int(t): row for row, t in enumerate(counts.topic_ids.tolist())}
    finest = int(table["level"].max())
    names: dict[tuple[int, int], str] = {}

    def topic(topic_id) -> tuple[str, int]:
        return topic_labels.get(int(topic_id), ""), sizes.get(int(topic_id), 0)

    for level in range(finest, -1, -1):
        rows = table.index[table["level"] == level]
        taken: set[str] = set()
        for row in rows:
            group = int(table.at[row, "group_id"])
            if level == finest:
                parts = [[topic(t)] for t in table.at[row, "topic_ids"]]
                alone = parts[0][0][0] if len(parts) == 1 else None
            else:
                finer = table[(table["level"] == level + 1) & (table["parent_id"] == group)]
                parts = [[topic(t) for t in ids] for ids in finer["topic_ids"]]
                alone = names[(level + 1, int(finer["group_id"].iloc[0]))] if len(parts) == 1 else None
            rows_here = [row_of[int(t)] for t in table.at[row, "topic_ids"] if int(t) in row_of]
            field = theme_field(list(table.at[row, "keywords"]), counts, rows_here, bound, generic)
            name = alone or theme_name(parts, field) or str(table.at[row, "label"])
            if name.lower() in taken:
                name = str(table.at[row, "label"])
            taken.add(name.lower())
            names[(level, group)] = name
            table.at[row, "label"] = name
    return table


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
