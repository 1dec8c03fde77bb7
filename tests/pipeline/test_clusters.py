"""Clustering: parameters by corpus size, Ward's tree over UMAP's spectral layout, the size rules, determinism."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topic_explorer.pipeline.fit.cluster_model import TopicClusters
from topic_explorer.pipeline.fit.clusters import (
    MAX_TOPIC_SHARE,
    TopicParameters,
    choose_parameters,
    find_clusters,
    topic_count,
)
from topic_explorer.pipeline.fit.reduce import nearest_neighbours, neighbour_graph
from topic_explorer.pipeline.settings import BuildSettings
from topic_explorer.pipeline.timing import StageTimer


def groups_of(rng, centres, per_group, spread, dims=32):
    """Unit vectors around unit `centres` (rows), `per_group` each: a corpus with known groups."""
    vectors = np.vstack([c + rng.normal(0, spread, size=(per_group, dims)) for c in centres])
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def clusters_of(vectors, params=None, lexical=None):
    params = params or choose_parameters(len(vectors), BuildSettings())
    neighbours = nearest_neighbours(vectors, params.graph_neighbors + 1)
    fitted = TopicClusters(params, neighbours=neighbours, lexical=lexical, named=np.full(len(vectors), -1),
                           keep_outliers=False, timer=StageTimer()).fit(vectors)  # fmt: skip
    return fitted


def test_topic_counts_and_smallest_topics_scale_with_corpus_size():
    assert [topic_count(n) for n in (38, 1000, 5000, 19308, 100_000)] == [11, 24, 36, 49, 73]
    small, large = choose_parameters(38, BuildSettings()), choose_parameters(20000, BuildSettings())
    assert (small.graph_neighbors, small.components, small.min_topic_size) == (5, 5, 2)
    assert (large.graph_neighbors, large.components, large.min_topic_size) == (30, 10, 35)
    assert (small.map_neighbors, large.map_neighbors) == (5, 15)  # the map keeps its own neighbours
    assert choose_parameters(20000, BuildSettings(min_topic_size=50)).min_topic_size == 50


def test_the_words_graph_groups_papers_by_the_words_they_share():
    """120 papers whose vectors are noise around one point, written in two vocabularies: the graph over their
    words (alone here, weight 1) splits them by vocabulary; the embeddings alone (weight 0) cannot."""
    from scipy import sparse

    rng = np.random.default_rng(5)
    vectors = groups_of(rng, [np.eye(32)[0]], 120, 0.5)
    vocabulary = np.where(np.arange(120) < 60, 0, 1)
    words = np.zeros((120, 40), dtype=np.float32)
    for paper, side in enumerate(vocabulary):
        words[paper, rng.choice(20, size=6, replace=False) + 20 * side] = 1.0
    lexical = sparse.csr_matrix(words / np.linalg.norm(words, axis=1, keepdims=True))

    def mixing(weight: float) -> float:
        """The share of papers in topics whose majority vocabulary is not theirs."""
        labels = clusters_of(vectors, TopicParameters(8, 5, 2, 5, lexical_weight=weight), lexical).labels_
        return sum(min(np.bincount(vocabulary[labels == t], minlength=2)) for t in set(labels.tolist())) / 120

    assert mixing(1.0) == 0
    assert mixing(0.0) >= 0.2


def test_well_separated_groups_each_become_a_topic():
    rng = np.random.default_rng(3)
    vectors = groups_of(rng, np.eye(32)[:6], 20, 0.08)
    labels = clusters_of(vectors, TopicParameters(10, 5, 6, 3)).labels_
    truth = np.repeat(np.arange(6), 20)
    assert all(len(set(labels[truth == g])) == 1 for g in range(6))
    assert len(set(labels)) == 6


def test_a_giant_topic_hiding_two_dense_groups_is_split_and_no_topic_holds_more_than_a_tenth():
    """1,200 papers: a giant region of two dense groups of 300 papers close together, and six other groups."""
    rng = np.random.default_rng(0)
    base = np.eye(32)
    giant = [base[0] + 0.35 * base[1], base[0] - 0.35 * base[1]]
    others = [base[i] for i in range(2, 8)]
    vectors = np.vstack([groups_of(rng, giant, 300, 0.05), groups_of(rng, others, 100, 0.05)])
    labels = clusters_of(vectors).labels_
    first, second = labels[:300], labels[300:600]
    assert not set(first) & set(second)  # the two dense groups never share a topic
    assert np.bincount(labels).max() <= MAX_TOPIC_SHARE * len(vectors)


def resampled_topics(vectors: np.ndarray, params: TopicParameters, share: float, seed: int) -> np.ndarray:
    """Topics of a random `share` of the papers, clustered on their own; -2 for the papers left out."""
    rows = np.sort(np.random.default_rng(seed).choice(len(vectors), int(share * len(vectors)), replace=False))
    found = np.full(len(vectors), -2)
    found[rows] = clusters_of(vectors[rows], params).labels_
    return found


def test_a_tenth_fewer_papers_redraws_no_topic():
    """Two dense groups close together and a looser third, 300 papers: the topics of every paper and of a random
    90% of them agree on the papers they share, whichever 90%, and each group is one topic in both."""
    from sklearn.metrics import adjusted_rand_score

    rng = np.random.default_rng(7)
    base = np.eye(32)
    vectors = np.vstack(
        [
            groups_of(rng, [base[0] + 0.3 * base[1], base[0] - 0.3 * base[1]], 100, 0.06),
            groups_of(rng, [base[2]], 100, 0.12),
        ]
    )
    truth = np.repeat(np.arange(3), 100)
    params = TopicParameters(15, 10, 3, 5)
    whole = clusters_of(vectors, params).labels_
    for group in range(3):
        assert len(set(whole[truth == group])) == 1
    assert len(set(whole)) == 3
    for seed in range(3):
        part = resampled_topics(vectors, params, 0.9, seed)
        shared = part != -2
        assert adjusted_rand_score(whole[shared], part[shared]) == 1.0


def two_cliques_agreement(paper_zero_in_second: bool, seed: int):
    """A graph of two cliques of 150 papers, in two groups of meaning (paper 0 in the first), and the views'
    agreement on its edges. Paper 0 is in the first clique and also wired to paper 150, or only in the second."""
    from scipy import sparse

    from topic_explorer.pipeline.fit.clusters import edge_agreement, leiden_communities

    blocks = sparse.block_diag([np.ones((150, 150)), np.ones((150, 150))]).tolil()
    if paper_zero_in_second:
        blocks[0, :150] = blocks[:150, 0] = 0.0
        blocks[0, 150:] = blocks[150:, 0] = 1.0
    else:
        blocks[0, 150] = blocks[150, 0] = 1.0
    graph = sparse.csr_matrix(blocks)
    graph.setdiag(0)
    graph.eliminate_zeros()
    vectors = groups_of(np.random.default_rng(seed), np.eye(32)[:2], 150, 0.1)
    resolution, _ = leiden_communities(graph, 2, 5)
    return graph, edge_agreement(graph, resolution, vectors, min_size=5)


def test_the_consensus_keeps_what_most_views_agree_on():
    """Two cliques joined by one edge: every view keeps the cliques apart, so that edge's agreement is 0, where
    the clique edges agree fully."""
    _, agreement = two_cliques_agreement(paper_zero_in_second=False, seed=3)
    within = np.concatenate([agreement[:150, :150].data, agreement[150:, 150:].data])
    assert agreement[0, 150] < 0.1
    assert np.median(within) == 1.0


def test_each_view_settles_its_communities_on_their_centres():
    """Paper 0 is wired into the second clique but means what the first group means: every view's community
    holds it with the second clique, and settling moves it to the first group, so none of its edges is one the
    views agree on."""
    graph, agreement = two_cliques_agreement(paper_zero_in_second=True, seed=5)
    assert graph[0, 150:].nnz == 150
    assert agreement[0, 150:].sum() == 0.0
    assert np.median(agreement[150:, 150:].data) == 1.0


def test_the_views_agree_the_same_in_worker_processes():
    """From `PARALLEL_FROM` papers on the consensus views run in one worker process per CPU: two processes give
    every edge the agreement that one gives, on a graph whose views differ (some edges agree in some views)."""
    import psutil

    from topic_explorer.pipeline.fit.clusters import PARALLEL_FROM, edge_agreement, leiden_communities, view_processes

    rng = np.random.default_rng(8)
    vectors = groups_of(rng, np.eye(32)[:3], 100, 0.3)
    graph = neighbour_graph(vectors, nearest_neighbours(vectors, 16), n_neighbors=15)
    resolution, _ = leiden_communities(graph, 3, 5)
    here = edge_agreement(graph, resolution, vectors, min_size=5, processes=1)
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    there = edge_agreement(graph, resolution, vectors, min_size=5, processes=2)
    assert ((here.data > 0) & (here.data < 1)).sum() > 10
    assert (here != there).nnz == 0
    # the workers have ended (their memory freed, their CPU time counted); joblib's resource trackers stay
    left = [c for c in psutil.Process().children(recursive=True) if c.pid not in before]
    assert [c.cmdline() for c in left if "resource_tracker" not in " ".join(c.cmdline())] == []
    assert view_processes(PARALLEL_FROM - 1) == 1


def test_a_script_without_a_main_guard_runs_the_views_in_workers_once(tmp_path):
    """A researcher's script that clusters at module level, with no `if __name__ == "__main__"`: the worker
    processes must not run the script again (a spawned pool re-imports it and fails)."""
    import subprocess
    import sys

    script = tmp_path / "cluster_at_top_level.py"
    script.write_text(
        "import numpy as np\n"
        "from topic_explorer.pipeline.fit.clusters import edge_agreement, leiden_communities\n"
        "from topic_explorer.pipeline.fit.reduce import nearest_neighbours, neighbour_graph\n"
        "print('script ran', flush=True)\n"
        "vectors = np.random.default_rng(0).normal(size=(120, 8)).astype(np.float32)\n"
        "graph = neighbour_graph(vectors, nearest_neighbours(vectors, 11), n_neighbors=10)\n"
        "resolution, _ = leiden_communities(graph, 3, 5)\n"
        "edge_agreement(graph, resolution, vectors, min_size=5, processes=2)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("script ran") == 1


@pytest.mark.slow
def test_a_build_killed_during_the_views_leaves_no_worker_behind(tmp_path):
    """A build killed outright (SIGKILL: no cleanup runs) while its views run in workers: the workers end too. They
    each hold an end of their task pipe, so they never read its end of file, and kept the graph's memory until the
    machine restarted."""
    import signal
    import subprocess
    import sys

    import psutil

    from topic_explorer.pipeline.fit.clusters import PARALLEL_FROM

    rng = np.random.default_rng(0)
    fields = [[f"w{field}x{i}" for i in range(40)] for field in range(8)]
    abstracts = [" ".join(rng.choice(fields[n % 8], size=40)) + "." for n in range(PARALLEL_FROM + 100)]
    pd.DataFrame({"abstract": abstracts}).to_csv(tmp_path / "papers.csv", index=False)
    command = [sys.executable, "-m", "topic_explorer.pipeline.cli", "build", str(tmp_path / "papers.csv")]
    options = ["--embedder", "tfidf", "--out", str(tmp_path / "build"), "--cache-dir", str(tmp_path / "cache")]
    build = subprocess.Popen([*command, *options], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers: list[psutil.Process] = []
        while not workers:  # until the views run in their workers
            assert build.poll() is None, "the build ended before its views ran in workers"
            workers = [c for c in psutil.Process(build.pid).children(recursive=True) if "popen_loky" in _command(c)]
    finally:
        build.send_signal(signal.SIGKILL)
        build.wait()
    _, alive = psutil.wait_procs(workers, timeout=60)
    assert alive == []


def _command(process) -> str:
    """A process's command line; "" once it has ended."""
    import psutil

    try:
        return " ".join(process.cmdline())
    except psutil.NoSuchProcess:
        return ""


def test_settled_topics_are_where_add_would_put_each_paper():
    """From 200 papers on, every paper ends in the topic whose centre is nearest: without words in the graph,
    `assign`, the rule `add` uses, gives every paper of the build its own topic back."""
    from topic_explorer.pipeline.buildfolder.model import TopicModel, assign

    rng = np.random.default_rng(11)
    vectors = groups_of(rng, np.eye(32)[:4] + 0.6 * np.eye(32)[4], 80, 0.25)  # four overlapping groups
    labels = clusters_of(vectors).labels_
    assert len(set(labels.tolist())) >= 3
    np.testing.assert_array_equal(assign(vectors, TopicModel.fit(vectors, labels)).topic_id, labels)


def test_settling_moves_a_paper_drawn_into_the_wrong_topic_and_numbers_topics_by_first_paper():
    from topic_explorer.pipeline.fit.settle import settle

    rng = np.random.default_rng(2)
    vectors = groups_of(rng, np.eye(32)[:2], 50, 0.05)
    drawn = np.repeat([1, 0], 50)
    drawn[3] = 0  # the graph put paper 3 with the second group
    assert settle(vectors, drawn).tolist() == [0] * 50 + [1] * 50


def test_settling_weighs_the_words_beside_the_meanings():
    """100 papers whose vectors are noise around one point, written in two vocabularies, drawn with two papers on
    the wrong side: their words bring them back, where the meanings alone cannot tell the sides apart."""
    from scipy import sparse

    from topic_explorer.pipeline.fit.settle import settle

    rng = np.random.default_rng(4)
    vectors = groups_of(rng, [np.eye(32)[0]], 100, 0.5)
    words = np.zeros((100, 40))
    for paper in range(100):
        words[paper, rng.choice(20, size=6, replace=False) + 20 * (paper >= 50)] = 1.0
    words = sparse.csr_matrix(words / np.linalg.norm(words, axis=1, keepdims=True))
    drawn = np.repeat([0, 1], 50)
    drawn[[7, 70]] = [1, 0]
    assert settle(vectors, drawn, words).tolist() == [0] * 50 + [1] * 50


def test_the_words_products_are_the_same_whatever_the_block_of_centres():
    """Settling makes the words' centres dense a block at a time: a block smaller than one centre, a few centres,
    or all of them give exactly the sparse product."""
    from scipy import sparse
    from sklearn.preprocessing import normalize

    from topic_explorer.pipeline.fit.settle import _products

    rng = np.random.default_rng(5)
    words = normalize(sparse.random(60, 500, density=0.05, format="csr", random_state=5, dtype=np.float32))
    centres = normalize(sparse.csr_matrix(np.eye(7)[rng.integers(0, 7, 60)].T) @ words)
    expected = (words @ centres.T).toarray()
    one_row_mb = 8 * 500 / 2**20
    for block_mb in (one_row_mb / 2, 3 * one_row_mb, 1000.0):
        np.testing.assert_array_equal(_products(words, centres, block_mb=block_mb), expected)


def test_settling_holds_the_words_once_in_float64_with_the_same_topics_as_from_float32():
    """The words' centres are float64, and scipy multiplied float32 rows by them on a new float64 copy at every
    product: settling holds them in float64 once, sharing their columns, with the same topics bit for bit."""
    from scipy import sparse
    from sklearn.preprocessing import normalize

    from topic_explorer.pipeline.fit import settle as settling

    rng = np.random.default_rng(6)
    vectors = groups_of(rng, np.eye(32)[:4], 60, 0.6)
    words = normalize(sparse.random(240, 500, density=0.03, format="csr", random_state=6, dtype=np.float32))
    held = settling.WordCentres(words, rng.integers(0, 4, 240)).words
    assert held.dtype == np.float64
    assert np.shares_memory(held.indices, words.indices)
    np.testing.assert_array_equal(held.data, words.data.astype(np.float64))
    start = rng.integers(0, 4, 240)
    from_float32 = settling.settle(vectors, start, words)
    assert settling.settle(vectors, start, settling.in_float64(words)).tolist() == from_float32.tolist()


def test_each_paper_goes_to_the_centre_nearest_by_meaning_and_words_weighed():
    """`nearest_centres` sums the two cosines in place: each paper's topic is still the argmax of the meanings'
    cosine and the words' weighed `SETTLE_WORDS_WEIGHT`, from a formula written out here."""
    from scipy import sparse
    from sklearn.preprocessing import normalize

    from topic_explorer.pipeline.fit.settle import SETTLE_WORDS_WEIGHT, WordCentres, nearest_centres

    rng = np.random.default_rng(11)
    units = normalize(rng.normal(size=(300, 16)).astype(np.float32))
    words = normalize(sparse.random(300, 400, density=0.05, format="csr", random_state=11, dtype=np.float32))
    labels = rng.integers(-1, 6, 300)
    centres = np.array([units[labels == t].sum(axis=0) for t in range(6)])
    word_centres = np.vstack([np.asarray(words[labels == t].sum(axis=0)) for t in range(6)])
    meaning = units @ normalize(centres).T
    lexical = (words @ normalize(word_centres).T).astype(np.float64)
    expected = ((1 - SETTLE_WORDS_WEIGHT) * meaning + SETTLE_WORDS_WEIGHT * lexical).argmax(axis=1)
    assert (expected != meaning.argmax(axis=1)).sum() > 10  # the words decide some papers
    np.testing.assert_array_equal(nearest_centres(units, labels, WordCentres(words, labels)), expected)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.lists(st.floats(0.0, 0.5), min_size=1, max_size=6))
def test_word_centres_that_follow_moved_papers_give_the_cosines_of_centres_summed_afresh(seed, moves):
    """Settling keeps every paper's products with the words' centres and adds or takes the moved papers' rows
    (steps moving few papers), or sums afresh (steps moving many): after any sequence of moves, among topics that
    may empty, the cosines are those of the centres summed from scratch (to rounding)."""
    from scipy import sparse
    from sklearn.preprocessing import normalize

    from topic_explorer.pipeline.fit import settle as settling

    rng = np.random.default_rng(seed)
    words = normalize(sparse.random(80, 300, density=0.05, format="csr", random_state=seed, dtype=np.float32))
    labels = rng.integers(-1, 5, 80)
    labels[:5] = np.arange(5)
    centres = settling.WordCentres(words, labels)
    for share in moves:  # each step moves about `share` of the papers to topics they may empty
        labels = labels.copy()
        chosen = rng.random(80) < share
        topics = np.unique(labels[labels >= 0])
        labels[labels < 0] = rng.choice(topics, (labels < 0).sum())
        labels[chosen] = rng.choice(topics[: max(1, len(topics) - 1)], chosen.sum())
        centres.follow(labels)
        topics = np.unique(labels)
        np.testing.assert_allclose(
            centres.cosines(topics), settling.WordCentres(words, labels).cosines(topics), rtol=1e-12, atol=1e-12
        )


def test_settling_by_moved_papers_gives_the_topics_of_settling_afresh(monkeypatch):
    """The same settled topics whether every step sums the words' centres afresh or only steps moving many papers
    do: the update by moved papers changes the cost, not the topics."""
    from scipy import sparse
    from sklearn.preprocessing import normalize

    from topic_explorer.pipeline.fit import settle as settling

    rng = np.random.default_rng(4)
    vectors = groups_of(rng, np.eye(32)[:4], 60, 0.6)
    words = normalize(sparse.random(240, 500, density=0.03, format="csr", random_state=4, dtype=np.float32))
    start = rng.integers(0, 4, 240)
    follows = []
    follow = settling.WordCentres.follow
    monkeypatch.setattr(settling.WordCentres, "follow", lambda self, labels: follows.append(
        (labels != self.labels).mean()) or follow(self, labels))  # fmt: skip
    monkeypatch.setattr(settling, "SETTLE_DELTA_SHARE", 1.0)  # every step by moved papers
    by_moves = settling.settle(vectors, start, words)
    assert len(follows) > 2  # several steps followed the moved papers ...
    assert max(follows) > 0.0  # ... and some moved any
    monkeypatch.setattr(settling, "SETTLE_DELTA_SHARE", -1.0)  # every step afresh
    assert settling.settle(vectors, start, words).tolist() == by_moves.tolist()


def test_the_views_network_holds_the_graph_s_edges_and_weights():
    """`_network` gives igraph the upper triangle's edges as an array: the same edges, in the same order, with the
    same weights as the graph's, so Leiden sees the graph it saw when they went as lists."""
    from scipy import sparse

    from topic_explorer.pipeline.fit.clusters import _network

    vectors = groups_of(np.random.default_rng(12), np.eye(32)[:3], 40, 0.3)
    graph = neighbour_graph(vectors, nearest_neighbours(vectors, 11), n_neighbors=10)
    upper = sparse.triu(graph, k=1).tocoo()
    network = _network(graph)
    assert network.vcount() == 120
    assert network.get_edgelist() == list(zip(upper.row.tolist(), upper.col.tolist(), strict=True))
    assert network.es["weight"] == upper.data.tolist()
    assert not network.is_directed()


def test_rows_are_made_unit_as_sklearn_makes_them_bit_for_bit():
    """`_unit_rows` stands in for sklearn's `normalize` so that the view workers need not import sklearn: the same
    bits for dense float32 and float64 rows and sparse ones, with a row of zeros and a near-zero row among them."""
    from scipy import sparse
    from sklearn.preprocessing import normalize

    from topic_explorer.pipeline.fit.settle import _unit_rows

    rng = np.random.default_rng(13)
    dense = rng.normal(size=(200, 24))
    dense[3], dense[4] = 0.0, 1e-20
    for rows in (dense, dense.astype(np.float32)):
        np.testing.assert_array_equal(_unit_rows(rows), normalize(rows))
        assert _unit_rows(rows).dtype == rows.dtype
    for dtype in (np.float64, np.float32):
        rows = sparse.random(200, 3000, density=0.02, format="csr", random_state=13, dtype=dtype) * 7.0
        rows = sparse.csr_matrix(rows.multiply(np.arange(200)[:, None] != 5))  # row 5 empty
        expected = normalize(rows)
        made = _unit_rows(rows.copy())
        assert made.data.dtype == dtype
        np.testing.assert_array_equal(made.toarray(), expected.toarray())


def test_the_view_workers_import_no_sklearn():
    """A view worker imports the clustering module to run its views: without sklearn (and the pandas and
    scipy.stats it imports) it holds about 65 MiB less at 50,000 papers."""
    import subprocess
    import sys

    check = "import sys, topic_explorer.pipeline.fit.clusters; print(sorted({'sklearn', 'pandas'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_groups_too_small_for_a_topic_are_left_out_and_join_their_nearest_topic():
    rng = np.random.default_rng(1)
    vectors = np.vstack([groups_of(rng, np.eye(32)[:3], 20, 0.05), groups_of(rng, [np.eye(32)[3]], 4, 0.05)])
    fitted = clusters_of(vectors, TopicParameters(8, 5, 4, 5))
    assert fitted.left_out_.tolist() == [False] * 60 + [True] * 4
    assert set(fitted.labels_[60:]) <= set(fitted.labels_[:60])


def test_a_piece_of_the_graph_too_small_for_a_topic_is_left_out():
    from scipy import sparse

    blocks = [np.ones((30, 30)), np.ones((25, 25)), np.ones((2, 2))]
    graph = sparse.csr_matrix(sparse.block_diag(blocks))
    vectors = np.eye(57)  # below SMALL_CORPUS papers the graph alone decides
    labels = find_clusters(graph, TopicParameters(8, 5, 2, 3), vectors)
    assert labels[-2:].tolist() == [-1, -1]
    assert set(labels[:55]) == {0, 1}
    assert len(set(labels[:30])) == 1
    assert len(set(labels[30:55])) == 1


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_the_same_vectors_always_give_the_same_graph_and_topics(seed):
    """Nothing here draws a random number: the build's seed cannot change the topics."""
    vectors = groups_of(np.random.default_rng(seed), np.eye(32)[:4], 15, 0.3)
    params = choose_parameters(len(vectors), BuildSettings())
    neighbours = nearest_neighbours(vectors, params.graph_neighbors + 1)
    first = neighbour_graph(vectors, neighbours, n_neighbors=params.graph_neighbors)
    again = neighbour_graph(vectors.copy(), neighbours, n_neighbors=params.graph_neighbors)
    assert (first != again).nnz == 0
    np.testing.assert_array_equal(find_clusters(first, params, vectors), find_clusters(again, params, vectors))
