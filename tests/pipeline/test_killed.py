"""Killed at any point: `kill -9` of `build` leaves the previous build readable and the embedding cache usable.

The default suite kills a few TF-IDF builds (one just as it starts writing) and a fake-embedder cache job at blocks
the test chooses; the
full loop, 20 kills of real MiniLM builds sharing one cache, is slow: `pytest -m slow tests/pipeline/test_killed.py`.
Loops take the command as a parameter, so `add` (which changes an existing build) can be tested the same way.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from diskcache import Cache

from tests.pipeline.killing import WRITING, kill_loop, random_moments
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.schema import is_build
from topic_explorer.pipeline.embed.cache import EmbeddingCache
from topic_explorer.pipeline.embed.models import MiniLMEmbedder
from topic_explorer.pipeline.ingest.corpus import load_corpus, sample_files
from topic_explorer.pipeline.run.build import run_build
from topic_explorer.pipeline.settings import BuildSettings

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "topic_explorer.pipeline.cli"]


@pytest.fixture
def previous_build(tmp_path, metadata_corpus) -> Path:
    """A finished build, the one every killed run must leave as it was."""
    return run_build([metadata_corpus], tmp_path / "build", BuildSettings(embedder="tfidf")).path


def report(loop, capsys) -> None:
    with capsys.disabled():
        outcomes = {o: loop.count(o) for o in sorted(set(loop.outcomes))}
        print(f"\nkill loop: {len(loop.outcomes)} runs at {loop.moments}: {outcomes}; left beside it: {loop.leftovers}")


def test_kill_9_during_a_build_leaves_the_previous_build_readable(previous_build, metadata_corpus, capsys):
    def build(run: int) -> list[str]:  # another seed each run, so a new build differs from the previous one
        return [*CLI, "build", str(metadata_corpus), "--out", str(previous_build), "--embedder", "tfidf",
                "--seed", str(run + 2), "--quiet"]  # fmt: skip

    loop = kill_loop(build, previous_build, [next(random_moments(seed=12)), WRITING], run_seconds=10.0, cwd=ROOT)
    report(loop, capsys)
    assert loop.outcomes[-1] == "killed, build untouched"  # killed as it wrote: the old build stayed whole


PACED_EMBEDDING = """
import sys
from pathlib import Path
from topic_explorer.pipeline.embed.cache import CacheStats, EmbeddingCache
from topic_explorer.pipeline.apply.loop import embed_all
from tests.conftest import FakeEmbedder

class Paced(FakeEmbedder):
    # Says which block it is about to embed, then waits for the test's go-ahead: the test, not a clock, decides
    # where the kill lands.
    blocks = 0

    def transform(self, texts):
        Paced.blocks += 1
        print("block", Paced.blocks, flush=True)
        assert sys.stdin.readline().strip() == "go"
        return super().transform(texts)

texts = [f"paper {i} on topic {i % 7}" for i in range(int(sys.argv[2]))]
embedder, stats = Paced(), CacheStats()
embed_all(texts, embedder, EmbeddingCache(Path(sys.argv[1]), embedder.name), stats=stats)
print("done", stats.reused, stats.embedded, flush=True)
"""
BLOCK = 128  # texts per embedding block (apply.loop.BLOCK_TEXTS)


def kill_before_block(command: list[str], block: int) -> None:
    """Run `command`, let it embed `block - 1` blocks, and SIGKILL it as it is about to embed the next."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    for line in process.stdout:
        if line.split() == ["block", str(block)]:
            process.kill()
            break
        process.stdin.write("go\n")
        process.stdin.flush()
    process.wait()
    assert process.returncode == -9, process.returncode


def test_kill_9_while_embedding_leaves_a_cache_the_next_run_reuses(tmp_path):
    """The cache (SQLite underneath) keeps every block stored before the kill, and nothing half-stored."""
    texts = 2000  # 16 blocks of 128
    command = [sys.executable, "-c", PACED_EMBEDDING, str(tmp_path), str(texts)]
    for _ in range(3):  # each run reuses what the runs before it stored, embeds two more blocks, and is killed
        kill_before_block(command, 3)
    with Cache(str(tmp_path / "embeddings")) as cache:
        stored = len(cache)
    assert stored == 3 * 2 * BLOCK  # whole blocks only, none lost
    finished = subprocess.run(command, input="go\n" * 16, capture_output=True, text=True, cwd=ROOT, check=True)
    assert finished.stdout.split()[-3:] == ["done", str(stored), str(texts - stored)]


def test_readers_never_find_the_build_missing_while_it_is_replaced(tmp_path):
    """The swap is one atomic rename: a dashboard checking the build between two renames would see none."""
    import numpy as np

    from tests.dashboard.tinybuild import tiny_papers, tiny_topics
    from topic_explorer.pipeline.buildfolder.write import write_build

    out = tmp_path / "build"
    papers, topics, embeddings = tiny_papers(), tiny_topics(), np.zeros((8, 4), dtype=np.float32)
    write_build(out, papers, topics, embeddings, {})
    missing, done = [], threading.Event()

    def watch() -> None:
        while not done.is_set():
            if not is_build(out):
                missing.append(time.monotonic())

    watcher = threading.Thread(target=watch)
    watcher.start()
    for version in range(200):
        write_build(out, papers, topics, embeddings, {"version": version})
    done.set()
    watcher.join()
    assert missing == []
    assert read_build(out).manifest["version"] == 199
    assert [p.name for p in tmp_path.iterdir()] == ["build"]


def variants_corpus(folder: Path, run: int, copies: int = 4) -> Path:
    """Run `run`'s own texts: the sample's abstracts in `copies` variants, new to the cache, in real language."""
    abstracts = load_corpus(sample_files()).papers["abstract"].tolist()
    path = folder / f"variants-{run}.csv"
    texts = [f"{a} (Variant {k} of study {run}.)" for k in range(copies) for a in abstracts]
    pd.DataFrame({"abstract": texts}).to_csv(path, index=False)
    return path


@pytest.mark.slow
@pytest.mark.model
def test_twenty_kills_of_minilm_builds_keep_the_build_and_the_cache(previous_build, tmp_path, capsys):
    """Each run embeds texts of its own (152, two cache blocks) and is killed at a random moment of a run's length."""
    kills, cache = 20, tmp_path / "cache"
    corpora = [variants_corpus(tmp_path, run) for run in range(2 * kills + 1)]

    def build(run: int, out: Path = previous_build, cache: Path = cache) -> list[str]:
        return [*CLI, "build", str(corpora[run]), "--out", str(out), "--cache-dir", str(cache), "--quiet"]

    # How long an uninterrupted run takes, with a cache of its own. Its build is the one the runs replace: a build
    # of the same kind (a TF-IDF build keeps its embedder's state in a file a MiniLM build does not write).
    started = time.monotonic()
    subprocess.run(build(2 * kills, previous_build, tmp_path / "timing-cache"), check=True, cwd=ROOT)
    run_seconds = time.monotonic() - started
    moments = itertools.islice(random_moments(seed=20, writing_every=5), 2 * kills)
    loop = kill_loop(build, previous_build, moments, run_seconds=run_seconds, kills=kills, cwd=ROOT)
    report(loop, capsys)
    assert sum(o.startswith("killed") for o in loop.outcomes) == kills
    every_corpus = [corpora[run] for run in range(len(loop.outcomes))]
    abstracts = load_corpus(every_corpus).papers["abstract"]
    with Cache(str(cache / "embeddings")) as stored:  # keyword phrases are cached too: count the papers only
        key = EmbeddingCache(cache, MiniLMEmbedder().name).key
        entries = sum(key(text) in stored for text in abstracts)
    command = [
        *CLI,
        "build",
        *map(str, every_corpus),
        "--out",
        str(previous_build),
        "--cache-dir",
        str(cache),
        "--quiet",
    ]
    subprocess.run(command, check=True, cwd=ROOT)  # a following build of everything the runs embedded succeeds ...
    embedder = read_build(previous_build).manifest["embedder"]
    assert (embedder["papers_from_cache"], embedder["papers_embedded"]) == (entries, len(abstracts) - entries)
    with capsys.disabled():
        print(
            f"cache after the kills: {entries} of {len(abstracts)} paper embeddings stored; the next build reused them"
        )
