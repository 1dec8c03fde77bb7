"""The one atomic write: a file whole or as it was, whoever writes it (the edits file, `topic-explorer export`)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.dashboard.tinybuild import tiny_papers, tiny_topics
from topic_explorer.pipeline.buildfolder import atomic, edits
from topic_explorer.pipeline.buildfolder.atomic import write_atomically
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.cli.main import main


def interrupted_fsync(_):
    raise KeyboardInterrupt  # as if the user pressed Ctrl+C with the new bytes half on disk


def test_a_write_replaces_the_file_whole_readable_by_others(tmp_path):
    path = tmp_path / "out.csv"
    path.write_bytes(b"old")
    write_atomically(path, b"new")
    assert path.read_bytes() == b"new"
    assert path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_an_interrupted_edit_and_an_interrupted_export_leave_their_files_as_they_were(tmp_path, monkeypatch, capsys):
    papers = tiny_papers()
    folder = write_build(tmp_path / "tiny", papers, tiny_topics(), np.zeros((len(papers), 2), np.float32), {})
    edits.add_edit(folder, edits.rename(1, "First name"), by="a test")
    out = tmp_path / "papers.csv"
    out.write_bytes(b"an earlier export")
    before = {p: p.read_bytes() for p in [folder / edits.EDITS_FILE, out]}
    listed = {folder: sorted(folder.iterdir()), tmp_path: sorted(tmp_path.iterdir())}
    monkeypatch.setattr(atomic.os, "fsync", interrupted_fsync)
    with pytest.raises(KeyboardInterrupt):
        edits.add_edit(folder, edits.rename(1, "Second name"), by="a test")
    assert main(["export", str(folder), "--out", str(out)]) == 130
    assert capsys.readouterr().err == "interrupted: nothing was written\n"
    assert {p: p.read_bytes() for p in before} == before
    assert {place: sorted(place.iterdir()) for place in listed} == listed  # no temporary file left
