"""The topic tree: levels that nest, a readable distinct label per group, stored with the build and kept by `add`."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.schema import HIERARCHY_FILE
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.describe.hierarchy import cut, level_sizes, theme_tree, topic_words
from topic_explorer.pipeline.describe.terms import TermCounts
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.run.add import add_papers
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings


def test_levels_about_halve_down_to_two_groups():
    assert level_sizes(100) == [2, 3, 6, 12, 25, 50]
    assert level_sizes(5) == [2]
    assert level_sizes(3) == [2]
    assert level_sizes(2) == []
    assert level_sizes(1) == []


def tree_of(n, seed):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n, 6))
    return theme_tree(centres / np.linalg.norm(centres, axis=1, keepdims=True))


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 40), st.integers(0, 10_000))
def test_every_finer_group_lies_inside_one_coarser_group(n, seed):
    merges = tree_of(n, seed)
    cuts = [cut(merges, n, k) for k in level_sizes(n)]
    for k, groups in zip(level_sizes(n), cuts, strict=True):
        assert len(np.unique(groups)) == k
    for coarse, fine in itertools.pairwise(cuts):
        for group in np.unique(fine):
            assert len(np.unique(coarse[fine == group])) == 1


def test_words_join_topics_whose_meanings_barely_differ():
    """Four topics about equally far apart in meaning (a and c a little nearer) whose words pair them a+b, c+d:
    the tree follows the words, as BERTopic's tree over c-TF-IDF rows would; on meanings alone it pairs a+c."""
    centres = np.full((4, 4), 0.5) + np.eye(4)
    centres[0, 2] = centres[2, 0] = 0.9
    counts = TermCounts(
        topic_ids=np.arange(4),
        terms=("graph", "protein"),
        counts=sparse.csr_matrix([[9, 0], [8, 1], [0, 9], [1, 8]]),
        papers=sparse.csr_matrix([[9, 0], [8, 1], [0, 9], [1, 8]]),
        sizes=np.array([9, 9, 9, 9]),
    )
    assert cut(theme_tree(centres), 4, 2).tolist() in ([4, 5, 4, 5], [5, 4, 5, 4])
    groups = cut(theme_tree(centres, topic_words(counts, np.arange(4))), 4, 2)
    assert groups[0] == groups[1]
    assert groups[2] == groups[3]
    assert groups[0] != groups[2]


def test_where_meanings_and_words_disagree_evenly_the_words_decide():
    """Meanings pair a+c and b+d, words pair a+b and c+d, each as clearly: the meanings' and the words' trees
    disagree evenly, and the tree follows the words (BERTopic's tree), which group the broad labels better on every
    scorecard corpus. One Ward tree over the blended distances (a fifth words) followed the meanings here."""
    centres = np.array([[1, 0, 0.1, 0], [0, 1, 0, 0.1], [1, 0, 0, 0.1], [0, 1, 0.1, 0]], dtype=float)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    uses = sparse.csr_matrix([[9, 0, 1], [9, 0, 2], [0, 9, 1], [0, 9, 2]])
    counts = TermCounts(np.arange(4), ("graph", "protein", "data"), uses, uses, np.array([9, 9, 9, 9]))
    assert cut(theme_tree(centres), 4, 2).tolist() in ([4, 5, 4, 5], [5, 4, 5, 4])
    groups = cut(theme_tree(centres, topic_words(counts, np.arange(4))), 4, 2)
    assert groups[0] == groups[1]
    assert groups[2] == groups[3]
    assert groups[0] != groups[2]


def field(topics_per_archive: dict[str, int], seed: int = 0):
    """Topics of a made field: each archive's topics share a direction of their own, each topic adds its own."""
    rng = np.random.default_rng(seed)
    n = sum(topics_per_archive.values())
    archive = np.repeat(np.arange(len(topics_per_archive)), list(topics_per_archive.values()))
    centres = 2.0 * np.eye(len(topics_per_archive), 40)[archive] + np.eye(n, 40, k=len(topics_per_archive))
    centres += rng.normal(scale=0.05, size=centres.shape)
    return centres / np.linalg.norm(centres, axis=1, keepdims=True), archive


def test_the_first_split_puts_a_small_archive_on_its_own():
    """An unbalanced field, ten computer-science topics beside two physics topics: the two broad themes are the
    archives, however unequal (the balanced tree this replaced kept 30% of the papers on each side)."""
    centres, archive = field({"cs": 10, "physics": 2})
    themes = cut(theme_tree(centres), len(archive), 2)
    assert len(set(themes[archive == 1])) == 1
    assert set(themes[archive == 1]).isdisjoint(themes[archive == 0])


def test_with_words_the_first_split_still_puts_a_small_archive_on_its_own():
    """The same unbalanced field, each topic's papers using its archive's words and a word of its own: the trees
    over meanings and over words agree, and so does the tree over both."""
    centres, archive = field({"cs": 10, "physics": 2})
    n = len(archive)
    uses = sparse.csr_matrix(np.hstack([9 * np.eye(2)[archive], 5 * np.eye(n)]).astype(np.int64))
    terms = ("network", "quantum", *(f"own{i}" for i in range(n)))
    counts = TermCounts(np.arange(n), terms, uses, uses, np.full(n, 9))
    themes = cut(theme_tree(centres, topic_words(counts, np.arange(n))), n, 2)
    assert len(set(themes[archive == 1])) == 1
    assert set(themes[archive == 1]).isdisjoint(themes[archive == 0])


def test_each_archive_is_one_theme_at_the_level_of_as_many_groups():
    centres, archive = field({"cs": 8, "physics": 3, "math": 2}, seed=3)
    themes = cut(theme_tree(centres), len(archive), 3)
    for a in range(3):
        assert len(set(themes[archive == a])) == 1
    assert len(set(themes)) == 3


def test_close_topics_stay_together():
    centres = np.array([[1, 0, 0], [0.99, 0.1, 0], [0, 1, 0], [0, 0.99, 0.1], [0, 0, 1], [0.1, 0, 0.99]], dtype=float)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    groups = cut(theme_tree(centres), 6, 3)
    assert groups[0] == groups[1]
    assert groups[2] == groups[3]
    assert groups[4] == groups[5]
    assert len(set(groups)) == 3


@pytest.fixture(scope="module")
def built(tmp_path_factory, metadata_corpus):
    out = tmp_path_factory.mktemp("builds") / "tree"
    from tests.conftest import FakeEmbedder

    run_build([metadata_corpus], out, BuildSettings(cache_dir=out.parent / "c"), embedder=FakeEmbedder())
    return out


def test_the_build_stores_a_tree_whose_groups_have_distinct_readable_labels(built):
    build = read_build(built)
    tree, topics = build.hierarchy, build.topics
    real = sorted(topics.loc[topics["topic_id"] >= 0, "topic_id"])
    assert (built / HIERARCHY_FILE).is_file()
    assert len(real) >= 3
    assert sorted(tree["level"].unique()) == list(range(len(level_sizes(len(real)))))
    for level, groups in tree.groupby("level"):
        assert sorted(t for ids in groups["topic_ids"] for t in ids) == real  # a partition of the topics
        assert groups["label"].str.len().gt(0).all()
        assert groups["label"].is_unique
        assert all(len(k) for k in groups["keywords"])
        parents = tree.loc[tree["level"] == level - 1].set_index("group_id")["topic_ids"]
        for parent, ids in zip(groups["parent_id"], groups["topic_ids"], strict=True):
            assert parent == -1 if level == 0 else set(ids) <= set(parents[parent])
    assert build.manifest["seconds"]["hierarchy"] >= 0


def test_add_keeps_the_tree(built, tmp_path, metadata_corpus):
    from tests.conftest import FakeEmbedder

    before = read_build(built).hierarchy
    extra = pd.read_csv(metadata_corpus).head(3).assign(abstract=lambda t: t["abstract"] + " Extra sentence here.")
    extra.to_csv(tmp_path / "extra.csv", index=False)
    add_papers(built, [tmp_path / "extra.csv"], embedder=FakeEmbedder(), cache_dir=tmp_path / "c")
    pd.testing.assert_frame_equal(read_build(built).hierarchy, before)


def test_a_build_without_a_tree_still_reads(tiny_build_folder):
    assert read_build(tiny_build_folder).hierarchy.empty


@pytest.fixture
def tiny_build_folder(tmp_path):
    from tests.dashboard.tinybuild import tiny_papers, tiny_topics

    papers = tiny_papers()
    return write_build(tmp_path / "tiny", papers, tiny_topics(), np.zeros((len(papers), 2), np.float32), {})


def test_a_damaged_tree_is_refused_with_one_line(tiny_build_folder):
    bad = pd.DataFrame(
        {"level": [0], "group_id": [9], "parent_id": [5], "topic_ids": [[0, 1]], "label": ["x"], "keywords": [["a"]]}
    )
    bad.to_parquet(tiny_build_folder / HIERARCHY_FILE)
    with pytest.raises(UserError, match="parent group"):
        read_build(tiny_build_folder)
    bad.assign(topic_ids=[["zero"]]).to_parquet(tiny_build_folder / HIERARCHY_FILE)
    with pytest.raises(UserError, match="topic_ids"):
        read_build(tiny_build_folder)
