"""Find groups of papers that a slightly different pile of papers would find too: a consensus of Leiden views,
settled on the topics' centres.

Every step is deterministic (same vectors, same topics, whatever the seed), but determinism is not robustness:
one Ward tree over the graph's spectral layout, cut at a fixed count, redrew many topics when 10% of the papers
were dropped (ARI 0.37-0.56 between builds of two random 90% subsets of 5,000 papers). So:
- UMAP's fuzzy neighbour graph over exact cosine neighbours (`reduce.neighbour_graph`), blended with the same
  graph over the papers' words and phrases (`LEXICAL_WEIGHT`);
- `CONSENSUS_VIEWS` views, each Leiden's communities (`leidenalg`, seeded) of a seeded random `CONSENSUS_SHARE`
  of the papers, at the resolution that gives the corpus-sized number of topics (`choose_parameters`), settled
  on their centres as the final topics are (`settle`);
- each graph edge weighted by how often the views that hold both its papers put them in one community
  (`edge_agreement`), and that consensus graph cut by Leiden into that many topics;
- a topic of more than `MAX_TOPIC_SHARE` of a corpus of `SPLIT_FROM` papers or more split by Leiden on its own
  papers; groups smaller than the smallest topic are left out and each of their papers joins its nearest topic
  (`cluster_model`), and then every paper settles in the topic whose centre is nearest (`settle`).
Below `SMALL_CORPUS` papers (topics of 2-5 papers, which most resamples would break) one Ward view of every paper
is the clustering. Measured against stock BERTopic and the labels of the shared corpora:
benchmarks/quality_scorecard.py, docs/benchmarks.md.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import asdict, dataclass, replace

import numpy as np
from scipy import sparse

from topic_explorer.pipeline.fit.reduce import spectral_layout
from topic_explorer.pipeline.fit.settle import MAX_TOPIC_SHARE, SPLIT_FROM, by_first_paper, in_float64, settle
from topic_explorer.pipeline.memory import release_freed_memory
from topic_explorer.pipeline.settings import BuildSettings

SMALL_CORPUS = 200  # below this, a sparser graph and fewer dimensions: dozens of papers, topics of 3-5
# From SMALL_CORPUS papers on, the clustering's graph joins each paper to its CLUSTER_NEIGHBORS nearest; the map
# keeps MAP_NEIGHBORS. Measured on six random 90% subsets of the four scorecard corpora (docs/benchmarks.md): 30
# against 15 put two subsets' topics at ARI 0.751-0.825 instead of 0.720-0.793, where more views, fewer topics or a
# sparser consensus did not; a paper with more neighbours is less often cut from its group by which ones came in.
CLUSTER_NEIGHBORS = 30
MAP_NEIGHBORS = 15
TOPICS_SCALE = 4.6  # topics at the finest level: TOPICS_SCALE x papers ** TOPICS_POWER, i.e. 11 for the
TOPICS_POWER = 0.24  # 38-paper sample, 24 for 1,000 papers, 36 for 5,000, 49 for 19,000, 73 for 100,000
# How much the papers' shared words and phrases weigh beside their embeddings' neighbours (0: meaning only).
# Measured (docs/benchmarks.md): on 5,000 ml_venues and arXiv papers it moved NMI by -0.008 to +0.008; on the
# sample it keeps the theory papers (regret bounds, conjectures, approximation rates) in one topic, which
# MiniLM files by their subjects.
LEXICAL_WEIGHT = 0.2
# The consensus (`edge_agreement`): views, each Leiden's communities of a random share of the papers. Measured on
# four shared corpora of 5,000 papers (docs/benchmarks.md): Ward views cut at counts around the asked one gave
# less stable topics (resampling ARI 0.51-0.60) than Leiden views with `settle` after them.
CONSENSUS_VIEWS = 20
CONSENSUS_SHARE = 0.9
PARALLEL_FROM = 2000  # papers from which the views run in worker processes, one per CPU (`view_processes`)
PARENT_CHECK_SECONDS = 1.0  # how often a view worker checks that the build that started it is still there
VIEWS_MISS = 2  # the views' resolution gives the asked number of communities, give or take this many
RESOLUTION_RANGE = (0.02, 50.0)  # Leiden's resolutions searched for the asked number of communities ...
RESOLUTION_STEPS = 20  # ... in this many bisection steps at most; the consensus graph's within a factor of ...
RESOLUTION_NEAR = 4.0  # ... the one found for the graph (its weights are the graph's, times their agreement)


@dataclass(frozen=True)
class TopicParameters:
    """The resolved clustering parameters, recorded in the manifest."""

    graph_neighbors: int  # UMAP's n_neighbors for the clustering's graph
    components: int  # dimensions of the spectral layout the tree is built on
    n_topics: int  # topics the tree is cut into before the size rules
    min_topic_size: int
    lexical_weight: float = LEXICAL_WEIGHT  # the words-and-phrases graph's share of the blended graph
    map_neighbors: int = MAP_NEIGHBORS  # UMAP's n_neighbors for the map's layout

    def as_dict(self) -> dict:
        """JSON-ready, for the manifest."""
        return asdict(self)


def choose_parameters(n_papers: int, settings: BuildSettings) -> TopicParameters:
    """Parameters that give a dozen topics for dozens of papers and a hundred for a hundred thousand."""
    if n_papers < SMALL_CORPUS:
        neighbors = int(np.clip(round(n_papers / 7), 4, 15))
        size = settings.min_topic_size or 2
        return TopicParameters(neighbors, 5, topic_count(n_papers), size, map_neighbors=neighbors)
    size = settings.min_topic_size or max(5, round(np.sqrt(n_papers) / 4))
    return TopicParameters(CLUSTER_NEIGHBORS, 10, topic_count(n_papers), size)


def topic_count(n_papers: int) -> int:
    """How many topics the tree is cut into for `n_papers` papers (`TOPICS_SCALE`, `TOPICS_POWER`)."""
    return max(1, min(n_papers // 2, round(TOPICS_SCALE * n_papers**TOPICS_POWER)))


def find_clusters(
    graph, params: TopicParameters, vectors: np.ndarray, words=None, processes: int | None = None
) -> np.ndarray:
    """Every paper's topic (-1: in a group too small to be one), numbered by first paper, from UMAP's neighbour
    graph (`reduce.neighbour_graph`) over the papers' `vectors` and `words` (see `settle`).

    From `SMALL_CORPUS` papers on: Leiden's communities of the consensus graph (`edge_agreement` over settled
    views of resampled papers), as many as asked, then the size rules (`_size_rules`). Below it, topics of 2-5
    papers would lose a paper in most resamples: one Ward view of every paper. The views run in `processes`
    processes (None: `view_processes`), with the same topics for any number.
    """
    if graph.shape[0] < SMALL_CORPUS:
        return by_first_paper(_ward_view(graph, params))
    release_freed_memory()  # what the stages before freed: the views' workers will run beside this process
    resolution, _ = leiden_communities(graph, params.n_topics, params.min_topic_size, miss=VIEWS_MISS)
    release_freed_memory()  # what the Leiden runs above freed
    processes = view_processes(graph.shape[0]) if processes is None else processes
    agreement = edge_agreement(graph, resolution, vectors, words, params.min_topic_size, processes)
    consensus = graph.multiply(agreement).tocsr()
    consensus.eliminate_zeros()
    _, labels = leiden_communities(consensus, params.n_topics, params.min_topic_size, near=resolution)
    return by_first_paper(_size_rules(consensus, labels, params))


def view_processes(n_papers: int) -> int:
    """How many processes the consensus views run in: one per CPU this process may use, from `PARALLEL_FROM`
    papers on (below, starting a worker costs more than the views), and one inside a daemonic process (which
    may not start any)."""
    import multiprocessing
    import os

    if n_papers < PARALLEL_FROM or multiprocessing.current_process().daemon:
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(cpus, CONSENSUS_VIEWS)


def edge_agreement(
    graph, resolution: float, vectors: np.ndarray, words=None, min_size: int = 1, processes: int = 1
) -> sparse.csr_matrix:
    """For each edge of the graph, the share of the views holding both its papers that put them in one topic.

    View v is Leiden's communities (seed v, at `resolution`) of a seeded random `CONSENSUS_SHARE` of the papers,
    those of `min_size` papers or more settled on their centres (`settle`, over `vectors` and `words`) as the
    final topics are: an edge that stays inside a topic whichever papers came in, and whichever way Leiden's
    moves ran, is one a 10% different corpus would keep. Views of unsettled communities agreed less: resampling
    ARI 0.69 against 0.79 on 5,000 arXiv papers (docs/benchmarks.md). The views are independent: with
    `processes` above 1 they run in that many worker processes, with the same result.
    """
    n = graph.shape[0]
    upper = sparse.triu(graph, k=1).tocoo()
    rng = np.random.default_rng(0)
    keeps = [np.sort(rng.choice(n, max(2, int(CONSENSUS_SHARE * n)), replace=False)) for _ in range(CONSENSUS_VIEWS)]
    together = np.zeros(len(upper.data))
    both = np.zeros(len(upper.data))
    for keep, found in zip(keeps, _views(graph, keeps, resolution, vectors, words, min_size, processes), strict=True):
        community = np.full(n, -1, dtype=np.int64)  # -1: not in this view
        community[keep] = found
        a, b = community[upper.row], community[upper.col]
        present = (a >= 0) & (b >= 0)
        both += present
        together += present & (a == b)
    share = together / np.maximum(both, 1)
    agreement = sparse.coo_matrix((share, (upper.row, upper.col)), shape=(n, n))
    return (agreement + agreement.T).tocsr()


def _views(graph, keeps: list[np.ndarray], resolution: float, vectors, words, min_size: int, processes: int):
    """Each view's settled communities of its `keeps` papers, in order, in `processes` processes (joblib's: its
    workers need no `__main__` guard in the caller's script, and it shares big arrays with them through memory
    maps rather than a copy per view). The workers are stopped at the end, so that the stage's CPU seconds
    (`timing.cpu_seconds`, which counts ended child processes) include theirs."""
    from joblib import Parallel, delayed, parallel_config
    from joblib.externals.loky import get_reusable_executor

    view = delayed(_view)
    try:
        with parallel_config(backend="loky", initializer=_end_with, initargs=(os.getpid(),)):
            return Parallel(n_jobs=min(processes, len(keeps)))(
                view(graph, keep, seed, resolution, vectors, words, min_size) for seed, keep in enumerate(keeps)
            )
    finally:
        if processes > 1:  # the workers end with the views: their memory is freed, their CPU time counted
            get_reusable_executor().shutdown(wait=True)


def _end_with(parent: int) -> None:
    """A view worker's start: end the worker when `parent` has gone. A build killed outright (SIGKILL, SIGTERM,
    the out-of-memory killer) cannot stop its workers, and they would keep the graph's memory, hundreds of MB
    each at 100,000 papers, until the machine restarts."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="end-with-the-build", daemon=True).start()


def _view(graph, keep: np.ndarray, seed: int, resolution: float, vectors, words, min_size: int) -> np.ndarray:
    """One view: Leiden's communities (`seed`) of the `keep` papers' subgraph, those of `min_size` papers or more
    settled on their centres and the smaller joined to their nearest (all -1 when none is big enough)."""
    found = _leiden(_network(graph[keep][:, keep]), resolution, seed=seed)
    release_freed_memory()  # the graph's igraph and Leiden's own copy, freed: settling makes arrays of another size
    found[np.bincount(found)[found] < min_size] = -1  # too small to be a topic: settling joins it to its nearest
    if (found >= 0).any():
        # the view's rows in float64 at once: settling would hold float32 ones beside them (`in_float64`)
        found = settle(vectors[keep], found, None if words is None else in_float64(words[keep]))
    release_freed_memory()  # a worker waits for its next view holding only what it uses
    return found


def leiden_communities(
    graph, n_topics: int, min_size: int, near: float | None = None, miss: int = 0
) -> tuple[float, np.ndarray]:
    """Leiden's communities of the weighted graph, and the resolution that gave them: the one whose count of
    communities of `min_size` papers or more is `n_topics`, or `miss` from it (bisection over `RESOLUTION_RANGE`,
    or within a factor `RESOLUTION_NEAR` of `near`; the nearest count when none does, the coarser on ties)."""
    network = _network(graph)
    low, high = RESOLUTION_RANGE if near is None else (near / RESOLUTION_NEAR, near * RESOLUTION_NEAR)
    best, best_miss = None, None
    for _ in range(RESOLUTION_STEPS):
        middle = np.sqrt(low * high)
        labels = _leiden(network, middle)
        found = int((np.bincount(labels) >= min_size).sum())
        if best_miss is None or abs(found - n_topics) < best_miss:
            best, best_miss = (middle, labels), abs(found - n_topics)
        if abs(found - n_topics) <= miss:
            break
        low, high = (middle, high) if found < n_topics else (low, middle)
    return best


def _network(graph):
    """The weighted igraph of a symmetric sparse graph, built once for all the Leiden runs on it."""
    import igraph

    upper = sparse.triu(graph, k=1).tocoo()
    # The edges as an array, whose buffer igraph reads: as Python lists of pairs they took 80 MiB more at 45,000 papers.
    network = igraph.Graph(n=graph.shape[0], edges=np.column_stack([upper.row, upper.col]))
    network.es["weight"] = upper.data.tolist()
    return network


def _leiden(network, resolution: float, seed: int = 0) -> np.ndarray:
    """Leiden's communities (modularity with a resolution; seeded, so deterministic) of a weighted igraph."""
    import leidenalg

    found = leidenalg.find_partition(
        network, leidenalg.RBConfigurationVertexPartition, weights="weight", resolution_parameter=resolution, seed=seed
    )
    return np.asarray(found.membership, dtype=np.int64)


def _size_rules(graph, labels: np.ndarray, params: TopicParameters) -> np.ndarray:
    """Communities smaller than `min_topic_size` left out (-1); one of more than `MAX_TOPIC_SHARE` of a corpus of
    `SPLIT_FROM` papers or more split by Leiden on its own papers at a finer resolution, unless that only peels
    off groups too small to be topics (then its papers are one dense group)."""
    n = len(labels)
    labels = labels.copy()
    sizes = np.bincount(labels)
    labels[sizes[labels] < params.min_topic_size] = -1
    if n < SPLIT_FROM:
        return labels
    queue = [t for t in np.unique(labels[labels >= 0]) if (labels == t).sum() > MAX_TOPIC_SHARE * n]
    while queue:
        topic = queue.pop()
        rows = np.flatnonzero(labels == topic)
        _, parts = leiden_communities(graph[rows][:, rows], 2, params.min_topic_size)
        part_sizes = np.bincount(parts)
        if (part_sizes >= params.min_topic_size).sum() < 2:
            continue  # one dense group
        new = labels.max() + 1 + parts
        new[part_sizes[parts] < params.min_topic_size] = -1
        labels[rows] = new
        queue += [t for t in np.unique(new[new >= 0]) if (labels == t).sum() > MAX_TOPIC_SHARE * n]
    return labels


def _ward_view(graph, params: TopicParameters) -> np.ndarray:
    """One view of the topics: each connected piece of the graph with at least `min_topic_size` papers laid out
    spectrally on its own and cut from its own Ward tree, into topics in proportion to its papers; smaller
    pieces are left out (-1)."""
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
        found = _ward_topics(graph[rows][:, rows], replace(params, n_topics=share))
        labels[rows] = np.where(found >= 0, found + offset, -1)
        offset = labels.max() + 1
    return labels


def _ward_topics(graph, params: TopicParameters) -> np.ndarray:
    """Topics of one connected piece: Ward's tree over its spectral layout, cut into `params.n_topics` groups;
    groups smaller than `min_topic_size` left out (-1)."""
    import fastcluster

    n = graph.shape[0]
    if n < 2 or params.n_topics < 2:
        return np.zeros(n, dtype=np.int64)
    space = np.ascontiguousarray(spectral_layout(graph, params.components))
    groups = _undo_merges(fastcluster.linkage_vector(space, method="ward"), n, min(params.n_topics, n))
    labels = np.full(n, -1, dtype=np.int64)
    for number, members in enumerate(m for m in groups.values() if len(m) >= params.min_topic_size):
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
