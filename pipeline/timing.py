"""Wall-clock and CPU time per pipeline stage, and the memory peak each reached: for the CLI summary, the manifest
and benchmarks (on a shared machine, CPU time says what the work cost where wall time says how busy it was)."""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

HEARTBEAT_SECONDS = 10.0  # a stage this long says it is still working, and again every as long


def cpu_seconds() -> float:
    """CPU time of this process (every thread) and of its child processes that have ended (the clustering's
    worker processes): what a stage cost, wherever its work ran."""
    times = os.times()
    return time.process_time() + times.children_user + times.children_system


class StageTimer:
    """Accumulates seconds per named stage.

    Stages nest: time spent in an inner stage counts for it alone, not also for the stage
    around it, so the stages add up to the total. `peak_mb` holds the process's highest resident
    memory so far at the end of each stage: the stage where it first reaches its final value set the peak.
    """

    def __init__(self, heartbeat: Callable[[str, float], None] | None = None, every: float = HEARTBEAT_SECONDS) -> None:
        """`heartbeat(stage, seconds)` is called every `every` seconds while a stage runs (from a thread of its own),
        so a long stage that prints nothing still shows the build is working."""
        self._heartbeat, self._every = heartbeat, every
        self._stop: threading.Event | None = None
        self._beater: threading.Thread | None = None
        self.seconds: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}  # `cpu_seconds`: this process's and its finished workers'
        self.peak_mb: dict[str, float] = {}
        self._inner: list[tuple[float, float]] = []  # per open stage: wall and CPU seconds spent in stages inside it
        self._open: list[tuple[str, float]] = []  # the open stages, outermost first, and when each began

    def _start_beating(self) -> None:
        if self._heartbeat is None:
            return
        stop = self._stop = threading.Event()

        def beat() -> None:
            while not stop.wait(self._every):
                now = self.current()
                if now is not None:
                    self._heartbeat(*now)

        self._beater = threading.Thread(target=beat, name="stage-heartbeat", daemon=True)
        self._beater.start()

    def _stop_beating(self) -> None:
        if self._stop is not None and self._beater is not None:
            self._stop.set()
            self._beater.join()
        self._stop = self._beater = None

    def current(self) -> tuple[str, float] | None:
        """The innermost open stage and its seconds so far (None between stages); read by `heartbeat`."""
        open_stages = list(self._open)  # another thread may be changing it
        if not open_stages:
            return None
        name, start = open_stages[-1]
        return name, time.perf_counter() - start

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start, cpu_start = time.perf_counter(), cpu_seconds()
        self._inner.append((0.0, 0.0))
        self._open.append((name, start))
        if len(self._open) == 1:
            self._start_beating()
        try:
            yield
        finally:
            self._open.pop()
            if not self._open:
                self._stop_beating()
            elapsed, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
            inner, inner_cpu = self._inner.pop()
            if self._inner:
                outer, outer_cpu = self._inner[-1]
                self._inner[-1] = (outer + elapsed, outer_cpu + cpu)
            self.seconds[name] = self.seconds.get(name, 0.0) + elapsed - inner
            self.cpu_seconds[name] = self.cpu_seconds.get(name, 0.0) + cpu - inner_cpu
            self.peak_mb[name] = max(self.peak_mb.get(name, 0.0), peak_memory_mb())

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


def peak_memory_mb() -> float:
    """This process's highest resident memory so far, in MB (0 where the platform does not say)."""
    try:
        import resource
    except ImportError:  # Windows
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10  # bytes on macOS, KiB elsewhere
