"""The folder list is the architecture: the contracts in pyproject.toml's [tool.importlinter] hold."""

from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def test_no_cycles_the_cli_on_top_the_build_folder_at_the_bottom_and_the_pipeline_never_imports_the_dashboard(
    monkeypatch,
):
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0
