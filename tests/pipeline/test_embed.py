"""Embedders and the embedding cache."""

import numpy as np
import pytest

from pipeline.embed import MiniLMEmbedder, TfidfEmbedder
from pipeline.embed_cache import CachedEmbedder
from pipeline.ingest import load_corpus, sample_files


def test_cache_embeds_each_text_once_across_calls_and_processes(tmp_path, fake_embedder):
    texts = ["alpha beta", "gamma delta", "alpha beta"]
    first = CachedEmbedder(fake_embedder, tmp_path).transform(texts)
    again = CachedEmbedder(fake_embedder, tmp_path)
    second = again.transform([*texts, "new text here"])
    assert fake_embedder.calls == [2, 1]  # two distinct texts, then only the new one
    assert (again.stats.reused, again.stats.embedded) == (2, 1)
    np.testing.assert_array_equal(first, second[:3])


def test_cache_keys_include_the_model_so_another_model_recomputes(tmp_path, fake_embedder):
    CachedEmbedder(fake_embedder, tmp_path).transform(["alpha beta"])
    fake_embedder.name = "another-model"
    CachedEmbedder(fake_embedder, tmp_path).transform(["alpha beta"])
    assert fake_embedder.calls == [1, 1]


def test_tfidf_embedder_gives_unit_vectors_and_embeds_new_text_in_the_same_space():
    texts = load_corpus(sample_files()).papers["abstract"].tolist()
    embedder = TfidfEmbedder(seed=1)
    vectors = embedder.fit_transform(texts)
    assert vectors.shape[0] == 38 and vectors.dtype == np.float32
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
    assert windows[0][0].startswith(long_text[:30]) and windows[-1][0].endswith(long_text[-30:])


@pytest.mark.model
def test_minilm_reads_past_the_first_256_tokens():
    embedder = MiniLMEmbedder()
    head = load_corpus(sample_files()).papers["abstract"][0]
    tail_a = " Finally, we evaluate on protein folding and molecular dynamics benchmarks." * 8
    tail_b = " Finally, we evaluate on image classification and object detection benchmarks." * 8
    a, b = embedder.transform([head + tail_a, head + tail_b])
    assert float(a @ b) < 0.99  # a truncating model would see the same first 256 tokens
    np.testing.assert_allclose(np.linalg.norm(a), 1.0, rtol=1e-5)
