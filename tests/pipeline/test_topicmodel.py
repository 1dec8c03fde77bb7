"""The fitted model and the per-paper work that apply it: assign and place."""

import numpy as np
import pytest

from topic_explorer.pipeline.buildfolder.model import TopicModel, assign, closeness_to_centre
from topic_explorer.pipeline.map.place import MapLayout, place


def unit(rows):
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def model():
    vectors = unit([[1, 0.1, 0], [1, -0.1, 0], [1, 0, 0.1], [0, 1, 0.1], [0, 1, -0.1], [0.1, 1, 0]])
    labels = np.array([3, 3, 3, 5, 5, -1])  # the last paper was left out by the clustering
    return TopicModel.fit(vectors, labels)


def test_centres_come_from_each_topics_own_papers(model):
    assert model.topic_ids.tolist() == [3, 5]
    np.testing.assert_allclose(np.linalg.norm(model.centres, axis=1), 1.0, rtol=1e-6)
    assert model.centres[0][0] > 0.99
    assert model.centres[1][1] > 0.99
    assert (model.poor_fit_below > 0.9).all()
    assert (model.poor_fit_below <= 1).all()


def test_a_paper_joins_the_topic_whose_centre_is_closest(model):
    result = assign(unit([[0.9, 0.1, 0], [0.1, 0.9, 0]]), model)
    assert result.topic_id.tolist() == [3, 5]
    assert ((result.confidence > 0.9) & (result.confidence <= 1)).all()


def test_a_paper_far_from_every_topic_is_flagged_but_still_assigned(model):
    result = assign(unit([[0.6, 0.6, 0.5], [1, 0, 0]]), model)
    assert result.fits_poorly.tolist() == [True, False]
    assert result.topic_id[0] in (3, 5)


def test_confidence_is_closeness_to_the_papers_own_topic_and_zero_in_topic_minus_one(model):
    vectors = unit([[1, 0, 0], [0, 1, 0], [1, 0, 0]])
    confidence = closeness_to_centre(vectors, np.array([3, 3, -1]), model)
    assert confidence[0] > 0.99
    assert confidence[1] < 0.2
    assert confidence[2] == 0


def test_a_repeated_fit_paper_lands_on_its_own_position_and_a_mixed_one_between():
    reference = unit([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    layout = MapLayout(reference, np.array([[0.1, 0.1], [0.9, 0.9], [0.1, 0.9]], dtype=np.float32))
    placed = place(unit([[1, 0, 0], [1, 1, 0]]), layout)
    np.testing.assert_allclose(placed[0], [0.1, 0.1], atol=1e-3)
    np.testing.assert_allclose(placed[1], [0.5, 0.5], atol=1e-3)
    assert place(np.zeros((0, 3), dtype=np.float32), layout).shape == (0, 2)


def test_a_batch_larger_than_one_placing_step_lands_where_each_paper_alone_would():
    from topic_explorer.pipeline.map.place import PLACE_ROWS

    rng = np.random.default_rng(0)
    layout = MapLayout(unit(rng.normal(size=(300, 8))), rng.normal(size=(300, 2)).astype(np.float32))
    batch = unit(rng.normal(size=(PLACE_ROWS * 2 + 5, 8)))
    together = place(batch, layout)
    alone = np.concatenate([place(batch[i : i + 1], layout) for i in range(len(batch))])
    assert together.shape == (len(batch), 2)
    np.testing.assert_allclose(together, alone, atol=1e-5)  # float32 sums in another order
