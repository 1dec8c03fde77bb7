"""The result cache: the build's deterministic results on disk, each by the digest of everything it is made from.

Seven results are kept, each under its name: "embedder" (TF-IDF's fitted space and the sample's vectors),
"neighbours", "clusters", "fit" (the whole fit, keywords and labels included), "layout" (the map), "hierarchy"
(the topic tree) and "evaluate" (the scores). They are not the build's stages (the ten its timings name): three
share a stage's name, the others are parts of stages (the fit spans reduce, cluster and keywords). A rebuild whose
vectors, texts and settings are unchanged reads them back and gives the same build, byte for byte. The cache
wraps whole computations (what one takes in, what it gives back), never their insides, so changing an algorithm
cannot make it stale: every entry's key holds
- every input of the computation (vector bytes, texts, topic ids, settings, the map's seed where it draws one);
- `RESULT_CACHE_VERSION`, bumped by hand when a change alters a result or how an entry is stored;
- `code_version()`: a digest of the pipeline's own source and the versions of the libraries whose numbers
  reach the results, so a new release, or any edit to the pipeline, misses the cache.

Entries live beside the embedding cache (`--cache-dir`), one folder per entry (`stages/NAME/KEY/`), written into
a staging folder and renamed into place, so a reader never sees half an entry. One that cannot be read (a disk
fault, a file edited by hand) is logged in one line, deleted and computed again: the cache never breaks a build
and never changes its result. Each name keeps its `MAX_ENTRIES_PER_RESULT` most recently used entries.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from scipy import sparse

log = logging.getLogger(__name__)
T = TypeVar("T")

# The result cache's format and algorithms. BUMP IT with any change that alters a result (a constant, a
# rule, a library's use) or how an entry is written or read: every older entry is then missed, never reused. An
# edit to the pipeline's .py files also misses through `code_version()`, but that digest sees no data file, no
# library left out of `RESULT_PACKAGES`, and nothing in an install that ships without its .py sources.
RESULT_CACHE_VERSION = "2026.7"
RESULTS_DIR = "stages"  # inside the cache folder, beside the embeddings; its name from before, so caches stay found
MAX_ENTRIES_PER_RESULT = 20  # older entries are deleted: a 50,000-paper fit's entry is about 30 MB
# Libraries whose numbers reach a result: a new version of any of them misses every entry.
# MiniLM's (torch, transformers, sentence-transformers) embed topic names and keyword candidates inside the fit.
RESULT_PACKAGES = (
    "bertopic", "fastcluster", "igraph", "leidenalg", "numba", "numpy", "pandas", "pyarrow", "pynndescent",
    "scikit-learn", "scipy", "sentence-transformers", "tokenizers", "torch", "transformers", "umap-learn",
)  # fmt: skip
ARRAYS_FILE = "arrays.npz"
VALUES_FILE = "values.json"


@dataclass
class ResultCounts:
    """Which results came from the cache and which were computed, by name, for the manifest's `stage_cache`."""

    reused: list[str] = field(default_factory=list)
    computed: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[str]]:
        return {"reused": list(self.reused), "computed": list(self.computed)}


class ResultCache:
    """Results by name and key; `None` as the folder keeps nothing (every result is computed)."""

    def __init__(self, directory: Path | None):
        self.directory = Path(directory) / RESULTS_DIR if directory is not None else None
        self.counts = ResultCounts()

    def run(
        self,
        name: str,
        inputs: list[Any],
        compute: Callable[[], T],
        *,
        write: Callable[[T, Path], None],
        read: Callable[[Path], T],
    ) -> T:
        """`compute()`'s result `name`, from the entry for `inputs` when there is one; stored for next time otherwise.

        `inputs` are everything the result depends on (see `digest`); `write(result, folder)` stores a result in
        an empty folder and `read(folder)` gives it back, equal to what `compute` returned.
        """
        if self.directory is None:
            return compute()
        key = digest(name, RESULT_CACHE_VERSION, code_version(), *inputs)
        entry = self.directory / name / key
        if entry.is_dir():
            try:
                result = read(entry)
            except Exception as error:  # any fault in an entry means: compute it again
                problem = f"{type(error).__name__}: {error}"
                log.warning("cached %s result unreadable (%s); computing it again", name, problem)
                shutil.rmtree(entry, ignore_errors=True)
            else:
                _touch(entry)
                self.counts.reused.append(name)
                return result
        result = compute()
        self.counts.computed.append(name)
        self._store(name, entry, result, write)
        return result

    def _store(self, name: str, entry: Path, result: Any, write: Callable[[Any, Path], None]) -> None:
        """Write the entry into a staging folder and rename it into place. A cache that cannot be written (a full
        disk) is left alone: the build goes on, and the next one computes the result again."""
        staging = None
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{entry.name}.", dir=entry.parent))
            write(result, staging)
            os.rename(staging, entry)  # atomic; fails when another build stored the same entry first
            _forget_oldest(entry.parent)
        except Exception as error:  # whatever went wrong, the result in hand is good
            if not entry.is_dir():
                # A full or read-only disk is the machine's state (said at INFO); anything else is a bug to report.
                level = logging.INFO if isinstance(error, OSError) else logging.WARNING
                log.log(level, "could not keep the %s result in the result cache (%s)", name, error)
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)


def _touch(entry: Path) -> None:
    with contextlib.suppress(OSError):  # a read-only cache still serves its entries
        os.utime(entry)


def _forget_oldest(folder: Path) -> None:
    entries = sorted(
        (p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")), key=_modified, reverse=True
    )
    for old in entries[MAX_ENTRIES_PER_RESULT:]:
        shutil.rmtree(old, ignore_errors=True)


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def digest(*parts: Any) -> str:
    """SHA-256 over `parts`: arrays (dtype, shape and bytes), sparse matrices, frames, strings, numbers, and lists,
    tuples and dicts of these. Each part is framed by its type and length, so no two inputs collide by
    concatenation ("ab", "c" vs "a", "bc")."""
    hasher = hashlib.sha256()
    for part in parts:
        _feed(hasher, part)
    return hasher.hexdigest()


def _feed(hasher: Any, value: Any) -> None:
    def framed(tag: str, payload: bytes) -> None:
        hasher.update(f"{tag}:{len(payload)}:".encode())
        hasher.update(payload)

    if value is None or isinstance(value, bool | int | float | str):
        framed(type(value).__name__, repr(value).encode("utf-8"))
    elif isinstance(value, bytes):
        framed("bytes", value)
    elif isinstance(value, np.ndarray):
        if value.dtype == object:
            _feed(hasher, value.tolist())
        else:
            framed("ndarray", f"{value.dtype.str}{value.shape}".encode())
            hasher.update(np.ascontiguousarray(value).data)
    elif isinstance(value, np.generic):
        _feed(hasher, value.item())
    elif sparse.issparse(value):
        matrix = sparse.csr_matrix(value)
        matrix.sort_indices()
        _feed(hasher, ["csr", matrix.shape, matrix.indptr, matrix.indices, matrix.data])
    elif isinstance(value, pd.DataFrame):
        _feed(hasher, ["frame", list(map(str, value.columns)), [value[c].to_numpy() for c in value.columns]])
    elif isinstance(value, pd.Series):
        _feed(hasher, ["series", value.to_numpy()])
    elif isinstance(value, dict):
        framed("dict", str(len(value)).encode())
        for key in sorted(value, key=repr):
            _feed(hasher, key)
            _feed(hasher, value[key])
    elif isinstance(value, list | tuple):
        framed(type(value).__name__, str(len(value)).encode())
        for item in value:
            _feed(hasher, item)
    elif isinstance(value, Path):
        framed("path", str(value).encode("utf-8"))
    else:
        raise TypeError(f"cannot key a result by a {type(value).__name__}")


@cache
def code_version() -> str:
    """A digest of every source file of the pipeline (this package's parent) and the versions in `RESULT_PACKAGES`."""
    root = Path(__file__).resolve().parents[1]
    sources = sorted(root.rglob("*.py"))
    versions = {}
    for package in RESULT_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return digest(versions, [(str(p.relative_to(root)), p.read_bytes()) for p in sources])


# Reading and writing the parts of a result: arrays without pickle, JSON values, frames as Parquet.


def write_arrays(folder: Path, **arrays: np.ndarray) -> None:
    np.savez(folder / ARRAYS_FILE, **arrays)


def read_arrays(folder: Path) -> dict[str, np.ndarray]:
    with np.load(folder / ARRAYS_FILE, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def write_values(folder: Path, values: dict[str, Any]) -> None:
    (folder / VALUES_FILE).write_text(json.dumps(values), encoding="utf-8")


def read_values(folder: Path) -> dict[str, Any]:
    return json.loads((folder / VALUES_FILE).read_text(encoding="utf-8"))


def write_frame(folder: Path, name: str, frame: pd.DataFrame) -> None:
    frame.to_parquet(folder / f"{name}.parquet", index=False)


def read_frame(folder: Path, name: str) -> pd.DataFrame:
    """A frame as `write_frame` stored it, list cells as Python lists again (Parquet gives arrays back)."""
    frame = pd.read_parquet(folder / f"{name}.parquet")
    for column in frame.columns:
        if frame[column].dtype == object and len(frame) and isinstance(frame[column].iloc[0], np.ndarray):
            frame[column] = [value.tolist() for value in frame[column]]
    return frame


def sparse_parts(prefix: str, matrix: sparse.csr_matrix) -> dict[str, np.ndarray]:
    """A CSR matrix as arrays for `write_arrays`; `from_sparse_parts` makes it again."""
    return {
        f"{prefix}_data": matrix.data,
        f"{prefix}_indices": matrix.indices,
        f"{prefix}_indptr": matrix.indptr,
        f"{prefix}_shape": np.asarray(matrix.shape, dtype=np.int64),
    }


def from_sparse_parts(prefix: str, arrays: dict[str, np.ndarray]) -> sparse.csr_matrix:
    shape = tuple(int(n) for n in arrays[f"{prefix}_shape"])
    parts = (arrays[f"{prefix}_data"], arrays[f"{prefix}_indices"], arrays[f"{prefix}_indptr"])
    return sparse.csr_matrix(parts, shape=shape)
