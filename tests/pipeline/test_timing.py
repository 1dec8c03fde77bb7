"""The stage timer hands memory a stage freed back to the system at the stage's end."""

from __future__ import annotations

import ctypes
import sys

import pytest

from topic_explorer.pipeline.timing import StageTimer

LIBC = ctypes.CDLL(None) if sys.platform.startswith("linux") else None
GLIBC = LIBC is not None and hasattr(LIBC, "malloc_trim")


def resident_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


@pytest.mark.skipif(not GLIBC, reason="malloc_trim is glibc's")
def test_memory_a_stage_freed_is_resident_no_more_after_the_stage():
    """Blocks freed between blocks still in use stay resident (glibc returns only its heap's top by itself)."""
    LIBC.malloc.restype = ctypes.c_void_p
    LIBC.free.argtypes = [ctypes.c_void_p]
    block = 64 * 1024  # below glibc's threshold for mapping a block afresh: from the heap
    with StageTimer().stage("made and freed"):
        blocks = [LIBC.malloc(block) for _ in range(4_000)]  # 256 MB
        for address in blocks:
            ctypes.memset(address, 1, block)  # resident
        freed, kept = blocks[::2], blocks[1::2]  # every other one: 128 MB of holes
        for address in freed:
            LIBC.free(address)
        left = resident_mb()
    try:
        assert resident_mb() < left - 100
    finally:
        for address in kept:
            LIBC.free(address)
