"""`topic-explorer serve`: start the Streamlit dashboard on a build."""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path
from typing import NoReturn

from pipeline.buildfolder import is_build, read_build
from pipeline.settings import BuildSettings, default_cache_dir

APP = Path(__file__).resolve().parent.parent / "dashboard" / "app.py"
CONFIG = Path(__file__).resolve().parent.parent / ".streamlit" / "config.toml"
BUILD_ENV = "TOPIC_EXPLORER_BUILD"


def default_sample_build() -> Path:
    """Where the sample's build lives when `serve` is given no build."""
    return default_cache_dir() / "sample-build"


def serve(build: Path | None, *, port: int, host: str) -> NoReturn:
    """Replace this process with the Streamlit server on `build` (never returns once started)."""
    if build is None:
        build = default_sample_build()
        if not is_build(build):
            from pipeline.build import run_build
            from pipeline.summary import build_summary

            print(f"No sample build yet: building it into {build} first (about a minute) ...", file=sys.stderr)
            print(build_summary(run_build([], build, BuildSettings(), progress=True)))
    read_build(build)  # fail here, in the terminal, rather than in the page
    command = [sys.executable, "-m", "streamlit", "run", str(APP), *config_flags(), f"--server.port={port}"]
    command.append(f"--server.address={host}")
    env = {**os.environ, BUILD_ENV: str(Path(build).resolve())}
    print(f"Topic Explorer: http://{host}:{port}  (Ctrl+C to stop)", file=sys.stderr, flush=True)
    os.execve(sys.executable, command, env)  # become Streamlit, so signals reach the server itself


def config_flags() -> list[str]:
    """The project's .streamlit/config.toml as flags, so it applies whatever the working folder."""
    if not CONFIG.is_file():
        return []
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    return [f"--{section}.{key}={value}" for section, values in config.items() for key, value in values.items()]
