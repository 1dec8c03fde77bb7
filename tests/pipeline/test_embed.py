"""Embedders and the embedding cache."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from topic_explorer.pipeline.apply.loop import embed_all
from topic_explorer.pipeline.embed.cache import CacheStats, EmbeddingCache
from topic_explorer.pipeline.embed.models import MiniLMEmbedder, resolve_device
from topic_explorer.pipeline.embed.tfidf import TfidfEmbedder
from topic_explorer.pipeline.errors import UserError
from topic_explorer.pipeline.ingest.corpus import load_corpus, sample_files
from topic_explorer.pipeline.settings import TWO_PAPERS_FROM


def test_cache_embeds_each_text_once_across_calls_and_processes(tmp_path, fake_embedder):
    texts = ["alpha beta", "gamma delta", "alpha beta"]
    first = embed_all(texts, fake_embedder, EmbeddingCache(tmp_path, fake_embedder.name))
    stats = CacheStats()
    second = embed_all(
        [*texts, "new text here"], fake_embedder, EmbeddingCache(tmp_path, fake_embedder.name), stats=stats
    )
    assert fake_embedder.calls == [2, 1]  # two distinct texts, then only the new one
    assert (stats.reused, stats.embedded) == (2, 1)
    np.testing.assert_array_equal(first, second[:3])


def test_cache_keys_include_the_model_so_another_model_recomputes(tmp_path, fake_embedder):
    embed_all(["alpha beta"], fake_embedder, EmbeddingCache(tmp_path, fake_embedder.name))
    embed_all(["alpha beta"], fake_embedder, EmbeddingCache(tmp_path, "another-model"))
    assert fake_embedder.calls == [1, 1]


def test_a_cache_without_a_folder_keeps_nothing(fake_embedder):
    cache = EmbeddingCache(None, fake_embedder.name)
    embed_all(["alpha beta"], fake_embedder, cache)
    embed_all(["alpha beta"], fake_embedder, cache)
    assert fake_embedder.calls == [1, 1]


def test_tfidf_space_saved_as_arrays_embeds_exactly_as_the_fitted_one():
    texts = load_corpus(sample_files()).papers["abstract"].tolist()
    fitted = TfidfEmbedder(seed=1).fit(texts)
    state = fitted.state()
    assert all(isinstance(value, np.ndarray) and value.dtype != object for value in state.values())
    restored = TfidfEmbedder.from_state(state)
    np.testing.assert_array_equal(
        restored.transform([*texts[:5], "a new text"]), fitted.transform([*texts[:5], "a new text"])
    )


def test_tfidf_fit_in_chunks_is_tfidfvectorizers_fit_bit_for_bit():
    """The vocabulary (the most used terms, ties at the cut included), idf weights, SVD and vectors that
    TfidfVectorizer(min_df=2, max_features).fit_transform and TruncatedSVD gave before the count in chunks."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    from topic_explorer.pipeline.text.clean import STOP_WORDS, TOKEN_PATTERN, clean_for_keywords

    abstracts = load_corpus(sample_files()).papers["abstract"].tolist()
    halves = [(a[: len(a) // 2], a[len(a) // 2 :]) for a in abstracts]
    texts = [halves[i][0] + halves[(i + shift) % len(halves)][1] for shift in (1, 2, 5) for i in range(len(halves))]
    vectorizer = TfidfVectorizer(
        preprocessor=clean_for_keywords, token_pattern=TOKEN_PATTERN, stop_words=sorted(STOP_WORDS),
        ngram_range=(1, 2), max_features=300, sublinear_tf=True, min_df=2,
    )  # fmt: skip
    matrix = vectorizer.fit_transform(texts)
    components = TruncatedSVD(n_components=32, random_state=1).fit(matrix).components_
    assert len(texts) >= TWO_PAPERS_FROM
    totals = np.asarray(CountVectorizer(vocabulary=vectorizer.vocabulary_, analyzer=vectorizer.build_analyzer())
                        .transform(texts).sum(axis=0)).ravel()  # fmt: skip
    assert (totals == totals.min()).sum() > 1  # terms tied at the cut: the same sort must break the tie

    embedder = TfidfEmbedder(dimensions=32, seed=1, max_terms=300).fit(texts)
    state = embedder.state()
    assert state["terms"].tolist() == vectorizer.get_feature_names_out().tolist()
    np.testing.assert_array_equal(state["idf"], vectorizer.idf_)
    np.testing.assert_array_equal(state["components"], components)
    expected = vectorizer.transform(texts[:20]) @ components.T
    expected = (expected / np.linalg.norm(expected, axis=1, keepdims=True)).astype(np.float32)
    np.testing.assert_array_equal(embedder.transform(texts[:20]), expected)


def test_tfidf_fit_on_papers_of_stop_words_only_is_one_clear_error():
    with pytest.raises(UserError, match="share no words for the TF-IDF embedder"):
        TfidfEmbedder().fit(["the and of", "it is what it is"] * 60)


def test_asking_for_a_gpu_that_is_not_there_is_one_clear_error():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(UserError, match="--device cuda: torch sees no such device"):
        resolve_device("cuda")
    assert resolve_device("auto") in ("cpu", "mps")


def test_tfidf_embedder_gives_unit_vectors_and_embeds_new_text_in_the_same_space():
    texts = load_corpus(sample_files()).papers["abstract"].tolist()
    embedder = TfidfEmbedder(seed=1).fit(texts)
    vectors = embedder.transform(texts)
    assert vectors.shape[0] == 38
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    query = embedder.transform(["federated learning clients"])
    federated = [i for i, t in enumerate(texts) if t.lower().count("federated") >= 2]
    assert set(np.argsort(-(vectors @ query[0]))[:3]) & set(federated)


@pytest.mark.model
def test_minilm_windows_cover_the_whole_of_a_long_abstract():
    embedder = MiniLMEmbedder()
    model = embedder._load()
    long_text = " ".join(load_corpus(sample_files()).papers["abstract"].head(3))
    windows = embedder._windows(model, long_text)
    assert len(windows) > 2
    assert all(n <= embedder.window - 2 for _, n in windows)
    assert windows[0][0].startswith(long_text[:30])
    assert windows[-1][0].endswith(long_text[-30:])


@pytest.mark.model
def test_minilm_reads_past_the_first_256_tokens():
    embedder = MiniLMEmbedder()
    head = load_corpus(sample_files()).papers["abstract"][0]
    tail_a = " Finally, we evaluate on protein folding and molecular dynamics benchmarks." * 8
    tail_b = " Finally, we evaluate on image classification and object detection benchmarks." * 8
    a, b = embedder.transform([head + tail_a, head + tail_b])
    assert float(a @ b) < 0.99  # a truncating model would see the same first 256 tokens
    np.testing.assert_allclose(np.linalg.norm(a), 1.0, rtol=1e-5)


@pytest.mark.model
def test_minilm_runs_the_passes_of_every_call_on_the_same_threads(monkeypatch):
    """A pool of new threads per block of texts left torch's per-thread memory behind with every finished thread: a
    19,308-abstract build grew by 1,100 MiB (benchmarks/embed_memory.py)."""
    import threading

    embedder = MiniLMEmbedder(device="cpu")
    texts = load_corpus(sample_files()).papers["abstract"].tolist()
    encode = embedder._encode_pieces
    ran_on: list[list[threading.Thread]] = []  # the thread objects themselves: a new thread may reuse an old's id

    def recorded(model, pieces):
        ran_on[-1].append(threading.current_thread())
        return encode(model, pieces)

    monkeypatch.setattr(embedder, "_encode_pieces", recorded)
    calls = []
    for _ in range(3):
        ran_on.append([])
        calls.append(embedder.transform(texts))
    import torch

    threads = set().union(*ran_on)
    assert all(len(passes) > 2 for passes in ran_on)
    assert threading.main_thread() not in threads  # the passes ran on the pool
    assert len(threads) <= torch.get_num_threads()  # three calls, one pool: no thread more than it has cores
    np.testing.assert_array_equal(calls[0], calls[2])


@pytest.mark.model
def test_minilm_on_two_cores_gives_the_vectors_of_one_encode_call_and_leaves_torch_threads_as_they_were():
    from concurrent.futures import ThreadPoolExecutor

    import torch

    embedder = MiniLMEmbedder(device="cpu")
    model = embedder._load()
    texts = load_corpus(sample_files()).papers["abstract"].tolist()
    pieces = [piece for text in texts for piece, _ in embedder._windows(model, text)]
    assert len(pieces) > 2 * embedder.windows_per_pass  # enough passes for both cores
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with ThreadPoolExecutor(2) as callers:  # two calls at once, as in a Dask worker of two threads
            threaded, again = callers.map(lambda _: embedder._encode(model, pieces), range(2))
        with ThreadPoolExecutor(1) as fresh:  # a thread started now runs torch on the cores it had before
            assert fresh.submit(torch.get_num_threads).result() == 2
        one_call = model.encode(
            pieces, batch_size=embedder.windows_per_pass, convert_to_numpy=True, normalize_embeddings=True
        )
    finally:
        torch.set_num_threads(before)
    np.testing.assert_array_equal(threaded, one_call)  # bit-identical: the cache's vectors stay valid
    np.testing.assert_array_equal(again, one_call)
