"""A full disk or a folder that cannot be written: one line, exit 2, and the previous build as it was."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest

from tests.pipeline.killing import snapshot
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` made unwritable for real. Root ignores permission bits, so as root the immutable attribute is set
    (chattr +i) instead; the test skips where neither works."""
    as_root = os.geteuid() == 0
    if as_root:
        if not shutil.which("chattr") or subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
            pytest.skip("running as root without chattr +i: no way to make a folder read-only here")
    else:
        folder.chmod(0o555)
    try:
        with pytest.raises(PermissionError):
            (folder / "probe").touch()  # the mechanism works: nothing can be written here
        yield
    finally:
        if as_root:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        else:
            folder.chmod(0o755)


@pytest.fixture
def previous_build(tmp_path, metadata_corpus) -> Path:
    return run_build([metadata_corpus], tmp_path / "builds" / "mine", BuildSettings(embedder="tfidf")).path


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err, err
    return err


def test_a_full_disk_while_writing_is_one_line_and_keeps_the_previous_build(
    previous_build, metadata_corpus, monkeypatch, capsys
):
    before = snapshot(previous_build)

    def disk_full(frame, file, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(file))

    monkeypatch.setattr(pd.DataFrame, "to_parquet", disk_full)  # the topics table, written as the build ends
    code = main(
        ["build", str(metadata_corpus), "--out", str(previous_build), "--embedder", "tfidf", "--seed", "5", "--quiet"]
    )
    assert code == 2
    assert "No space left on device" in one_error_line(capsys)
    assert snapshot(previous_build) == before
    assert [p.name for p in previous_build.parent.iterdir()] == ["mine"]  # no half-written folder beside it


@pytest.mark.parametrize("target", ["a new build", "an existing build"])
def test_a_read_only_out_is_refused_in_one_line_before_any_work(previous_build, metadata_corpus, capsys, target):
    folder = previous_build.parent
    out = folder / ("new" if target == "a new build" else "mine")
    before = snapshot(previous_build)
    with read_only(folder):
        code = main(["build", str(metadata_corpus), "--out", str(out), "--embedder", "tfidf"])
    err = one_error_line(capsys)
    assert code == 2
    assert f"cannot write in {folder}" in err
    assert "with --out" in err
    assert snapshot(previous_build) == before
    assert sorted(p.name for p in folder.iterdir()) == ["mine"]


def test_a_read_only_embedding_cache_is_refused_in_one_line_before_any_work(tmp_path, metadata_corpus, capsys):
    cache = tmp_path / "cache"
    cache.mkdir()
    with read_only(cache):
        code = main(["build", str(metadata_corpus), "--out", str(tmp_path / "b"), "--cache-dir", str(cache)])
    assert code == 2
    assert "with --cache-dir" in one_error_line(capsys)
    assert not (tmp_path / "b").exists()


def test_the_next_build_removes_what_a_killed_writer_left_and_spares_a_running_ones(tmp_path):
    import sys

    import numpy as np

    from tests.dashboard.tinybuild import tiny_papers, tiny_topics
    from topic_explorer.pipeline.buildfolder.write import write_build

    out = tmp_path / "build"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = tmp_path / f".build.partial-{gone.stdout.strip()}-x1"  # its process has ended, as after a kill -9
    running = tmp_path / f".build.partial-{os.getpid()}-x2"  # this process: a build still under way
    for folder in (killed, running):
        folder.mkdir()
        (folder / "papers.parquet").write_bytes(b"half")
    write_build(out, tiny_papers(), tiny_topics(), np.zeros((8, 4), dtype=np.float32), {})
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["build", running.name])
