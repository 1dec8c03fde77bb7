"""Names for a build's topics and themes from the user's own language model, kept as the reader's edits.

BERTopic's LLM representations are the model: each topic is described to the model by its keywords and the
titles of its most central papers (abstracts only when asked, cut short), and its reply, once it reads as a
name (`chat.clean_name`), becomes a rename in `edits.json`. The offline names stay in the build's own files, so
the dashboard's Undo brings them back. A theme (a group of the topic tree) is described by its keywords, its
topics' names (the model's new ones where it gave them) and a central title from each of its largest topics.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from topic_explorer.pipeline.buildfolder import edits
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.buildfolder.schema import Build
from topic_explorer.pipeline.describe.chat import ChatEndpoint, ChatProblem, NotAName, clean_name

logger = logging.getLogger(__name__)

KEYWORDS_SENT = 10
TITLES_SENT = 5
TOPICS_SENT = 8  # a theme's topics, largest first
TITLE_CHARS = 300
ABSTRACT_CHARS = 1_000
SYSTEM_PROMPT = (
    "You name the topics of a collection of research papers. Reply with the name only: a short noun phrase "
    "of at most six words, as researchers in the field would call it (its established term or acronym where it "
    "has one), with no quotes, no explanation and no final full stop."
)


@dataclass(frozen=True)
class Naming:
    """One topic's or theme's outcome: its new name, or the problem that kept its current one."""

    kind: str  # "topic" or "theme"
    key: int  # the topic's id, or the theme's group id in the topic tree
    old: str  # the name shown now
    new: str | None = None
    problem: str | None = None
    fatal: bool = False  # a problem every later request would share: nothing more is asked

    @property
    def what(self) -> str:
        return f'{self.kind} {self.key} "{self.old}"'


@dataclass
class NamingResult:
    """Every naming asked for, in order; why the rest were not asked (`stopped`); how many edits were written."""

    totals: dict[str, int]  # topics and themes to name
    namings: list[Naming] = field(default_factory=list)
    stopped: str | None = None
    not_asked: int = 0
    written: int = 0

    @property
    def named(self) -> list[Naming]:
        return [n for n in self.namings if n.new is not None]


def name_build(
    path: Path,
    endpoint: ChatEndpoint,
    *,
    with_abstracts: bool = False,
    dry_run: bool = False,
    report: Callable[[Naming], None] | None = None,
) -> NamingResult:
    """Ask `endpoint` for a name per topic and per theme of the build at `path`; store the new ones as edits.

    Topics named with `--topics` keep their names. `report` sees each outcome as it comes (a slow local model
    takes seconds per name). After a problem every request would share (no server, a refused key, no such
    model) nothing more is asked. With `dry_run`, or when nothing was renamed, nothing is written.
    """
    build = read_build(path)
    topics = _topics_to_name(build)
    themes = _themes_to_name(build)
    result = NamingResult(totals={"topic": len(topics), "theme": len(themes)})
    names = dict(zip(build.topics["topic_id"].astype(int), build.topics["label"].astype(str), strict=True))
    asks: list[tuple[str, int, str, Callable[[], str]]] = [
        ("topic", t, names[t], lambda t=t: _topic_prompt(build, t, with_abstracts)) for t in topics
    ]
    asks += [("theme", th.group_id, th.label, lambda th=th: _theme_prompt(build, th, names)) for th in themes]
    for number, (kind, key, old, prompt) in enumerate(asks):
        naming = _ask(endpoint, kind, key, old, prompt())
        result.namings.append(naming)
        if report is not None:
            report(naming)
        if kind == "topic" and naming.new is not None:
            names[key] = naming.new  # the themes are described by their topics' new names
        if naming.fatal:
            result.stopped, result.not_asked = naming.problem, len(asks) - number - 1
            break
    changed = [n for n in result.named if n.new != n.old]
    if changed and not dry_run:
        made = [edits.rename(n.key, n.new) if n.kind == "topic" else edits.rename_theme(n.key, n.new) for n in changed]
        edits.add_edits(build.path, made, by=f"topic-explorer name ({endpoint.model})")
        result.written = len(made)
        logger.debug("stored %d names in %s", len(made), build.path / edits.EDITS_FILE)
    return result


@dataclass(frozen=True)
class _Theme:
    group_id: int
    label: str  # its name now
    topics: list[int]  # the build's topics it holds
    keywords: list[str]


def _ask(endpoint: ChatEndpoint, kind: str, key: int, old: str, prompt: str) -> Naming:
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}]
    try:
        return Naming(kind, key, old, new=clean_name(endpoint.ask(messages)))
    except ChatProblem as problem:
        return Naming(kind, key, old, problem=str(problem), fatal=problem.fatal)
    except NotAName as problem:
        return Naming(kind, key, old, problem=str(problem))


def _topics_to_name(build: Build) -> list[int]:
    """Every topic but topic -1 and those the user named with `--topics`, by id."""
    topics = build.topics[(build.topics["topic_id"] >= 0) & ~build.topics["named"].astype(bool)]
    return sorted(int(t) for t in topics["topic_id"])


def _themes_to_name(build: Build) -> list[_Theme]:
    """Each group of the topic tree holding two or more of the build's topics, once (a group may recur at
    several levels), broadest first."""
    present = set(build.topics["topic_id"].astype(int))
    themes, seen = [], set()
    for row in build.hierarchy.sort_values(["level", "group_id"], kind="stable").itertuples():
        held = [int(t) for t in row.topic_ids if int(t) in present]
        if int(row.group_id) not in seen and len(held) >= 2:
            seen.add(int(row.group_id))
            themes.append(_Theme(int(row.group_id), str(row.label), held, [str(k) for k in row.keywords]))
    return themes


def _topic_prompt(build: Build, topic_id: int, with_abstracts: bool) -> str:
    topic = build.topics.set_index("topic_id").loc[topic_id]
    papers = _central(build.papers[build.papers["topic_id"] == topic_id])
    lines = [
        f"A topic in a collection of research papers ({build.title}) holds {int(topic['size']):,} papers.",
        f"Its keywords: {', '.join(list(topic['keywords'])[:KEYWORDS_SENT])}.",
        "Titles of its most representative papers:",
    ]
    for paper in papers.head(TITLES_SENT).itertuples():
        lines.append(f"- {_cut(paper.title, TITLE_CHARS)}")
        if with_abstracts:
            lines.append(f"  Abstract: {_cut(paper.abstract, ABSTRACT_CHARS)}")
    lines.append("Give this topic a short name.")
    return "\n".join(lines)


def _theme_prompt(build: Build, theme: _Theme, names: dict[int, str]) -> str:
    topics = build.topics.set_index("topic_id").loc[theme.topics].sort_values("size", ascending=False, kind="stable")
    keywords = theme.keywords[:KEYWORDS_SENT]
    lines = [
        f"A broad theme in a collection of research papers ({build.title}) holds {int(topics['size'].sum()):,} "
        f"papers in {len(theme.topics)} topics. Its largest topics:",
        *(f"- {names[t]} ({int(topics.loc[t, 'size']):,} papers)" for t in topics.index[:TOPICS_SENT]),
    ]
    if keywords:
        lines.append(f"Its keywords: {', '.join(keywords)}.")
    titles = [_central(build.papers[build.papers["topic_id"] == t])["title"].iloc[:1] for t in topics.index]
    lines.append("A representative paper from each of its largest topics:")
    lines += [f"- {_cut(title, TITLE_CHARS)}" for title in pd.concat(titles).head(TITLES_SENT)]
    lines.append("Give this theme a short name that covers its main parts, broader than any one of its topics.")
    return "\n".join(lines)


def _central(papers: pd.DataFrame) -> pd.DataFrame:
    """A topic's papers, closest to its centre first (moved papers, whose closeness is unknown, last)."""
    return papers.sort_values("confidence", ascending=False, na_position="last", kind="stable")


def _cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"
