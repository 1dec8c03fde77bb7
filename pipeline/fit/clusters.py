"""Find groups of papers: UMAP to a few dimensions, then HDBSCAN, sized to the corpus.

Stock BERTopic puts all 38 sample abstracts in the outlier topic. What changes here:
- UMAP neighbours and HDBSCAN sizes scale with the number of papers (`choose_parameters`);
  HDBSCAN's `min_samples` stays small, since its default (= min_cluster_size) collapses small
  corpora into two or three clusters and leaves many outliers;
- small corpora are clustered by consensus: UMAP + HDBSCAN run ten times, over five neighbourhood
  sizes and two seeds each, and papers that share a cluster in most runs form a topic. One run on
  38 papers depends on the seed: over seeds 0-9 the four federated-learning papers shared a topic
  in 2 of 10; by consensus they did in 20 of 20 consensus seeds, as did the RLHF, KV-cache and
  neuroscience papers (scratch measurements in the closing note of issue 11);
- when HDBSCAN lumps most of a larger corpus into one cluster, it refits with a size cap.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from topic_explorer.pipeline.fit.reduce import Neighbours, nearest_neighbours, umap_embed
from topic_explorer.pipeline.settings import BuildSettings
from topic_explorer.pipeline.timing import StageTimer

SMALL_CORPUS = 200  # below this, parameters for dozens of papers and clustering by consensus
GIANT_TOPIC = 0.5  # a cluster holding more than this share of a larger corpus means HDBSCAN kept a
MAX_TOPIC_SHARE = 0.2  # root-level split (seen: 79% + 21% of 2,000 abstracts); refit with this cap
CONSENSUS_NEIGHBOURHOODS = (0.5, 0.6, 0.8, 1.0, 1.2)  # UMAP n_neighbors, as shares of the chosen one
CONSENSUS_REPEATS = 2  # seeds per neighbourhood size
CONSENSUS_LINK = 0.7  # join groups whose papers shared a cluster in at least 30% of runs, on average


@dataclass(frozen=True)
class TopicParameters:
    """The resolved clustering parameters, recorded in the manifest."""

    umap_neighbors: int
    umap_components: int
    min_topic_size: int
    max_topic_size: int  # 0: no limit; set when HDBSCAN lumped most papers into one topic
    hdbscan_min_samples: int
    consensus_neighbors: tuple[int, ...] = ()  # UMAP n_neighbors of the consensus runs; () for one run

    @property
    def consensus_runs(self) -> int:
        return len(self.consensus_neighbors) * CONSENSUS_REPEATS

    def as_dict(self) -> dict:
        """JSON-ready, for the manifest."""
        return {
            **asdict(self),
            "consensus_neighbors": list(self.consensus_neighbors),
            "consensus_runs": self.consensus_runs,
        }


def choose_parameters(n_papers: int, settings: BuildSettings) -> TopicParameters:
    """Parameters that give a handful of topics for dozens of papers and tens for thousands."""
    if n_papers < SMALL_CORPUS:
        neighbors = int(np.clip(round(n_papers / 4), 5, 15))
        spread = sorted({max(2, min(n_papers - 1, round(neighbors * share))) for share in CONSENSUS_NEIGHBOURHOODS})
        return TopicParameters(neighbors, 10, settings.min_topic_size or 3, 0, 1, tuple(spread))
    size = settings.min_topic_size or max(5, round(np.sqrt(n_papers) / 2))
    return TopicParameters(15, 5, size, 0, max(1, size // 5))


def find_clusters(
    vectors: np.ndarray,
    params: TopicParameters,
    *,
    seed: int,
    neighbours: Neighbours | None = None,
    timer: StageTimer | None = None,
) -> tuple[np.ndarray, TopicParameters]:
    """Cluster labels per paper (-1: fits no cluster), and the parameters as finally used.

    `neighbours` (each paper's nearest, itself first) are found here when not given; pass them to
    share them with the map's layout. `timer` receives 'reduce' (UMAP) and 'cluster' (HDBSCAN).
    """
    timer = timer or StageTimer()
    if neighbours is None:
        with timer.stage("reduce"):
            neighbours = nearest_neighbours(vectors, max((params.umap_neighbors, *params.consensus_neighbors)) + 1)
    if params.consensus_neighbors:
        return _consensus(vectors, neighbours, params, seed, timer), params
    with timer.stage("reduce"):
        reduced = umap_embed(
            vectors,
            neighbours,
            n_neighbors=params.umap_neighbors,
            n_components=params.umap_components,
            min_dist=0.0,
            seed=seed,
        )
    with timer.stage("cluster"):
        labels, cap = _hdbscan(reduced, params)
    return labels, replace(params, max_topic_size=cap)


def _hdbscan(reduced: np.ndarray, params: TopicParameters) -> tuple[np.ndarray, int]:
    """HDBSCAN labels; refit with a size cap when it lumps most of a larger corpus into one cluster."""
    from hdbscan import HDBSCAN

    cap = params.max_topic_size
    for _ in range(2):
        labels = (
            HDBSCAN(
                min_cluster_size=params.min_topic_size,
                min_samples=params.hdbscan_min_samples,
                max_cluster_size=cap,
                metric="euclidean",
                cluster_selection_method="eom",
            )
            .fit(reduced)
            .labels_
        )
        clustered = labels[labels >= 0]
        largest = np.bincount(clustered).max() if len(clustered) else 0
        if cap or len(reduced) < SMALL_CORPUS or largest <= GIANT_TOPIC * len(reduced):
            break
        cap = int(MAX_TOPIC_SHARE * len(reduced))
    return labels.astype(np.int64), cap


def _consensus(
    vectors: np.ndarray, neighbours: Neighbours, params: TopicParameters, seed: int, timer: StageTimer
) -> np.ndarray:
    """Clusters that most runs agree on: average-linkage over how often two papers shared a cluster."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    seeds = iter(np.random.SeedSequence(seed).generate_state(params.consensus_runs))
    together = np.zeros((len(vectors), len(vectors)))
    for n_neighbors in params.consensus_neighbors:
        for _ in range(CONSENSUS_REPEATS):
            with timer.stage("reduce"):
                reduced = umap_embed(
                    vectors,
                    neighbours,
                    n_neighbors=n_neighbors,
                    n_components=params.umap_components,
                    min_dist=0.0,
                    seed=int(next(seeds)),
                )
            with timer.stage("cluster"):
                labels, _ = _hdbscan(reduced, params)
            together += (labels[:, None] == labels[None, :]) & (labels[:, None] >= 0)
    apart = 1.0 - together / params.consensus_runs
    np.fill_diagonal(apart, 0.0)
    groups = fcluster(linkage(squareform(apart, checks=False), "average"), t=CONSENSUS_LINK, criterion="distance")
    return _relabel(groups, params.min_topic_size)


def _relabel(groups: np.ndarray, min_size: int) -> np.ndarray:
    """Groups smaller than `min_size` become outliers (-1); the rest are numbered 0.. by first paper."""
    sizes = np.bincount(groups)
    labels = np.full(len(groups), -1, dtype=np.int64)
    kept = [g for g in dict.fromkeys(groups.tolist()) if sizes[g] >= min_size]
    for number, group in enumerate(kept):
        labels[groups == group] = number
    return labels
