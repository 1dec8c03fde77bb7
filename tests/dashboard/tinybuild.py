"""A tiny hand-made corpus for the dashboard's tests: eight papers, three topics, hostile text, odd metadata."""

from __future__ import annotations

import numpy as np
import pandas as pd

HOSTILE_TITLE = '=HYPERLINK("http://example.com", "click")'
HOSTILE_ABSTRACT = "<b>bold</b> <script>alert('x')</script> and *JME* with $\\mathbf{S}$ markup."


def tiny_papers() -> pd.DataFrame:
    """Eight papers in three topics, with hostile text and every kind of metadata column."""
    n = 8
    return pd.DataFrame(
        {
            "paper_id": [f"p{i:012x}" for i in range(n)],
            "title": [
                HOSTILE_TITLE,
                "Federated learning at scale",
                "+SUM(1,2)",
                "@user mentions",
                "-minus first",
                "Tab\tstart",
                "Privacy in federated LoRA",
                "Ünïcödé títle 中文",
            ],
            "abstract": [
                HOSTILE_ABSTRACT,
                "We study FEDERATED learning and privacy.",
                "Plain abstract about graphs.",
                "Another about graphs and privacy.",
                "Reinforcement learning rewards.",
                "\rCarriage return start.",
                "Federated privacy with low-rank adapters.",
                "Ünïcödé abstract.",
            ],
            "topic_id": [0, 0, 1, 1, 2, 2, 0, 1],
            "topic_label": ["Federated, privacy"] * 2
            + ["Graphs"] * 2
            + ["Rewards"] * 2
            + ["Federated, privacy", "Graphs"],
            "confidence": np.linspace(0.3, 0.9, n),
            "fits_poorly": [False] * n,
            "x": np.array([0.1, 0.15, 0.5, 0.55, 0.9, 0.85, 0.12, 0.52], dtype=np.float32),
            "y": np.array([0.1, 0.2, 0.5, 0.6, 0.9, 0.8, 0.15, 0.55], dtype=np.float32),
            "year": [2020, 2021, 2022, 2023, 2020, 2021, 2022, 2023],
            "venue": ["ICML", "NeurIPS", "ICML", "NeurIPS", "ICLR", "ICML", "NeurIPS", "ICLR"],
            "doi": [f"10.5555/{i:04d}" for i in range(n)],
            "arxiv_id": [
                "2601.14530",
                "2510.16470",
                "0704.0001",
                "hep-th/9901001",
                "not an id",
                None,
                "2401.00001",
                "x",
            ],
            "score": [1.5, np.nan, 2.5, 3.0, 0.5, 1.0, 2.0, 4.0],
            "keywords": ["user kw"] * n,
        }
    )


def tiny_topics() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "topic_id": [0, 1, 2],
            "label": ["Federated, privacy", "Graphs", "Rewards"],
            "keywords": [[f"kw{t}-{i}" for i in range(25)] for t in range(3)],
            "keyword_weights": [[1.0 - i / 25 for i in range(25)] for _ in range(3)],
            "size": [3, 3, 2],
            "named": [False, False, False],
            "coherence": [0.3, -0.2, np.nan],
        }
    )


# Script and markup that must show as text everywhere: an <img> whose onerror runs, a javascript: link, markdown.
XSS = '<img src=x onerror="window.__xss=1"> [click](javascript:window.__xss=2) **bold** <script>window.__xss=3</script>'


def hostile_papers() -> pd.DataFrame:
    """`tiny_papers` with script and markup in every text field, metadata names and values included."""
    papers = tiny_papers()
    for column in ("title", "abstract", "venue", "doi"):
        papers[column] = [f"{XSS} {column} {i % 3}" for i in range(len(papers))]
    papers["topic_label"] = [f"{XSS} topic {t}" for t in papers["topic_id"]]
    papers["keywords"] = [f"{XSS} {i % 2}" for i in range(len(papers))]
    return papers.rename(columns={"keywords": XSS})  # a metadata column named with script, and so a filter


def hostile_topics() -> pd.DataFrame:
    topics = tiny_topics()
    topics["label"] = [f"{XSS} topic {t}" for t in topics["topic_id"]]
    topics["keywords"] = [[f"{XSS} {i}" for i in range(25)] for _ in topics["topic_id"]]
    return topics


HOSTILE_MANIFEST = {"created_at": XSS, "embedder": {"name": XSS}, "seed": 1, "quality": {"coherence_npmi": 0.1}}
HOSTILE_FOLDER = 'x <img src=x onerror="window.__xss=4"> [a](javascript:window.__xss=5)'
