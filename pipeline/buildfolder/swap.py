"""Put a finished folder in place of an existing one, so readers never see a half-written state.

On Linux one atomic rename exchanges the two folders, so a reader (or a kill -9) never finds the
destination missing; elsewhere the previous folder is moved aside first, leaving a moment without one.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import sys
import uuid
from pathlib import Path


def replace_folder(staging: Path, out: Path) -> None:
    """Move `staging` to `out`, replacing (then deleting) whatever was there; on failure `out` is as it was."""
    previous = None
    try:
        if out.exists():
            previous = _swap(staging, out)
        else:
            staging.rename(out)
    except BaseException:
        if previous is not None and not out.exists():
            previous.rename(out)
        raise
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)


def _swap(staging: Path, out: Path) -> Path:
    """Put `staging` at `out`; returns where the previous folder went."""
    if _exchange(staging, out):
        return staging
    previous = out.with_name(f".{out.name}.previous-{uuid.uuid4().hex[:8]}")
    out.rename(previous)
    staging.rename(out)
    return previous


def _exchange(a: Path, b: Path) -> bool:
    """renameat2(RENAME_EXCHANGE): swap two paths in one step. False where the system or file system lacks it."""
    if sys.platform != "linux":
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_cwd, rename_exchange = -100, 2
    if renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), rename_exchange) == 0:
        return True
    error = ctypes.get_errno()
    if error in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(error, os.strerror(error), str(b))
