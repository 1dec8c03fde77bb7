"""Benchmark: what a small build costs before any real work, each run in a new process.

    python benchmarks/fixed_overhead.py                          # this checkout
    python benchmarks/fixed_overhead.py --before ../old-checkout # and another, in the same run

Three timings of `topic-explorer build` on the bundled sample, each a new process, median of --runs:
- warm: the embedding cache holds the sample and numba's compiled code is on disk (a rebuild);
- first run on a machine: the same, with numba's cache pointed at an empty folder (compiles anew);
- dashboard: a new process running the app once on the finished build (AppTest), as `serve` does.
With --before, the same builds run from another checkout (e.g. the last commit before a change) in the
same run, so the two are compared on one machine at one time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP_ONCE = """
import os, sys, time
from streamlit.testing.v1 import AppTest
start = time.perf_counter()
AppTest.from_file(os.path.join(sys.argv[1], "dashboard", "app.py"), default_timeout=120).run()
print(time.perf_counter() - start)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, help="another checkout to time the same way, for a before/after")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    checkouts = {"this checkout": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        rows = {}
        for name, checkout in checkouts.items():
            cache = scratch / f"cache-{len(rows)}"
            build = scratch / f"build-{len(rows)}"
            timed_build(checkout, cache, build, {})  # fills the embedding and numba caches
            warm = [timed_build(checkout, cache, build, {}) for _ in range(args.runs)]
            first = [
                timed_build(checkout, cache, build, {"NUMBA_CACHE_DIR": str(scratch / f"numba-{name}-{run}")})
                for run in range(args.runs)
            ]
            page = [timed_page(checkout, build) for _ in range(args.runs)]
            rows[name] = (statistics.median(warm), statistics.median(first), statistics.median(page))
    print("\n| sample build, new process (median s) | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for index, measure in enumerate(
        ("rebuild, warm caches", "first run on a machine (numba compiles)", "dashboard, first run of the app")
    ):
        print(f"| {measure} | " + " | ".join(f"{values[index]:.1f}" for values in rows.values()) + " |")
    return 0


def timed_build(checkout: Path, cache: Path, out: Path, env: dict[str, str]) -> float:
    command = [
        sys.executable,
        "-m",
        "topic_explorer.pipeline.cli",
        "build",
        "--out",
        str(out),
        "--cache-dir",
        str(cache),
        "--quiet",
    ]
    start = time.perf_counter()
    subprocess.run(command, cwd=checkout, env={**os.environ, **env}, check=True)
    return time.perf_counter() - start


def timed_page(checkout: Path, build: Path) -> float:
    """Wall time of a new process that imports the app's stack and runs the page once."""
    env = {**os.environ, "TOPIC_EXPLORER_BUILD": str(build), "PYTHONPATH": str(checkout)}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", APP_ONCE, str(checkout)], cwd=checkout, env=env, check=True, capture_output=True
    )
    return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())
