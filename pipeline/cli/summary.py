"""Plain-text reports for the terminal: the closing summary of a build, the quality table."""

from __future__ import annotations

from pathlib import Path

from topic_explorer.pipeline.evaluate.quality import Quality
from topic_explorer.pipeline.run.add import AddResult
from topic_explorer.pipeline.run.build import STAGES, BuildResult

MAX_TOPICS_LISTED = 30


def build_summary(result: BuildResult) -> str:
    """What a researcher wants after a build: what went in, what came out, how long, where."""
    corpus, seconds = result.corpus, result.seconds
    files = len(corpus.inputs)
    table = result.table[result.table["topic_id"] >= 0]
    poorly = int(result.fits_poorly.sum())
    outcome = "kept apart in topic -1" if (result.topic_id == -1).any() else "each in its nearest topic"
    lines = [
        f"Built {corpus.n_papers} papers into {len(table)} topics "
        f"({poorly} fitting poorly, {outcome}) in {sum(seconds.values()):.1f} s",
        f"  read {corpus.rows_read} rows from {files} file{'s' if files != 1 else ''}; dropped "
        f"{corpus.empty_dropped} empty and {corpus.duplicates_dropped} duplicate abstracts; "
        f"derived {result.titles_derived} titles",
    ]
    if result.cache is not None:
        lines.append(f"  embeddings: {result.cache.embedded} computed, {result.cache.reused} reused from the cache")
    lines.append("  topics:")
    for row in table.head(MAX_TOPICS_LISTED).itertuples():
        named = "  (named)" if row.named else ""
        lines.append(f"    {row.topic_id:>3}  {row.size:>5} {_papers(row.size)}  {row.label}{named}")
    if len(table) > MAX_TOPICS_LISTED:
        lines.append(f"    ... and {len(table) - MAX_TOPICS_LISTED} more")
    if result.unmatched_names:
        lines.append(f"  named topics no paper matched: {', '.join(map(repr, result.unmatched_names))}")
    lines.append("  time: " + ", ".join(f"{stage} {seconds.get(stage, 0.0):.1f}s" for stage in STAGES))
    lines.append(
        f"  quality: coherence (NPMI) {result.quality.coherence:.3f}, diversity {result.quality.diversity:.3f}"
    )
    lines.append(f"  build: {result.path}")
    lines.append(f"  explore it: topic-explorer serve {result.path}")
    return "\n".join(lines)


def add_summary(result: AddResult) -> str:
    """After `add`: how many papers came in, where they went, and whether a rebuild is due."""
    lines = [
        f"Added {result.added:,} papers to {result.path.name} (now {result.papers:,}); "
        f"skipped {result.duplicates:,} it already had; {result.poorly_fitting:,} fit no topic well "
        f"(flagged) in {sum(result.seconds.values()):.1f} s",
    ]
    if result.cache is not None:
        lines.append(f"  embeddings: {result.cache.embedded} computed, {result.cache.reused} reused from the cache")
    grown = result.topic_sizes[result.topic_sizes["added"] > 0].sort_values("added", ascending=False)
    if len(grown):
        lines.append("  topics that grew:")
        for row in grown.head(MAX_TOPICS_LISTED).itertuples():
            lines.append(f"    {row.topic_id:>3}  +{row.added:<5} now {row.size:>6} {_papers(row.size)}  {row.label}")
    if result.rebuild_suggested:
        lines.append(
            f"  {result.poorly_fitting_since_build:,} papers added since the build fit no topic well: "
            f"a rebuild may find new topics among them (topic-explorer build ... --out {result.path})"
        )
    lines.append(f"  explore it: topic-explorer serve {result.path}")
    return "\n".join(lines)


def quality_table(path: Path, quality: Quality) -> str:
    """`topic-explorer evaluate` without --json."""
    sizes = quality.sizes
    lines = [
        f"Topic quality of {path}",
        f"  topics                {quality.n_topics}",
        f"  coherence (NPMI)      {quality.coherence:.3f}   mean over topics; -1 to 1, higher is better",
        f"  diversity             {quality.diversity:.3f}   distinct share of top-25 keywords; 1 = no repeats",
        f"  poorly fitting        {quality.poorly_fitting_share:.3f}   papers far from their topic's centre (about .05 "
        "by construction)",
        f"  topic sizes           smallest {sizes['smallest']}, median {sizes['median']:g}, "
        f"largest {sizes['largest']} ({sizes['largest_share']:.0%} of papers)",
    ]
    if quality.agreement:
        agreement = quality.agreement
        lines.append(
            f"  agreement with labels NMI {agreement['nmi']:.3f}, ARI {agreement['ari']:.3f}, "
            f"purity {agreement['purity']:.3f} ({agreement['labelled_papers']} labelled papers)"
        )
    lines.append("")
    lines.append(f"  {'topic':>5}  {'size':>5}  {'NPMI':>6}  label")
    for row in quality.per_topic.sort_values("coherence").itertuples():
        lines.append(f"  {row.topic_id:>5}  {row.size:>5}  {row.coherence:>6.3f}  {row.label}")
    return "\n".join(lines)


def _papers(n: int) -> str:
    """'papers', or 'paper ' (same width, so the labels stay in line) for one."""
    return "paper " if n == 1 else "papers"
