"""Freed memory handed back to the operating system where the clustering's view workers run beside the build.

glibc keeps what a process frees for its own next allocations. Leiden's runs (igraph's edges, leidenalg's per-node
vectors: many small blocks) left a process on a 45,000-paper view holding 396 MiB with 184 in use, and the build
held what its own Leiden runs freed while its two workers ran beside it. `malloc_trim(0)` returns those pages, as
Dask's workers do. Measured at 100,000 papers (docs/benchmarks.md): the build with its workers 2,944 -> 2,588 MiB
proportional, its cluster stage's own peak 2,086 -> 1,973, the same topics (every label of its 50,000-paper fit
sample). Trimming at every stage's end was measured before and taken out: a process's own peak did not fall, as most
of what it holds then is in use. Other C libraries (macOS, musl) have no such call.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


def release_freed_memory() -> None:
    """Give the pages this process has freed back to the operating system (glibc only; elsewhere nothing)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
