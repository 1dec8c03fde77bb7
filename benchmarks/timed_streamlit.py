"""Streamlit with the server's own work timed: `python benchmarks/timed_streamlit.py LOG run APP [FLAGS...]`.

Every script run (a page load or rerun, fragment reruns included) and every deferred download (the CSV export,
built on the server when the button is clicked) appends one JSON line to LOG: its kind, session, wall-clock
seconds and CPU seconds of the thread that did the work. The wall time includes waiting for the GIL while other
sessions run; the CPU time does not. Browser time (network, drawing) is in neither.
"""

from __future__ import annotations

import functools
import json
import sys
import threading
import time

from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
from streamlit.web import cli

_lock = threading.Lock()


def timed(kind: str, log: str, method):
    """`method`, writing one line to `log` per call."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return method(self, *args, **kwargs)
        finally:
            record = {
                "kind": kind,
                "session": getattr(self, "_session_id", None),
                "fragment": bool(kind == "run" and args and args[0].fragment_id_queue),
                "wall": time.perf_counter() - wall,
                "cpu": time.thread_time() - cpu,
                "at": time.time(),
            }
            with _lock, open(log, "a", encoding="utf-8") as file:
                file.write(json.dumps(record) + "\n")

    return wrapper


def main() -> None:
    log = sys.argv[1]
    ScriptRunner._run_script = timed("run", log, ScriptRunner._run_script)
    MediaFileManager.execute_deferred = timed("export", log, MediaFileManager.execute_deferred)
    sys.argv = ["streamlit", *sys.argv[2:]]
    cli.main()


if __name__ == "__main__":
    main()
