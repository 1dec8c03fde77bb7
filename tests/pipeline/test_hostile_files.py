"""Hostile and broken input files: each gives a build, or one line on stderr and exit 2, quickly and in bounded
memory; never a traceback, a hang or a partly written build.

Property-based (Hypothesis) over random bytes, random tables and random corpora, plus the named cases. The
200 MB garbage file is slow (`pytest -m slow tests/pipeline/test_hostile_files.py`); a 20 MB twin runs by default.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.ingest import readers
from topic_explorer.pipeline.ingest.corpus import load_corpus, sample_files
from topic_explorer.pipeline.ingest.readers import TABLE_SUFFIXES, TEXT_SUFFIXES, read_file
from topic_explorer.pipeline.settings import MAX_COLUMNS, MAX_TEXT_CHARS

SUFFIXES = sorted(TEXT_SUFFIXES | set(TABLE_SUFFIXES))
HANG = 120  # seconds: a run that takes longer has hung (a refusal takes well under a few seconds)
FUZZ = settings(deadline=5000, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def sample_abstracts() -> list[str]:
    return load_corpus(sample_files()).papers["abstract"].tolist()


def build(capsys, source: Path, out: Path, *options: str) -> tuple[int, str]:
    """`topic-explorer build SOURCE --out OUT --embedder tfidf` in this process: (exit status, stderr)."""
    code = main(["build", str(source), "--out", str(out), "--embedder", "tfidf", "--quiet", *options])
    return code, capsys.readouterr().err


def assert_built_or_refused(code: int, err: str, out: Path) -> str:
    """A readable build and nothing on stderr, or one 'error:' line, exit 2 and no build: says which."""
    if code == 0:
        assert err == ""
        read_build(out)
        return "built"
    assert code == 2, err
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err, err
    assert not out.exists()
    assert not list(out.parent.glob(f".{out.name}.*"))  # nothing half-written beside it
    return "refused"


# --- property-based ------------------------------------------------------------------------------------------


@settings(FUZZ, max_examples=400)
@given(data=st.binary(max_size=4096), suffix=st.sampled_from(SUFFIXES), gzipped=st.booleans())
def test_any_bytes_in_any_format_are_read_or_refused_in_one_line(tmp_path_factory, data, suffix, gzipped):
    path = tmp_path_factory.mktemp("bytes") / f"input{suffix}{'.gz' if gzipped else ''}"
    path.write_bytes(gzip.compress(data) if gzipped else data)
    with contextlib.suppress(UserError):  # refused with a message: fine; any other exception fails the test
        read_file(path)


CELL = st.one_of(
    st.text(max_size=60),
    st.text(alphabet=st.characters(codec="utf-8", categories=["Cc", "Zs", "Zl", "Zp", "Po", "Sm"]), max_size=20),
    st.sampled_from(["=cmd|' /C calc'!A0", "<script>alert(1)</script>", "\r", "\r\n", "\x00", "\ufeff", '"', ""]),
    st.integers(),
    st.floats(),
    st.none(),
)
TABLE = st.dictionaries(
    st.text(min_size=1, max_size=12) | st.sampled_from(["abstract", "title", "paper_id", "topic_id"]),
    st.lists(CELL, min_size=1, max_size=6),
    min_size=1,
    max_size=5,
)
WRITERS = {
    ".csv": lambda frame, path: frame.to_csv(path, index=False),
    ".tsv": lambda frame, path: frame.to_csv(path, sep="\t", index=False),
    ".jsonl": lambda frame, path: frame.to_json(path, orient="records", lines=True, force_ascii=False),
    ".json": lambda frame, path: frame.to_json(path, orient="records", force_ascii=False),
    ".parquet": lambda frame, path: frame.astype(str).to_parquet(path),
}


@settings(FUZZ, max_examples=300)
@given(columns=TABLE, suffix=st.sampled_from(sorted(WRITERS)))
def test_any_table_is_ingested_or_refused_in_one_line(tmp_path_factory, columns, suffix):
    rows = max(len(values) for values in columns.values())
    frame = pd.DataFrame({name: (values * rows)[:rows] for name, values in columns.items()})
    path = tmp_path_factory.mktemp("tables") / f"papers{suffix}"
    WRITERS[suffix](frame, path)
    try:
        corpus = load_corpus([path])
    except UserError:
        return  # refused with a message: fine; any other exception fails the test
    assert corpus.papers["paper_id"].is_unique
    assert (corpus.papers["abstract"] != "").all()


JUNK = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)


@settings(FUZZ, max_examples=25, deadline=None)
@given(
    junk=st.lists(JUNK, min_size=12, max_size=30),
    suffix=st.sampled_from([".txt", ".csv", ".jsonl"]),
    titles=st.booleans(),
)
def test_any_corpus_with_junk_in_it_builds_or_is_refused_in_one_line(capsys, tmp_path_factory, junk, suffix, titles):
    """Twelve or more papers that each say something, plus arbitrary characters: a build, or one line."""
    themes = ("federated privacy clients", "low rank adapters", "reward models preference", "graph neural nodes")
    texts = [f"{themes[i % 4]} paper{i} {text}" for i, text in enumerate(junk)]
    folder = tmp_path_factory.mktemp("corpus")
    path = folder / f"papers{suffix}"
    if suffix == ".txt":
        path.write_text("\n\n".join(texts), encoding="utf-8", errors="surrogatepass")
    else:
        frame = pd.DataFrame({"abstract": texts, **({"title": junk} if titles else {})})
        WRITERS[suffix](frame, path)
    code, err = build(capsys, path, folder / "out")
    event(assert_built_or_refused(code, err, folder / "out"))


# --- named cases ---------------------------------------------------------------------------------------------


def as_csv(abstracts: list[str], **columns) -> str:
    return pd.DataFrame({"abstract": abstracts, **columns}).to_csv(index=False)


def truncated_gzip(folder: Path) -> Path:
    data = gzip.compress(as_csv(sample_abstracts()).encode())
    path = folder / "papers.csv.gz"
    path.write_bytes(data[: len(data) // 2])
    return path


def write(name: str, content) -> callable:
    def make(folder: Path) -> Path:
        data = content() if callable(content) else content
        path = folder / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return path

    return make


REFUSED = {
    "random bytes": (write("papers.csv", lambda: os.urandom(100_000)), "looks binary"),
    "truncated gzip": (truncated_gzip, "damaged gzip file"),
    "NUL bytes": (
        write("papers.csv", lambda: as_csv(sample_abstracts()).replace("learning", "learn\x00ing")),
        "binary",
    ),
    "mixed encodings": (
        write("papers.csv", lambda: as_csv(sample_abstracts()).encode() + "café".encode("latin-1")),
        "not UTF-8 text (bad byte 0xe9 on line",
    ),
    "deeply nested JSON": (write("papers.json", "[" * 100_000 + "]" * 100_000), "nested too deeply"),
    "10,000 columns": (
        write("papers.csv", lambda: pd.DataFrame({f"c{i}": ["x"] for i in range(10_000)}).to_csv(index=False)),
        f"has 10,000 columns, more than {MAX_COLUMNS:,}",
    ),
    "a 5 MB abstract": (
        write("papers.csv", lambda: as_csv([*sample_abstracts(), "word " * 1_000_000])),
        f"record 39 is 5,000,000 characters long, more than the {MAX_TEXT_CHARS:,}",
    ),
    "100,000 duplicate rows": (write("papers.csv", lambda: as_csv(sample_abstracts()[:1] * 100_000)), "found 1 usable"),
    "abstracts of numbers and symbols": (
        write("papers.csv", lambda: as_csv([f"{i} + {i * 7} = {i * 8} 🙂" for i in range(40)])),
        "no abstracts found",
    ),
    "abstracts of stop words only": (
        write("papers.csv", lambda: as_csv([f"we propose the novel {'and ' * i}approach" for i in range(40)])),
        "no abstracts found",
    ),
    "abstracts that share no words": (
        write("papers.csv", lambda: as_csv([f"zq{i}x wv{i}k" for i in range(150)])),
        "share almost no words",
    ),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_named_hostile_files_are_refused_in_one_line(capsys, tmp_path, case):
    make, message = REFUSED[case]
    code, err = build(capsys, make(tmp_path), tmp_path / "out")
    assert assert_built_or_refused(code, err, tmp_path / "out") == "refused"
    assert message in err


def line_ends(ending: str, suffix: str) -> callable:
    def make(folder: Path) -> Path:
        abstracts = sample_abstracts()
        if suffix == ".txt":
            text = (ending * 2).join(abstracts)
        elif suffix == ".jsonl":
            text = ending.join(json.dumps({"abstract": a}) for a in abstracts)
        else:
            text = ending.join(["abstract", *(json.dumps(a) for a in abstracts)])  # JSON quoting is valid CSV here
        path = folder / f"papers{suffix}"
        path.write_text(text, encoding="utf-8", newline="")
        return path

    return make


BUILT = {
    **{
        f"{name} in {suffix}": line_ends(ending, suffix)
        for name, ending in (("CRLF", "\r\n"), ("lone CR", "\r"))
        for suffix in (".txt", ".csv", ".jsonl")
    },
    "a UTF-8 byte-order mark": write("papers.csv", lambda: codecs.BOM_UTF8 + as_csv(sample_abstracts()).encode()),
    "UTF-16 with its byte-order mark": write("papers.csv", lambda: as_csv(sample_abstracts()).encode("utf-16")),
    "NUL bytes past the first 64 KiB": write(
        "papers.csv", lambda: as_csv(sample_abstracts() * 3, id=[f"{i}{chr(0) if i > 100 else ''}" for i in range(114)])
    ),
    "deeply nested metadata": write(
        "papers.jsonl",
        lambda: "\n".join(
            json.dumps({"abstract": a, "meta": [[[[[[[[[[{"x": [1]}]]]]]]]]]]}) for a in sample_abstracts()
        ),
    ),
}


@pytest.mark.parametrize("case", BUILT, ids=list(BUILT))
def test_named_awkward_files_build_every_paper(capsys, tmp_path, case):
    code, err = build(capsys, BUILT[case](tmp_path), tmp_path / "out")
    assert assert_built_or_refused(code, err, tmp_path / "out") == "built"
    assert len(read_build(tmp_path / "out").papers) >= 38


def test_titles_that_look_like_formulas_or_html_are_kept_verbatim(capsys, tmp_path):
    abstracts = sample_abstracts()
    titles = ['=HYPERLINK("http://x","click")', "+1+1", "@SUM(A1)", "-2", "<script>alert(1)</script>", "<b>bold</b>"]
    titles = [titles[i % len(titles)] + f" {i}" for i in range(len(abstracts))]
    path = tmp_path / "papers.csv"
    path.write_text(as_csv(abstracts, title=titles), encoding="utf-8")
    code, err = build(capsys, path, tmp_path / "out")
    assert assert_built_or_refused(code, err, tmp_path / "out") == "built"
    assert sorted(read_build(tmp_path / "out").papers["title"]) == sorted(titles)


def test_a_gzip_bomb_stops_at_the_size_limit(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(readers, "MAX_INPUT_BYTES", 1 << 20)
    path = tmp_path / "papers.csv.gz"
    path.write_bytes(gzip.compress(b"abstract\n" + b"a" * (5 << 20)))
    code, err = build(capsys, path, tmp_path / "out")
    assert code == 2
    assert "is larger than" in err
    assert "once decompressed; split it" in err


# --- garbage: time and memory, in a process of its own ---------------------------------------------------------


# The CLI in a child process that prints its own peak resident memory (kB) as it exits.
CLI_REPORTING_PEAK = (
    "import atexit, resource, sys; from topic_explorer.pipeline.cli.main import main; "
    "atexit.register(lambda: print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)); sys.exit(main())"
)


def build_in_a_process(source: Path, out: Path) -> tuple[int, str, int]:
    """(exit status, stderr, peak memory in kB) of `topic-explorer build SOURCE`; fails the test if it hangs."""
    command = [sys.executable, "-c", CLI_REPORTING_PEAK, "build", str(source), "--out", str(out), "--embedder", "tfidf"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=HANG, cwd=Path(__file__).parents[2])
    except subprocess.TimeoutExpired:
        pytest.fail(f"building {source.name} hung for {HANG} s")
    return done.returncode, done.stderr, int(done.stdout.split()[-1])


def garbage_is_refused_in_bounded_memory(folder: Path, megabytes: int) -> None:
    """Random bytes are refused from their first bytes: no more memory than refusing a one-line file."""
    small, big = folder / "one-line.csv", folder / "garbage.csv"
    small.write_bytes(b"\x00")
    with big.open("wb") as file:
        for _ in range(megabytes):
            file.write(os.urandom(1 << 20))
    _, _, baseline_kb = build_in_a_process(small, folder / "out")
    code, err, peak_kb = build_in_a_process(big, folder / "out")
    assert code == 2, err
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, err
    assert "looks binary" in err, err
    assert not (folder / "out").exists()
    assert peak_kb < baseline_kb + 32 * 1024, (peak_kb, baseline_kb)  # far below the file's size


def test_20_mb_of_garbage_is_refused_at_once_in_bounded_memory(tmp_path):
    garbage_is_refused_in_bounded_memory(tmp_path, 20)


@pytest.mark.slow
def test_200_mb_of_garbage_is_refused_at_once_in_bounded_memory(tmp_path):
    garbage_is_refused_in_bounded_memory(tmp_path, 200)


@pytest.mark.parametrize("papers", [10, 11])
def test_the_fewest_papers_allowed_build(capsys, tmp_path, papers):
    path = tmp_path / "papers.csv"
    path.write_text(as_csv(sample_abstracts()[:papers]), encoding="utf-8")
    code, err = build(capsys, path, tmp_path / "out")
    assert assert_built_or_refused(code, err, tmp_path / "out") == "built"
