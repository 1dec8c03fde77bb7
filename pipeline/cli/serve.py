"""`topic-explorer serve`: make sure there is a build to show (the sample's, built on first use), then launch.

The dashboard's own launcher (`dashboard.launch`) takes over this process, so the pipeline
never imports the dashboard.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.schema import is_build
from topic_explorer.pipeline.settings import BuildSettings, default_sample_build

LAUNCHER = "topic_explorer.dashboard.launch"


def serve(build: Path | None, *, port: int, host: str, allow_edits: bool = False) -> NoReturn:
    """Start the dashboard on `build`, or on the sample's build, making it first if needed (never returns).

    Editing topics is on for a server on this machine only; `allow_edits` turns it on for any `host`.
    """
    if build is None:
        build = default_sample_build()
        if not is_build(build):
            from topic_explorer.pipeline.cli.summary import build_summary
            from topic_explorer.pipeline.run.build import run_build

            print(f"No sample build yet: building it into {build} first (about a minute) ...", file=sys.stderr)
            print(build_summary(run_build([], build, BuildSettings(), progress=True)))
    read_build(build)  # fail here, in the terminal, rather than in the page
    command = [sys.executable, "-m", LAUNCHER, str(build), "--port", str(port), "--host", host]
    command += ["--allow-edits"] if allow_edits else []
    os.execv(command[0], command)
