"""LaTeX in titles and abstracts shown as text, and never run."""

from __future__ import annotations

import pytest

from topic_explorer.pipeline.text.latex import has_latex, latex_to_text


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("$\\ell_1$-regression with heavy tails", "ℓ₁-regression with heavy tails"),
        ("Streaming PCA with $\\tilde{O}(\\sqrt{n})$ features", "Streaming PCA with Õ(√(n)) features"),
        ("$x_{ij}$ in $\\mathbb{R}^d$ and $O(n^2)$", "xᵢⱼ in ℝᵈ and O(n²)"),
        ("$k$-means \\& friends, \\emph{really}", "k-means & friends, really"),
        ("L'\\'{e}cole d'\\'et\\'e", "L'école d'été"),
        ("costs $5 and $10", "costs $5 and $10"),  # money, not math
        ("50% of $\\alpha$", "50% of α"),  # a percent sign is no comment
        ("only $\\sqrtT$ regret", "only $\\sqrtT$ regret"),  # an unknown macro stays as written, never dropped
        ("A plain title", "A plain title"),
    ],
)
def test_latex_pieces_become_unicode_text_and_the_rest_stays_as_written(written, shown):
    assert latex_to_text(written) == shown


def test_nothing_is_read_or_defined_by_the_text():
    assert "passwd" not in latex_to_text("\\input{/etc/passwd} x")
    assert latex_to_text("\\newcommand{\\x}{BOOM} \\x").count("BOOM") <= 1  # never expanded


def test_plain_text_is_recognised_without_parsing():
    assert not has_latex("A title with $5")
    assert has_latex("$\\beta$-VAE")
