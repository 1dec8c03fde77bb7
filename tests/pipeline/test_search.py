"""Search (meaning and words fused) and similar papers: the ranking, the commands, and the sample's done-when checks."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tests.conftest import FakeEmbedder
from tests.sample_groups import FEDERATED, FEDERATED_LORA, PAPERS
from topic_explorer.pipeline.buildfolder.read import read_build
from topic_explorer.pipeline.cli.main import main
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.ingest.corpus import load_corpus, sample_files
from topic_explorer.pipeline.search.ranked import (
    best,
    check_query,
    fuse,
    query_embedder,
    ranks,
    search,
    search_scores,
    similar_rows,
    similarities,
    word_index,
)
from topic_explorer.pipeline.search.tokens import spellings, term, terms
from topic_explorer.pipeline.search.word_index import WordIndex
from topic_explorer.pipeline.text.clean import content_words


def unit_rows(n: int, d: int = 8, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(n, d)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_similarities_are_cosines_whatever_the_chunking(monkeypatch):
    vectors = unit_rows(50)
    monkeypatch.setattr("topic_explorer.pipeline.search.ranked.SIMILARITY_CHUNK", 7)
    assert np.allclose(similarities(vectors, vectors[3]), vectors @ vectors[3], atol=1e-6)


@given(arrays(np.float32, st.integers(1, 60), elements=st.floats(-1, 1, width=32)), st.integers(0, 70))
def test_best_returns_the_highest_scores_best_first_ties_to_the_earlier_row(scores, top):
    ranked = best(scores, top)
    expected = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:top]
    assert ranked.rows.tolist() == expected
    assert np.array_equal(ranked.scores, scores[expected])


def test_best_ranks_only_among_the_papers_that_pass():
    scores = np.array([0.9, 0.1, 0.8, 0.7], dtype=np.float32)
    ranked = best(scores, 2, among=np.array([False, True, True, True]))
    assert ranked.rows.tolist() == [2, 3]


def test_similar_rows_leave_the_paper_itself_out():
    vectors = unit_rows(30)
    ranked = similar_rows(vectors, 5, top=29)
    assert 5 not in ranked.rows
    assert len(ranked.rows) == 29
    assert ranked.rows[0] == int(np.argsort(-(vectors @ vectors[5]))[1])


def test_ranks_count_from_one_best_first_and_tied_scores_share_a_place():
    assert ranks(np.array([0.2, 0.9, 0.2, 0.5], dtype=np.float32)).tolist() == [3, 1, 3, 2]
    assert ranks(np.zeros(0, dtype=np.float32)).tolist() == []


@given(arrays(np.float32, st.integers(1, 80), elements=st.floats(-1, 1, width=32)))
def test_a_rank_is_one_more_than_the_number_of_better_scores(scores):
    assert ranks(scores).tolist() == [1 + int((scores > s).sum()) for s in scores]


def test_words_lift_a_paper_that_the_embedding_ranks_low():
    """Ten papers by meaning; only the eighth says 'clients': fused, it comes first."""
    meaning = np.linspace(0.9, 0.1, 10).astype(np.float32)
    texts = [f"privacy of model {i}" for i in range(10)]
    texts[7] = "training a shared model across many clients"
    words = WordIndex.build(texts).scores("clients")
    assert np.flatnonzero(words).tolist() == [7]
    fused = fuse(meaning, words)
    assert best(fused, 3).rows.tolist() == [7, 0, 1]
    assert best(meaning, 3).rows.tolist() == [0, 1, 2]


def test_a_query_whose_words_no_paper_uses_ranks_by_meaning_alone():
    meaning = np.random.default_rng(3).random(20).astype(np.float32)
    words = WordIndex.build([f"paper number {i}" for i in range(20)]).scores("quantum chromodynamics")
    assert not words.any()
    assert best(fuse(meaning, words), 20).rows.tolist() == best(meaning, 20).rows.tolist()


def test_the_paper_first_by_meaning_and_by_words_scores_one():
    meaning = np.array([0.1, 0.8, 0.3], dtype=np.float32)
    words = np.array([0.0, 2.5, 1.0], dtype=np.float32)
    fused = fuse(meaning, words)
    assert fused[1] == pytest.approx(1.0)
    assert fused[0] < fused[2] < fused[1]


def test_bm25_favours_rare_words_folds_plurals_and_skips_stop_words():
    index = WordIndex.build(
        [
            "a model of the client",
            "a model and a model and a model",
            "model training",
            "model testing",
        ]
    )
    by_rare = index.scores("clients model")
    assert int(np.argmax(by_rare)) == 0  # 'client' is in one paper, 'model' in all four
    assert (index.scores("the and of a") == 0).all()


def test_search_matches_the_words_the_keywords_are_made_of():
    """One tokenizer: a paper's words for search are the keywords' content words (plurals then folded)."""
    for abstract in load_corpus(sample_files()).papers["abstract"]:
        assert [s for s in spellings(abstract) if term(s)] == list(content_words(abstract))
    expected = ["low", "rank", "adaptation", "lora", "model"]
    assert terms("Low-rank adaptation of LoRA models: a novel approach") == expected


def test_hyphenated_and_accented_words_find_their_papers_however_they_are_written():
    index = WordIndex.build(["graph networks", "low rank adaptation", "an école normale study", "the cole conjecture"])
    assert np.flatnonzero(index.scores("low-rank")).tolist() == [1]
    assert np.flatnonzero(index.scores("École")).tolist() == [2]  # the word, not the letters after its accent
    assert (index.scores("novel approach") == 0).all()  # academic filler finds nothing, as it names no topic


def test_a_paper_with_the_query_word_repeated_scores_higher_but_not_without_bound():
    index = WordIndex.build(["graph", "graph graph", "graph " * 50, "other words here"])
    scores = index.scores("graph")
    assert scores[1] > scores[0]
    assert scores[3] == 0
    assert scores[2] < 2.5 * scores[0]  # BM25 saturates: fifty repeats are not fifty times the evidence


def test_search_scores_fuse_the_build_embedders_meaning_with_words(fake_embedder):
    texts = ["federated learning across clients", "image segmentation", "privacy attacks", "graph networks"]
    papers = pd.DataFrame({"title": ["A", "B", "C", "D"], "abstract": texts})
    vectors = fake_embedder.transform(texts)
    scores = search_scores(vectors, word_index(papers), fake_embedder, "clients")
    meaning = similarities(vectors, fake_embedder.transform(["clients"])[0])
    assert np.array_equal(scores, fuse(meaning, word_index(papers).scores("clients")))
    assert int(np.argmax(scores)) == 0


class TorchFakeEmbedder(FakeEmbedder):
    """The fake's vectors, passed through torch in the calling thread, which notes the thread count it ran on."""

    def __init__(self):
        super().__init__()
        self.threads_seen: list[int] = []

    def transform(self, texts):
        import torch

        self.threads_seen.append(torch.get_num_threads())
        return torch.from_numpy(super().transform(texts)).mul(1.0).numpy()


def test_searches_from_several_threads_rank_as_one_at_a_time_and_leave_torch_threads_as_they_were():
    """Regression: each search lowered torch's thread count and put back what it found, unlocked, so searches at once
    (dashboard sessions) could find the lowered count and "restore" it, leaving torch on one thread."""
    import torch

    embedder = TorchFakeEmbedder()
    subjects = ["federated clients", "graph networks", "image segmentation", "privacy attacks"]
    texts = [f"{subjects[i % 4]} study {i}" for i in range(20)]
    vectors, words = embedder.transform(texts), word_index(pd.DataFrame({"title": "", "abstract": texts}))
    queries = subjects * 10
    alone = [search_scores(vectors, words, embedder, query) for query in queries]
    workers = 8
    gate = threading.Barrier(workers, timeout=60)

    def threads_in_each_worker(_):
        gate.wait()  # every worker holds one of these at once, so each reports its own count
        return torch.get_num_threads()

    before = torch.get_num_threads()
    torch.set_num_threads(3)
    try:
        embedder.threads_seen.clear()
        with ThreadPoolExecutor(workers) as pool:
            together = list(pool.map(lambda query: search_scores(vectors, words, embedder, query), queries))
            after = list(pool.map(threads_in_each_worker, range(workers)))
        with ThreadPoolExecutor(1) as fresh:  # a thread that starts its torch work now
            started_after = fresh.submit(torch.get_num_threads).result()
        here = torch.get_num_threads()
    finally:
        torch.set_num_threads(before)
    assert here == 3
    assert started_after == 3
    assert after == [3] * workers
    assert set(embedder.threads_seen) == {1}  # each query embedded on one thread
    for one, other in zip(together, alone, strict=True):
        np.testing.assert_array_equal(one, other)


@pytest.mark.parametrize("query", ["", "   \n\t "])
def test_an_empty_query_is_refused(query):
    with pytest.raises(UserError, match="empty"):
        check_query(query)


def test_a_tfidf_build_is_searched_in_its_own_space(metadata_build):
    build = read_build(metadata_build)
    paper = build.papers.iloc[7]
    ranked = search(build, query_embedder(build.path, build.manifest), paper["abstract"][:600], top=3)
    assert ranked.rows[0] == 7
    assert ranked.scores[0] > 0.8


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_search_command_prints_json_and_a_table(capsys, metadata_build):
    build = read_build(metadata_build)
    query = build.papers["abstract"].iloc[4][:600]
    code, out, _ = run(capsys, "search", metadata_build, query, "--top", "4", "--json")
    rows = json.loads(out)
    assert code == 0
    assert len(rows) == 4
    assert list(rows[0]) == ["paper_id", "score", "topic_id", "topic", "title"]
    assert rows[0]["paper_id"] == build.papers["paper_id"].iloc[4]
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    code, out, _ = run(capsys, "search", metadata_build, query, "--top", "2")
    lines = out.splitlines()
    assert code == 0
    assert len(lines) == 3
    assert build.papers["paper_id"].iloc[4] in lines[1]


def test_hostile_titles_print_on_one_line(capsys, metadata_build):
    """A title is never a terminal escape or a second line (one title starts with '=', one abstract has HTML)."""
    code, out, _ = run(capsys, "search", metadata_build, "HYPERLINK click", "--top", "38")
    assert code == 0
    assert len(out.splitlines()) == 39
    assert "\x1b" not in out


def test_similar_command_lists_neighbours_and_refuses_unknown_ids(capsys, metadata_build):
    build = read_build(metadata_build)
    paper_id = build.papers["paper_id"].iloc[0]
    code, out, _ = run(capsys, "similar", metadata_build, paper_id, "--json")
    rows = json.loads(out)
    assert code == 0
    assert len(rows) == 10
    assert paper_id not in {r["paper_id"] for r in rows}
    code, out, err = run(capsys, "similar", metadata_build, "p000000000000")
    assert code == 2
    assert out == ""
    assert err.startswith("error: no paper 'p000000000000'")
    assert len(err.splitlines()) == 1
    code, _, err = run(capsys, "search", metadata_build, "graphs", "--top", "0")
    assert code == 2
    assert "--top" in err


@pytest.mark.model
def test_the_sample_finds_federated_learning_by_meaning_and_words(capsys, sample_build):
    """By meaning alone, two privacy papers (differential privacy, machine unlearning) came before FOCUS and RoLoRA:
    "privacy-preserving" matches them too. The word "clients" brings the federated papers up."""
    code, out, _ = run(
        capsys, "search", sample_build, "privacy-preserving training of a shared model across many clients", "--json"
    )
    found = [row["paper_id"] for row in json.loads(out)]
    assert code == 0
    assert len(set(found[:5]) & FEDERATED) >= 3
    code, out, _ = run(capsys, "search", sample_build, "federated learning", "--json")
    assert {row["paper_id"] for row in json.loads(out)[: len(FEDERATED)]} == FEDERATED


@pytest.mark.model
def test_the_similar_papers_of_fedask_are_the_other_federated_lora_papers(capsys, sample_build):
    code, out, _ = run(capsys, "similar", sample_build, PAPERS["FedASK"], "--json")
    found = [row["paper_id"] for row in json.loads(out)]
    assert code == 0
    assert set(found[:2]) == FEDERATED_LORA - {PAPERS["FedASK"]}
