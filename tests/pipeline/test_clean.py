"""Text cleaning: what the keywords' count and the TF-IDF embedder read, and what it keeps in memory."""

import pytest

from topic_explorer.pipeline.text.clean import (
    clean_for_keywords,
    content_words,
    phrases,
    strip_markup,
    without_contractions,
)

TEXT = r"We propose \textbf{Low-Rank} \emph{adapters}, 5\% faster on $\mathbf{S}$ ([1], Smith et al.) at https://x.org."


def test_cleaning_for_keywords_keeps_nothing_in_strip_markups_cache():
    """Every paper of a build is cleaned for the TF-IDF embedder: its intermediate texts must not fill the cache
    that keeps the abstracts' plain text for the names."""
    strip_markup.cache_clear()
    assert clean_for_keywords(TEXT) == "we propose low rank adapters, 5 faster on at"
    assert strip_markup.cache_info().currsize == 0
    assert strip_markup(TEXT) == "We propose Low-Rank adapters, 5% faster on S ([1], Smith et al.) at https://x.org."
    assert strip_markup.cache_info().currsize == 1


@pytest.mark.parametrize("apostrophe", ["'", "\u2019"])
def test_a_contraction_is_no_word_and_joins_no_phrase(apostrophe):
    """Newsgroup posts' "don't know" and "it's true" made names such as "T know" and "S true"."""
    text = "I don't know why this model isn't shown. It's true, we'll see; they're sure I'd agree"
    text = text.replace("'", apostrophe)
    assert phrases(text) == ["know", "model", "true", "sure", "agree"]  # not "t know", "s true", "don" or "ll"
    assert list(content_words(text)) == ["know", "model", "true", "sure", "agree"]


def test_a_possessive_is_no_contraction():
    """Left as it was: made no word too, it moved the scorecard's topics with no name to mend (docs/benchmarks.md)."""
    assert without_contractions("The model's ability, the clients' data") == "The model's ability, the clients' data"


def test_an_apostrophe_inside_a_name_or_a_quote_keeps_its_words():
    assert set(phrases("O'Reilly wrote 'attention heads' and students' essays")) == {
        "o", "reilly", "wrote", "reilly wrote", "attention", "heads", "attention heads", "students", "essays",
    }  # fmt: skip
