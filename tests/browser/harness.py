"""The real server and Chromium's settings, shared by the browser tests and `benchmarks/dashboard_speed.py`."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("TOPIC_EXPLORER_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


CLONE_CLI = (sys.executable, "-m", "topic_explorer.pipeline.cli")  # `topic-explorer` as run from this clone


@contextmanager
def running_server(
    build: Path,
    log: IO[str],
    timeout: float = 120,
    *,
    cli: tuple[str, ...] = CLONE_CLI,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
    host: str = "127.0.0.1",
    options: tuple[str, ...] = (),
) -> Iterator[str]:
    """`topic-explorer serve BUILD` on a free port, as a user starts it; yields its URL once healthy.

    `cli`, `cwd` and `env` say which copy of the command runs, and from where (an installed one, say); `host`
    is the address it listens on (reached through 127.0.0.1 either way) and `options` are more of serve's own.
    The server runs in a session of its own, so the Streamlit process that `serve` becomes is stopped with it.
    """
    with serving(build, log, timeout, cli=cli, cwd=cwd, env=env, host=host, options=options) as (url, _):
        yield url


@contextmanager
def serving(
    build: Path,
    log: IO[str],
    timeout: float = 120,
    *,
    cli: tuple[str, ...] = CLONE_CLI,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
    host: str = "127.0.0.1",
    options: tuple[str, ...] = (),
) -> Iterator[tuple[str, int]]:
    """As `running_server`, yielding the URL and the server's process id (`serve` becomes the Streamlit process)."""
    port = free_port()
    command = [*cli, "serve", str(build), "--port", str(port), "--host", host, *options]
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, process, timeout)
        yield url, process.pid
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_healthy(url: str, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().decode().strip() == "ok":
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise TimeoutError(f"the server at {url} was not healthy after {timeout:.0f} s")


def offline_context(browser, viewport: dict[str, int]):
    """A browser context that may open files only: every other request is refused and recorded.

    Returns the context and the list the refused addresses are appended to (an offline page must leave it empty).
    """
    context = browser.new_context(viewport=viewport)
    attempted: list[str] = []

    def only_files(route) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            attempted.append(route.request.url)
            route.abort()

    context.route("**/*", only_files)
    return context, attempted
