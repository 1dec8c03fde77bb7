"""A long build stage is never silent: the stage timer's heartbeat names the running stage while it runs."""

from __future__ import annotations

import logging
import threading

from topic_explorer.pipeline.run.build import still_working
from topic_explorer.pipeline.timing import StageTimer


def test_a_running_stage_beats_with_its_innermost_name_and_stops_with_it():
    beats: list[tuple[str, float]] = []
    heard = threading.Event()

    def record(stage: str, seconds: float) -> None:
        beats.append((stage, seconds))
        heard.set()

    timer = StageTimer(heartbeat=record, every=0.01)
    with timer.stage("fit"), timer.stage("keywords"):
        assert heard.wait(30)  # waits on the beat itself, however slow the machine
    stage, seconds = beats[0]
    assert stage == "keywords"
    assert seconds >= 0
    after = len(beats)
    assert timer.current() is None
    assert not any(t.name == "stage-heartbeat" for t in threading.enumerate())  # stopped, not left running
    assert len(beats) == after


def test_a_timer_without_a_heartbeat_starts_no_thread():
    timer = StageTimer()
    with timer.stage("embed"):
        assert timer.current()[0] == "embed"
        assert not any(t.name == "stage-heartbeat" for t in threading.enumerate())


def test_the_build_says_what_a_long_stage_is_doing(caplog):
    with caplog.at_level(logging.INFO, logger="topic_explorer.pipeline.run.build"):
        still_working("keywords", 25.4)
    assert caplog.messages == ["  ... still finding each topic's keywords and names (25 s)"]


def test_a_stage_counts_the_cpu_time_of_the_worker_processes_it_ran():
    """The clustering's views run in worker processes: a stage's CPU seconds include a child's work, which the
    parent spends waiting (the child spins until its own CPU clock reads half a second)."""
    import subprocess
    import sys

    spin = "import time\nwhile time.process_time() < 0.5:\n    pass"
    timer = StageTimer()
    with timer.stage("cluster"):
        subprocess.run([sys.executable, "-c", spin], check=True)
    assert timer.cpu_seconds["cluster"] >= 0.5
