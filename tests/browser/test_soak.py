"""Several sessions at once, with the build rebuilt under them: the short version of `benchmarks/soak.py`.

The full soak (20 sessions on a 20,000-paper build, against one session as the baseline) is a benchmark:
`python benchmarks/soak.py BUILD --sessions 20`; its figures are in docs/benchmarks.md.
"""

from __future__ import annotations

import pytest

from benchmarks.soak import heading, soak
from topic_explorer.dashboard.logic.data import load_explorer
from topic_explorer.pipeline.buildfolder.read import read_build

pytestmark = pytest.mark.browser
STEP_MS = 4 * 60_000  # 38 papers; a step that waits longer than this on a loaded machine has lost its gesture


def test_three_sessions_filter_select_and_export_while_the_build_is_rebuilt(browser, metadata_build, sample_build):
    # The sessions wait for the new build's heading after the rebuild, which only tells the builds apart if it differs.
    assert heading(load_explorer(metadata_build)) != heading(load_explorer(sample_build))
    run = soak(metadata_build, 3, replace_with=sample_build, step_ms=STEP_MS)
    assert [s.errors for s in run.sessions] == [[], [], []]
    assert all(s.csv_correct for s in run.sessions)
    topics = read_build(sample_build).topics.set_index("label")["size"]
    assert [s.rows_exported for s in run.sessions] == [topics[s.topic] for s in run.sessions]  # the new build's
    assert all(set(s.seconds) == {"load", "reset after rebuild", "filter", "select", "export"} for s in run.sessions)
    runs = [r for r in run.server if r["kind"] == "run"]
    assert len(runs) >= 3 * 4
    assert sum(r["kind"] == "export" for r in run.server) == 3  # every rerun, every CSV
    assert len(run.rss_mb) > 10
    assert run.peak_rss_mb > run.rss_mb[0] + 20  # sampled; loading builds took memory
