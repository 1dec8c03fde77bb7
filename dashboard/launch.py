"""Start the Streamlit server on a build with the dashboard's settings, however the package was installed.

`python -m topic_explorer.dashboard.launch BUILD --port P --host H [--allow-edits]` (what `topic-explorer serve`
runs). The settings' one home is the repository's `.streamlit/config.toml`, which `streamlit run dashboard/app.py` reads
from a clone and which installs as package data; they are passed as flags, which Streamlit ranks above any
config file, so an installed copy run from any folder behaves as a clone does.
"""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import os
import socket
import sys
import tomllib
from pathlib import Path
from typing import NoReturn

APP = Path(__file__).resolve().with_name("app.py")
SETTINGS_PACKAGE = "topic_explorer.streamlit_config"  # `.streamlit/`, installed as a data-only package


def _settings_file() -> Path:
    """`.streamlit/config.toml`: in the clone (editable install) or in site-packages (any other install)."""
    spec = importlib.util.find_spec(SETTINGS_PACKAGE)
    found = [Path(f) / "config.toml" for f in (spec.submodule_search_locations if spec else [])]
    return next(f for f in found if f.is_file())


SETTINGS = _settings_file()
BUILD_ENV = "TOPIC_EXPLORER_BUILD"
ALLOW_EDITS_ENV = "TOPIC_EXPLORER_ALLOW_EDITS"  # "1": topics can be edited on any address (`serve --allow-edits`)
SERVED_BY_FLAGS = ("server.address", "server.port")  # passed as their own flags: not from the settings file


def streamlit_flags() -> list[str]:
    """Every setting of `.streamlit/config.toml` as a `--section.key=value` flag (TOML spelling of values)."""
    settings = tomllib.loads(SETTINGS.read_text(encoding="utf-8"))
    return [
        f"--{section}.{key}={_toml_value(value)}"
        for section, values in settings.items()
        for key, value in values.items()
        if f"{section}.{key}" not in SERVED_BY_FLAGS
    ]


def _toml_value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def streamlit_command(*, port: int, host: str) -> list[str]:
    """The command line that starts Streamlit on the dashboard (the build comes through `BUILD_ENV`)."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        *streamlit_flags(),
        f"--server.port={port}",
        f"--server.address={host}",
    ]


def is_loopback(host: str) -> bool:
    """True when every address `host` resolves to is this machine's own (localhost, 127.x, ::1)."""
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (socket.gaierror, UnicodeError):
        return False
    return bool(addresses) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses)


def exposure_warning(host: str, port: int, allow_edits: bool = False) -> str | None:
    """One line for a server other machines can reach: what anyone there can do (there is no login)."""
    if is_loopback(host):
        return None
    if allow_edits:
        allowed = (
            "can read and export every paper in the build and rename, merge and move its topics for everyone "
            "(--allow-edits; there is no login)"
        )
    else:
        allowed = (
            "can read and export every paper in the build (there is no login); editing topics is off "
            "(--allow-edits turns it on)"
        )
    keep = "use --host localhost to keep it to this machine"
    return f"warning: listening on {host}, port {port}: anyone who can reach this port {allowed}; {keep}"


def launch(build: Path, *, port: int, host: str, allow_edits: bool = False) -> NoReturn:
    """Replace this process with the Streamlit server on `build` (so signals reach the server itself)."""
    warning = exposure_warning(host, port, allow_edits)
    if warning:
        print(warning, file=sys.stderr)
    env = {**os.environ, BUILD_ENV: str(Path(build).resolve()), ALLOW_EDITS_ENV: "1" if allow_edits else "0"}
    print(f"Topic Explorer: http://{host}:{port}  (Ctrl+C to stop)", file=sys.stderr, flush=True)
    command = streamlit_command(port=port, host=host)
    os.execve(command[0], command, env)


def main(argv: list[str] | None = None) -> NoReturn:
    parser = argparse.ArgumentParser(prog="python -m topic_explorer.dashboard.launch", description=__doc__)
    parser.add_argument("build", type=Path)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--allow-edits", action="store_true")
    args = parser.parse_args(argv)
    launch(args.build, port=args.port, host=args.host, allow_edits=args.allow_edits)


if __name__ == "__main__":
    main()
