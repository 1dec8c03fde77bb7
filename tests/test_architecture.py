"""The folder list is the architecture: the contracts in pyproject.toml's [tool.importlinter] hold."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")  # import-linter's command, beside this Python


def test_no_cycles_the_cli_on_top_the_build_folder_at_the_bottom_and_the_pipeline_never_imports_the_dashboard():
    # A process of its own: import-linter configures logging, which would leave other tests' log capture empty.
    checked = subprocess.run(
        [str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "6 kept, 0 broken" in checked.stdout


def test_every_package_folder_ships_in_the_wheel():
    """pyproject.toml lists the packages by hand (its folders install under `topic_explorer.`): a folder a move
    creates must join the list, or an installed copy fails to import it."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {
        "topic_explorer." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("pipeline", "dashboard")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert folders - listed == set()
