"""Where per-batch work runs: in this process, or as tasks on a Dask cluster (`--dask`).

Both engines map a function over batches and give each result back beside its own batch, in
order, as they come: callers match results to inputs by identity, never by a count, and the build
can write each batch and let it go. Only the batches and one copy of the fitted model
travel to the workers.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

from topic_explorer.pipeline.errors import UserError

log = logging.getLogger(__name__)
T = TypeVar("T")

IN_FLIGHT_PER_WORKER = 2  # batches queued per worker: enough to keep it busy, few enough to bound memory
CONNECT_TIMEOUT = "5s"
GIB = 2**30
MEMORY_PER_LOCAL_WORKER = 2 * GIB  # a worker holding MiniLM and a batch stays well under this


class Engine(Protocol):
    """Runs `fn(item, **shared)` for every item; `shared` values are large and sent once."""

    description: str

    def map(self, fn: Callable[..., Any], items: Iterable[T], **shared: Any) -> Iterator[tuple[T, Any]]:
        """`(item, fn(item, **shared))` for every item, in the items' order."""
        ...

    def close(self) -> None: ...


class InProcess:
    """Everything in this process, one batch after another."""

    description = "in this process"

    def map(self, fn: Callable[..., Any], items: Iterable[T], **shared: Any) -> Iterator[tuple[T, Any]]:
        for item in items:
            yield item, fn(item, **shared)

    def close(self) -> None:
        pass


class DaskEngine:
    """Batches as tasks on a Dask cluster: `local`, `local:N` (N workers) or a scheduler's address."""

    def __init__(self, scheduler: str):
        from distributed import Client, LocalCluster

        logging.getLogger("distributed").setLevel(logging.ERROR)  # lost and restarted workers are Dask's to handle
        self._cluster = None
        if scheduler == "local" or scheduler.startswith("local:"):
            workers = _local_workers(scheduler)
            self._cluster = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
            )
            self.client = Client(self._cluster)
            self.description = f"on a local Dask cluster of {workers} workers"
        else:
            try:
                self.client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as error:
                raise UserError(
                    f"cannot reach the Dask scheduler at {scheduler} ({type(error).__name__}); start one with "
                    "'dask scheduler' and 'dask worker ADDRESS', or use --dask local"
                ) from None
            self.description = f"on the Dask cluster at {scheduler}"
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))

    def map(self, fn: Callable[..., Any], items: Iterable[T], **shared: Any) -> Iterator[tuple[T, Any]]:
        from distributed import KilledWorker
        from distributed.client import FutureCancelledError

        # Sent as tasks rather than scattered: Dask can make a task's result again on a new worker when the
        # workers holding it die, but scattered data would be lost with them.
        sent = {name: self.client.submit(_same, value, pure=False) for name, value in shared.items()}
        pending: deque = deque()
        try:
            for item in items:
                # A task whose worker dies is run again elsewhere, up to Dask's `allowed-failures` times.
                pending.append((item, self.client.submit(fn, item, **sent, pure=False)))
                while len(pending) >= IN_FLIGHT_PER_WORKER * self.workers:
                    item, future = pending.popleft()
                    yield item, future.result()
            while pending:
                item, future = pending.popleft()
                yield item, future.result()
        except (KilledWorker, FutureCancelledError):
            import dask

            tries = dask.config.get("distributed.scheduler.allowed-failures") + 1
            raise UserError(
                f"Dask workers kept dying while running a batch (tried {tries} times); "
                "check the workers' memory and logs, then build again"
            ) from None
        finally:
            for _, future in pending:
                future.cancel()

    def close(self) -> None:
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()


def _same(value: Any) -> Any:
    return value


def make_engine(dask: str | None) -> Engine:
    """The engine `--dask` asks for (None: in this process)."""
    return InProcess() if dask is None else DaskEngine(dask)


def _local_workers(scheduler: str) -> int:
    if scheduler == "local":
        import psutil

        return max(1, min(os.cpu_count() or 1, psutil.virtual_memory().total // MEMORY_PER_LOCAL_WORKER))
    try:
        workers = int(scheduler.split(":", 1)[1])
    except ValueError:
        workers = 0
    if workers < 1:
        raise UserError(f"--dask {scheduler}: give a number of workers of at least 1, e.g. local:2")
    return workers
