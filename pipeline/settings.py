"""Every build setting in one place: its default, its help text and its validation.

The CLI builds its options' help from these fields and the manifest records the resolved
values, so a default changes here and nowhere else.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from topic_explorer.pipeline.errors import UserError

MIN_PAPERS = 10
"""Fewer papers than this cannot be clustered into meaningful topics."""

MIN_SHARED_WORDS = 5
"""Fewer words recurring across abstracts than this, and there is nothing to find topics in (a wrong column, noise)."""

MAX_TEXT_CHARS = 1_000_000
"""Longest text a paper may hold in any field (about 300 pages; 20 Newsgroups has a 159,000-character post):
longer ones are a wrong column or a broken file."""

MAX_COLUMNS = 1_000
"""Most columns an input file, and so a build's metadata, may have: a filter each would make no usable page."""

TWO_PAPERS_FROM = 100
"""From this many papers on, a term must occur in two papers to count (as a keyword candidate, or as a TF-IDF
embedder's feature): a word in one paper of hundreds is a name or a typo, not a topic's word."""

MAX_TITLE_CHARS = 200
"""Longest corpus title: it heads the dashboard's page and names its browser tab."""

SAMPLE_TITLE = "NeurIPS 2025 sample"
"""The bundled sample's title."""

_PART_SUFFIX = re.compile(r"[\s_.-]*(?:part|pt|chunk|shard)?[\s_.-]*(?<!\d)\d{1,3}$", re.IGNORECASE)  # not a year

EMBEDDERS = ("minilm", "tfidf")
EMBEDDER_TITLES = {
    "minilm": "meaning (the MiniLM language model)",
    "tfidf": "shared words (TF-IDF)",
}
"""How each embedder compares papers, in words for a reader (the dashboard's quality tab)."""
DEVICES = ("auto", "cpu", "cuda", "mps")
DEFAULT_DEVICE = "auto"
"""Where MiniLM runs unless told: builds, `add`, search and `open_in_bertopic` alike (the same vectors)."""
CACHE_ENV = "TOPIC_EXPLORER_CACHE"
"""The environment variable that moves the caches' folder."""
PRECISIONS = ("fp32", "bf16")
"""MiniLM's arithmetic: fp32 gives today's vectors; bf16 is faster where the CPU has its instructions."""
DEFAULT_PRECISION = "fp32"
MIN_FIT_SAMPLE = MIN_PAPERS  # the fit is a topic model of its own: it needs as many papers as a build
RUN_ONLY = ("batch_size", "device")
"""Settings that spread the work (papers per batch, where MiniLM runs) but change no result."""
MAX_NAMED_TOPIC_THRESHOLD = 5.0
"""Above this, hardly any paper is close enough to join a named topic."""


def default_title(inputs: Sequence[str | Path]) -> str:
    """A corpus's title from its files' names, for a build given no --title (the sample's own for no files).

    "ml_venues_by_field.jsonl.gz" -> "ML venues by field"; parts of one corpus ("arxiv_part1", "arxiv_part2")
    name it once. Words and numbers stay as written ("arxiv-3k" -> "arXiv 3k", not "Arxiv 3 K"); short words
    without a vowel or digit read as acronyms ("nlp" -> "NLP"); sources with a spelling of their own keep it.
    """
    names: list[str] = []
    for path in inputs:
        stem = Path(path).name.split(".")[0]
        stem = _PART_SUFFIX.sub("", stem) or stem
        words = [_OWN_SPELLINGS.get(w.casefold()) or (w.upper() if len(w) <= 4 and not re.search(r"[aeiouy\d]", w,
                 re.IGNORECASE) else w) for w in re.split(r"[\s_.-]+", stem) if w]  # fmt: skip
        name = " ".join(words)
        if name[:1].islower() and words[0].islower():  # "arXiv" keeps its small a
            name = name[:1].upper() + name[1:]
        if name and name not in names:
            names.append(name)
    return ", ".join(names)[:MAX_TITLE_CHARS] if names else SAMPLE_TITLE


_OWN_SPELLINGS = {
    name.casefold(): name for name in ("arXiv", "bioRxiv", "medRxiv", "chemRxiv", "PubMed", "OpenAlex", "GitHub")
}


def check_title(title: str) -> str:
    """A title given with --title, on one line; a `UserError` when empty or too long."""
    title = " ".join(str(title).split())
    if not title:
        raise UserError("--title is empty; give the corpus a name, e.g. --title 'ICLR 2025 submissions'")
    if len(title) > MAX_TITLE_CHARS:
        raise UserError(f"--title has {len(title):,} characters; keep it to at most {MAX_TITLE_CHARS}")
    return title


def _setting(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


def default_cache_dir() -> Path:
    """Where the caches live between builds: $TOPIC_EXPLORER_CACHE, else the platform's user cache folder
    (~/.cache/topic-explorer on Linux, or under $XDG_CACHE_HOME; ~/Library/Caches/topic-explorer on macOS;
    %LOCALAPPDATA%\\topic-explorer\\Cache on Windows)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("topic-explorer", appauthor=False))


def default_sample_build() -> Path:
    """Where `serve` keeps the bundled sample's build when it is given no build."""
    return default_cache_dir() / "sample-build"


@dataclass(frozen=True)
class BuildSettings:
    """How a corpus becomes topics. Defaults suit most corpora from 38 to 20,000 papers."""

    title: str | None = _setting(
        None,
        "The corpus's name, the dashboard's page title (default: from the input files' names, e.g. 'ML venues by "
        "field' for ml_venues_by_field.jsonl.gz).",
    )
    embedder: str = _setting(
        "minilm",
        "How papers are embedded: 'minilm' (all-MiniLM-L6-v2 over the whole abstract; best "
        "topics) or 'tfidf' (TF-IDF + SVD; no torch, seconds, for quick looks).",
    )
    seed: int = _setting(
        1,
        "Random seed of the map's layout (and of the fit sample, for corpora larger than --fit-sample): the "
        "topics of the same papers do not depend on it.",
    )
    min_topic_size: int | None = _setting(
        None,
        "Smallest group of papers that counts as a topic. Default: chosen from the corpus "
        "size (3 below 200 papers, then half the square root of the paper count: 22 for 2,000).",
    )
    named_topics: tuple[str, ...] = _setting(
        (),
        "Topics you name yourself, e.g. 'LoRA / PEFT' 'RLHF' 'KV cache'. A paper joins the name it "
        "is clearly closest to (acronyms are read as the papers spell them out); the rest are "
        "clustered as usual.",
    )
    named_topic_threshold: float = _setting(
        1.0,
        "How much closer than the average paper (in standard deviations) a paper must be to a "
        "named topic to join it: raise it for fewer, surer papers (2 keeps only the clearest), "
        "lower it for more (0.5).",
    )
    keep_outliers: bool = _setting(
        False,
        "Keep papers that fit no topic in topic -1 instead of moving each to its nearest topic.",
    )
    keywords_per_topic: int = _setting(25, "How many keywords each topic keeps, best first.")
    text_column: str | None = _setting(
        None, "Column holding the abstract in CSV/JSON/Parquet input (default: found by name)."
    )
    title_column: str | None = _setting(None, "Column holding the title (default: found by name; derived when absent).")
    fit_sample: int = _setting(
        50_000,
        "Fit the topic model on at most this many papers (a seeded random sample); every other "
        "paper is assigned to its nearest topic and placed on the map among its nearest sampled "
        "papers. 50,000 fit in about half an hour and 2.2 GB on 2 busy cores; more cores cluster faster.",
    )
    batch_size: int = _setting(
        2000,
        "Papers per batch: one Dask task and one row group of papers.parquet. Smaller batches need "
        "less memory per worker; the topics do not change.",
    )
    device: str = _setting(
        DEFAULT_DEVICE,
        "Where MiniLM runs: 'auto' (a CUDA GPU, else Apple's MPS, else the CPU), 'cpu', 'cuda' or 'mps'.",
    )
    precision: str = _setting(
        DEFAULT_PRECISION,
        "MiniLM's arithmetic: 'fp32' (today's vectors) or 'bf16' (bfloat16: 2-2.5x as fast on CPUs with "
        "AVX512-BF16 or AMX, each vector moved slightly, cosine to fp32's above 0.9999). A machine without the "
        "instructions embeds in fp32 and says so; `add` and Dask workers use the build's precision.",
    )
    cache_dir: Path | None = _setting(
        None,
        "Folder for the caches: embeddings, so rebuilds embed only new texts, and results (the fit, the map, ...), "
        "so a rebuild of the same papers and settings skips the fit and the map "
        "(default: $TOPIC_EXPLORER_CACHE, else the user cache folder: ~/.cache/topic-explorer on Linux).",
    )

    def __post_init__(self) -> None:
        if self.title is not None:
            object.__setattr__(self, "title", check_title(self.title))
        if not 0 <= self.seed < 2**32:
            raise UserError(f"--seed={self.seed} should be between 0 and {2**32 - 1}")
        if self.embedder not in EMBEDDERS:
            raise UserError(f"--embedder {self.embedder!r} is unknown; use one of {', '.join(EMBEDDERS)}")
        if self.min_topic_size is not None and self.min_topic_size < 2:
            raise UserError(f"--min-topic-size={self.min_topic_size} should be at least 2")
        if not 0.0 < self.named_topic_threshold <= MAX_NAMED_TOPIC_THRESHOLD:
            raise UserError(
                f"--named-topic-threshold={self.named_topic_threshold} should be above 0 and at most "
                f"{MAX_NAMED_TOPIC_THRESHOLD:g} (standard deviations; default {BuildSettings.named_topic_threshold:g})"
            )
        if self.fit_sample < MIN_FIT_SAMPLE:
            raise UserError(f"--fit-sample={self.fit_sample} should be at least {MIN_FIT_SAMPLE:,}")
        if self.device not in DEVICES:
            raise UserError(f"--device {self.device!r} is unknown; use one of {', '.join(DEVICES)}")
        if self.precision not in PRECISIONS:
            raise UserError(f"--precision {self.precision!r} is unknown; use one of {', '.join(PRECISIONS)}")
        check_batch_size(self.batch_size)
        if self.keywords_per_topic < 1:
            raise UserError(f"--keywords-per-topic={self.keywords_per_topic} should be at least 1")
        names = [name.strip() for name in self.named_topics]
        if any(not name for name in names):
            raise UserError("--topics got an empty name; give each topic a few words, e.g. 'RLHF'")
        object.__setattr__(self, "named_topics", tuple(names))
        object.__setattr__(self, "cache_dir", Path(self.cache_dir or default_cache_dir()))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values, as recorded in the manifest: every setting but the cache's folder, which is this
        machine's and changes no result, and the title, which the manifest keeps at its top."""
        values = dataclasses.asdict(self)
        values["named_topics"] = list(self.named_topics)
        del values["cache_dir"], values["title"]  # the manifest's own `title` holds the title, resolved
        return values

    def for_results(self, *, with_seed: bool) -> dict[str, Any]:
        """The settings a kept result may depend on, for the result cache's keys: all but how the work is
        spread (`RUN_ONLY`), and the seed only `with_seed` (it draws the map; the topics do not depend on it)."""
        values = {name: value for name, value in self.to_dict().items() if name not in RUN_ONLY}
        if not with_seed:
            del values["seed"]
        return values


def check_batch_size(batch_size: int) -> int:
    """`batch_size`, when it can hold a paper (`build` and `add` share this rule)."""
    if batch_size < 1:
        raise UserError(f"--batch-size={batch_size} should be at least 1")
    return batch_size


def help_for(name: str) -> str:
    """The help text of one setting, for the CLI."""
    return next(f.metadata["help"] for f in dataclasses.fields(BuildSettings) if f.name == name)
