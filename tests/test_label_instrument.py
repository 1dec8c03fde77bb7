"""The label instrument's ceiling (benchmarks/label_instrument.py, `name_ceiling`) says how far names drawn from a
build's own words could score: it must take only what the naming rules accept, and a theme's topics' names."""

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
AXES = {"spins": 0, "Physics of spins": 0, "data": 0, "Data science": 0, "Robots": 1, "Robotics": 1}


@pytest.fixture
def instrument(monkeypatch):
    """The benchmark script as a module (benchmarks/ is a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("label_instrument", ROOT / "benchmarks" / "label_instrument.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


def embed(texts: list[str]) -> np.ndarray:
    """One unit axis per meaning: a name and a category on the same axis have cosine 1, on different axes 0."""
    return np.eye(3)[[AXES.get(text, 2) for text in texts]]


def test_the_ceiling_takes_the_best_name_the_rules_accept_and_a_theme_s_topic_names(instrument):
    abstracts = ["Data about spins."] * 5 + ["Data about robots."] * 5 + ["Cooking tastes good."] * 20
    build = SimpleNamespace(
        papers=pd.DataFrame({"topic_id": [0] * 5 + [1] * 5 + [2] * 20, "abstract": abstracts}),
        topics=pd.DataFrame(
            {"topic_id": [0, 1, 2], "label": ["Magnetism", "Robots", "Cooking"], "keywords": [["spins"], ["data"], []]}
        ),
        hierarchy=pd.DataFrame({"level": [0], "group_id": [0], "topic_ids": [[0, 1]], "keywords": [["data"]]}),
    )
    table = pd.DataFrame(
        {
            "level": ["topics", "topics", "themes 0"],
            "group": [0, 1, 0],
            "label": ["Magnetism", "Robots", "Spins and robots"],
            "references": [["Physics of spins"], ["Data science"], ["Robotics"]],
        }
    )
    ceiling = instrument.name_ceiling(build, table, embed, {})
    assert ceiling[0] == pytest.approx(1.0)  # "spins", a keyword that can name the topic, matches its category
    assert ceiling[1] == pytest.approx(0.0)  # "data" would match, but a third of the papers write it: no name
    assert ceiling[2] == pytest.approx(1.0)  # the theme's topic "Robots" matches its category
