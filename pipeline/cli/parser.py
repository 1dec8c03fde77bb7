"""The command line's grammar: every command, its options and their help (defaults from `pipeline.settings`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from topic_explorer.pipeline.cli import commands as run
from topic_explorer.pipeline.describe.chat import DEFAULT_TIMEOUT
from topic_explorer.pipeline.settings import DEVICES, EMBEDDERS, MIN_PAPERS, PRECISIONS, BuildSettings, help_for

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
  topic-explorer name my-build --llm http://localhost:11434/v1 --model llama3.2   # names from your own model
"""


def make_parser() -> argparse.ArgumentParser:
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
    build.add_argument(  # no `choices`: BuildSettings refuses a bad value in one line naming the valid ones
        "--precision",
        default=BuildSettings.precision,
        metavar="{" + ",".join(PRECISIONS) + "}",
        help=help_for("precision") + " (default %(default)s)",
    )
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
    _run_options(build)
    build.set_defaults(run=run.build)

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
    _run_options(add)
    add.set_defaults(run=run.add)

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
    serve.set_defaults(run=run.serve)

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
    evaluate.set_defaults(run=run.evaluate)

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
    search.set_defaults(run=run.search)

    similar = commands.add_parser(
        "similar",
        help="find the papers closest to one paper",
        description="Rank a build's papers by cosine similarity to the paper PAPER_ID (itself left out), best first.",
    )
    similar.add_argument("build", type=Path, metavar="BUILD", help="a build folder")
    similar.add_argument("paper_id", metavar="PAPER_ID", help="a paper_id of the build, e.g. p0123456789ab")
    _ranking_options(similar)
    similar.set_defaults(run=run.similar)

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
    export.set_defaults(run=run.export)

    name = commands.add_parser(
        "name",
        help="name the topics and themes with your own language model (any OpenAI-compatible server)",
        description=(
            "Ask an OpenAI-compatible chat endpoint (Ollama, llama.cpp's server, vLLM, a hosted API) for a short "
            "name per topic and per theme. A topic's request holds the corpus's title, the topic's size, keywords "
            "and the titles of its five most central papers (their abstracts, cut short, only with --with-abstracts); "
            "a theme's, its topics' names and sizes, keywords and a central title from each of its largest topics. "
            "Nothing is sent unless this command is run. The names are saved as renames in the build's "
            "edits.json, so the dashboard, downloads and the map page show them, and the dashboard's Undo brings "
            "back the offline names. A name that cannot be had (no reply, an error, a refusal, a reply that is not "
            "a name) keeps the current one, with one line saying why. Exit status 1 when nothing was named."
        ),
    )
    name.add_argument("build", type=Path, metavar="BUILD", help="a build folder")
    name.add_argument(
        "--llm",
        required=True,
        metavar="URL",
        help="the server's OpenAI-compatible address, e.g. http://localhost:11434/v1 (Ollama), "
        "http://localhost:8080/v1 (llama.cpp), http://localhost:8000/v1 (vLLM); /chat/completions is added "
        "unless URL ends with it",
    )
    name.add_argument("--model", required=True, metavar="NAME", help="the model, as the server names it, e.g. llama3.2")
    name.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="the environment variable holding the API key, sent as 'Authorization: Bearer'; without it, no key",
    )
    name.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="how long to wait for each reply (default %(default)g)",
    )
    name.add_argument(
        "--with-abstracts",
        action="store_true",
        help="also send the abstracts of those central papers (cut to 1,000 characters each)",
    )
    name.add_argument("--dry-run", action="store_true", help="print the old and new names; write nothing")
    name.set_defaults(run=run.name)
    return parser


def _run_options(command: argparse.ArgumentParser) -> None:
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
    from topic_explorer.pipeline.search.ranked import DEFAULT_TOP

    parser.add_argument(
        "--top", type=int, default=DEFAULT_TOP, metavar="K", help="how many papers (default %(default)s)"
    )
    if json_option:
        parser.add_argument("--json", action="store_true", help="print a JSON list of objects instead of a table")
