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
# The consensus (`edge_agreement`): views, each Leiden's communities of a random share of the papers. Measured on
# four shared corpora of 5,000 papers (docs/benchmarks.md): Ward views cut at counts around the asked one gave
# less stable topics (resampling ARI 0.51-0.60) than Leiden views with `settle` after them.
CONSENSUS_VIEWS = 20
CONSENSUS_SHARE = 0.9
PARALLEL_FROM = 2000  # papers from which the views run in worker processes, one per CPU (`view_processes`)
PARENT_CHECK_SECONDS = 1.0  # how often a view worker checks that the build that started it is still there
VIEWS_MISS = 2  # the views' resolution gives the asked number of communities, give or take this many
SETTLE_STEPS = 100  # Lloyd's steps at most after the graph's topics (`settle`) ...
SETTLE_WORDS_WEIGHT = 0.5  # ... and the words' share of a paper's closeness to a centre there
SETTLE_DELTA_SHARE = 0.05  # a step moving at most this share of the papers updates the centres (`WordCentres`)
CENTRES_BLOCK_MB = 32  # the words' centres are made dense this many MB at a time (`_products`)
RESOLUTION_RANGE = (0.02, 50.0)  # Leiden's resolutions searched for the asked number of communities ...
RESOLUTION_STEPS = 20  # ... in this many bisection steps at most; the consensus graph's within a factor of ...
RESOLUTION_NEAR = 4.0  # ... the one found for the graph (its weights are the graph's, times their agreement)


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
        return _by_first_paper(_ward_view(graph, params))
    resolution, _ = leiden_communities(graph, params.n_topics, params.min_topic_size, miss=VIEWS_MISS)
    processes = view_processes(graph.shape[0]) if processes is None else processes
    agreement = edge_agreement(graph, resolution, vectors, words, params.min_topic_size, processes)
    consensus = graph.multiply(agreement).tocsr()
    consensus.eliminate_zeros()
    _, labels = leiden_communities(consensus, params.n_topics, params.min_topic_size, near=resolution)
    return _by_first_paper(_size_rules(consensus, labels, params))


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
    found[np.bincount(found)[found] < min_size] = -1  # too small to be a topic: settling joins it to its nearest
    if (found >= 0).any():
        found = settle(vectors[keep], found, None if words is None else words[keep])
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


def settle(vectors: np.ndarray, labels: np.ndarray, words=None, steps: int = SETTLE_STEPS) -> np.ndarray:
    """Topics 0..k-1 of every paper (none left out) after Lloyd's steps from them: each paper moved to the topic
    whose centre is nearest (`nearest_centres`) until none moves; numbered by first paper again.

    A graph cut draws a topic's edge paper by paper, and dropping a tenth of the papers redrew those edges; a
    centre, an average over hundreds of papers, barely moves, so edges drawn between centres stay. `words` (each
    paper's unit TF-IDF row, or None) puts the words in the centres beside the meanings, as the graph does: on
    meanings alone 20 Newsgroups lost 0.03 NMI (docs/benchmarks.md). The graph's topics are kept when settling
    would give a topic more than `MAX_TOPIC_SHARE` of a corpus of `SPLIT_FROM` papers or more.
    """
    units = _unit_rows(vectors)
    word_centres = None if words is None else WordCentres(words, labels)
    settled = labels
    for _ in range(steps):
        moved = nearest_centres(units, settled, word_centres)
        if (moved == settled).all():
            break
        settled = moved
        if word_centres is not None:
            word_centres.follow(settled)
    if len(labels) >= SPLIT_FROM and np.bincount(settled).max() > MAX_TOPIC_SHARE * len(labels):
        return labels
    return _by_first_paper(settled)


def nearest_centres(units: np.ndarray, labels: np.ndarray, word_centres: WordCentres | None = None) -> np.ndarray:
    """Each paper's nearest topic centre (labels >= 0): cosine over the unit vectors, or, with `word_centres`
    (following `labels`), that and the cosine over the words weighed `SETTLE_WORDS_WEIGHT`."""
    topics = np.unique(labels[labels >= 0])
    rows = np.flatnonzero(labels >= 0)
    members = sparse.csr_matrix(
        (np.ones(len(rows)), (np.searchsorted(topics, labels[rows]), rows)), shape=(len(topics), len(labels))
    )
    similarity = units @ _unit_rows(members @ units).T
    if word_centres is not None:  # the same sums in place (float64): a paper-by-topic array is 20 MiB at 45,000 papers
        cosines = word_centres.cosines(topics)
        cosines *= SETTLE_WORDS_WEIGHT
        similarity *= 1 - SETTLE_WORDS_WEIGHT
        similarity += cosines
    return topics[similarity.argmax(axis=1)]


class WordCentres:
    """Every paper's cosine over the words to each topic's centre (the sum of its papers' unit TF-IDF rows), kept
    current as Lloyd's steps move papers between topics.

    Summing every centre afresh costs a pass over all the papers' words per topic and step, and settling a view of
    17,000 papers took 34 steps, all but the first moving under 5% of them. So each paper's dot product with every
    centre's sum is kept, with the sums' squared lengths: a step that moved at most `SETTLE_DELTA_SHARE` of the
    papers adds the moved papers' rows to their new topics' products and takes them from their old ones', for the
    topics that changed; a bigger step sums afresh. The cosines agree with centres summed afresh to rounding
    (1e-15): the settled topics of the four scorecard corpora were the same, label for label, and a view of 17,000
    papers settled in 0.6x the CPU time (docs/benchmarks.md). The meanings' centres are made afresh at every step:
    their dense product is a small share of a step, and keeping theirs too saved nothing measurable.
    """

    def __init__(self, words: sparse.csr_matrix, labels: np.ndarray):
        self.words = words
        self._sum(labels)

    def _sum(self, labels: np.ndarray) -> None:
        self.labels = labels
        self.topics = np.unique(labels[labels >= 0])
        sums = self._indicator(np.flatnonzero(labels >= 0), labels) @ self.words
        self.dots = _products(self.words, sums)
        self.squares = _squares(sums)

    def _indicator(self, papers: np.ndarray, labels: np.ndarray) -> sparse.csr_matrix:
        """A topic-by-paper matrix: 1 at each of `papers` in its topic's row (`labels`)."""
        return sparse.csr_matrix(
            (np.ones(len(papers)), (np.searchsorted(self.topics, labels[papers]), papers)),
            shape=(len(self.topics), len(labels)),
        )

    def follow(self, labels: np.ndarray) -> None:
        """The centres of `labels`, whose topics are among the ones these centres were summed for."""
        moved = np.flatnonzero(labels != self.labels)
        if len(moved) > SETTLE_DELTA_SHARE * len(labels):
            self._sum(labels)
            return
        left = moved[self.labels[moved] >= 0]
        change = self._indicator(moved, labels) - self._indicator(left, self.labels)
        changed = np.unique(change.nonzero()[0])
        change = change[changed]
        delta = change @ self.words
        # |S + D|^2 = |S|^2 + 2 S.D + |D|^2, where S.D sums the moved papers' products with their topic's sum
        self.squares[changed] += 2 * (change @ self.dots[:, changed]).diagonal() + _squares(delta)
        self.dots[:, changed] += _products(self.words, delta)
        self.labels = labels

    def cosines(self, topics: np.ndarray) -> np.ndarray:
        """Every paper's cosine to each of `topics` (a new array)."""
        columns = np.searchsorted(self.topics, topics)
        norms = np.sqrt(self.squares[columns])
        norms[norms == 0] = 1.0
        return self.dots[:, columns] / norms


def _squares(rows: sparse.csr_matrix) -> np.ndarray:
    """Each sparse row's squared length."""
    return np.asarray(rows.multiply(rows).sum(axis=1)).ravel()


def _unit_rows(rows):
    """Each row scaled to length 1 as sklearn's `normalize` scales it, bit for bit: a dense array's in a copy, a
    sparse matrix's in place (a row of zeros stays as it is). Not sklearn's own because importing sklearn brings
    pandas and scipy.stats with it: about 65 MiB of each view worker's own memory, for this one function."""
    if sparse.issparse(rows):  # each row's squares summed in order in float64, as sklearn's loop sums them
        squares = sparse.csr_matrix((rows.data * rows.data, rows.indices, rows.indptr), shape=rows.shape)
        norms = np.sqrt(squares @ np.ones(rows.shape[1]))
        norms[norms == 0] = 1.0
        rows.data /= np.repeat(norms, np.diff(rows.indptr))
        return rows
    norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))
    norms[norms < 10 * np.finfo(norms.dtype).eps] = 1.0  # sklearn's `_handle_zeros_in_scale`
    return rows / norms[:, None]


def _products(words: sparse.csr_matrix, centres: sparse.csr_matrix, block_mb: float = CENTRES_BLOCK_MB) -> np.ndarray:
    """Every paper's dot product with every centre over the words: the centres made dense `block_mb` at a time, as a
    sparse-by-dense product takes about half the time of a sparse-by-sparse one (the same figures, bit for bit;
    measured on 4,500 arXiv papers), while a block holds a bounded share of the vocabulary's centres. A block is
    made column by column (Fortran order), so that its transpose is the row-major array the product reads,
    rather than a copy of it."""
    products = np.empty((words.shape[0], centres.shape[0]))
    step = max(1, int(block_mb * 2**20 // (8 * max(1, words.shape[1]))))
    for start in range(0, centres.shape[0], step):
        products[:, start : start + step] = words @ centres[start : start + step].toarray(order="F").T
    return products


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


def _by_first_paper(labels: np.ndarray) -> np.ndarray:
    renumbered = np.full(len(labels), -1, dtype=np.int64)
    for number, topic in enumerate(dict.fromkeys(labels[labels >= 0].tolist())):
        renumbered[labels == topic] = number
    return renumbered


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
