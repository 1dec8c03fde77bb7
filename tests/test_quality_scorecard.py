"""The quality scorecard (benchmarks/quality_scorecard.py) decides every clustering change: its stability figures
must be what they say, whatever the clustering behind them."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def scorecard(monkeypatch):
    """The benchmark script as a module (benchmarks/ is a folder of scripts, not a package); registered while the
    test runs, as its dataclasses look their module up."""
    spec = importlib.util.spec_from_file_location("quality_scorecard", ROOT / "benchmarks" / "quality_scorecard.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_a_clustering_that_finds_the_same_groups_in_every_subset_scores_one_everywhere(scorecard, monkeypatch):
    """Each subset's topics are compared with the whole's on the papers both hold: a fit that always finds the
    same two groups scores 1.0 on every pair, however the subsets number their papers."""
    vectors = np.random.default_rng(0).normal(size=(300, 3))
    fits = []

    def by_sign(v: np.ndarray, texts: list[str], tree: bool) -> dict:
        fits.append(len(texts))
        return {"topics": v[:, 0] > 0}

    monkeypatch.setattr(scorecard, "fit_ours", by_sign)
    texts = [str(i) for i in range(300)]
    figures = scorecard.stability("ours", vectors, texts, vectors[:, 0] > 0, subsets=4)
    assert fits == [270] * 4  # four 90% subsets
    assert figures["ari_pairs_4_all"] == [1.0] * 6  # every pair of four
    assert figures["ari_whole_a"] == figures["ari_whole_4_lowest"] == figures["ari_pairs_4_mean"] == 1.0


def test_the_mean_and_lowest_are_over_every_subset_and_every_pair(scorecard, monkeypatch):
    """A fit whose cut depends on which papers came in (the subset's median) gives each pair its own ARI: the
    figures are their mean and lowest, and the first pair is the table's "a" against "b"."""
    vectors = np.random.default_rng(1).normal(size=(300, 3))
    monkeypatch.setattr(scorecard, "fit_ours", lambda v, texts, tree: {"topics": v[:, 0] > np.median(v[:, 0]) + 0.2})
    texts = [str(i) for i in range(300)]
    figures = scorecard.stability("ours", vectors, texts, vectors[:, 0] > 0.2, subsets=4)
    pairs = figures["ari_pairs_4_all"]
    assert len(set(pairs)) > 1  # the subsets' cuts differ
    assert figures["ari_a_b"] == pairs[0]
    assert figures["ari_pairs_4_mean"] == round(float(np.mean(pairs)), 3)
    assert figures["ari_pairs_4_lowest"] == min(pairs)
    assert figures["ari_whole_4_lowest"] <= min(figures["ari_whole_a"], figures["ari_whole_b"])


def test_fewer_than_two_subsets_stops_with_one_line(scorecard, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["quality_scorecard.py", "--subsets", "1"])
    with pytest.raises(SystemExit) as stopped:
        scorecard.main()
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith("--subsets needs at least 2: the figures compare two subsets")
