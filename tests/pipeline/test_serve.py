"""`topic-explorer serve`: which build it opens and how it starts Streamlit."""

import sys

import pytest

from pipeline import serve as serve_module
from pipeline.buildfolder import is_build
from pipeline.errors import UserError


class Exec:
    """Records the command `serve` would become instead of replacing the test process."""

    def __call__(self, path, argv, env):
        self.path, self.argv, self.env = path, argv, env


def test_serve_starts_streamlit_on_the_app_with_the_build_and_project_config(metadata_build, monkeypatch):
    started = Exec()
    monkeypatch.setattr(serve_module.os, "execve", started)
    serve_module.serve(metadata_build, port=8765, host="127.0.0.1")
    assert started.path == sys.executable
    assert started.argv[1:4] == ["-m", "streamlit", "run"] and started.argv[4].endswith("dashboard/app.py")
    assert "--server.port=8765" in started.argv and "--server.address=127.0.0.1" in started.argv
    assert "--browser.gatherUsageStats=False" in started.argv  # from .streamlit/config.toml
    assert started.env[serve_module.BUILD_ENV] == str(metadata_build.resolve())


def test_serve_refuses_a_folder_that_is_not_a_build(tmp_path, monkeypatch):
    monkeypatch.setattr(serve_module.os, "execve", Exec())
    with pytest.raises(UserError, match="topic-explorer build"):
        serve_module.serve(tmp_path / "nothing-here", port=8765, host="127.0.0.1")


@pytest.mark.model
def test_serve_without_a_build_builds_the_sample_first(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TOPIC_EXPLORER_CACHE", str(tmp_path))
    started = Exec()
    monkeypatch.setattr(serve_module.os, "execve", started)
    serve_module.serve(None, port=8765, host="127.0.0.1")
    assert is_build(tmp_path / "sample-build")
    assert started.env[serve_module.BUILD_ENV] == str((tmp_path / "sample-build").resolve())
    assert "Built 38 papers" in capsys.readouterr().out
