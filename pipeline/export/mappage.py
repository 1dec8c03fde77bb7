"""The map as one HTML file that opens offline: Plotly's bundle inlined, the papers embedded as data.

Opened from a file, the page makes no request: Plotly's JavaScript and every paper are inside it, and its
Content-Security-Policy forbids fetching anything. Titles, abstracts, labels and metadata are JSON inside a
`<script type="application/json">` element, escaped so no text can end it (`embedded_json`), and the page
shows them with `textContent` only; a paper's link is kept only when it is an http(s) address. Titles show
their LaTeX as text (`$\\ell_1$` as "ℓ₁"), as the dashboard shows them.

Size (measured, see benchmarks/map_page.py): a map draws at most `map_points()` papers (20,000; the
dashboard's sample, and the page says so), and abstracts are kept whole while the drawn papers' abstracts
total at most `ABSTRACT_BUDGET_CHARS`; beyond, each is cut to an equal share of it (never under
`MIN_ABSTRACT_CHARS`), and the page says so. Plotly's bundle is about 4.8 MB of each file.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pandas as pd

from topic_explorer.pipeline.buildfolder.metadata import value_text
from topic_explorer.pipeline.export.selection import Selection
from topic_explorer.pipeline.map.sample import drawn_rows, map_extent, map_points
from topic_explorer.pipeline.text.latex import latex_to_text
from topic_explorer.pipeline.view.identifiers import is_identifier, paper_link

TEMPLATE = "mappage.html"
PLOTLY_SLOT, DATA_SLOT = "/*PLOTLY*/", "/*DATA*/"
ABSTRACT_BUDGET_CHARS = 12_000_000  # about 12 MB of abstracts: a 20,000-paper page stays near 25 MB in all
MIN_ABSTRACT_CHARS = 300  # a shortened abstract still says what the paper does
# Characters that could end the <script> element holding the data, or end a line in older JavaScript.
SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def embedded_json(value: object) -> str:
    """JSON that is safe inside a `<script>` element: no `</script>`, `<!--` or line separator survives in it.

    Every character escaped here can only occur inside a JSON string, where its \\u escape means the same.
    """
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return "".join(SCRIPT_ESCAPES.get(char, char) for char in text)


def map_page_bytes(selection: Selection) -> bytes:
    """The page, UTF-8: the selected papers on the map (a fixed sample of them past `map_points()`)."""
    import plotly.offline

    template = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    head, rest = template.split(PLOTLY_SLOT)
    middle, tail = rest.split(DATA_SLOT)
    # Joined, not substituted: no paper's text is ever searched for a slot (a title may read "/*DATA*/").
    return "".join([head, plotly.offline.get_plotlyjs(), middle, embedded_json(page_data(selection)), tail]).encode(
        "utf-8"
    )


def page_data(selection: Selection) -> dict:
    """Everything the page shows, as plain JSON values."""
    papers = selection.papers
    rows = drawn_rows(selection.draw_order, np.ones(len(papers), dtype=bool), map_points())
    drawn = papers.iloc[rows]
    abstracts, cut_to = _abstracts(drawn["abstract"].astype(str).tolist())
    columns = list(selection.metadata_columns)
    topics = selection.levels[-1].topics
    sizes = drawn["topic_id"].value_counts()
    notes = []
    if len(rows) < len(papers):
        notes.append(
            f"Drawing {len(rows):,} of {len(papers):,} papers: an even sample, the same the dashboard draws, "
            "to keep this file small and quick to open. Search and the legend filter the papers drawn."
        )
    if cut_to is not None:
        notes.append(f"Abstracts are shortened to their first {cut_to:,} characters to keep this file small.")
    return {
        "title": f"{selection.title} · {len(papers):,} papers",
        "notes": notes,
        "extent": [list(r) for r in map_extent(papers["x"].to_numpy(float), papers["y"].to_numpy(float))],
        "topics": [
            {"id": int(t), "label": str(label), "colour": str(colour), "size": int(sizes.get(t, 0))}
            for t, label, colour in zip(topics["topic_id"], topics["label"], topics["colour"], strict=True)
            if t in sizes.index
        ],
        "themes": _themes(selection, set(sizes.index)),
        "names": map_names(selection, drawn),
        "columns": columns,
        "papers": {
            "x": [round(float(v), 5) for v in drawn["x"]],
            "y": [round(float(v), 5) for v in drawn["y"]],
            "topic": [int(t) for t in drawn["topic_id"]],
            "id": drawn["paper_id"].astype(str).tolist(),
            "title": [latex_to_text(title) for title in drawn["title"].astype(str)],  # as the dashboard shows them
            "abstract": abstracts,
            "link": _links(drawn, columns),
            "meta": [list(values) for values in zip(*(_texts(drawn[c]) for c in columns), strict=True)]
            if columns
            else [[] for _ in range(len(drawn))],
        },
    }


NAME_CHARS = 48  # a longer name is cut after a whole word, as in the dashboard's map


def map_names(selection: Selection, drawn: pd.DataFrame) -> list[dict]:
    """The names the page draws on the map, the dashboard's own: the broadest themes, then the topics, each
    biggest first, at the middle of its drawn papers. The page shows each where it fits at the zoom of the moment
    (themes first), so zooming in brings the topics' names out."""
    levels = [("theme", selection.levels[0])] if len(selection.levels) > 1 else []
    levels.append(("topic", selection.levels[-1]))
    x, y, topic = drawn["x"].to_numpy(float), drawn["y"].to_numpy(float), drawn["topic_id"].to_numpy()
    names = []
    for kind, level in levels:
        found = []
        for group, label in zip(level.topics["topic_id"], level.topics["label"], strict=True):
            held = [int(t) for t in level.members[group] if t != -1]
            mine = np.isin(topic, held)
            if held and mine.any():
                at = _middle(x[mine], y[mine])
                found.append({"text": _cut(str(label)), "x": at[0], "y": at[1], "kind": kind, "topics": held,
                              "size": int(mine.sum())})  # fmt: skip
        names.extend(sorted(found, key=lambda name: -name["size"]))
    return names


def _middle(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The drawn paper nearest the group's median: a spot among its own papers, not a gap between them."""
    nearest = int(np.argmin((x - np.median(x)) ** 2 + (y - np.median(y)) ** 2))
    return round(float(x[nearest]), 5), round(float(y[nearest]), 5)


def _cut(label: str) -> str:
    label = " ".join(label.split())
    return label if len(label) <= NAME_CHARS else label[:NAME_CHARS].rsplit(" ", 1)[0] + " …"


def _abstracts(abstracts: list[str]) -> tuple[list[str], int | None]:
    """Whole, or each cut at a word to an equal share of the budget: (texts, the length cut to or None)."""
    if sum(len(a) for a in abstracts) <= ABSTRACT_BUDGET_CHARS:
        return abstracts, None
    limit = max(MIN_ABSTRACT_CHARS, ABSTRACT_BUDGET_CHARS // len(abstracts))
    return [a if len(a) <= limit else a[:limit].rsplit(" ", 1)[0] + " …" for a in abstracts], limit


def _themes(selection: Selection, present: set[int]) -> list[dict]:
    """The broadest level of the topic tree: each theme's label and the drawn topics it holds (none: no tree)."""
    if len(selection.levels) < 2:
        return []
    broadest = selection.levels[0]
    labels = dict(zip(broadest.topics["topic_id"], broadest.topics["label"], strict=True))
    themes = []
    for group, held in broadest.members.items():
        kept = [int(t) for t in held if t in present]
        if kept:
            themes.append({"label": str(labels[group]), "topics": kept})
    return themes


def _links(papers: pd.DataFrame, columns: list[str]) -> list[str | None]:
    """Per paper, the web page its first identifier opens (a URL, a DOI or an arXiv id), else None."""
    links: list[str | None] = [None] * len(papers)
    for column in (c for c in columns if is_identifier(c, papers[c])):
        for row, value in enumerate(papers[column]):
            if links[row] is None:
                links[row] = paper_link(value)
    return links


def _texts(values: pd.Series) -> list[str | None]:
    return [value_text(v) for v in values]
