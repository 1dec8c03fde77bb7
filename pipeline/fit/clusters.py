"""Find groups of papers: UMAP's neighbour graph, its spectral layout, and Ward's tree over that layout.

Stock BERTopic runs UMAP's stochastic layout and HDBSCAN on it. Over seeds 0-4 of the same 5,000
abstracts that left topics that changed with the seed (ARI 0.77 between seeds on ml_venues, 0.76 on arXiv)
and a quarter of a 19k corpus in no topic. Every step here is deterministic, so the same vectors give the
same topics whatever the seed (which still draws the map):
- UMAP's fuzzy neighbour graph over exact cosine neighbours (`reduce.neighbour_graph`), blended with the same
  graph over the papers' words and phrases (`LEXICAL_WEIGHT`), and, for each connected piece of it, its
  spectral layout (Laplacian eigenvectors: what UMAP starts its layout from) in a few dimensions;
- Ward's agglomerative tree over that layout (`fastcluster`, memory linear in the papers);
- the tree cut into a corpus-sized number of topics (`choose_parameters`); a topic of more than
  `MAX_TOPIC_SHARE` of a corpus of `SPLIT_FROM` papers or more is split along the tree, unless the split
  would only peel off a group too small to be a topic (then its papers are one dense group);
- groups smaller than the smallest topic are left out; each of their papers joins its nearest topic.
Measured against labels (docs/benchmarks.md): NMI at least that of UMAP + HDBSCAN on ml_venues and arXiv.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from topic_explorer.pipeline.fit.reduce import spectral_layout
from topic_explorer.pipeline.settings import BuildSettings

SMALL_CORPUS = 200  # below this, a sparser graph and fewer dimensions: dozens of papers, topics of 3-5
TOPICS_SCALE = 4.6  # topics at the finest level: TOPICS_SCALE x papers ** TOPICS_POWER, i.e. 11 for the
TOPICS_POWER = 0.24  # 38-paper sample, 24 for 1,000 papers, 36 for 5,000, 49 for 19,000, 73 for 100,000
# How much the papers' shared words and phrases weigh beside their embeddings' neighbours (0: meaning only).
# Measured (docs/benchmarks.md): on 5,000 ml_venues and arXiv papers it moved NMI by -0.008 to +0.008; on the
# sample it keeps the theory papers (regret bounds, conjectures, approximation rates) in one topic, which
# MiniLM files by their subjects.
LEXICAL_WEIGHT = 0.2
MAX_TOPIC_SHARE = 0.10  # no finest topic holds more of a corpus of SPLIT_FROM papers or more ...
SPLIT_FROM = 1000  # ... unless its papers are one dense group (see module docstring)


@dataclass(frozen=True)
class TopicParameters:
    """The resolved clustering parameters, recorded in the manifest."""

    graph_neighbors: int  # UMAP's n_neighbors for the graph (and for the map's layout)
    components: int  # dimensions of the spectral layout the tree is built on
    n_topics: int  # topics the tree is cut into before the size rules
    min_topic_size: int
    lexical_weight: float = LEXICAL_WEIGHT  # the words-and-phrases graph's share of the blended graph

    def as_dict(self) -> dict:
        """JSON-ready, for the manifest."""
        return asdict(self)


def choose_parameters(n_papers: int, settings: BuildSettings) -> TopicParameters:
    """Parameters that give a dozen topics for dozens of papers and a hundred for a hundred thousand."""
    if n_papers < SMALL_CORPUS:
        neighbors = int(np.clip(round(n_papers / 7), 4, 15))
        return TopicParameters(neighbors, 5, topic_count(n_papers), settings.min_topic_size or 2)
    size = settings.min_topic_size or max(5, round(np.sqrt(n_papers) / 4))
    return TopicParameters(15, 10, topic_count(n_papers), size)


def topic_count(n_papers: int) -> int:
    """How many topics the tree is cut into for `n_papers` papers (`TOPICS_SCALE`, `TOPICS_POWER`)."""
    return max(1, min(n_papers // 2, round(TOPICS_SCALE * n_papers**TOPICS_POWER)))


def find_clusters(graph, params: TopicParameters) -> np.ndarray:
    """Every paper's topic (-1: in a group too small to be one), numbered by first paper, from UMAP's neighbour
    graph (`reduce.neighbour_graph`).

    Each connected piece of the graph with at least `min_topic_size` papers is laid out spectrally on its own
    and cut from its own Ward tree, into topics in proportion to its papers; smaller pieces are left out.
    """
    from scipy.sparse.csgraph import connected_components

    n = graph.shape[0]
    _, piece = connected_components(graph, directed=False)
    sizes = np.bincount(piece)
    kept = [p for p in np.unique(piece) if sizes[p] >= params.min_topic_size]
    total = sizes[kept].sum() if kept else 0
    labels = np.full(n, -1, dtype=np.int64)
    offset = 0
    for p in kept:
        rows = np.flatnonzero(piece == p)
        share = max(1, round(params.n_topics * len(rows) / total))
        found = _ward_topics(graph[rows][:, rows], replace(params, n_topics=share), corpus=n)
        labels[rows] = np.where(found >= 0, found + offset, -1)
        offset = labels.max() + 1
    return _by_first_paper(labels)


def _ward_topics(graph, params: TopicParameters, *, corpus: int) -> np.ndarray:
    """Topics of one connected piece: Ward's tree over its spectral layout, cut (`_cut`)."""
    import fastcluster

    n = graph.shape[0]
    if n < 2 or params.n_topics < 2:
        return np.zeros(n, dtype=np.int64)
    space = np.ascontiguousarray(spectral_layout(graph, params.components))
    return _cut(fastcluster.linkage_vector(space, method="ward"), n, params, corpus=corpus)


def _by_first_paper(labels: np.ndarray) -> np.ndarray:
    renumbered = np.full(len(labels), -1, dtype=np.int64)
    for number, topic in enumerate(dict.fromkeys(labels[labels >= 0].tolist())):
        renumbered[labels == topic] = number
    return renumbered


def _cut(merges: np.ndarray, n: int, params: TopicParameters, *, corpus: int) -> np.ndarray:
    """Labels of `n` papers from their tree cut into `params.n_topics` groups, then the size rules (a topic's
    share is of the `corpus`); numbered by first paper."""
    groups = _undo_merges(merges, n, min(params.n_topics, n))
    dense: set[int] = set()
    while corpus >= SPLIT_FROM:
        splittable = [g for g in groups if g >= n and g not in dense]  # a leaf (one paper) cannot split
        largest = max(splittable, key=lambda g: len(groups[g]), default=None)
        if largest is None or len(groups[largest]) <= MAX_TOPIC_SHARE * corpus:
            break
        left, right = (int(c) for c in merges[largest - n, :2])
        if min(_size(left, merges, n), _size(right, merges, n)) < params.min_topic_size:
            dense.add(largest)  # the split only peels off a few papers: its papers are one dense group
            continue
        del groups[largest]
        groups[left], groups[right] = _members(left, merges, n), _members(right, merges, n)
    labels = np.full(n, -1, dtype=np.int64)
    kept = sorted((members for members in groups.values() if len(members) >= params.min_topic_size), key=min)
    for number, members in enumerate(kept):
        labels[members] = number
    return labels


def _undo_merges(merges: np.ndarray, n: int, k: int) -> dict[int, np.ndarray]:
    """The `k` groups left when the last k - 1 merges are undone: node id -> its papers."""
    roots = {2 * n - 2}
    for step in range(n - 2, n - k - 1, -1):  # undo merges from the last one down
        node = n + step
        roots.discard(node)
        roots.update(int(c) for c in merges[step, :2])
    return {node: _members(node, merges, n) for node in roots}


def _members(node: int, merges: np.ndarray, n: int) -> np.ndarray:
    """The papers (leaves) under `node` of scipy's linkage matrix `merges`."""
    stack, leaves = [node], []
    while stack:
        current = stack.pop()
        if current < n:
            leaves.append(current)
        else:
            stack.extend(int(c) for c in merges[current - n, :2])
    return np.sort(np.asarray(leaves, dtype=np.int64))


def _size(node: int, merges: np.ndarray, n: int) -> int:
    return 1 if node < n else int(merges[node - n, 3])
