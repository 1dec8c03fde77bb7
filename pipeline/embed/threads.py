"""The one limiter of torch's thread count, shared by every caller: MiniLM's pool of batches and a search's query.

torch keeps the count per thread, and a thread's first torch call copies the count last set anywhere. So a
limit set in one thread leaks to any thread that starts its torch work meanwhile, which then "restores" the
lowered count: concurrent dashboard searches could leave torch on one thread for good. Callers here take
turns under one lock (reentrant: a search's query goes on into MiniLM's own limit), and each restores the
count its own thread had before anyone else sets one.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_TURNS = threading.RLock()


@contextmanager
def torch_threads(count: int) -> Iterator[int]:
    """At most `count` torch threads in this thread meanwhile; gives the count it had (the cores torch would use).

    Does nothing when torch is not loaded (a TF-IDF build's search needs none): it gives `count` then.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        yield count
        return
    with _TURNS:
        before = torch.get_num_threads()
        torch.set_num_threads(min(count, before))
        try:
            yield before
        finally:
            torch.set_num_threads(before)
