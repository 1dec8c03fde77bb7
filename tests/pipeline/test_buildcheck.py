"""Untrusted builds: a damaged or crafted build folder is refused in one line, and nothing in it runs as code."""

from __future__ import annotations

import json
import pickle
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from tests.dashboard.tinybuild import tiny_papers, tiny_topics
from topic_explorer.dashboard.logic.data import load_explorer
from topic_explorer.dashboard.logic.figures import map_figure
from topic_explorer.dashboard.logic.filters import Filters, column_filters, filter_mask
from topic_explorer.pipeline.buildfolder.check import PAPER_KINDS, TOPIC_KINDS
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.schema import MANIFEST_SCHEMA, PAPER_COLUMNS, TOPIC_COLUMNS
from topic_explorer.pipeline.buildfolder.write import write_build
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.export.files import csv_bytes
from topic_explorer.pipeline.export.selection import export_frame
from topic_explorer.pipeline.settings import MAX_COLUMNS, MAX_TEXT_CHARS

MANIFEST = {"created_at": "2026-01-02T03:04:05+00:00", "counts": {"papers": 8}, "seed": 1, "quality": {}}


class Payload:
    """Unpickling this creates `marker`: proof that a pickle in a build ran."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.fixture(scope="module")
def good_build(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("builds") / "good"
    return write_build(out, tiny_papers(), tiny_topics(), np.zeros((8, 4), dtype=np.float32), MANIFEST)


@pytest.fixture
def build(good_build, tmp_path) -> Path:
    """A fresh copy of a valid build, to damage."""
    return Path(shutil.copytree(good_build, tmp_path / "build"))


def rewrite(build: Path, name: str, change: Callable[[pd.DataFrame], pd.DataFrame]) -> None:
    """Replace papers or topics with `change(table)`, written by pandas, bypassing the writer's own checks."""
    file = build / f"{name}.parquet"
    change(pd.read_parquet(file)).to_parquet(file, index=False)


def set_manifest(build: Path, **fields) -> None:
    manifest = json.loads((build / "manifest.json").read_text())
    (build / "manifest.json").write_text(json.dumps({**manifest, **fields}))


def column(name: str, values) -> Callable[[pd.DataFrame], pd.DataFrame]:
    return lambda table: table.assign(**{name: values})


CRAFTED_TABLES = {
    "topic ids as text": (
        "papers",
        column("topic_id", [str(i) for i in range(8)]),
        "'topic_id' that does not hold integers",
    ),
    "a missing title": ("papers", column("title", [None] + ["t"] * 7), "'title' that does not hold text"),
    "titles as numbers": ("papers", column("title", list(range(8))), "'title' that does not hold text"),
    "confidence as text": ("papers", column("confidence", ["high"] * 8), "'confidence' that does not hold numbers"),
    "fits_poorly as 0/1": ("papers", column("fits_poorly", [0, 1] * 4), "'fits_poorly' that does not hold true/false"),
    "an infinite position": ("papers", column("x", [np.inf] + [0.5] * 7), "'x' that does not hold finite numbers"),
    "repeated paper ids": ("papers", column("paper_id", ["p1"] * 8), "repeats values in its column 'paper_id'"),
    "a huge title": (
        "papers",
        column("title", ["x" * (MAX_TEXT_CHARS + 1)] * 8),
        "holds a text of 1,000,001 characters",
    ),
    "a huge metadata text": ("papers", column("venue", ["v" * (MAX_TEXT_CHARS + 5)] * 8), "in column 'venue'"),
    "too many metadata columns": (
        "papers",
        lambda t: pd.concat([t, pd.DataFrame({f"m{i}": [1] * 8 for i in range(MAX_COLUMNS)})], axis=1),
        "metadata columns, more than the 1,000 allowed",
    ),
    "keywords as a string": (
        "topics",
        column("keywords", ["a b c"] * 3),
        "'keywords' that does not hold lists of text",
    ),
    "weights as text": ("topics", column("keyword_weights", [["1"]] * 3), "'keyword_weights' that does not hold lists"),
    "weights and keywords differ": (
        "topics",
        column("keyword_weights", [[1.0]] * 3),
        "keywords and keyword_weights differ in length",
    ),
    "a huge keyword": (
        "topics",
        lambda t: t.assign(keywords=[["k" * (MAX_TEXT_CHARS + 1)]] * 3, keyword_weights=[[1.0]] * 3),
        "holds a keyword longer",
    ),
    "repeated topic ids": ("topics", column("topic_id", [0, 0, 1]), "repeats values in its column 'topic_id'"),
    "topic sizes as floats": ("topics", column("size", [1.5, 2.0, 3.0]), "'size' that does not hold integers"),
}


@pytest.mark.parametrize("case", CRAFTED_TABLES, ids=list(CRAFTED_TABLES))
def test_crafted_tables_are_refused_in_one_line(build, case):
    name, change, message = CRAFTED_TABLES[case]
    rewrite(build, name, change)
    with pytest.raises(UserError, match=re.escape(message)) as refused:
        read_build(build)
    assert "\n" not in str(refused.value)
    assert f"{name}.parquet" in str(refused.value)


CRAFTED_MANIFESTS = {
    "counts as a list": ({"counts": [8]}, "'counts' of the wrong type (expected an object)"),
    "a count as text": ({"counts": {"papers": "8"}}, "'counts.papers' of the wrong type (expected a whole number)"),
    "a count as true": ({"counts": {"topics": True}}, "'counts.topics' of the wrong type"),
    "quality as text": ({"quality": "good"}, "'quality' of the wrong type"),
    "topic sizes as a list": ({"quality": {"topic_sizes": [1, 2]}}, "'quality.topic_sizes' of the wrong type"),
    "embedder as text": ({"embedder": "minilm"}, "'embedder' of the wrong type"),
    "embedder name as a number": ({"embedder": {"name": 3}}, "'embedder.name' of the wrong type (expected text)"),
    "created_at as a number": ({"created_at": 20260101}, "'created_at' of the wrong type (expected text)"),
    "seed as text": ({"seed": "1"}, "'seed' of the wrong type"),
    "a key with a newline": ({"counts": {"a\nb": "x"}}, "'counts.a\\nb' of the wrong type"),
    "a paper count that disagrees": ({"counts": {"papers": 9}}, "counts 9 papers but papers.parquet has 8"),
}


@pytest.mark.parametrize("case", CRAFTED_MANIFESTS, ids=list(CRAFTED_MANIFESTS))
def test_crafted_manifests_are_refused_in_one_line(build, case):
    fields, message = CRAFTED_MANIFESTS[case]
    set_manifest(build, **fields)
    with pytest.raises(UserError, match=re.escape(message)) as refused:
        read_build(build)
    assert "\n" not in str(refused.value)
    assert "manifest.json" in str(refused.value)


def test_a_deeply_nested_manifest_is_damaged_not_a_crash(build):
    (build / "manifest.json").write_text('{"schema_version": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(UserError, match=r"manifest\.json is damaged"):
        read_build(build)


def write_pickle_array(file: Path, marker: Path) -> None:
    np.save(file, np.array([[Payload(marker)]], dtype=object), allow_pickle=True)


EMBEDDINGS = {
    "a pickled object array": (write_pickle_array, "is not a plain array of numbers"),
    "a bare pickle": (lambda f, m: f.write_bytes(pickle.dumps(Payload(m))), "is not a plain array of numbers"),
    "missing": (lambda f, m: f.unlink(), "is missing"),
    "truncated": (lambda f, m: f.write_bytes(f.read_bytes()[:90]), "is not a plain array of numbers"),
    "an npz archive": (lambda f, m: f.write_bytes(_npz_bytes(f)), "is not a two-dimensional array of floats"),
    "integers": (lambda f, m: np.save(f, np.zeros((8, 4), dtype=np.int64)), "two-dimensional array of floats"),
    "one dimension": (lambda f, m: np.save(f, np.zeros(8, dtype=np.float32)), "two-dimensional array of floats"),
    "too few rows": (
        lambda f, m: np.save(f, np.zeros((7, 4), dtype=np.float32)),
        "has 7 rows but papers.parquet has 8",
    ),
}


def _npz_bytes(folder_file: Path) -> bytes:
    archive = folder_file.with_name("e.npz")
    np.savez(archive, e=np.zeros((8, 4), dtype=np.float32))
    return archive.read_bytes()


@pytest.mark.parametrize("case", EMBEDDINGS, ids=list(EMBEDDINGS))
def test_bad_embeddings_are_refused_and_no_pickle_is_ever_loaded(build, tmp_path, case):
    damage, message = EMBEDDINGS[case]
    marker = tmp_path / "pickle-ran"
    damage(build / "embeddings.npy", marker)
    with pytest.raises(UserError, match=re.escape(message)):
        read_build(build)
    assert not marker.exists()


def test_embeddings_swapped_for_a_pickle_after_reading_are_not_loaded(build, tmp_path):
    opened = read_build(build)
    marker = tmp_path / "pickle-ran"
    write_pickle_array(build / "embeddings.npy", marker)
    with pytest.raises(ValueError, match="allow_pickle"):
        opened.embeddings()
    assert not marker.exists()


def test_the_cli_says_what_is_wrong_in_one_line(build, capsys):
    rewrite(build, "papers", column("topic_id", ["a"] * 8))
    assert main(["evaluate", str(build)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_the_documented_columns_and_their_checked_kinds_agree():
    assert set(PAPER_KINDS) == set(PAPER_COLUMNS)
    assert set(TOPIC_KINDS) == set(TOPIC_COLUMNS)
    assert {"counts", "quality", "embedder", "created_at", "settings"} <= set(MANIFEST_SCHEMA["properties"])
    assert all(field["description"] for field in MANIFEST_SCHEMA["properties"].values())


def column_of(values: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(st.one_of(st.none(), values), min_size=8, max_size=8)


HOSTILE_TEXT = st.sampled_from(
    ["<img src=x onerror=alert(1)>", '=HYPERLINK("http://x")', "\x00", "\r\n", "[a](javascript:x)"]
)
ANY_COLUMN = st.one_of(
    column_of(st.booleans()),
    column_of(st.integers(min_value=-(2**63), max_value=2**63 - 1)),
    column_of(st.floats()),
    column_of(st.text(max_size=30) | HOSTILE_TEXT),
    column_of(st.lists(st.text(max_size=5), max_size=3)),
    st.lists(st.text(max_size=10) | st.integers() | st.floats(), min_size=8, max_size=8),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from([*PAPER_COLUMNS, "venue", "year"]), values=ANY_COLUMN)
def test_any_column_of_any_values_is_refused_or_can_be_shown_and_exported(good_build, tmp_path_factory, name, values):
    """Whatever a column holds, read_build refuses it in one line, or the dashboard can load, draw and export it."""
    build = Path(shutil.copytree(good_build, tmp_path_factory.mktemp("fuzz") / "build"))
    try:
        rewrite(build, "papers", column(name, values))
    except (pyarrow.ArrowException, TypeError, ValueError, OverflowError):
        assume(False)  # Parquet cannot store this mix of values: no build can hold it
    try:
        explorer = load_explorer(build)
    except UserError as refused:
        assert "\n" not in str(refused)
        event("refused in one line")
        return
    event("shown and exported")
    everyone = np.ones(len(explorer.papers), dtype=bool)
    map_figure(explorer, everyone, ~everyone)
    column_filters(explorer.papers, explorer.metadata_columns)
    filter_mask(explorer.papers, explorer.word_text, Filters(words=("a",)))
    csv_bytes(export_frame(explorer.papers, explorer.topics, explorer.metadata_columns))


# `BERTopic.load` unpickles a file or `.bin` tensors: it is called in one place, which admits only safetensors.
UNPICKLERS = re.compile(r"\bpickle\.loads?\(|read_pickle\(|joblib\.load\(|torch\.load\(|dill\.load")


def test_no_code_that_reads_builds_can_unpickle():
    """Every np.load forbids pickles and nothing else unpickles: a build folder is data, never code."""
    sources = [p for folder in ("pipeline", "dashboard") for p in (Path(__file__).parents[2] / folder).rglob("*.py")]
    for source in sources:
        text = source.read_text(encoding="utf-8")
        for call in re.finditer(r"np\.load\(([^()]|\([^()]*\))*\)", text):
            assert "allow_pickle=False" in call.group(0), f"{source.name}: {call.group(0)}"
        assert not UNPICKLERS.search(text), f"{source.name} unpickles: {UNPICKLERS.search(text).group(0)}"
        if source.name != "bertopic_model.py":
            assert "BERTopic.load(" not in text, source.name
    assert len(sources) > 20
