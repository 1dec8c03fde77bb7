"""Topic colours dealt by place: topics next to each other on the map get colours far apart, to any eye, from the
same colour-blind-safe palette."""

from __future__ import annotations

import numpy as np
import pytest

from topic_explorer.pipeline.view.palette import CALM_10, OUTLIER_COLOUR, seen_distance, topic_colours


def nearest_pairs(centres: dict[int, tuple[float, float]]) -> list[tuple[int, int]]:
    ids = list(centres)
    points = np.array([centres[t] for t in ids])
    apart = np.linalg.norm(points[:, None] - points[None], axis=2)
    np.fill_diagonal(apart, np.inf)
    return [(ids[i], ids[int(j)]) for i in range(len(ids)) for j in np.argsort(apart[i])[:2]]


def worst_neighbours(colours: dict[int, str], centres: dict[int, tuple[float, float]]) -> float:
    return min(seen_distance(colours[a], colours[b]) for a, b in nearest_pairs(centres))


@pytest.mark.parametrize(("n", "seed"), [(6, 0), (10, 1), (11, 2), (30, 3), (80, 4)])
def test_neighbours_on_the_map_get_colours_far_apart_from_the_same_palette(n, seed):
    centres = {t: tuple(np.random.default_rng(seed).random((n, 2))[t]) for t in range(n)}
    by_place, by_id = topic_colours(range(n), centres), topic_colours(range(n))
    assert sorted(by_place.values()) == sorted(by_id.values())  # the palette kept: only who gets which changes
    assert worst_neighbours(by_place, centres) >= worst_neighbours(by_id, centres)
    mean = np.mean([seen_distance(by_place[a], by_place[b]) for a, b in nearest_pairs(centres)])
    assert mean > np.mean([seen_distance(by_id[a], by_id[b]) for a, b in nearest_pairs(centres)])


def test_a_row_of_ten_topics_never_puts_two_look_alikes_side_by_side():
    centres = {t: (float(t), 0.0) for t in range(10)}
    colours = topic_colours(range(10), centres)
    assert all(seen_distance(colours[t], colours[t + 1]) >= 60 for t in range(9))  # even red-green blind
    assert set(colours.values()) == set(CALM_10)


def test_the_deal_is_deterministic_and_outliers_stay_grey():
    centres = {t: (float(t % 4), float(t // 4)) for t in range(12)}
    first = topic_colours([-1, *range(12)], centres)
    assert first == topic_colours([-1, *range(12)], centres)
    assert first[-1] == OUTLIER_COLOUR


def test_topics_without_a_place_keep_the_palettes_order():
    assert topic_colours(range(3), {0: (0.0, 0.0), 1: (float("nan"), 0.0)}) == topic_colours(range(3))


def test_colour_blind_vision_counts():
    red, green = "#d62728", "#2ca02c"  # far apart to most eyes, close to a deuteranope's
    assert seen_distance(red, green) < 0.5 * np.linalg.norm([0xD6 - 0x2C, 0x27 - 0xA0, 0x28 - 0x2C])
