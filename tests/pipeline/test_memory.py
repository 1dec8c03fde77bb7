"""Freed memory goes back to the operating system (`pipeline.memory`), so that the clustering's worker processes
do not run beside a build holding hundreds of MiB it no longer uses."""

from __future__ import annotations

import ctypes
import os
import platform
import subprocess
import sys

import psutil
import pytest

from topic_explorer.pipeline.memory import release_freed_memory

BLOCKS, BLOCK_BYTES = 100_000, 1024  # 100 MB in small blocks, as igraph and leidenalg allocate


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="only glibc keeps freed pages and can trim them")
def test_freed_small_blocks_leave_the_process() -> None:
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = [libc.malloc(BLOCK_BYTES) for _ in range(BLOCKS)]
    for block in blocks:
        ctypes.memset(block, 1, BLOCK_BYTES)  # resident, not just reserved
    last = blocks.pop()  # still in use at the top of the heap: glibc cannot give back the freed pages below it
    for block in blocks:
        libc.free(block)
    held = psutil.Process().memory_info().rss
    release_freed_memory()
    returned = held - psutil.Process().memory_info().rss
    libc.free(last)
    assert returned > 0.8 * BLOCKS * BLOCK_BYTES


LEAN_COMMANDS = """
import sys
from topic_explorer.pipeline.fit.lean_bertopic import import_bertopic
import_bertopic()  # first, with nothing imported: BERTopic's own imports (scipy, sklearn, umap) run without torch
from topic_explorer.pipeline.cli.main import main
build, more = sys.argv[1], sys.argv[2]
assert main(["build", "--embedder", "tfidf", "--out", build, "--quiet"]) == 0
assert main(["add", build, more, "--quiet"]) == 0
loaded = sorted(name for name in ("torch", "transformers", "sentence_transformers") if name in sys.modules)
import sentence_transformers  # kept out of BERTopic's import only: still there for a MiniLM embedder
print(",".join(loaded) or "none")
"""


def test_a_tfidf_build_and_add_never_load_torch(tmp_path, metadata_corpus) -> None:
    """BERTopic's import would load torch and transformers (about 280 MiB) for backends the pipeline never calls;
    a TF-IDF build and `add` load neither (`cli.lean_bertopic`), and they stay importable."""
    run = subprocess.run(
        [sys.executable, "-c", LEAN_COMMANDS, str(tmp_path / "build"), str(metadata_corpus)],
        capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "none"
