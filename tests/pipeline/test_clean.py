"""Text cleaning: what the keywords' count and the TF-IDF embedder read, and what it keeps in memory."""

from topic_explorer.pipeline.text.clean import clean_for_keywords, strip_markup

TEXT = r"We propose \textbf{Low-Rank} \emph{adapters}, 5\% faster on $\mathbf{S}$ ([1], Smith et al.) at https://x.org."


def test_cleaning_for_keywords_keeps_nothing_in_strip_markups_cache():
    """Every paper of a build is cleaned for the TF-IDF embedder: its intermediate texts must not fill the cache
    that keeps the abstracts' plain text for the names."""
    strip_markup.cache_clear()
    assert clean_for_keywords(TEXT) == "we propose low rank adapters, 5 faster on at"
    assert strip_markup.cache_info().currsize == 0
    assert strip_markup(TEXT) == "We propose Low-Rank adapters, 5% faster on S ([1], Smith et al.) at https://x.org."
    assert strip_markup.cache_info().currsize == 1
