"""Topic-quality measures: coherence, diversity, outliers, sizes, agreement with labels.

- Coherence: NPMI of each topic's top-10 keywords, by document co-occurrence in the
  corpus itself (a keyword "occurs" in a paper when its words appear there in sequence).
  -1: never together; 0: independent; 1: always together.
- Diversity: the share of distinct keywords among every topic's top 25 (1 = no repeats).
- Agreement with a label column (e.g. a venue's field): NMI, ARI and purity.

The same functions score our builds, `topic-explorer evaluate` and stock BERTopic in the
benchmark, so the numbers are comparable. Topic -1 (outliers) is left out of coherence
and diversity.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import CountVectorizer

from topic_explorer.pipeline.cache.store import ResultCache, read_frame, read_values, write_frame, write_values
from topic_explorer.pipeline.text.clean import clean_for_keywords

COHERENCE_TOP_N = 10
DIVERSITY_TOP_N = 25


def normalise_term(term: str) -> str:
    """Keywords compare lowercase, hyphens as spaces ("KV-cache" == "kv cache")."""
    return " ".join(term.lower().replace("-", " ").split())


def coherence_per_topic(texts: list[str], keyword_lists: list[list[str]], top_n: int = COHERENCE_TOP_N) -> list[float]:
    """Mean pairwise NPMI of each topic's first `top_n` keywords (nan for fewer than 2)."""
    tops = [list(dict.fromkeys(normalise_term(k) for k in keywords[:top_n])) for keywords in keyword_lists]
    vocabulary = sorted({term for top in tops for term in top})
    if not vocabulary:
        return [float("nan")] * len(tops)
    longest = max(len(term.split()) for term in vocabulary)
    vectorizer = CountVectorizer(
        vocabulary=vocabulary,
        preprocessor=clean_for_keywords,
        token_pattern=r"(?u)\b\w+\b",
        ngram_range=(1, longest),
        binary=True,
    )
    present = vectorizer.transform(texts).tocsc().astype(np.float64)
    n_docs = max(len(texts), 1)
    index = {term: i for i, term in enumerate(vocabulary)}
    scores = []
    for top in tops:
        columns = [index[t] for t in top]
        if len(columns) < 2:
            scores.append(float("nan"))
            continue
        sub = present[:, columns]
        together = (sub.T @ sub).toarray() / n_docs
        alone = np.diag(together)
        pairs = [
            _npmi(together[i, j], alone[i], alone[j]) for i in range(len(columns)) for j in range(i + 1, len(columns))
        ]
        scores.append(float(np.mean(pairs)))
    return scores


def _npmi(p_ij: float, p_i: float, p_j: float) -> float:
    if p_ij <= 0:
        return -1.0
    if p_ij >= 1:
        return 1.0
    return float(np.log(p_ij / (p_i * p_j)) / -np.log(p_ij))


def diversity(keyword_lists: list[list[str]], top_n: int = DIVERSITY_TOP_N) -> float:
    """Distinct keywords over all keywords, among each topic's first `top_n`."""
    tops = [[normalise_term(k) for k in keywords[:top_n]] for keywords in keyword_lists]
    total = sum(len(top) for top in tops)
    return len({term for top in tops for term in top}) / total if total else float("nan")


def label_agreement(topic_id: np.ndarray, labels: pd.Series) -> dict[str, float]:
    """How well topics line up with known labels: NMI, ARI and purity (papers with a label)."""
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    known = labels.notna().to_numpy() & (labels.astype(str).str.strip() != "").to_numpy()
    topics, truth = np.asarray(topic_id)[known], labels[known].astype(str).to_numpy()
    if len(truth) == 0:
        return {"nmi": float("nan"), "ari": float("nan"), "purity": float("nan"), "labelled_papers": 0}
    table = pd.crosstab(topics, truth)
    return {
        "nmi": float(normalized_mutual_info_score(truth, topics)),
        "ari": float(adjusted_rand_score(truth, topics)),
        "purity": float(table.max(axis=1).sum() / len(truth)),
        "labelled_papers": len(truth),
    }


@dataclass
class Quality:
    """Every figure `evaluate` reports; `per_topic` holds topic_id, label, size, coherence."""

    coherence: float
    diversity: float
    poorly_fitting_share: float
    n_topics: int
    sizes: dict[str, float]
    per_topic: pd.DataFrame
    agreement: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict:
        """JSON-ready figures (no per-topic table)."""
        result = {
            "coherence_npmi": self.coherence,
            "diversity": self.diversity,
            "poorly_fitting_share": self.poorly_fitting_share,
            "topics": self.n_topics,
            "topic_sizes": self.sizes,
        }
        if self.agreement:
            result["agreement"] = self.agreement
        return result


def assess(
    texts: list[str],
    topic_id: np.ndarray,
    fits_poorly: np.ndarray,
    topics: pd.DataFrame,
    labels: pd.Series | None = None,
) -> Quality:
    """Score one topic model: `topics` has topic_id, label and keywords (best first)."""
    real = topics[topics["topic_id"] >= 0].reset_index(drop=True)
    keyword_lists = [list(k) for k in real["keywords"]]
    per_topic = real[["topic_id", "label"]].copy()
    per_topic["size"] = [int((np.asarray(topic_id) == t).sum()) for t in real["topic_id"]]
    per_topic["coherence"] = coherence_per_topic(texts, keyword_lists)
    sizes = per_topic["size"].to_numpy()
    return Quality(
        coherence=float(np.nanmean(per_topic["coherence"])) if len(per_topic) else float("nan"),
        diversity=diversity(keyword_lists),
        poorly_fitting_share=float(np.mean(fits_poorly)) if len(fits_poorly) else 0.0,
        n_topics=len(per_topic),
        sizes={
            "smallest": int(sizes.min()) if len(sizes) else 0,
            "median": float(np.median(sizes)) if len(sizes) else 0.0,
            "largest": int(sizes.max()) if len(sizes) else 0,
            "largest_share": float(sizes.max() / len(topic_id)) if len(sizes) else 0.0,
        },
        per_topic=per_topic,
        agreement=label_agreement(topic_id, labels) if labels is not None else {},
    )


def remembered_assess(
    results: ResultCache, texts: list[str], topic_id: np.ndarray, fits_poorly: np.ndarray, topics: pd.DataFrame
) -> Quality:
    """`assess` without labels, or its result from the result cache; keyed by everything it takes."""

    def write(found: Quality, folder: Path) -> None:
        values = {name: getattr(found, name) for name in ("coherence", "diversity", "poorly_fitting_share", "n_topics")}
        write_values(folder, values | {"sizes": found.sizes, "agreement": found.agreement})
        write_frame(folder, "per_topic", found.per_topic)

    def read(folder: Path) -> Quality:
        return Quality(**read_values(folder), per_topic=read_frame(folder, "per_topic"))

    scored = [texts, topic_id, fits_poorly, topics]
    return results.run("evaluate", scored, lambda: assess(*scored), write=write, read=read)
