"""Fixtures for the dashboard's tests: a tiny hand-made build (no model) and a runner for the app."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.tinybuild import tiny_papers, tiny_topics
from topic_explorer.dashboard.logic.data import BUILD_ENV, Explorer, load_explorer
from topic_explorer.pipeline.buildfolder.write import write_build

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


@pytest.fixture(scope="session")
def tiny_build(tmp_path_factory) -> Path:
    """A valid build written by the pipeline's own writer, without running any model."""
    papers = tiny_papers()
    manifest = {
        "created_at": "2026-01-02T03:04:05+00:00",
        "counts": {"papers": len(papers), "topics": 3},
        "quality": {
            "coherence_npmi": 0.05,
            "diversity": 0.9,
            "poorly_fitting_share": 0.0,
            "topics": 3,
            "topic_sizes": {"smallest": 2, "median": 3.0, "largest": 3, "largest_share": 0.375},
        },
    }
    out = tmp_path_factory.mktemp("builds") / "Tiny Build!"
    return write_build(out, papers, tiny_topics(), np.zeros((len(papers), 4), dtype=np.float32), manifest)


@pytest.fixture(scope="session")
def tiny(tiny_build) -> Explorer:
    return load_explorer(tiny_build)


@pytest.fixture
def run_app(monkeypatch) -> Callable[[Path], AppTest]:
    """Start the app on a build, as `topic-explorer serve BUILD` would, and run it once."""

    def run(build: Path) -> AppTest:
        monkeypatch.setenv(BUILD_ENV, str(build))
        return AppTest.from_file(str(APP), default_timeout=60).run()

    return run
