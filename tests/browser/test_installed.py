"""Installed like a tool (no `-e`, no source tree): `serve` from an unrelated folder keeps the dashboard's settings.

The fast test installs the package with `pip install --target` and puts that folder on PYTHONPATH (the test
environment supplies the dependencies); the slow one builds the wheel and installs it into a fresh virtual
environment, as a user would: `pytest -m slow tests/browser/test_installed.py` (1-2 minutes, ~2 GB of disk).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import wait_for_rerun, wait_until_ready
from tests.browser.harness import ROOT, free_port, running_server, wait_until_healthy
from topic_explorer.dashboard.launch import BUILD_ENV

pytestmark = pytest.mark.browser

SHIPPED = ("pyproject.toml", "README.md", "pipeline", "dashboard", ".streamlit")  # what a wheel is built from
TORCH = "torch==2.13.0"  # the CPU build on local disk; unpinned, pip would fetch a 3 GB CUDA build


def source_copy(folder: Path) -> Path:
    """The files a wheel is built from, copied away from this clone (no .streamlit/, no tests)."""
    folder.mkdir()
    for name in SHIPPED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(source, folder / name)
    return folder


def pip(python: str | Path, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *args], check=True, capture_output=True)


def tables_offer_no_csv_of_their_own(page: Page) -> None:
    """Every table has Streamlit's toolbar (search, fullscreen), and no toolbar has 'Download as CSV'."""
    wait_for_rerun(page)  # the topic list is drawn after the map and the count
    tables = page.locator("[data-testid=stDataFrame]")
    toolbars = page.locator("[data-testid=stDataFrame] [data-testid=stElementToolbar]")
    assert tables.count() >= 2  # the paper table and the topic list at least
    assert toolbars.count() == tables.count()
    assert toolbars.locator('button[aria-label="Search"]').count() == tables.count()
    assert toolbars.locator('button[aria-label="Download as CSV"]').count() == 0


def serve_and_look(browser, build: Path, cli: Path, env: dict[str, str], folder: Path, screenshot: Path) -> None:
    """`cli serve BUILD` started from an unrelated `folder`; one visit in Chromium, then the tables' toolbars."""
    elsewhere = folder / "elsewhere"
    elsewhere.mkdir()
    with (
        (folder / "serve.log").open("w") as log,
        running_server(build, log, cli=(str(cli),), cwd=elsewhere, env=env) as url,
    ):
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(url)
        wait_until_ready(page)
        page.screenshot(path=screenshot)
        tables_offer_no_csv_of_their_own(page)
        context.close()


def test_a_pip_target_install_served_from_another_folder_keeps_the_settings(browser, metadata_build, tmp_path, screens):
    site = tmp_path / "site"
    pip(sys.executable, "--no-deps", "--no-build-isolation", "--target", str(site), str(source_copy(tmp_path / "src")))
    env = {**os.environ, "PYTHONPATH": str(site)}
    probe = "import topic_explorer.dashboard.launch as m, topic_explorer.pipeline.cli.main as c; print(m.SETTINGS, c.__file__)"  # noqa: E501
    where = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert all(Path(path).is_relative_to(site) for path in where), where  # the installed copy, not this clone
    serve_and_look(
        browser, metadata_build, site / "bin" / "topic-explorer", env, tmp_path, screens / "installed-target.png"
    )


def test_streamlit_run_from_the_clone_reads_the_settings_in_dot_streamlit(browser, metadata_build, tmp_path, screens):
    """`.streamlit/config.toml` is the settings' one home: plain `streamlit run dashboard/app.py` from a clone
    (no launcher, no flags) gets them too, so the tables still offer no CSV of their own."""
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", "dashboard/app.py", f"--server.port={port}",
               "--server.address=127.0.0.1"]  # fmt: skip
    env = {**os.environ, BUILD_ENV: str(metadata_build)}
    with (tmp_path / "streamlit.log").open("w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)  # fmt: skip
        try:
            wait_until_healthy(f"http://127.0.0.1:{port}", process, 120)
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"http://127.0.0.1:{port}")
            wait_until_ready(page)
            page.screenshot(path=screens / "streamlit-run-from-clone.png")
            tables_offer_no_csv_of_their_own(page)
            context.close()
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)


@pytest.mark.slow
def test_the_wheel_in_a_fresh_virtual_environment_keeps_the_settings(browser, metadata_build, tmp_path, screens):
    source, dist, venv = source_copy(tmp_path / "src"), tmp_path / "dist", tmp_path / "venv"
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip_wheel, "-w", str(dist), str(source)], check=True, capture_output=True)
    (wheel,) = dist.glob("topic_explorer-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip(venv / "bin" / "python", str(wheel), TORCH)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    serve_and_look(
        browser, metadata_build, venv / "bin" / "topic-explorer", env, tmp_path, screens / "installed-wheel.png"
    )
