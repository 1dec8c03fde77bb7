"""The command line and a closed pipe: `topic-explorer evaluate BUILD --json | head` ends quietly, and a machine
problem names the remedy that fits it (a closed pipe is not a full disk)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.dashboard.tinybuild import tiny_papers, tiny_topics
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.cli.main import os_problem


def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path):
    papers = tiny_papers()
    build = write_build(tmp_path / "b", papers, tiny_topics(), np.zeros((len(papers), 4), "float32"), {})
    read, write = os.pipe()
    os.close(read)  # like `| head` that has already exited: every write meets a closed pipe
    try:
        done = subprocess.run(
            [sys.executable, "-m", "topic_explorer.pipeline.cli", "evaluate", str(build), "--json"],
            stdout=write,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    finally:
        os.close(write)
    assert done.stderr.decode() == ""  # no "Broken pipe; free some disk space", no traceback
    assert done.returncode == 0


@pytest.mark.parametrize(
    ("code", "remedy"),
    [
        (errno.ENOSPC, "free some disk space"),
        (errno.EACCES, "choose a folder you can write to"),
        (errno.EROFS, "not read-only"),
        (errno.ENOENT, "check the path"),
    ],
)
def test_a_machine_problem_names_the_remedy_that_fits(code, remedy):
    problem = os_problem(OSError(code, os.strerror(code), "/data/out"))
    assert problem.startswith(f"could not use /data/out: {os.strerror(code)}; ")
    assert remedy in problem
