"""`topic-explorer serve`: which build it opens, how it starts Streamlit, and what it says about the network."""

import sys

import pytest

from topic_explorer.dashboard import launch as launch_module
from topic_explorer.pipeline.buildfolder.schema import is_build
from topic_explorer.pipeline.cli import serve as serve_module
from topic_explorer.pipeline.cli.serve import serve
from topic_explorer.pipeline.errors import UserError


class Exec:
    """Records the command `serve` would become instead of replacing the test process."""

    def __call__(self, path, argv, env):
        self.path, self.argv, self.env = path, argv, env


@pytest.fixture
def started(monkeypatch) -> Exec:
    """`serve` becomes the launcher, which becomes Streamlit: the first runs here, the second is recorded."""
    recorder = Exec()
    monkeypatch.setattr(launch_module.os, "execve", recorder)

    def become_launcher(path, argv):
        assert path == sys.executable
        assert argv[1:3] == ["-m", serve_module.LAUNCHER]
        launch_module.main(argv[3:])

    monkeypatch.setattr(serve_module.os, "execv", become_launcher)
    return recorder


def test_serve_starts_streamlit_on_the_app_with_the_build_and_the_dashboards_settings(metadata_build, started):
    serve(metadata_build, port=8765, host="127.0.0.1")
    assert started.path == sys.executable
    assert started.argv[1:4] == ["-m", "streamlit", "run"]
    assert started.argv[4] == str(launch_module.APP)
    assert "--server.port=8765" in started.argv
    assert "--server.address=127.0.0.1" in started.argv
    for flag in ("--client.disableDataExport=true", "--server.enableXsrfProtection=true", "--server.enableCORS=true"):
        assert flag in started.argv  # from .streamlit/config.toml, whatever the working folder
    assert "--browser.gatherUsageStats=false" in started.argv
    assert started.env[launch_module.BUILD_ENV] == str(metadata_build.resolve())


def test_the_settings_file_is_read_not_copied(monkeypatch, tmp_path):
    settings = tmp_path / "config.toml"
    settings.write_text('[client]\ndisableDataExport = false\n[theme]\nbase = "dark"\n')
    monkeypatch.setattr(launch_module, "SETTINGS", settings)
    assert launch_module.streamlit_flags() == ["--client.disableDataExport=false", "--theme.base=dark"]


def test_serve_refuses_a_folder_that_is_not_a_build(tmp_path, started):
    with pytest.raises(UserError, match="topic-explorer build"):
        serve(tmp_path / "nothing-here", port=8765, host="127.0.0.1")
    assert not hasattr(started, "argv")


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "127.0.1.1", "::1"])
def test_a_loopback_address_gets_no_warning(metadata_build, started, capsys, host):
    serve(metadata_build, port=8765, host=host)
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "no-such-host.invalid"])
def test_any_other_address_gets_a_one_line_warning_that_anyone_can_read_the_papers(
    metadata_build, started, capsys, host
):
    serve(metadata_build, port=8765, host=host)
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert f"listening on {host}, port 8765" in warnings[0]
    assert "anyone who can reach this port" in warnings[0]
    assert "--host localhost" in warnings[0]
    assert f"--server.address={host}" in started.argv


@pytest.mark.model
def test_serve_without_a_build_builds_the_sample_first(tmp_path, monkeypatch, capsys, started):
    monkeypatch.setenv("TOPIC_EXPLORER_CACHE", str(tmp_path))
    serve(None, port=8765, host="127.0.0.1")
    assert is_build(tmp_path / "sample-build")
    assert started.env[launch_module.BUILD_ENV] == str((tmp_path / "sample-build").resolve())
    assert "Built 38 papers" in capsys.readouterr().out


def test_on_another_address_the_warning_says_reading_is_open_and_editing_is_off(metadata_build, started, capsys):
    serve(metadata_build, port=8765, host="0.0.0.0")
    warning = capsys.readouterr().err.splitlines()[0]
    assert "read and export every paper" in warning
    assert "editing topics is off (--allow-edits turns it on)" in warning
    assert started.env[launch_module.ALLOW_EDITS_ENV] == "0"


def test_allow_edits_reaches_the_app_and_the_warning_says_anyone_can_edit(metadata_build, started, capsys):
    serve(metadata_build, port=8765, host="0.0.0.0", allow_edits=True)
    warning = capsys.readouterr().err.splitlines()[0]
    assert "rename, merge and move its topics for everyone" in warning
    assert started.env[launch_module.ALLOW_EDITS_ENV] == "1"


def test_the_address_comes_from_serve_not_from_the_settings_file(metadata_build, started):
    serve(metadata_build, port=8765, host="0.0.0.0")
    assert [flag for flag in started.argv if flag.startswith("--server.address")] == ["--server.address=0.0.0.0"]
