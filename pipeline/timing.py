"""Wall-clock time per pipeline stage, for the CLI summary, the manifest and benchmarks."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class StageTimer:
    """Accumulates seconds per named stage.

    Stages nest: time spent in an inner stage counts for it alone, not also for the stage
    around it, so the stages add up to the total.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._inner: list[float] = []  # per open stage: seconds spent in stages inside it

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        self._inner.append(0.0)
        try:
            yield
        finally:
            elapsed = time.perf_counter() - start
            inner = self._inner.pop()
            if self._inner:
                self._inner[-1] += elapsed
            self.seconds[name] = self.seconds.get(name, 0.0) + elapsed - inner

    def watch(self, model: Any, name: str) -> Any:
        """Time a model's fit/transform calls as stage `name`, e.g. UMAP inside BERTopic.

        A call made from another watched call of the same model (fit inside fit_transform)
        is counted once.
        """
        busy = [False]
        for method_name in ("fit", "fit_transform", "transform"):
            method = getattr(model, method_name, None)
            if callable(method):
                setattr(model, method_name, self._timed(method, name, busy))
        return model

    def _timed(self, method: Any, name: str, busy: list[bool]) -> Any:
        @functools.wraps(method)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if busy[0]:
                return method(*args, **kwargs)
            busy[0] = True
            try:
                with self.stage(name):
                    return method(*args, **kwargs)
            finally:
                busy[0] = False

        return timed
