"""`topic-explorer`: build topics from abstracts, serve the dashboard, evaluate a build.

Each command parses its options and calls one library function. User mistakes end as a
one-line "error: ..." on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
import tempfile
import warnings
from pathlib import Path

from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.settings import DEVICES, EMBEDDERS, MIN_PAPERS, BuildSettings, check_batch_size, help_for

EXIT_USER_ERROR = 2
DASK_HELP = (
    "Run embedding, assignment and placement as Dask tasks: 'local' (a cluster sized to this machine), "
    "'local:N' (N worker processes) or a running scheduler's address, e.g. tcp://10.0.0.5:8786. "
    "Without it, everything runs in this process."
)

DESCRIPTION = """\
Topic Explorer: find the topics in a pile of paper abstracts and explore them on a map.

  topic-explorer build --out my-build            # the bundled sample: 38 NeurIPS 2025 abstracts
  topic-explorer build papers.csv --out my-build # your own corpus
  topic-explorer add my-build new-papers.csv     # add papers to a build, without refitting it
  topic-explorer serve my-build                  # open the dashboard
  topic-explorer evaluate my-build               # how good are the topics?
  topic-explorer search my-build "privacy in federated training"   # by meaning and words
  topic-explorer similar my-build p0123456789ab  # the papers closest to one paper
  topic-explorer export my-build --out map.html  # the map in one file; or .csv .xlsx .parquet .jsonl .bib .ris
"""


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("topic_explorer.pipeline").setLevel(
        logging.WARNING if getattr(args, "quiet", False) else logging.INFO
    )
    warnings.simplefilter("ignore")  # library warnings are not actionable for users
    try:
        return args.run(args)
    except UserError as error:
        print(error_line(error), file=sys.stderr)
        return EXIT_USER_ERROR
    except OSError as error:  # a full disk, a folder without permission: the machine's state, not a bug
        place = f" {error.filename}" if error.filename else ""
        problem = (
            f"could not use{place}: {error.strerror or error}; free some disk space or choose a folder you can write to"
        )
        print(error_line(UserError(problem)), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("interrupted: nothing was written", file=sys.stderr)
        return 130


def error_line(error: UserError) -> str:
    """The one line a user mistake prints, whatever the message quotes (a column name with a line break, say)."""
    return "error: " + " ".join(str(error).split())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="topic-explorer", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    build = commands.add_parser(
        "build",
        help="turn abstracts into a topic build folder",
        description=(
            "Find the topics in a corpus of abstracts and write a build folder for the dashboard. "
            "Inputs: plain text (one abstract per blank-line-separated paragraph, optional header "
            "line), CSV, TSV, JSON, JSON Lines or Parquet, optionally gzip-compressed. With no "
            f"input, the bundled sample is built. At least {MIN_PAPERS} distinct abstracts are needed."
        ),
    )
    build.add_argument("inputs", nargs="*", type=Path, metavar="INPUT", help="files of abstracts (default: the sample)")
    build.add_argument(
        "--out", required=True, type=Path, metavar="DIR", help="the build folder to write (replaced atomically)"
    )
    build.add_argument("--title", metavar="TEXT", help=help_for("title"))
    build.add_argument("--text-column", metavar="NAME", help=help_for("text_column"))
    build.add_argument("--title-column", metavar="NAME", help=help_for("title_column"))
    build.add_argument("--embedder", choices=EMBEDDERS, default=BuildSettings.embedder, help=help_for("embedder"))
    build.add_argument("--seed", type=int, default=BuildSettings.seed, help=help_for("seed") + " (default %(default)s)")
    build.add_argument("--min-topic-size", type=int, metavar="N", help=help_for("min_topic_size"))
    build.add_argument("--topics", nargs="+", default=(), metavar="NAME", help=help_for("named_topics"))
    build.add_argument(
        "--named-topic-threshold",
        type=float,
        default=BuildSettings.named_topic_threshold,
        metavar="SIM",
        help=help_for("named_topic_threshold") + " (default %(default)s)",
    )
    build.add_argument("--keep-outliers", action="store_true", help=help_for("keep_outliers"))
    build.add_argument(
        "--keywords-per-topic",
        type=int,
        default=BuildSettings.keywords_per_topic,
        metavar="N",
        help=help_for("keywords_per_topic") + " (default %(default)s)",
    )
    build.add_argument(
        "--fit-sample",
        type=int,
        default=BuildSettings.fit_sample,
        metavar="N",
        help=help_for("fit_sample") + " (default %(default)s)",
    )
    _add_run_options(build)
    build.set_defaults(run=_build)

    add = commands.add_parser(
        "add",
        help="add new papers to a build, without fitting it again",
        description=(
            "Add papers (same formats as build) to an existing build: papers it already has are skipped, the "
            "rest are embedded, assigned to the existing topics and placed on the existing map, and the build "
            "is written again as a new version (atomically). Topic sizes and keywords are updated; labels and "
            "the fitted model stay. Papers that fit no topic well are flagged, and the summary says when a "
            "rebuild would likely find new topics among them."
        ),
    )
    add.add_argument("build", type=Path, metavar="BUILD", help="the build folder to add to")
    add.add_argument("inputs", nargs="+", type=Path, metavar="INPUT", help="files of new abstracts")
    _add_run_options(add)
    add.set_defaults(run=_add)

    serve = commands.add_parser(
        "serve",
        help="open the dashboard on a build",
        description="Start the dashboard. With no BUILD, it shows the bundled sample, building it first if needed.",
    )
    serve.add_argument("build", nargs="?", type=Path, metavar="BUILD", help="a build folder (default: the sample's)")
    serve.add_argument("--port", type=int, default=8501, help="port to listen on (default %(default)s)")
    serve.add_argument(
        "--host",
        default="localhost",
        help="address to listen on (default %(default)s); on any other address the dashboard is read-only",
    )
    serve.add_argument(
        "--allow-edits",
        action="store_true",
        help="let everyone who can reach the server rename, merge and move topics (on localhost it is always on)",
    )
    serve.set_defaults(run=_serve)

    evaluate = commands.add_parser(
        "evaluate",
        help="score a build's topics",
        description=(
            "Score a build: topic coherence (NPMI of each topic's top-10 keywords by document "
            "co-occurrence, -1 to 1), diversity (share of distinct words among each topic's top 25), "
            "outlier share and topic sizes; with --label-column, agreement with known labels "
            "(NMI, ARI, purity)."
        ),
    )
    evaluate.add_argument("build", type=Path, metavar="BUILD", help="a build folder")
    evaluate.add_argument("--label-column", metavar="NAME", help="a metadata column of known labels, e.g. field")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    evaluate.set_defaults(run=_evaluate)

    search = commands.add_parser(
        "search",
        help="find papers by meaning and by words",
        description=(
            "Rank a build's papers by how well they match QUERY, best first: by meaning (cosine similarity of the "
            "query's embedding, made with the build's own embedder, to each paper's) and by words (BM25 over "
            "titles and abstracts) together, fused by reciprocal rank (score 1: first by both). The dashboard's "
            "Search ranks the same way."
        ),
    )
    search.add_argument("build", type=Path, metavar="BUILD", help="a build folder")
    search.add_argument(
        "query", metavar="QUERY", help='what the papers are about, e.g. "privacy in federated training"'
    )
    _ranking_options(search)
    search.set_defaults(run=_search)

    similar = commands.add_parser(
        "similar",
        help="find the papers closest to one paper",
        description="Rank a build's papers by cosine similarity to the paper PAPER_ID (itself left out), best first.",
    )
    similar.add_argument("build", type=Path, metavar="BUILD", help="a build folder")
    similar.add_argument("paper_id", metavar="PAPER_ID", help="a paper_id of the build, e.g. p0123456789ab")
    _ranking_options(similar)
    similar.set_defaults(run=_similar)

    export = commands.add_parser(
        "export",
        help="write a build's papers to a file: a table, BibTeX, RIS or the map as one HTML page",
        description=(
            "Write papers of a build to FILE, in the format its extension names: .csv, .xlsx, .parquet, .jsonl "
            "(the dashboard's downloads, byte for byte), .bib or .ris (for Zotero, JabRef, EndNote, Mendeley) or "
            ".html (the map in one file that opens offline). Which papers: a topic (--topic), the best matches "
            "for a query, ranked as `topic-explorer search` ranks them (--query, --top), or all. The file is "
            "written whole or not at all."
        ),
    )
    export.add_argument("build", type=Path, metavar="BUILD", help="a build folder")
    export.add_argument("--out", required=True, type=Path, metavar="FILE", help="the file to write (replaced whole)")
    which = export.add_mutually_exclusive_group()
    which.add_argument("--topic", metavar="TOPIC", help="a topic's id or label (as the dashboard shows it)")
    which.add_argument("--query", metavar="QUERY", help='papers by meaning, e.g. "privacy in federated training"')
    export.add_argument(
        "--level",
        type=int,
        metavar="N",
        help="the level of detail --topic names and broader_topic follows: 0 is the broadest theme "
        "(default: the finest, the topics themselves)",
    )
    _ranking_options(export, json_option=False)
    export.set_defaults(run=_export)
    return parser


def _add_run_options(command: argparse.ArgumentParser) -> None:
    """Where and how quietly `build` and `add` run (they change no result)."""
    command.add_argument("--device", choices=DEVICES, default=BuildSettings.device, help=help_for("device"))
    command.add_argument("--dask", metavar="SCHEDULER", help=DASK_HELP)
    command.add_argument(
        "--batch-size",
        type=int,
        default=BuildSettings.batch_size,
        metavar="N",
        help=help_for("batch_size") + " (default %(default)s)",
    )
    command.add_argument("--cache-dir", type=Path, metavar="DIR", help=help_for("cache_dir"))
    command.add_argument("--quiet", action="store_true", help="print nothing but errors and warnings")


def _ranking_options(parser: argparse.ArgumentParser, json_option: bool = True) -> None:
    from topic_explorer.pipeline.search import DEFAULT_TOP

    parser.add_argument(
        "--top", type=int, default=DEFAULT_TOP, metavar="K", help="how many papers (default %(default)s)"
    )
    if json_option:
        parser.add_argument("--json", action="store_true", help="print a JSON list of objects instead of a table")


def _build(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.apply.engine import make_engine
    from topic_explorer.pipeline.build import run_build

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
        cache_dir=args.cache_dir,
    )
    _check_writable(args.out.parent, "--out")
    if settings.embedder == "minilm":
        _check_writable(settings.cache_dir, "--cache-dir")
    engine = make_engine(args.dask)
    try:
        result = run_build(args.inputs, args.out, settings, engine=engine, progress=not args.quiet)
    finally:
        engine.close()
    if not args.quiet:
        from topic_explorer.pipeline.cli.summary import build_summary

        print(build_summary(result))
    return 0


def _add(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.add import add_papers
    from topic_explorer.pipeline.apply.engine import make_engine

    _check_writable(args.build.parent, "BUILD")
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


def _serve(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.cli.serve import serve

    return serve(args.build, port=args.port, host=args.host, allow_edits=args.allow_edits)


def _evaluate(args: argparse.Namespace) -> int:
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


def _search(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.search import query_embedder, search

    _check_top(args.top)
    build = read_build(args.build)
    ranked = search(build, query_embedder(build.path, build.manifest), args.query, args.top)
    print(_ranking_text(build, ranked, args.json))
    return 0


def _similar(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.search import row_of, similar_rows

    _check_top(args.top)
    build = read_build(args.build)
    ranked = similar_rows(build.embeddings(mmap=True), row_of(build, args.paper_id), args.top)
    print(_ranking_text(build, ranked, args.json))
    return 0


def _export(args: argparse.Namespace) -> int:
    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.share.choose import export_rows
    from topic_explorer.pipeline.share.export import export_bytes, format_of, write_atomically
    from topic_explorer.pipeline.share.selection import select

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
