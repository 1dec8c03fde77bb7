"""Labels measured against what authors call their work (issue 20) and against the names of their fields (issue 29).

    .venv/bin/python benchmarks/label_instrument.py                      # every corpus
    .venv/bin/python benchmarks/label_instrument.py --corpora keyworded  # the 2,667 keyworded papers only
    .venv/bin/python benchmarks/label_instrument.py --corpora arxiv 20ng --embedder tfidf  # (b), TF-IDF builds
    .venv/bin/python benchmarks/label_instrument.py --cache-dir /work/embcache  # MiniLM from a filled cache
    .venv/bin/python benchmarks/label_instrument.py --out DIR            # keep the builds in DIR
    .venv/bin/python benchmarks/label_instrument.py --out DIR --score-only   # score them again

ml_venues (../shared/data) carries its authors' own keywords for 2,667 papers (CoRL, ICLR, COLM). Two
corpora are built with the default settings: `keyworded`, those papers alone, and `mixed`, those papers
with 2,333 others of the remaining venues (seed 0), 5,000 in all. The keywords never reach the build:
they are dropped from its input and kept aside by paper id.

Each topic with at least `MIN_KEYWORDED` papers carrying keywords is scored:
- its reference names are the author keywords most particular to it: papers of the topic using the
  keyword x log(N / papers of the corpus using it), N the keyworded papers of the corpus; the best
  `REFERENCES`, each used by at least `MIN_USES` of the topic's papers;
- its label's score is the MiniLM cosine to the closest reference name, both with acronyms spelled
  out as the corpus defines them (`pipeline.text.acronyms`: "LoRA" reads "Low-Rank Adaptation");
- the baseline is a label made of the topic's first three keywords ("robot, robotic, planning").
Printed: per topic its label, closest reference and cosine; then mean, minimum and the share below
0.60 for the labels and for the baseline. Goal (issue 20): mean >= 0.90, none below 0.60.

(b) Field names (`arxiv`: 5,000 papers of arxiv_2024_2026_part1, `20ng`: 5,000 posts of 20newsgroups_bydate, each
a seeded sample, seed 0): every topic and every theme of every level is scored by the MiniLM cosine of its name to
the closest human name (`category_names.py`: "cs.CL" -> "Computation and Language") of the `REFERENCES` categories
most particular to it (papers of the group in the category x log(N / papers of the corpus in it), each holding at
least `MIN_USES` of its papers). The baseline is stock BERTopic's name for the same papers: its c-TF-IDF's top
`STOCK_WORDS` words (CountVectorizer with English stop words, `ClassTfidfTransformer`), "1_word_word_word_word",
scored as its words. Goals (issue 29): labels >= stock + 0.15; every theme level >= the topics' score. Beside
them, a ceiling (`name_ceiling`): each group's best-scoring name among its own words that the naming rules accept,
chosen with its categories in view, which no naming rule could do blind; it says how far naming alone could go.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "ml_venues_by_field.jsonl.gz"
MIXED_SIZE = 5000  # the keyworded papers plus others up to this many
SEED = 0
REFERENCES = 5  # reference names per topic
MIN_USES = 2  # a reference name is used by at least this many of the topic's papers
MIN_KEYWORDED = 5  # a topic with fewer keyworded papers is not scored
LOW = 0.60  # a label below this cosine to every reference name misses what its authors call it
BASELINE_KEYWORDS = 3
STOCK_WORDS = 4  # BERTopic's default topic names: "{id}_{w1}_{w2}_{w3}_{w4}"
CATEGORY_CORPORA = {  # name -> (file under ../shared/data, papers, seed): the samples the embedding cache holds
    "arxiv": ("arxiv_2024_2026_part1.jsonl.gz", 5000, 0),
    "20ng": ("20newsgroups_bydate.jsonl.gz", 5000, 0),
}
_TOKEN = re.compile(r"[\w'-]+|[^\w\s]+|\s+")


@dataclass(frozen=True)
class Scored:
    """Per scored topic: its label, the baseline label, the reference names and the cosines."""

    table: pd.DataFrame  # topic_id, size, keyworded, label, label_score, label_match, baseline, baseline_score, ...

    def figures(self, column: str) -> dict[str, float]:
        values = self.table[column].to_numpy(dtype=float)
        return {"mean": float(values.mean()), "min": float(values.min()), "below": float((values < LOW).mean())}


def corpus(name: str, scratch: Path) -> tuple[Path, dict[str, list[str]]] | None:
    """The corpus as a JSON Lines file without keywords, and each keyworded paper's keywords by id; None when absent."""
    if not DATA.exists():
        return None
    with gzip.open(DATA, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    keyworded = [row for row in rows if row.get("keywords")]
    chosen = keyworded
    if name == "mixed":
        others = [row for row in rows if not row.get("keywords")]
        chosen = keyworded + random.Random(SEED).sample(others, MIXED_SIZE - len(keyworded))
    path = scratch / f"{name}.jsonl"
    path.write_text(
        "".join(json.dumps({"id": r["id"], "title": r["title"], "abstract": r["abstract"]}) + "\n" for r in chosen),
        encoding="utf-8",
    )
    return path, {str(r["id"]): _keyword_list(r["keywords"]) for r in keyworded}


def _keyword_list(value) -> list[str]:
    if isinstance(value, str):  # a Python-literal list in a string
        import ast

        value = ast.literal_eval(value)
    return [str(k).strip() for k in value if str(k).strip()]


def keyword_key(keyword: str) -> str:
    """'Large Language Models', 'large-language model' -> 'large language model': one reference name."""
    words = re.sub(r"[-_\s]+", " ", keyword.lower()).split()
    if words and len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]
    return " ".join(words)


def reference_names(topic_of: pd.Series, keywords: dict[str, list[str]]) -> dict[int, list[str]]:
    """Each topic's author keywords most particular to it (see the module's docstring), best first.

    `topic_of` maps paper id -> topic for the build's keyworded papers.
    """
    spelled: dict[str, Counter] = {}
    in_topic: dict[int, Counter] = {}
    in_corpus: Counter = Counter()
    for paper, topic in topic_of.items():
        keys = set()
        for keyword in keywords[paper]:
            key = keyword_key(keyword)
            spelled.setdefault(key, Counter())[keyword.lower()] += 1
            keys.add(key)
        in_corpus.update(keys)
        in_topic.setdefault(int(topic), Counter()).update(keys)
    n = len(topic_of)
    names = {}
    for topic, counts in in_topic.items():
        ranked = sorted(
            ((c * math.log(n / in_corpus[k]), k) for k, c in counts.items() if c >= MIN_USES), key=lambda p: -p[0]
        )
        names[topic] = [spelled[k].most_common(1)[0][0] for _, k in ranked[:REFERENCES]]
    return names


def spell_out(text: str, acronyms: dict[str, str]) -> str:
    """Acronyms replaced by the long forms the corpus defines ('LoRA / PEFT', 'llms' -> '... models')."""
    lower = {a.lower(): long for a, long in acronyms.items()}
    out = []
    for token in _TOKEN.findall(text):
        key = token.lower()
        if key in lower:
            out.append(lower[key])
        elif key.endswith("s") and key[:-1] in lower:
            out.append(lower[key[:-1]] + "s")
        else:
            out.append(token)
    return "".join(out)


def score_build(build, keywords: dict[str, list[str]], embed, acronyms: dict[str, str]) -> Scored:
    """The instrument on one build (`read_build`'s result): every topic with enough keyworded papers."""
    papers = build.papers  # the input's `id` column is kept as metadata
    keyworded = papers[papers["id"].astype(str).isin(keywords) & (papers["topic_id"] >= 0)]
    topic_of = keyworded.set_index(keyworded["id"].astype(str))["topic_id"]
    names = reference_names(topic_of, keywords)
    sizes = keyworded["topic_id"].value_counts()
    rows = []
    for topic in build.topics.itertuples():
        refs = names.get(int(topic.topic_id), [])
        if sizes.get(topic.topic_id, 0) < MIN_KEYWORDED or not refs:
            continue
        baseline = ", ".join(list(topic.keywords)[:BASELINE_KEYWORDS])
        texts = [spell_out(t, acronyms) for t in (topic.label, baseline, *refs)]
        vectors = embed(texts)
        cosines = vectors[2:] @ vectors[:2].T  # [refs, 2]
        best = cosines.argmax(axis=0)
        rows.append(
            {
                "topic_id": int(topic.topic_id),
                "size": int(topic.size),
                "keyworded": int(sizes[topic.topic_id]),
                "label": topic.label,
                "label_score": float(cosines[best[0], 0]),
                "label_match": refs[best[0]],
                "baseline": baseline,
                "baseline_score": float(cosines[best[1], 1]),
                "references": refs,
            }
        )
    return Scored(pd.DataFrame(rows).sort_values("size", ascending=False, ignore_index=True))


def category_corpus(name: str, scratch: Path) -> tuple[Path, dict[str, str]] | None:
    """The seeded sample as a JSON Lines file without categories, and each paper's category by id; None when absent."""
    file_name, size, seed = CATEGORY_CORPORA[name]
    source = DATA.parent / file_name
    if not source.exists():
        return None
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in random.Random(seed).sample(lines.readlines(), size)]
    path = scratch / f"{name}.jsonl"
    path.write_text(
        "".join(json.dumps({"id": r["id"], "title": r["title"], "abstract": r["abstract"]}) + "\n" for r in rows),
        encoding="utf-8",
    )
    return path, {str(r["id"]): r["category"] for r in rows if r.get("category")}


def stock_names(texts: list[str], groups: list[int]) -> dict[int, str]:
    """Stock BERTopic's name of each group of `texts`: the top `STOCK_WORDS` words of its c-TF-IDF, as words."""
    from bertopic.vectorizers import ClassTfidfTransformer
    from sklearn.feature_extraction.text import CountVectorizer

    frame = pd.DataFrame({"text": texts, "group": groups}).groupby("group")["text"].apply(" ".join)
    vectorizer = CountVectorizer(stop_words="english")
    weights = ClassTfidfTransformer().fit_transform(vectorizer.fit_transform(frame.to_numpy())).toarray()
    words = vectorizer.get_feature_names_out()
    return {int(g): " ".join(words[weights[i].argsort()[::-1][:STOCK_WORDS]]) for i, g in enumerate(frame.index)}


def score_fields(build, category_of: dict[str, str], embed, acronyms: dict[str, str]) -> pd.DataFrame:
    """(b) on one build: per group (level "topics", then each theme level, 0 the broadest) its name, its stock
    BERTopic name, their cosines to the closest of its particular categories' names, and those names."""
    from category_names import category_name

    papers = build.papers[build.papers["topic_id"] >= 0]
    papers = papers[papers["id"].astype(str).isin(category_of)]
    ids, topic = papers["id"].astype(str).tolist(), papers["topic_id"].to_numpy()
    levels = [("topics", dict(zip(build.topics["topic_id"], build.topics["label"], strict=True)), topic)]
    for level, table in build.hierarchy.groupby("level"):
        group_of = {
            int(t): int(g) for g, members in zip(table["group_id"], table["topic_ids"], strict=True) for t in members
        }
        labels = dict(zip(table["group_id"].astype(int), table["label"], strict=True))
        levels.append((f"themes {level}", labels, [group_of.get(int(t), -1) for t in topic]))
    in_corpus = Counter(category_of[i] for i in ids)
    rows = []
    for level, labels, groups in levels:
        stock = stock_names(papers["abstract"].tolist(), list(groups))
        members: dict[int, Counter] = {}
        for paper, group in zip(ids, groups, strict=True):
            members.setdefault(int(group), Counter())[category_of[paper]] += 1
        for group, counts in members.items():
            ranked = sorted(
                ((c * math.log(len(ids) / in_corpus[k]), k) for k, c in counts.items() if c >= MIN_USES),
                key=lambda p: -p[0],
            )
            refs = [category_name(k) for _, k in ranked[:REFERENCES]]
            if group < 0 or not refs or group not in labels:
                continue
            vectors = embed([spell_out(labels[group], acronyms), stock[group], *refs])
            cosines = vectors[2:] @ vectors[:2].T
            rows.append(
                {
                    "level": level,
                    "group": group,
                    "size": sum(counts.values()),
                    "label": labels[group],
                    "label_score": float(cosines[:, 0].max()),
                    "stock": stock[group],
                    "stock_score": float(cosines[:, 1].max()),
                    "references": refs,
                }
            )
    return pd.DataFrame(rows)


def name_ceiling(build, table: pd.DataFrame, embed, acronyms: dict[str, str]) -> list[float]:
    """Per row of `score_fields`' table, the cosine of the group's best candidate name to its categories: its own
    name, its keywords that the naming rules accept as names (`is_name`, with the corpus's bound and generic words)
    and, for a theme, its topics' labels. Chosen with the categories in view, so a ceiling for names drawn from the
    build's own words, not a name a rule could choose blind: the ceiling's pick for "KV cache" is "computation"."""
    from topic_explorer.pipeline.describe.boundwords import bound_words
    from topic_explorer.pipeline.describe.labels import is_name
    from topic_explorer.pipeline.describe.naming_terms import generic_terms
    from topic_explorer.pipeline.describe.terms import PaperTerms

    papers = build.papers[build.papers["topic_id"] >= 0]
    abstracts, topic = papers["abstract"].tolist(), papers["topic_id"].to_numpy()
    generic = generic_terms(PaperTerms.count(abstracts).topic_counts(topic, np.unique(topic)))
    bound = bound_words(abstracts)
    topics = build.topics["topic_id"].astype(int)
    labels = dict(zip(topics, build.topics["label"], strict=True))
    own = {("topics", t): (list(k), []) for t, k in zip(topics, build.topics["keywords"], strict=True)}
    for row in build.hierarchy.itertuples():
        own[(f"themes {row.level}", int(row.group_id))] = (list(row.keywords), [labels[int(t)] for t in row.topic_ids])
    best = []
    for row in table.itertuples():
        keywords, parts = own[(row.level, row.group)]
        candidates = [row.label, *(k for k in keywords if is_name(k, bound, generic)), *parts]
        vectors = embed([*(spell_out(c, acronyms) for c in candidates), *row.references])
        best.append(float((vectors[len(candidates) :] @ vectors[: len(candidates)].T).max()))
    return best


def field_report(name: str, table: pd.DataFrame) -> str:
    """Per level: mean cosine of our names, of stock BERTopic's and of the ceiling, then the topics' lines."""
    lines = [f"{name}: field names (b)"]
    for level, rows in table.groupby("level", sort=False):
        lines.append(
            f"  {level:<9} {len(rows):>3} groups  labels mean {rows['label_score'].mean():.3f}"
            f" (min {rows['label_score'].min():.2f})  stock BERTopic mean {rows['stock_score'].mean():.3f}"
            f"  best own name (ceiling) mean {rows['ceiling'].mean():.3f}"
        )
    for row in table.sort_values(["level", "size"], ascending=[True, False]).itertuples():
        lines.append(
            f"    {row.level:<9} {row.size:>5} {row.label_score:.2f} {row.label!r:<55} stock {row.stock_score:.2f}"
            f" {row.stock!r:<40} ~ {', '.join(row.references)}"
        )
    return "\n".join(lines)


def report(name: str, scored: Scored) -> str:
    """The per-topic lines and the figures, as printed."""
    lines = [f"{name}: {len(scored.table)} topics scored"]
    for row in scored.table.itertuples():
        lines.append(
            f"  {row.topic_id:>3} {row.size:>5}  {row.label_score:.2f} {row.label!r:<45} ~ {row.label_match!r:<32}"
            f" baseline {row.baseline_score:.2f}  refs: {', '.join(row.references)}"
        )
    for column, what in (("label_score", "labels"), ("baseline_score", "first three keywords")):
        f = scored.figures(column)
        lines.append(f"  {what:<22} mean {f['mean']:.3f}  min {f['min']:.3f}  below {LOW:.2f}: {f['below']:.0%}")
    return "\n".join(lines)


def measure(
    name: str, scratch: Path, build_dir: Path | None = None, *, rebuild: bool = True, settings: dict | None = None
):
    """Build the corpus into `build_dir` (or read it there when `rebuild` is false; `settings` for `BuildSettings`)
    and score it: (the build as read, Scored for the keyworded corpora or a field-name table for the others); None
    when the data is absent."""
    from topic_explorer.pipeline.buildfolder.read import read_build
    from topic_explorer.pipeline.embed.models import make_embedder
    from topic_explorer.pipeline.run.build import run_build
    from topic_explorer.pipeline.settings import BuildSettings
    from topic_explorer.pipeline.text.acronyms import corpus_acronyms

    made = category_corpus(name, scratch) if name in CATEGORY_CORPORA else corpus(name, scratch)
    if made is None:
        return None
    path, references = made
    build_dir = build_dir or scratch / f"{name}-build"
    if rebuild:
        print(f"building {name} ...", file=sys.stderr, flush=True)
        run_build([path], build_dir, BuildSettings(**(settings or {})))
    build = read_build(build_dir)
    acronyms = corpus_acronyms(build.papers["abstract"].tolist())
    embed = make_embedder("minilm").transform
    if name in CATEGORY_CORPORA:
        table = score_fields(build, references, embed, acronyms)
        return build, table.assign(ceiling=name_ceiling(build, table, embed, acronyms))
    return build, score_build(build, references, embed, acronyms)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    corpora = ["keyworded", "mixed", *CATEGORY_CORPORA]
    parser.add_argument("--corpora", nargs="+", choices=corpora, default=corpora)
    parser.add_argument("--embedder", choices=("minilm", "tfidf"), default="minilm", help="the builds' embedder")
    parser.add_argument("--cache-dir", type=Path, help="the builds' embedding cache (e.g. /work/embcache)")
    parser.add_argument("--out", type=Path, help="keep the builds in this folder (one per corpus)")
    parser.add_argument("--score-only", action="store_true", help="score the builds already in --out")
    parser.add_argument("--json", type=Path, help="also write the per-topic scores here")
    args = parser.parse_args()
    if args.score_only and not args.out:
        parser.error("--score-only reads the builds in --out: give --out")
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.corpora:
            build_dir = args.out / name if args.out else None
            settings = {"embedder": args.embedder} | ({"cache_dir": args.cache_dir} if args.cache_dir else {})
            measured = measure(name, Path(scratch), build_dir, rebuild=not args.score_only, settings=settings)
            if measured is None:
                print(f"skipping {name}: its data in {DATA.parent} not found", file=sys.stderr)
                continue
            if name in CATEGORY_CORPORA:
                print(field_report(name, measured[1]), flush=True)
                results[name] = {"fields": measured[1].to_dict(orient="records")}
                continue
            scored = measured[1]
            print(report(name, scored), flush=True)
            results[name] = {
                "labels": scored.figures("label_score"),
                "baseline": scored.figures("baseline_score"),
                "topics": scored.table.to_dict(orient="records"),
            }
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
