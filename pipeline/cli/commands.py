"""What each command does with its parsed options: one library call each, and the checks that fail early.

Heavy libraries are imported inside each command, so `topic-explorer --help` and a mistyped option stay instant.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from pathlib import Path

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.settings import BuildSettings, check_batch_size


def build(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.apply.engine import make_engine
    from topic_explorer.pipeline.fit.lean_bertopic import import_bertopic
    from topic_explorer.pipeline.run.build import run_build

    files_as_names = [name for name in args.topics if Path(name).is_file()]
    if files_as_names and not args.inputs:  # `--topics A B papers.csv` reads the file as a topic name
        raise UserError(f"{files_as_names[0]} was taken as a topic name; put input files before --topics")
    settings = BuildSettings(
        title=args.title,
        embedder=args.embedder,
        seed=args.seed,
        min_topic_size=args.min_topic_size,
        named_topics=tuple(args.topics),
        named_topic_threshold=args.named_topic_threshold,
        keep_outliers=args.keep_outliers,
        keywords_per_topic=args.keywords_per_topic,
        text_column=args.text_column,
        title_column=args.title_column,
        fit_sample=args.fit_sample,
        batch_size=args.batch_size,
        device=args.device,
        precision=args.precision,
        cache_dir=args.cache_dir,
    )
    _check_writable(args.out.parent, "--out")
    if settings.embedder == "minilm":
        _check_writable(settings.cache_dir, "--cache-dir")
    import_bertopic()
    engine = make_engine(args.dask)
    try:
        result = run_build(args.inputs, args.out, settings, engine=engine, progress=not args.quiet)
    finally:
        engine.close()
    if not args.quiet:
        from topic_explorer.pipeline.cli.summary import build_summary

        print(build_summary(result))
    return 0


def add(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.apply.engine import make_engine
    from topic_explorer.pipeline.fit.lean_bertopic import import_bertopic
    from topic_explorer.pipeline.run.add import add_papers

    _check_writable(args.build.parent, "BUILD")
    import_bertopic()
    engine = make_engine(args.dask)
    try:
        result = add_papers(
            args.build,
            args.inputs,
            engine=engine,
            cache_dir=args.cache_dir,
            device=args.device,
            batch_size=check_batch_size(args.batch_size),
            progress=not args.quiet,
        )
    finally:
        engine.close()
    if not args.quiet:
        from topic_explorer.pipeline.cli.summary import add_summary

        print(add_summary(result))
    return 0


def _check_writable(folder: Path, flag: str) -> None:
    """Fail before minutes of work if nothing can be written in `folder` (or the nearest existing folder above)."""
    existing = next(p for p in (folder.absolute(), *folder.absolute().parents) if p.exists())
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as error:
        raise UserError(
            f"cannot write in {existing} ({error.strerror}); choose a folder you can write to with {flag}"
        ) from None


def serve(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.cli import serve as serving

    return serving.serve(args.build, port=args.port, host=args.host, allow_edits=args.allow_edits)


def evaluate(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.evaluate.quality import assess

    build = read_build(args.build)
    labels = None
    if args.label_column:
        if args.label_column not in build.metadata_columns:
            columns = ", ".join(build.metadata_columns) or "none"
            raise UserError(f"--label-column {args.label_column!r} is not in this build (metadata columns: {columns})")
        labels = build.papers[args.label_column]
    quality = assess(
        build.papers["abstract"].tolist(),
        build.papers["topic_id"].to_numpy(),
        build.papers["fits_poorly"].to_numpy(),
        build.topics,
        labels,
    )
    if args.json:
        per_topic = quality.per_topic.to_dict(orient="records")
        print(json.dumps(_finite({"build": str(build.path), **quality.summary(), "per_topic": per_topic}), indent=2))
    else:
        from topic_explorer.pipeline.cli.summary import quality_table

        print(quality_table(build.path, quality))
    return 0


def search(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.search.ranked import query_embedder, search

    _check_top(args.top)
    build = read_build(args.build)
    ranked = search(build, query_embedder(build.path, build.manifest), args.query, args.top)
    print(_ranking_text(build, ranked, args.json))
    return 0


def similar(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.search.ranked import row_of, similar_rows

    _check_top(args.top)
    build = read_build(args.build)
    ranked = similar_rows(build.embeddings(mmap=True), row_of(build, args.paper_id), args.top)
    print(_ranking_text(build, ranked, args.json))
    return 0


def export(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.buildfolder.atomic import write_atomically
    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.export.choose import export_rows
    from topic_explorer.pipeline.export.formats import export_bytes, format_of
    from topic_explorer.pipeline.export.selection import select

    export = format_of(args.out)
    _check_top(args.top)
    if not args.out.parent.is_dir():
        raise UserError(f"--out {args.out}: no folder {args.out.parent}; create it first")
    build = read_build(args.build)
    rows, levels, level = export_rows(build, topic=args.topic, query=args.query, top=args.top, level=args.level)
    data = export_bytes(select(build, rows, level=level, levels=levels), export)
    write_atomically(args.out, data)
    print(f"Wrote {len(rows):,} paper{'s' if len(rows) != 1 else ''} to {args.out} ({export.label})", file=sys.stderr)
    return 0


def name(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.describe.chat import ChatEndpoint, endpoint_url
    from topic_explorer.pipeline.describe.llm_names import name_build

    url = endpoint_url(args.llm)
    if not args.model.strip():
        raise UserError("--model: give the model's name as the server knows it, e.g. llama3.2")
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        raise UserError(f"--timeout {args.timeout:g}: give a number of seconds above 0, e.g. 60")
    key = None
    if args.api_key_env is not None:
        key = os.environ.get(args.api_key_env, "").strip()
        if not key:
            raise UserError(f"--api-key-env {args.api_key_env}: that environment variable is not set or is empty")
    if not args.dry_run and args.build.is_dir():
        _check_writable(args.build, "BUILD")
    endpoint = ChatEndpoint(url, args.model.strip(), api_key=key, timeout=args.timeout)
    result = name_build(
        args.build, endpoint, with_abstracts=args.with_abstracts, dry_run=args.dry_run, report=_print_naming
    )
    if not result.namings:
        raise UserError(f"{args.build} has nothing to name: no themes, and every topic was named with --topics")
    if result.stopped:
        print(f"stopped asking: the other {result.not_asked:,} topics and themes keep their names", file=sys.stderr)
    print(_naming_summary(args, result), file=sys.stderr)
    return 0 if result.named else 1


def _print_naming(naming) -> None:
    """One line per topic or theme as its reply comes: the new name on stdout, a problem on stderr."""
    what = f'{naming.kind} {naming.key} "{_one_line(naming.old)}"'
    if naming.new is None:
        print(f"{what}: {_one_line(naming.problem)}; kept its name", file=sys.stderr, flush=True)
    elif naming.new == naming.old:
        print(f"{what}: unchanged", flush=True)
    else:
        print(f'{what} -> "{_one_line(naming.new)}"', flush=True)


def _naming_summary(args: argparse.Namespace, result) -> str:
    from topic_explorer.pipeline.buildfolder.edits import EDITS_FILE

    named = {kind: sum(n.kind == kind and n.new is not None for n in result.namings) for kind in result.totals}
    counts = " and ".join(f"{named[kind]:,} of {total:,} {kind}s" for kind, total in result.totals.items())
    counts += f" named by {args.model.strip()}"
    if not result.named:
        return f"nothing was named ({counts}); the build is unchanged"
    if args.dry_run:
        return f"{counts}; dry run: nothing was written"
    if not result.written:
        return f"{counts}; every name was already the same, nothing was written"
    return (
        f"{counts}; {result.written:,} renames saved in {args.build / EDITS_FILE} "
        "(the dashboard's Undo takes them back one at a time)"
    )


def _check_top(top: int) -> None:
    if top < 1:
        raise UserError(f"--top {top}: give a number of papers of at least 1")


def _ranking_text(build, ranked, as_json: bool) -> str:
    """Ranked papers as a JSON list (paper_id, score, topic_id, topic, title) or as aligned lines."""
    papers = build.papers.iloc[ranked.rows]
    rows = [
        {"paper_id": p, "score": round(float(s), 4), "topic_id": int(t), "topic": label, "title": title}
        for p, s, t, label, title in zip(
            papers["paper_id"], ranked.scores, papers["topic_id"], papers["topic_label"], papers["title"], strict=True
        )
    ]
    if as_json:
        return json.dumps(rows, indent=2, ensure_ascii=False)
    lines = ["score   paper_id       topic | title"]
    lines += [f"{r['score']:.3f}   {r['paper_id']}  {_one_line(r['topic'])} | {_one_line(r['title'])}" for r in rows]
    return "\n".join(lines)


def _one_line(text: str) -> str:
    """A text on one terminal line: line breaks and control characters become spaces."""
    return " ".join("".join(c if c.isprintable() else " " for c in str(text)).split())


def _finite(value):
    """JSON has no NaN: undefined figures become null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
