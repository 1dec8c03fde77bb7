"""`topic-explorer serve`: make sure there is a build to show (the sample's, built on first use), then launch."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

from dashboard.launch import launch
from pipeline.buildfolder import is_build, read_build
from pipeline.settings import BuildSettings, default_sample_build


def serve(build: Path | None, *, port: int, host: str) -> NoReturn:
    """Start the dashboard on `build`, or on the sample's build, making it first if needed (never returns)."""
    if build is None:
        build = default_sample_build()
        if not is_build(build):
            from pipeline.build import run_build
            from pipeline.summary import build_summary

            print(f"No sample build yet: building it into {build} first (about a minute) ...", file=sys.stderr)
            print(build_summary(run_build([], build, BuildSettings(), progress=True)))
    read_build(build)  # fail here, in the terminal, rather than in the page
    launch(build, port=port, host=host)
