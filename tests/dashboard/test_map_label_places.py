"""A topic's map label sits among its own papers, never among another topic's (issue 30: "Low-rank" was labelled
among the federated papers, where its scattered papers' median fell)."""

from __future__ import annotations

import numpy as np

from topic_explorer.dashboard.logic.maplabels import label_candidates

EXTENT = ((0.0, 1.0), (0.0, 1.0))
# The tiny build's topics by row: 0, 0, 1, 1, 2, 2, 0, 1. Topic 0 sits around topic 1: its median is topic 1's spot.
X = np.array([0.1, 0.9, 0.5, 0.52, 0.2, 0.22, 0.5, 0.48])
Y = np.array([0.5, 0.5, 0.5, 0.52, 0.9, 0.92, 0.1, 0.48])


def nearest_topic(tiny, label: dict) -> int:
    return int(tiny.papers["topic_id"].iat[int(np.argmin((X - label["x"]) ** 2 + (Y - label["y"]) ** 2))])


def test_a_topic_around_another_is_labelled_among_its_own_papers(tiny):
    labels = label_candidates(tiny.levels, len(tiny.levels) - 1, np.ones(8, bool), X, Y, EXTENT)
    by_text = {label["t"]: label for label in labels}
    own = by_text["Federated, privacy"]
    assert (own["x"], own["y"]) != (0.5, 0.5)  # its median: topic 1's papers
    assert nearest_topic(tiny, own) == 0
    assert all(nearest_topic(tiny, by_text[t]) == topic for t, topic in (("Graphs", 1), ("Rewards", 2)))


def test_a_label_follows_its_shown_papers(tiny):
    shown = np.array([True, False, True, True, True, True, False, True])  # topic 0: only its paper at the left
    labels = label_candidates(tiny.levels, len(tiny.levels) - 1, shown, X, Y, EXTENT)
    own = next(label for label in labels if label["t"] == "Federated, privacy")
    assert (own["x"], own["y"]) == (0.1, 0.5)
