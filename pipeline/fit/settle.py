"""Settling: every paper moved to the topic whose centre is nearest, over its meaning and its words, until none
moves (Lloyd's steps from the graph's topics; why, in `settle`). `pipeline.fit.clusters` settles each consensus view
and `cluster_model` the final topics; the words' centres are kept current as papers move (`WordCentres`).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from topic_explorer.pipeline.memory import release_freed_memory

MAX_TOPIC_SHARE = 0.10  # no finest topic holds more of a corpus of SPLIT_FROM papers or more ...
SPLIT_FROM = 1000  # ... unless its papers are one dense group (`clusters._size_rules`; settling keeps to it too)
SETTLE_STEPS = 100  # Lloyd's steps at most after the graph's topics (`settle`) ...
SETTLE_WORDS_WEIGHT = 0.5  # ... and the words' share of a paper's closeness to a centre there
SETTLE_DELTA_SHARE = 0.05  # a step moving at most this share of the papers updates the centres (`WordCentres`)
CENTRES_BLOCK_MB = 32  # the words' centres are made dense this many MB at a time (`_products`)


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
        release_freed_memory()  # a step's arrays, freed: settling runs in the views' workers beside the build
        moved = nearest_centres(units, settled, word_centres)
        if (moved == settled).all():
            break
        settled = moved
        if word_centres is not None:
            word_centres.follow(settled)
    if len(labels) >= SPLIT_FROM and np.bincount(settled).max() > MAX_TOPIC_SHARE * len(labels):
        return labels
    return by_first_paper(settled)


def nearest_centres(units: np.ndarray, labels: np.ndarray, word_centres: WordCentres | None = None) -> np.ndarray:
    """Each paper's nearest topic centre (labels >= 0): cosine over the unit vectors, or, with `word_centres`
    (following `labels`), that and the cosine over the words weighed `SETTLE_WORDS_WEIGHT`."""
    topics = np.unique(labels[labels >= 0])
    centres = _unit_rows(_membership(topics, np.flatnonzero(labels >= 0), labels) @ units)
    similarity = units @ centres.T
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
        self.words = in_float64(words)
        self._sum(labels)

    def _sum(self, labels: np.ndarray) -> None:
        self.labels = labels
        self.topics = np.unique(labels[labels >= 0])
        sums = _membership(self.topics, np.flatnonzero(labels >= 0), labels) @ self.words
        self.dots = _products(self.words, sums)
        self.squares = _squares(sums)

    def follow(self, labels: np.ndarray) -> None:
        """The centres of `labels`, whose topics are among the ones these centres were summed for."""
        moved = np.flatnonzero(labels != self.labels)
        if len(moved) > SETTLE_DELTA_SHARE * len(labels):
            self._sum(labels)
            return
        left = moved[self.labels[moved] >= 0]
        change = _membership(self.topics, moved, labels) - _membership(self.topics, left, self.labels)
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


def in_float64(words: sparse.csr_matrix) -> sparse.csr_matrix:
    """The TF-IDF rows with their weights in float64, sharing their columns. The centres' sums and products are in
    float64, and scipy multiplies float32 rows by float64 ones on a float64 copy of them, made afresh for every
    product of every Lloyd step: 42 MB each time for a 45,000-paper view at 100,000 papers. Held once, the same
    figures bit for bit; with `release_freed_memory` at every step a view's settling peaked at 264 MiB, not 336
    (measured on a saved 100,000-paper fit sample, docs/benchmarks.md)."""
    if words.dtype == np.float64:
        return words
    return sparse.csr_matrix((words.data.astype(np.float64), words.indices, words.indptr), shape=words.shape)


def _membership(topics: np.ndarray, papers: np.ndarray, labels: np.ndarray) -> sparse.csr_matrix:
    """A topic-by-paper matrix: 1 at each of `papers` in the row of its topic (`labels`) among `topics` (sorted); its
    product with the papers' rows sums each topic's centre."""
    return sparse.csr_matrix(
        (np.ones(len(papers)), (np.searchsorted(topics, labels[papers]), papers)), shape=(len(topics), len(labels))
    )


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


def by_first_paper(labels: np.ndarray) -> np.ndarray:
    """Topics numbered 0, 1, ... in the order of their first paper (-1 kept): the same topics always get the same
    numbers, whatever numbers the clustering gave them."""
    renumbered = np.full(len(labels), -1, dtype=np.int64)
    for number, topic in enumerate(dict.fromkeys(labels[labels >= 0].tolist())):
        renumbered[labels == topic] = number
    return renumbered
