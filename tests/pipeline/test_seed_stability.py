"""The sample's topics are the ones its readers expect, and no seed changes them (issue 19, goals 2 and 4).

Fitting alone, on the sample's real MiniLM embeddings: every seed gives the same topics (the clustering draws
no random number), the finest topics include federated learning, LoRA / PEFT, RLHF / preference optimisation
and the KV cache, each with the papers a reader would put there (a paper or two more allowed), most of the
theory papers form a topic of their own, and the tree's
level nearest 5-8 groups keeps every group a reader keeps together in one theme. Made corpora check the same
for any seed and size in `test_clusters.py`.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import FakeEmbedder
from tests.sample_groups import FEDERATED, GROUPS, THEORY, ids
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.fit.topics import fit_topics
from topic_explorer.pipeline.settings import BuildSettings

SEEDS = range(10)
# The topics a reader of the sample expects at the finest level: (papers that must share it, papers it may hold).
EXPECTED = {
    "federated learning": (FEDERATED, FEDERATED | ids("federated RL regret")),
    "LoRA / PEFT": (ids("GoRA"), ids("GoRA", "RestoreLCC", "low-rank training")),
    "RLHF / preference optimisation": (ids("QRPO", "SE-POPO"), ids("QRPO", "SE-POPO", "POCCO")),
    "KV cache": (ids("AnDPro", "NSNQuant"), ids("AnDPro", "NSNQuant")),
    "learning theory": (THEORY, THEORY | ids("predictive information")),
}
EXTRA_PAPERS = 2  # "a topic may hold a paper or two more than its group"


@pytest.fixture(scope="module")
def fits(sample_build):
    build = read_build(sample_build)
    vectors, ids_ = build.embeddings(), build.papers["paper_id"].to_numpy()
    abstracts = build.papers["abstract"].tolist()
    terms = FakeEmbedder(dimensions=vectors.shape[1]).transform  # keyword candidates only: they change no topic
    return ids_, [fit_topics(vectors, abstracts, settings=BuildSettings(seed=seed), embed=terms) for seed in SEEDS]


def own_topic(labels: np.ndarray, paper_ids: np.ndarray, required: frozenset[str], allowed: frozenset[str]) -> bool:
    """The required papers share one topic, which holds at most `EXTRA_PAPERS` papers beyond the allowed ones."""
    topics = set(labels[np.isin(paper_ids, list(required))].tolist())
    if len(topics) != 1:
        return False
    members = set(paper_ids[labels == topics.pop()].tolist())
    return len(members - allowed) <= EXTRA_PAPERS


@pytest.mark.model
def test_every_seed_gives_the_same_topics(fits):
    _, results = fits
    first = results[0]
    assert all(np.array_equal(fit.topic_id, first.topic_id) for fit in results)
    assert 8 <= len(set(first.topic_id.tolist())) <= 14
    assert first.left_out.mean() <= 0.10


@pytest.mark.model
@pytest.mark.parametrize("name", [n for n in EXPECTED if n != "learning theory"])
def test_the_finest_topics_hold_what_the_samples_readers_expect(fits, name):
    paper_ids, results = fits
    required, allowed = EXPECTED[name]
    assert own_topic(results[0].topic_id, paper_ids, required, allowed)


@pytest.mark.model
def test_most_of_the_theory_papers_make_a_topic_of_their_own(fits):
    """Four of the six theory papers (regret bounds, a conjecture, approximation rates) share a topic with no other
    paper: their shared words hold them together. The other two stay with their subjects (low-rank gradients with
    the low-rank papers, in-context approximation with the transformer papers), as MiniLM reads them."""
    paper_ids, results = fits
    topic_id = results[0].topic_id
    theory = topic_id[np.isin(paper_ids, list(THEORY))]
    topic = np.bincount(theory).argmax()
    members = set(paper_ids[topic_id == topic].tolist())
    assert len(members & THEORY) >= 4
    assert len(members - THEORY - ids("predictive information")) <= EXTRA_PAPERS


@pytest.mark.model
def test_the_level_nearest_six_themes_keeps_every_readers_group_together(sample_build):
    build = read_build(sample_build)
    tree, topic_of = build.hierarchy, build.papers.set_index("paper_id")["topic_id"]
    level = min(tree["level"].unique(), key=lambda lv: abs((tree["level"] == lv).sum() - 6))
    groups = tree[tree["level"] == level]
    assert 5 <= len(groups) <= 8
    theme_of = {t: g for g, topics in zip(groups["group_id"], groups["topic_ids"], strict=True) for t in topics}
    for name, group in {"federated learning": FEDERATED, **GROUPS}.items():
        assert len({theme_of[topic_of[p]] for p in group}) == 1, name
