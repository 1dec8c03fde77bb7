"""Search a build: ranked by meaning and words fused (`ranked`), the words' BM25 index (`word_index`)."""
